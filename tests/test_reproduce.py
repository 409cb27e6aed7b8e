"""Reproductions: another node's signed re-measure of a record, compared number by number.

Fixture keys are the tests' own (gate_fixture.Keys and one more for the reproducing node); the
fixture entry has a size inside the L2 and one past 4x it, sampling intervals, a copy floor and
DRAM counters, as real H200 records do.
"""

from __future__ import annotations

import copy
import io
import json
import logging
from pathlib import Path

import pytest

from rich.console import Console

from conftest import ROOT, mkdocs
from gate_fixture import COPY, Keys, make_project
from glossary.build import GlossaryBuild
from glossary.cli import reproducing
from glossary.entries.model import measurement_fingerprint, parse_entry
from glossary.verdicts import reproduce as reproduce_mod
from glossary.settings import Settings
from glossary.site import strays
from glossary.verdicts import agreement, assess, reproductions, trust
from measure import attest, results, store
from measure import reproduction as statement

L2 = 50 << 20
SMALL, BIG = 1 << 20, 1 << 25  # working sets of 8 MiB (inside the L2) and 256 MiB (past 4x it)
NODE = "h200-node-b"
TWO_SIZES = COPY.replace("sizes: [{n: 1048576}]", f"sizes: [{{n: {SMALL}}}, {{n: {BIG}}}]")


def _size(n: int, scale: float = 1.0, counted: float = 8.02) -> dict:
    ms = 8 * n / 4.0e9 * scale  # 4 TB/s
    def var(bpe, t):
        return {"bytes_per_elem": bpe, "samples_ms": [t * 0.999, t, t * 1.001], "stats": {"n": 3, "mean": t, "median": t},
                "counters": {"flushed": {"dram_bytes_per_elem": counted * bpe / 8, "cache_control": "all"},
                             "unflushed": {"dram_bytes_per_elem": counted * bpe / 8 - 0.5, "cache_control": "none"}}}
    return {"params": {"n": n}, "elements": n, "working_set_bytes": 8 * n,
            "copy_floor": {"gbps": 4100.0 / scale},
            "sampling": {"samples": 3, "median_ci_rel": {"copy": 0.002, "copy2": 0.0071, "__vector_copy": 0.001}},
            "variants": {"copy": var(8, ms), "copy2": var(16, 2 * ms)}}


def record_data() -> dict:
    return {
        "format": 1, "entry": "copy", "device": "nvidia-h200", "status": "ok", "provenance": "measured",
        "fingerprint": "sha256:fixture",  # make_project writes the entry's own
        "environment": {"gpu": "NVIDIA H200", "driver": "580.1", "cuda_driver": "13.0", "nvcc": "V13.0.88",
                        "compile_command": "nvcc -O3 -arch=sm_90", "arch": "sm_90", "l2_bytes": L2,
                        "captured_at": "2026-12-01T10:00:00+00:00", "pci_bus_id": "0000:18:00.0"},
        "method": {"warmups": 1, "runs": 3, "statistic": "mean", "timer": "cuda-events", "target_ci": 0.005},
        "sizes": [_size(SMALL), _size(BIG)],
    }


@pytest.fixture
def keys() -> Keys:
    return Keys.make()


@pytest.fixture
def node_b() -> attest.Signer:
    return attest.Signer.generate()


def project_with(tmp_path: Path, keys: Keys, node_b: attest.Signer, text: str = TWO_SIZES) -> Path:
    project = make_project(tmp_path, text, result=record_data(), keys=keys)
    (project / "trust" / "reproducers.allowed_signers").write_text(
        "# test keys\n" + trust.allowed_signers_line(NODE, node_b.public, trust.REPRODUCTION_NAMESPACE) + "\n")
    return project


def entry_of(project: Path):
    return parse_entry(project / "entries" / "copy.md", project / "entries")


def policy_of(project: Path) -> trust.Trust:
    return Settings.for_project(project / "entries").load_trust()


