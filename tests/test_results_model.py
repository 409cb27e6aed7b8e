"""The result file is a type (issue 14): measure.results.Result, loaded strictly by the store.

Every committed result file loads; a malformed one is a StoreError naming the file and the
dotted key, in the store, in `glossary check` and in `mkdocs build` (never a traceback);
what record_success, record_failure and the test fixtures write still loads.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import ROOT, mkdocs, write_project
from measure import harness, results, store

COMMITTED = sorted((ROOT / "entries").glob("*/results/*.json"))
H200 = ROOT / "entries" / "kernel-fusion" / "results" / "nvidia-h200.json"
T4 = ROOT / "entries" / "kernel-fusion" / "results" / "tesla-t4.json"


def _place(tmp_path: Path, data: dict | str, slug: str = "kernel-fusion", device: str = "nvidia-h200") -> Path:
    path = tmp_path / slug / "results" / f"{device}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _refused(path: Path) -> str:
    with pytest.raises(store.StoreError) as caught:
        store.load_file(path)
    return str(caught.value)


def _h200() -> dict:
    return json.loads(H200.read_text())


# -- what is committed -------------------------------------------------------------------------


def test_the_committed_files_are_found():
    assert H200 in COMMITTED and T4 in COMMITTED and len(COMMITTED) >= 5


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_committed_result_file_loads(path):
    typed = store.load_file(path)
    assert isinstance(typed, results.Result)
    assert typed.plain() == json.loads(path.read_text())  # the data as written, for signatures and the site
    assert typed.entry == path.parent.parent.name and typed.device == path.stem
    assert typed.status == "ok" and typed.method is not None and typed.sizes
    for size in typed.sizes:
        assert size.elements >= 1 and size.params
        for variant in size.variants.values():
            assert getattr(variant.stats, typed.method.statistic) > 0


def test_the_imported_t4_file_keeps_its_notes():
    t4 = store.load_file(T4)
    assert t4.provenance == "imported" and t4.fingerprint is None and t4.imported_from
    staged = t4.sizes[0].variants["staged"]
    assert staged.samples_ms is None and staged.stats.mean == 2.419
    assert staged.counters.flushed.dram_bytes_per_elem is None
    assert "8.8 B/elem" in staged.counters.flushed.per_kernel_note
    assert t4.sizes[0].variants["fused"].counters.flushed.source == "Nsight Compute dram__bytes"


def test_the_shipped_json_schema_is_current():
    shipped = json.loads((ROOT / "schema" / "result.schema.json").read_text())
    assert shipped == results.result_schema(), \
        "regenerate with: python -m measure.results > schema/result.schema.json"
    stats = shipped["$defs"]["Stats"]["properties"]
    assert stats["mean"]["anyOf"][0] == {"type": "number", "exclusiveMinimum": 0}
    assert shipped["$defs"]["Variant"]["additionalProperties"] is False


# -- what is refused ---------------------------------------------------------------------------


def _set(data: dict, dotted: str, value) -> None:
    """Set (or with value ... delete) a key by a path such as 'sizes.0.variants.fused.stats.mean'."""
    *parents, last = dotted.split(".")
    node = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if value is ...:
        del node[int(last) if isinstance(node, list) else last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


BAD = [
    # (what, dotted path to change, new value or ... to delete, key named, words in the message)
    ("unknown top-level key", "colour", "red", "colour", "unknown key"),
    ("unknown variant key", "sizes.0.variants.fused.launchs", 1, "sizes[0].variants.fused.launchs",
     "did you mean 'launches'"),
    ("unknown environment key", "environment.captured_on", "2026-11-29", "environment.captured_on",
     "did you mean 'captured_at'"),
    ("missing elements", "sizes.0.elements", ..., "sizes[0].elements", "required key is missing"),
    ("size without params", "sizes.0.params", ..., "sizes[0].params", "required key is missing"),
    ("empty params", "sizes.0.params", {}, "sizes[0].params", "at least one size parameter"),
    ("variant without stats", "sizes.0.variants.fused.stats", ..., "sizes[0].variants.fused.stats",
     "required key is missing"),
    ("mean of 0", "sizes.0.variants.fused.stats.mean", 0, "sizes[0].variants.fused.stats.mean",
     "expected a number above 0, found 0"),
    ("negative median", "sizes.1.variants.staged.stats.median", -0.5, "sizes[1].variants.staged.stats.median",
     "expected a number above 0, found -0.5"),
    ("elements of 0", "sizes.0.elements", 0, "sizes[0].elements", "expected an integer of at least 1, found 0"),
    ("wrong type", "sizes.0.elements", "many", "sizes[0].elements", "expected an integer, found text 'many'"),
    ("wrong type deep", "sizes.0.copy_floor.gbps", [1], "sizes[0].copy_floor.gbps", "expected a number"),
    ("zero sample", "sizes.0.variants.fused.samples_ms.3", 0.0, "sizes[0].variants.fused.samples_ms[3]",
     "above 0"),
    ("zero copy floor", "sizes.2.copy_floor.gbps", 0, "sizes[2].copy_floor.gbps", "above 0"),
    ("unknown status", "status", "great", "status", "one of: 'ok', 'failed'"),
    ("statistic not recorded", "sizes.0.variants.fused.stats.median", ..., "sizes[0].variants.fused.stats.median",
     "method.statistic is median"),
    ("samples and n disagree", "sizes.0.variants.fused.stats.n", 5, "sizes[0].variants.fused.samples_ms",
     "expected 5 samples"),
    ("no date", "environment.captured_at", "yesterday", "environment.captured_at", "ISO-8601"),
    ("error beside figures", "error", "boom", "error", "only failed results have error"),
    ("figures in a failure", "status", "failed", "error", "required for a failed result"),
    ("entry of another folder", "entry", "roofline", "entry", "expected 'kernel-fusion'"),
    ("device of another file", "device", "tesla-t4", "device", "expected 'nvidia-h200'"),
]


@pytest.mark.parametrize("what,dotted,value,key,says", BAD, ids=[b[0] for b in BAD])
def test_a_malformed_result_names_the_file_and_the_key(tmp_path, what, dotted, value, key, says):
    data = _h200()
    if what == "statistic not recorded":
        data["method"]["statistic"] = "median"
    _set(data, dotted, value)
    path = _place(tmp_path, data)
    message = _refused(path)
    assert message.startswith(f"{path}, key '{key}': "), message
    assert says in message, message


def test_the_brief_example_message(tmp_path):
    data = _h200()
    data["sizes"][0]["variants"]["fused"]["stats"]["mean"] = 0
    path = _place(tmp_path, data)
    assert _refused(path) == f"{path}, key 'sizes[0].variants.fused.stats.mean': expected a number above 0, found 0"


@pytest.mark.parametrize("constant,shown", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity")])
def test_json_nan_and_infinity_are_refused_by_key(tmp_path, constant, shown):
    data = _h200()
    text = json.dumps(data, indent=1)
    marker = f'"max_abs_err": {json.dumps(data["sizes"][0]["check"]["max_abs_err"])}'
    assert text.count(marker) >= 1 and text.index(marker) < text.index('"max_rel_err"')  # sizes[0]'s comes first
    path = _place(tmp_path, text.replace(marker, f'"max_abs_err": {constant}', 1))
    assert _refused(path) == f"{path}, key 'sizes[0].check.max_abs_err': expected a finite number, found {shown}"


def test_a_nan_statistic_in_the_imported_file_is_refused(tmp_path):
    text = T4.read_text().replace('"mean": 0.785', '"mean": NaN')
    path = _place(tmp_path, text, device="tesla-t4")
    assert "key 'sizes[0].variants.fused.stats.mean': expected a finite number, found NaN" in _refused(path)


def test_imported_and_measured_say_where_they_come_from(tmp_path):
    t4 = json.loads(T4.read_text())
    del t4["imported_from"]
    assert "key 'imported_from'" in _refused(_place(tmp_path, t4, device="tesla-t4"))
    h200 = _h200()
    h200["fingerprint"] = None
    assert "key 'fingerprint'" in _refused(_place(tmp_path, h200))


def test_a_result_file_is_bounded_work(tmp_path, monkeypatch):
    assert store.MAX_FILE_BYTES == 16 * 2**20
    path = _place(tmp_path, _h200())
    monkeypatch.setattr(store, "MAX_FILE_BYTES", 50_000)  # the committed file is about 100 KB
    assert "larger than" in _refused(path)
    monkeypatch.undo()
    for text in ("[" * 100_000 + "]" * 100_000, '{"format": 1, "x": ' + "[" * 40 + "]" * 40 + "}"):
        path.write_text(text)
        start = time.monotonic()
        assert "nested more than 32 levels deep" in _refused(path)
        assert time.monotonic() - start < 2
    path.write_text('{"format": 1, "format": 1}')
    assert "key 'format' appears twice" in _refused(path)
    path.write_bytes(b'{"format": 1, "entry": "\xff"}')
    assert "cannot read results file" in _refused(path)


def test_a_large_result_file_is_judged_in_seconds(tmp_path):
    data = _h200()
    fused = data["sizes"][0]["variants"]["fused"]
    fused["samples_ms"] = [0.0068] * 300_000 + [-1.0]  # about 2 MB; the last sample is bad
    fused["stats"]["n"] = len(fused["samples_ms"])
    path = _place(tmp_path, data)
    start = time.monotonic()
    assert "key 'sizes[0].variants.fused.samples_ms[300000]': expected a number above 0, found -1" in _refused(path)
    assert time.monotonic() - start < 10


def test_symlinked_and_special_files_are_refused(tmp_path):
    real = _place(tmp_path, _h200(), slug="roofline")
    link = tmp_path / "kernel-fusion" / "results" / "nvidia-h200.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert "symbolic link" in _refused(link)
    fifo = tmp_path / "kernel-fusion" / "results" / "fifo-gpu.json"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused(fifo)  # and returns at once instead of blocking on the pipe


# -- what the producers write still loads --------------------------------------------------------


def _as_entry(data: dict, slug: str) -> dict:
    return dict(data, entry=slug)


def test_record_success_and_record_failure_write_files_that_load(tmp_path):
    folder = tmp_path / "kernel-fusion"
    measured = {k: v for k, v in _h200().items() if k != "format"}  # as measure_entry returns it
    path = store.record_success(folder, measured)
    fused = measured["sizes"][0]["variants"]["fused"]
    assert store.load_file(path).sizes[0].variants["fused"].stats.n == len(fused["samples_ms"])
    # the failure record is the one measure.harness builds (its producer, called directly)
    failure = harness.failure_record("kernel-fusion", "nvidia-h200", "NVIDIA H200", "sha256:new",
                                     "kernel-fusion: output y is wrong in 3 of 1024 elements")
    store.record_failure(folder, failure)
    kept = store.load_file(path)
    assert kept.status == "ok" and kept.last_failure.error.endswith("1024 elements")
    assert kept.last_failure.environment.gpu == "NVIDIA H200"
    # with no good result, the failure alone is the file
    other = tmp_path / "roofline"
    alone = store.record_failure(other, dict(failure, entry="roofline"))
    failed = store.load_file(alone)
    assert failed.status == "failed" and failed.error and failed.sizes == () and failed.method is None


def test_record_failure_never_replaces_a_good_result_the_model_refuses(tmp_path):
    folder = tmp_path / "kernel-fusion"
    data = _h200()
    data["sizes"][0]["variants"]["fused"]["colour"] = "red"  # e.g. a hand edit
    path = _place(tmp_path, data)
    store.record_failure(folder, {"entry": "kernel-fusion", "device": "nvidia-h200", "fingerprint": "sha256:b",
                                  "error": "boom", "environment": {"gpu": "NVIDIA H200",
                                                                   "captured_at": "2026-12-01T00:00:00Z"}})
    kept = json.loads(path.read_text())
    assert kept["status"] == "ok" and kept["sizes"][0]["variants"]["fused"]["colour"] == "red"
    assert kept["last_failure"]["error"] == "boom"


def test_a_signed_result_and_its_signed_failure_load(tmp_path):
    from measure import attest

    node = attest.Signer.generate()
    data = dict(_h200(), last_failure={"error": "Xid 79", "environment": {"gpu": "NVIDIA H200"}})
    signed = attest.sign_result(data, node)
    typed = store.load_file(_place(tmp_path, signed))
    assert typed.signature.signatures[0].keyid == node.public.keyid
    assert typed.last_failure.signature.payloadType == attest.PAYLOAD_TYPE
    signed["signature"]["signatures"][0]["comment"] = "x"
    assert "key 'signature.signatures[0].comment': unknown key" in _refused(_place(tmp_path, signed))


def test_the_fixture_results_validate(tmp_path, monkeypatch):
    import pool_fakes
    import site_fixture
    from glossary.measuring import pool

    monkeypatch.setenv("FAKE_SLEEP", "0")
    entry_md = tmp_path / "alpha.md"
    entry_md.write_text("---\ntitle: A\nsummary: S\n---\n")
    job = pool.Job(slug="alpha", entry_path=str(entry_md), entries_dir=str(tmp_path), fingerprint="sha256:x",
                   device="fake-gpu")
    path = store.record_success(tmp_path / "alpha", pool_fakes.sleepy(job, lambda line: None))
    assert store.load_file(path).environment.gpu == "Fake GPU"
    sizes = [site_fixture._size(1 << 20, 2900.0, 0.003, 0.0045)]
    fixture = site_fixture.result("fixture-gpu-a", "Fixture GPU A", sizes, l2_bytes=50 << 20)
    assert results.parse(_as_entry(fixture, "stream-triad")).provenance == "imported"


# -- through the build ---------------------------------------------------------------------------

ENTRY = """\
---
title: Kernel fusion
summary: Merging kernels so intermediates stay on chip.
---
Body.
"""


@pytest.mark.parametrize("change,key,says", [
    (lambda d: d["sizes"][0]["variants"]["fused"]["stats"].update(mean=0),
     "sizes[0].variants.fused.stats.mean", "expected a number above 0, found 0"),
    (lambda d: d["sizes"][0].pop("elements"), "sizes[0].elements", "required key is missing"),
    (lambda d: d.update(reviewed="yes"), "reviewed", "unknown key"),
], ids=["mean-0", "no-elements", "unknown-key"])
def test_mkdocs_build_names_the_file_and_key_without_a_traceback(tmp_path, change, key, says):
    data = _h200()
    change(data)
    project = write_project(tmp_path, {"kernel-fusion": ENTRY},
                            {"kernel-fusion/results/nvidia-h200.json": json.dumps(data)})
    run = mkdocs(project, "build")
    log = run.stdout + run.stderr
    assert run.returncode != 0, log
    assert f"kernel-fusion/results/nvidia-h200.json, key '{key}': {says}" in log, log
    assert "Traceback" not in log, log

