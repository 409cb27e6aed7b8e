"""Bounds the spec did not check (issue 28, item 9): host buffers against host memory, one
measurement's worst-case launches and sampling time, and a result larger than the reader accepts.

Each refusal comes at load time (an EntryError naming the file and the key), except two that only
the node can judge: a result that turns out too large is never written (the measurement fails, the
last good result stays), and the harness refuses host buffers past a share of the node's free memory.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from glossary.entries.model import EntryErrors, load_entries
from glossary.measuring import plan
from measure import store
from measure.harness.workspace import host_shortfall
from measure.spec import budget, limits
from measure.typed import load
from measure.spec import MeasureSpec

import real_glossary

ROOT = Path(__file__).resolve().parents[1]
FRONT = "title: T\nsummary: S.\nauthor: pending\nreviewer: pending\n"


def write_entry(folder: Path, spec: str) -> Path:
    """entries/term.md with this ``measure:`` block, and the kernel and reference it names."""
    path = folder / "term.md"
    path.write_text(f"---\n{FRONT}{spec}---\nBody.\n")
    (folder / "term").mkdir(exist_ok=True)
    (folder / "term" / "k.cu").write_text('extern "C" __global__ void k(const float* x, float* y, long n) {}\n')
    (folder / "term" / "ref.py").write_text("def reference(variant, inputs, scalars, params):\n"
                                            "    return {'y': inputs['x']}\n")
    return path


def refusal(tmp_path: Path, spec: str) -> tuple[str, str]:
    """(key, message) of the one error loading an entry with this ``measure:`` block; the message
    names the file, and no traceback."""
    path = write_entry(tmp_path, spec)
    with pytest.raises(EntryErrors) as caught:
        load_entries(tmp_path)
    (err,) = caught.value.errors
    assert str(err).startswith(str(path)) and "Traceback" not in str(err)
    return err.key, str(err)


def spec_block(buffers: str, launches: str, sizes: list[int] = (1024,), timing: str = "", variants: str = "",
               extra: str = "") -> str:
    shown = ", ".join(f"{{n: {n}}}" for n in sizes)
    return (f"measure:\n  sources: [k.cu]\n  reference: ref.py\n  archs: [sm_90]\n  sizes: [{shown}]\n"
            f"  headline: {{n: {sizes[0]}}}\n  buffers: {buffers}\n{timing}{extra}  variants:\n"
            f"    - name: copy\n      label: copy\n      bytes_per_elem: 8\n{variants}      launches: {launches}\n")


KERNEL = '[{kernel: k, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}]'
DEVICE_BUFFERS = "{x: {role: input}, y: {role: output}}"


# -- host buffers -----------------------------------------------------------------------------------


PAGEABLE_512_GIB = spec_block(
    "{h: {role: input, location: pageable, size: n}, x: {role: scratch, size: \"1024\"}, "
    "y: {role: output, size: \"1024\"}}",
    '[{copy: h, to: x, count: "1024"}, {kernel: k, grid: ["4"], block: [256], args: [x, y, "1024"]}]',
    sizes=[1 << 37], timing="  timing: {blocking: false}\n")


def test_a_512_gib_pageable_buffer_is_refused_at_parse_naming_file_and_key(tmp_path):
    key, message = refusal(tmp_path, PAGEABLE_512_GIB)
    assert key == "measure.buffers.h"
    assert "512.0 GiB of host memory (h 512.0 GiB pageable)" in message
    assert "more than the 16.0 GiB" in message and "keep h on the device (location: device)" in message


def test_host_buffers_within_the_cap_load(tmp_path):
    write_entry(tmp_path, PAGEABLE_512_GIB.replace(str(1 << 37), str(1 << 30)))
    assert "term" in load_entries(tmp_path)


def _spec(text: str) -> MeasureSpec:
    import yaml
    return load(MeasureSpec, yaml.safe_load(text)["measure"])


def test_the_harness_refuses_host_buffers_past_its_share_of_available_memory():
    spec = _spec(PAGEABLE_512_GIB.replace(str(1 << 37), str(1 << 30)))  # 4 GiB of pageable input
    sizes = {"h": 4 << 30, "x": 4096, "y": 4096}
    message = host_shortfall(spec, sizes, "term: n = 1,073,741,824", available=10 << 30)
    # the buffer, and the check's two copies of it (the seeded one and its float64 for the reference)
    assert message.startswith("term: n = 1,073,741,824 needs 16.0 GiB of host memory (host buffers: h 4.0 GiB "
                              "pageable; the check's host copies of inputs and outputs: 12.0 GiB)")
    assert "has 10.0 GiB available and a measurement may use 50% of it" in message
    assert "lower the size in the entry's measure.sizes" in message and "Nothing was allocated" in message
    assert host_shortfall(spec, sizes, "term", available=64 << 30) is None


# -- the launch budget ------------------------------------------------------------------------------


def graph_spec(repeat: int = 100_000, sizes: int = 32) -> str:
    """The largest spec the per-key bounds accept: 16 launches of 100,000 repeats each, captured as a
    graph, swept over 64 points: 102,400,000 graph nodes a round, at 32 sizes."""
    one = f'{{kernel: k, grid: ["ceil(n / b)"], block: [b], args: [x, y, n], repeat: {repeat}}}'
    launches = "[" + ", ".join([one] * limits.MAX_LAUNCHES) + "]"
    sweep = ("      graph: true\n      sweep: {b: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, "
             "480, 512], s: [1, 2, 3, 4]}\n")
    return spec_block(DEVICE_BUFFERS, launches, sizes=[1024 * (i + 1) for i in range(sizes)], variants=sweep,
                      timing="  counters: false\n")


def test_the_102m_graph_node_spec_is_refused_naming_the_repeat(tmp_path):
    key, message = refusal(tmp_path, graph_spec())
    assert key == "measure.variants[0].launches[0].repeat"
    assert "more than the 50,000,000 it may" in message
    assert "102,400,000 a round of every measured variant" in message
    assert "a graph of 1,600,000 nodes" in message and "64 measured variants" in message and "32 sizes" in message
    assert "lower measure.variants[0].launches[0].repeat first" in message


def test_the_launch_budget_counts_every_factor():
    spec = _spec(graph_spec(repeat=2, sizes=3))
    # 3 sizes x 64 variants x 32 steps x (3 warm-ups + 200 runs + 1 check run)
    assert budget.launch_budget(spec) == 3 * 64 * 32 * (203 + 1)
    both = _spec(graph_spec(repeat=2, sizes=3).replace("  counters: false\n", "  timing: {clock: both, blocking: false}\n"))
    assert budget.launch_budget(both) == 3 * 64 * 32 * (2 * 203 + 1)


def test_sampling_time_is_bounded(tmp_path):
    spec = spec_block(DEVICE_BUFFERS, KERNEL, sizes=[1024 * (i + 1) for i in range(8)],
                      timing="  timing: {max_seconds: 600}\n")
    key, message = refusal(tmp_path, spec)
    assert key == "measure.timing.max_seconds"
    assert "8 sizes x 600 s (measure.timing.max_seconds) = 4,800 s, more than 1,200 s" in message


def test_a_spec_whose_result_could_pass_the_reader_is_refused(tmp_path):
    sweep = "      sweep: {b: [32, 64, 128, 256]}\n"
    spec = spec_block(DEVICE_BUFFERS, '[{kernel: k, grid: ["ceil(n / b)"], block: [b], args: [x, y, n]}]',
                      sizes=[1024 * (i + 1) for i in range(16)], variants=sweep,
                      timing="  timing: {max_runs: 10000, max_seconds: 60}\n")
    key, message = refusal(tmp_path, spec)
    assert key == "measure.timing.max_runs"
    assert "more than the 8.0 MB a spec may ask for (half the reader's 16.0 MB limit)" in message
    assert "up to 10,000 samples (measure.timing.max_runs)" in message


# -- every real entry passes, with a margin -------------------------------------------------------------


@pytest.fixture(scope="module")
def real_specs() -> dict[str, MeasureSpec]:
    entries = real_glossary.entries()
    return {slug: e.meta.measure for slug, e in entries.items() if e.meta.measure is not None}


def test_every_real_entry_passes_with_a_wide_margin(real_specs):
    assert len(real_specs) >= 10
    for slug, spec in real_specs.items():
        assert budget.launch_budget(spec) * 100 < limits.MAX_MEASURE_LAUNCHES, slug
        assert budget.sampling_seconds(spec) * 4 < limits.MAX_SAMPLING_SECONDS, slug
        assert budget.result_bytes(spec) * 10 < limits.MAX_RESULT_BYTES // 2, slug
        for point in spec.sizes:
            assert sum(budget.host_buffer_bytes(spec, dict(point)).values()) * 4 <= limits.MAX_HOST_BUFFER_BYTES


def test_the_result_estimate_is_an_upper_bound_of_the_recorded_results(real_specs):
    for slug, spec in real_specs.items():
        for path in (ROOT / "entries" / slug / "results").glob("nvidia-*.json"):
            assert path.stat().st_size < budget.result_bytes(spec), path


# -- a result over the reader's limit is never written ----------------------------------------------------


def huge_result(slug: str = "term", device: str = "fake-gpu", samples: int = 1_000_000) -> dict:
    """A result the store would otherwise accept, made 20 MB by its samples (a fake: no GPU)."""
    taken = [1.0 + i * 1e-9 for i in range(samples)]
    return {"entry": slug, "device": device, "status": "ok", "provenance": "measured", "fingerprint": "sha256:new",
            "environment": {"gpu": "Fake GPU", "captured_at": "2026-11-29T00:00:00Z"},
            "method": {"warmups": 0, "runs": 1, "max_runs": samples, "statistic": "mean", "timer": "fake"},
            "sizes": [{"params": {"n": 1024}, "elements": 1024,
                       "variants": {"copy": {"bytes_per_elem": 8, "samples_ms": taken,
                                             "stats": {"n": samples, "mean": 1.0}}}}]}


def small_result(slug: str = "term", device: str = "fake-gpu") -> dict:
    return dict(huge_result(slug, device, samples=1), fingerprint="sha256:old")


def test_a_result_over_the_limit_is_not_written_and_says_why(tmp_path):
    entry = tmp_path / "term"
    good = store.record_success(entry, small_result())
    before = good.read_bytes()
    with pytest.raises(store.ResultTooLarge) as caught:
        store.record_success(entry, huge_result())
    message = str(caught.value)
    assert message.startswith("the result is ") and "MB over the reader's 16 MB limit" in message
    assert "so it was not written and the recorded results are kept" in message
    assert "its 1,000,000 timing samples (1 sizes x 1 measured variants" in message
    assert "lower measure.timing.max_runs" in message
    assert good.read_bytes() == before
    assert [p.name for p in (entry / "results").iterdir() if p.name != ".lock"] == ["fake-gpu.json"]


def test_the_writer_and_the_reader_share_one_limit():
    assert store.MAX_FILE_BYTES == limits.MAX_RESULT_BYTES


def huge(job, progress):
    """A pool target (run in a worker process) whose result is too large to record (for its job, so the
    signer's check of entry, device and fingerprint passes and the size is what refuses it)."""
    return dict(huge_result(job.slug, job.device), fingerprint=job.fingerprint)


def test_the_build_records_a_too_large_result_as_a_failure_and_keeps_the_good_one(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("GLOSSARY_NODE_KEY", str(tmp_path / "no-key"))
    write_entry(tmp_path, spec_block(DEVICE_BUFFERS, KERNEL))
    entries = load_entries(tmp_path)
    store.record_success(tmp_path / "term", small_result())
    gpu = [{"index": 0, "name": "Fake GPU", "pci_bus_id": "0000:00:00.0", "device": "fake-gpu"}]
    log = logging.getLogger("test.bounds28")
    with caplog.at_level(logging.INFO, logger="test.bounds28"):
        plan.measure_entries(list(entries.values()), log, target="test_bounds_issue28:huge", available=gpu,
                             deadline_s=120.0)
    kept = json.loads((tmp_path / "term/results/fake-gpu.json").read_text())
    assert kept["status"] == "ok" and kept["fingerprint"] == "sha256:old"
    assert "MB over the reader's 16 MB limit" in kept["last_failure"]["error"]
    assert "measurement on Fake GPU failed, recorded results kept: the result is" in caplog.text
    assert os.path.getsize(tmp_path / "term/results/fake-gpu.json") < 64 << 10