def reproduction(project: Path, signer: attest.Signer, *, node: str = NODE, scale: float = 1.0,
                 past_scale: float | None = None, digest: str | None = None) -> dict:
    """The content a reproducing node writes (unsigned), its times scaled as another card measures them."""
    entry = entry_of(project)
    record = store.load_file(project / "entries" / "copy" / "results" / "nvidia-h200.json")
    true_digest, keyid = reproductions.record_digest("copy", "nvidia-h200", record, policy_of(project))
    data = copy.deepcopy(record.plain())
    data.pop("signature")
    data["environment"]["captured_at"] = "2026-12-02T09:00:00+00:00"
    for size in data["sizes"]:
        factor = past_scale if past_scale is not None and size["working_set_bytes"] >= 4 * L2 else scale
        for var in size["variants"].values():
            var["stats"]["mean"] *= factor
            var["samples_ms"] = [x * factor for x in var["samples_ms"]]
    assert data["fingerprint"] == measurement_fingerprint(entry)
    return reproductions.make("copy", "nvidia-h200", node, record, digest or true_digest, keyid, data)


def write_signed(project: Path, content: dict, signer: attest.Signer) -> Path:
    return reproductions.write(project / "entries" / "copy", statement.sign_reproduction(content, signer))


def judged(project: Path) -> assess.Assessment:
    return assess.assess_recorded(entry_of(project), policy_of(project))


def build(project: Path) -> GlossaryBuild:
    options = Settings.for_project(project / "entries")
    result = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-reproduce"))
    result.load()
    return result


# -- agreement, pure ------------------------------------------------------------------------


def test_every_published_number_is_compared_and_the_default_tolerance_comes_from_the_stopping_rule(tmp_path, keys,
                                                                                                    node_b):
    project = project_with(tmp_path, keys, node_b)
    spec = entry_of(project).meta.measure
    record = results.parse(record_data())
    again = results.parse(dict(record_data(), sizes=[_size(SMALL, 1.02), _size(BIG, 1.003)]))
    agreed = agreement.compare(spec, record, again)
    whats = {(n.what, n.params["n"]) for n in agreed.numbers}
    for n in (SMALL, BIG):  # each variant's time, both counter passes, the floor, at each size
        assert {("plain copy time", n), ("copy twice time", n), ("copy floor", n),
                ("plain copy DRAM B/elem (caches flushed)", n), ("copy twice DRAM B/elem (caches as timed)", n)} <= whats
    by = {(n.what, n.params["n"]): n for n in agreed.numbers}
    # past 4x the L2: each run's interval, at least the target (0.005): copy 0.005 + 0.005, copy2 0.0071 + 0.0071
    assert by[("plain copy time", BIG)].regime == "past_l2" and by[("plain copy time", BIG)].tolerance == pytest.approx(0.01)
    assert by[("copy twice time", BIG)].tolerance == pytest.approx(0.0142)
    # inside the L2 the same, widened
    assert by[("plain copy time", SMALL)].regime == "inside_l2"
    assert by[("plain copy time", SMALL)].tolerance == pytest.approx(0.01 * agreement.L2_WIDENING)
    assert by[("plain copy time", BIG)].ratio == pytest.approx(1.003)
    assert agreed.agrees
    assert agreed.summary() == "every figure past 4× the L2 within 0.30%; inside the L2 within 2.0%"


def test_a_declared_agreement_is_used_and_leaves_the_measurement_fingerprint_as_it_was(tmp_path, keys, node_b):
    plain = entry_of(project_with(tmp_path, keys, node_b))
    declared_text = TWO_SIZES.replace("  claims:", "  agreement: {past_l2: 0.002, inside_l2: 0.05}\n  claims:")
    declared = entry_of(project_with(tmp_path, keys, node_b, declared_text))
    assert measurement_fingerprint(declared) == measurement_fingerprint(plain)
    record = results.parse(record_data())
    again = results.parse(dict(record_data(), sizes=[_size(SMALL, 1.045), _size(BIG, 1.003)]))
    agreed = agreement.compare(declared.meta.measure, record, again)
    past = [n for n in agreed.numbers if n.regime == "past_l2"]
    assert all(n.declared and n.tolerance == 0.002 for n in past)
    assert not agreed.agrees and {n.regime for n in agreed.outside} == {"past_l2"}


def test_a_number_the_reproduction_lacks_is_outside(tmp_path, keys, node_b):
    spec = entry_of(project_with(tmp_path, keys, node_b)).meta.measure
    record = results.parse(record_data())
    again = results.parse(dict(record_data(), sizes=[_size(BIG)]))
    agreed = agreement.compare(spec, record, again)
    assert not agreed.agrees
    assert all(n.params["n"] == SMALL and n.reproduced is None for n in agreed.outside)


# -- a reproduction on the page --------------------------------------------------------------


def test_an_agreeing_reproduction_is_shown_under_the_measured_table(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    write_signed(project, reproduction(project, node_b, scale=1.021, past_scale=0.997), node_b)
    (checked,) = judged(project).reproductions
    assert checked.status == "agrees" and checked.signer == NODE, checked.reason
    assert not [w for w in judged(project).warnings if w.check == "reproductions"]
    run = mkdocs(project, "build", "--strict")
    assert run.returncode == 0, run.stderr
    page = (project / "site" / "copy" / "index.html").read_text()
    assert "Reproduced on 1 other H200 node: every figure past 4× the L2 within 0.30%; inside the L2 within 2.1%" in page
    assert "Reproductions of this record" in page and NODE in page and "2026-12-02" in page
    details = page[page.index('<details class="info"'):]
    assert details.index("Reproductions of this record") < details.index("</details>")
    assert details.index("driver 580.1") < details.index("</details>")
    assert "driver 580.1" in page


def test_a_disagreeing_reproduction_is_shown_as_such_and_the_record_is_unchanged(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    record_file = project / "entries" / "copy" / "results" / "nvidia-h200.json"
    before = record_file.read_bytes()
    path = write_signed(project, reproduction(project, node_b, past_scale=1.08), node_b)
    judgement = judged(project)
    (checked,) = judgement.reproductions
    assert checked.status == "disagrees"
    assert judgement.publishable  # it never hides the record
    (warning,) = [w for w in judgement.warnings if w.check == "reproductions"]
    assert path.name in warning.message and "disagrees" in warning.message and "1.0800" in warning.message
    site = build(project)
    markdown = site.render_page("copy.md")
    assert "A reproduction disagrees" in markdown and "Reproduced on" not in markdown
    assert record_file.read_bytes() == before
    view = site.models["copy"].devices[0]
    assert view.sizes[1].rows[0].ms == pytest.approx(8 * BIG / 4.0e9)  # the record's figure, as measured
    run = _glossary(project, "check", "copy")
    assert "reproductions" in run.stdout and path.name in run.stdout, run.stdout


# -- refused reproductions ------------------------------------------------------------------


@pytest.mark.parametrize("tamper, why", [
    (lambda d: d["result"]["sizes"][1]["variants"]["copy"]["stats"].update(mean=0.0001),
     "numbers differ from the ones the node signed"),
    (lambda d: d["result"]["environment"].update(driver="999.9"), "content differs from what the node signed"),
    (lambda d: d["record"].update(digest="0" * 64), "record digest differs from the one the node signed"),
])
def test_a_tampered_reproduction_is_refused(tmp_path, keys, node_b, tamper, why):
    project = project_with(tmp_path, keys, node_b)
    path = write_signed(project, reproduction(project, node_b), node_b)
    data = json.loads(path.read_text())
    tamper(data)
    path.write_text(json.dumps(data))
    (checked,) = judged(project).reproductions
    assert checked.status == "refused" and why in checked.reason
    (warning,) = [w for w in judged(project).warnings if w.check == "reproductions"]
    assert path.name in warning.message and "refused" in warning.message
    assert "Reproduc" not in build(project).render_page("copy.md")


def test_a_reproduction_signed_over_a_wrong_record_digest_does_not_count(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    write_signed(project, reproduction(project, node_b, digest="ab" * 32), node_b)
    (checked,) = judged(project).reproductions
    assert not checked.counted and "not the committed one" in checked.reason
    assert "Reproduced on" not in build(project).render_page("copy.md")


def test_a_reproduction_of_an_earlier_record_stops_counting_once_the_record_is_measured_again(tmp_path, keys,
                                                                                              node_b):
    project = project_with(tmp_path, keys, node_b)
    write_signed(project, reproduction(project, node_b), node_b)
    record_file = project / "entries" / "copy" / "results" / "nvidia-h200.json"
    data = json.loads(record_file.read_text())
    data["environment"]["captured_at"] = "2026-12-03T10:00:00+00:00"
    record_file.write_text(json.dumps(attest.sign_result(data, keys.node)))
    (checked,) = judged(project).reproductions
    assert checked.status == "earlier" and "reproduce it again" in checked.reason


@pytest.mark.parametrize("who, why", [
    ("unlisted", "not trusted"),
    ("other-name", "names node 'h200-node-b', but is signed by the key listed for 'h200-node-c'"),
    ("record-key", "the key that signed the record"),
])
def test_a_reproduction_by_a_key_the_site_does_not_count_is_refused(tmp_path, keys, node_b, who, why):
    project = project_with(tmp_path, keys, node_b)
    signer = {"unlisted": attest.Signer.generate(), "other-name": attest.Signer.generate(), "record-key": keys.node}[who]
    lines = [trust.allowed_signers_line(NODE, node_b.public, trust.REPRODUCTION_NAMESPACE)]
    if who == "other-name":
        lines.append(trust.allowed_signers_line("h200-node-c", signer.public, trust.REPRODUCTION_NAMESPACE))
    if who == "record-key":
        lines = [trust.allowed_signers_line(NODE, keys.node.public, trust.REPRODUCTION_NAMESPACE)]
    (project / "trust" / "reproducers.allowed_signers").write_text("\n".join(lines) + "\n")
    write_signed(project, reproduction(project, signer), signer)
    (checked,) = judged(project).reproductions
    assert checked.status == "refused" and why in checked.reason, checked.reason


def test_a_result_key_is_not_a_reproducing_key(tmp_path, keys, node_b):
    """trust/nodes.allowed_signers lists who may sign records, not who may reproduce them."""
    project = project_with(tmp_path, keys, node_b)
    (project / "trust" / "reproducers.allowed_signers").write_text("")
    write_signed(project, reproduction(project, node_b), node_b)
    (checked,) = judged(project).reproductions
    assert checked.status == "refused" and trust.REPRODUCERS_FILE in checked.reason


def test_a_retired_reproducing_key_keeps_what_it_signed_and_nothing_after(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    write_signed(project, reproduction(project, node_b), node_b)
    run = _glossary(project, "node", "retire", NODE, "--reproducer")
    assert run.returncode == 0, run.stderr + run.stdout
    assert "listed 1 reproduction and 0 failure records" in run.stdout, run.stdout
    record = json.loads((project / "trust" / "retired-reproducers" / f"{NODE}.json").read_text())
    assert len(record["signed"]) == 1
    assert NODE not in (project / "trust" / "reproducers.allowed_signers").read_text()
    assert judged(project).reproductions[0].status == "agrees"
    write_signed(project, reproduction(project, node_b, scale=1.001), node_b)  # signed after retirement
    (checked,) = judged(project).reproductions
    assert checked.status == "refused" and "retired" in checked.reason


def test_reproductions_are_not_stray_files_and_do_not_touch_the_review(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    before = judged(project)
    write_signed(project, reproduction(project, node_b), node_b)
    after = judged(project)
    assert after.review.status == before.review.status == "current"
    assert after.publishable
    entries = project / "entries"
    assert not strays.stray_files(entries, {"copy": entry_of(project)})


def test_a_malformed_reproduction_names_the_file_and_the_key(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    path = write_signed(project, reproduction(project, node_b), node_b)
    data = json.loads(path.read_text())
    data["result"]["sizes"][0]["variants"]["copy"]["stats"]["mean"] = -1
    path.write_text(json.dumps(data))
    (checked,) = judged(project).reproductions
    assert checked.status == "refused" and path.name in checked.reason
    assert "result.sizes[0].variants.copy.stats.mean" in checked.reason
    path.write_text('{"format": 1, "format": 1}')
    assert "given twice" in judged(project).reproductions[0].reason


# -- glossary reproduce, with the harness stood in --------------------------------------------


def _gpus(*names: str) -> list[dict]:
    return [{"index": i, "name": n, "pci_bus_id": f"0000:{i:02x}:00.0", "device": store.device_key(n)}
            for i, n in enumerate(names)]


def test_reproduce_measures_compares_signs_and_reports_a_model_without_a_record(tmp_path, keys, node_b, monkeypatch):
    project = project_with(tmp_path, keys, node_b)
    monkeypatch.setenv("FAKE_SCALE", "1.012")
    monkeypatch.setenv("FAKE_SCALE_PAST_L2", "1.002")
    entries = [entry_of(project)]
    reports = reproduce_mod.reproduce(entries, policy_of(project), logging.getLogger("test"), node=NODE,
                                      signer=node_b, target="reproduce_fakes:rerun",
                                      available=_gpus("NVIDIA H200", "Tesla T4"), deadline_s=60)
    by = {r.device: r for r in reports}
    assert by["tesla-t4"].status == "no-record" and "no committed record for tesla-t4" in by["tesla-t4"].reason
    done = by["nvidia-h200"]
    assert done.status == "compared" and done.agreement.agrees and done.path is not None, done.reason
    assert [c[1:] for c in done.claims] == [("holds", "holds")]
    (checked,) = judged(project).reproductions
    assert checked.status == "agrees"
    past = [g for g in checked.agreement.regimes() if g.regime == "past_l2"][0]
    assert past.worst == pytest.approx(0.002, rel=1e-6)
    out = Console(file=io.StringIO(), record=True, width=200)
    assert reproducing.show(out, reports) == 0
    text = out.export_text()
    assert "past 4× the L2" in text and "1.0020" in text and "no record" in text


def test_reproduce_without_a_node_key_compares_but_writes_nothing(tmp_path, keys, node_b, monkeypatch):
    project = project_with(tmp_path, keys, node_b)
    reports = reproduce_mod.reproduce([entry_of(project)], policy_of(project), logging.getLogger("test"), node=NODE,
                                      signer=None, target="reproduce_fakes:rerun", available=_gpus("NVIDIA H200"),
                                      deadline_s=60)
    (report,) = reports
    assert report.status == "compared" and report.path is None and "no node key" in report.unsigned_why
    assert not (project / "entries" / "copy" / "reproductions").exists()


def test_reproduce_does_not_compare_a_stale_or_unverified_record(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    record_file = project / "entries" / "copy" / "results" / "nvidia-h200.json"
    data = json.loads(record_file.read_text())
    data["sizes"][0]["variants"]["copy"]["stats"]["mean"] *= 0.5
    record_file.write_text(json.dumps(data))
    (report,) = reproduce_mod.reproduce([entry_of(project)], policy_of(project), logging.getLogger("test"),
                                        node=NODE, signer=node_b, target="reproduce_fakes:rerun",
                                        available=_gpus("NVIDIA H200"), deadline_s=60)
    assert report.status == "not-compared" and "does not verify" in report.reason


def _glossary(project: Path, *args: str):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "glossary.cli", "--entries", "entries", *args], cwd=project,
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT)))


def test_the_command_wants_entries_or_all_and_a_gpu(tmp_path, keys, node_b):
    project = project_with(tmp_path, keys, node_b)
    bare = _glossary(project, "reproduce")
    assert bare.returncode == 2 and "--all" in bare.stderr
    run = _glossary(project, "reproduce", "copy")
    assert run.returncode == 1 and "no GPU to reproduce on here" in run.stderr, run.stderr
    assert not (project / "entries" / "copy" / "reproductions").exists()


def test_the_command_prints_the_report_and_the_line_to_trust(tmp_path, keys, node_b, monkeypatch):
    """`glossary reproduce --all` end to end, the harness stood in (tests/reproduce_fakes.py)."""
    import functools

    from click.testing import CliRunner

    from glossary.cli import cli
    from glossary.measuring import plan

    project = project_with(tmp_path, keys, node_b)
    (project / "trust" / "reproducers.allowed_signers").write_text("")  # the key is new: not listed yet
    key = tmp_path / "node-b-key"
    node_b.save(key)
    monkeypatch.setenv("GLOSSARY_NODE_KEY", str(key))
    monkeypatch.setenv("FAKE_SCALE_PAST_L2", "1.05")
    monkeypatch.setattr(plan, "available_gpus", lambda: (_gpus("NVIDIA H200"), ""))
    monkeypatch.setattr(reproduce_mod, "reproduce",
                        functools.partial(reproduce_mod.reproduce, target="reproduce_fakes:rerun"))
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["--entries", "entries", "reproduce", "--all", "--node", NODE],
                                catch_exceptions=False)
    assert result.exit_code == 1, result.output  # 5% past 4x the L2: it disagrees
    assert "DISAGREES copy on nvidia-h200" in result.output and "OUTSIDE" in result.output
    assert "claim:" in result.output and "on the record" in result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith(f'{NODE} namespaces="glossary-reproduction"') and node_b.public.line in line
    assert (project / "entries" / "copy" / "reproductions" / f"nvidia-h200-{NODE}.json").exists()


def test_a_real_record_is_compared_number_by_number_in_its_own_regimes():
    """The committed kernel-fusion record on the H200 (counters carried from an earlier run, five
    sizes from inside the L2 to 100x it) against itself with every time 0.4% slower."""
    entries = ROOT / "entries"
    entry = parse_entry(entries / "kernel-fusion.md", entries)
    record = store.load_file(entries / "kernel-fusion" / "results" / "nvidia-h200.json")
    data = copy.deepcopy(record.plain())
    data.pop("signature")
    for size in data["sizes"]:
        for var in size["variants"].values():
            var["stats"] = {k: (v * 1.004 if k in ("mean", "median", "min", "max") else v)
                            for k, v in var["stats"].items()}
    agreed = agreement.compare(entry.meta.measure, record, results.parse(data))
    l2 = record.environment.l2_bytes
    for n in agreed.numbers:
        size = next(s for s in record.sizes if s.params == n.params)
        assert n.regime == agreement.regime_of(size.working_set_bytes, l2)
    regimes = {g.regime: g for g in agreed.regimes()}
    assert {"inside_l2", "past_l2"} <= set(regimes)
    times = [n for n in agreed.numbers if n.kind == "time"]
    assert len(times) == sum(len(s.variants) for s in record.sizes)
    assert all(n.ratio == pytest.approx(1.004) for n in times)
    assert all(n.ratio == pytest.approx(1.0) for n in agreed.numbers if n.kind in ("counter", "floor"))
    assert any(n.kind == "counter" for n in agreed.numbers) and any(n.kind == "floor" for n in agreed.numbers)
    assert agreed.agrees and regimes["past_l2"].worst == pytest.approx(0.004)
