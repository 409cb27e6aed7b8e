"""measure.harness on a real GPU (marked gpu), plus its pure helpers on the CPU.

The GPU tests use a tiny fixture entry of their own (saxpy, a deliberately wrong
kernel, a kernel that skips the last element, a repeated launch using ``i``), and
one real measure_entry on kernel-fusion at small sizes.
"""

import dataclasses
import json
import subprocess
import tomllib
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import fresh_python
from measure import harness, results
from measure.harness import compile as nvcc
from measure.harness.workspace import allocation_bytes
from measure.spec import MeasureSpec
from measure.typed import load

ROOT = Path(__file__).resolve().parent.parent

KERNELS = r"""
#include <cstddef>
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
extern "C" __global__ void saxpy_wrong(const float* x, const float* y, float* out, float a, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] - y[i];
}
extern "C" __global__ void saxpy_skip_last(const float* x, const float* y, float* out, float a, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n - 1) out[i] = a * x[i] + y[i];
}
extern "C" __global__ void add_index(const float* x, float* out, long long i_rep, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + (float)i_rep;
}
"""

REFERENCE = """
def reference(variant, inputs, scalars, params):
    if variant == "repeat":
        return {"out": inputs["x"] + 2.0}
    return {"out": scalars["a"] * inputs["x"] + inputs["y"]}
"""


def _launch(kernel, args, repeat=1):
    return {"kernel": kernel, "grid": ["ceil(n / 256)"], "block": [256], "args": args, "repeat": repeat}


def _spec(kernel="saxpy", *, timing=None, sizes=((1 << 20),), counters=False, extra_variants=(), elementwise=False):
    variants = [{"name": "saxpy", "label": "saxpy", "bytes_per_elem": 12,
                 "launches": [_launch(kernel, ["x", "y", "out", "a", "n"])]}, *extra_variants]
    return load(MeasureSpec, {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"x": {"role": "input"}, "y": {"role": "input", "init": "uniform"},
                    "out": {"role": "output"}},
        "scalars": {"a": 1.5}, "variants": variants,
        "sizes": [{"n": n} for n in sizes], "headline": {"n": sizes[0]},
        "timing": timing or {"warmups": 1, "runs": 3}, "counters": counters,
        "reference_elementwise": elementwise})


@pytest.fixture()
def entry(tmp_path):
    folder = tmp_path / "fixture"
    folder.mkdir()
    (folder / "k.cu").write_text(KERNELS)
    (folder / "reference.py").write_text(REFERENCE)
    return folder


# ---- CPU: pure helpers ----------------------------------------------------------------------

def test_check_elements_accepts_within_tolerance_and_refuses_nan():
    ref = np.array([1.0, -2.0, 0.0, 1e6])
    ok = harness.check_elements(ref.astype(np.float32), ref, rtol=1e-5, atol=1e-6)
    assert ok["ok"] and ok["elements_checked"] == 4 and ok["max_abs_err"] == 0.0
    got = np.array([1.0, -2.0, np.nan, 1e6], dtype=np.float32)
    bad = harness.check_elements(got, ref, rtol=1e-5, atol=1e-6)
    assert not bad["ok"] and bad["nan"] == 1 and bad["first_bad"]["index"] == 2
    off = harness.check_elements(np.array([1.0 + 2e-5]), np.array([1.0]), rtol=1e-5, atol=1e-6)
    assert not off["ok"]


def test_fill_input_is_seeded_and_never_zero():
    a = harness.fill_input(7, 1, 1000, "float32", "normal")
    b = harness.fill_input(7, 1, 1000, "float32", "normal")
    assert a.dtype == np.float32 and np.array_equal(a, b) and np.count_nonzero(a) == 1000
    u = harness.fill_input(7, 1, 1000, "float64", "uniform")
    assert u.dtype == np.float64 and u.min() >= -1 and u.max() < 1
    i = harness.fill_input(7, 1, 1000, "int32", "normal")
    assert i.dtype == np.int32 and len(np.unique(i)) > 100


def test_copy_floor_bytes_at_least_four_l2():
    l2 = 60 * 2**20
    assert harness.copy_floor_bytes(1 << 20, l2) == 4 * l2
    assert harness.copy_floor_bytes(1 << 28, l2) == 4 << 28
    assert harness.copy_floor_bytes(1 << 28, l2 + 3) % 16 == 0


def test_probe_gpu_never_raises():
    ok, text = harness.probe_gpu()
    assert isinstance(ok, bool) and isinstance(text, str) and text


HARNESS_KERNELS = ["glossary_blocking_kernel", "glossary_copy_f4", "glossary_flush_read"]


@pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
def test_harness_cu_compiles_and_exports_its_kernels(tmp_path):
    source = tmp_path / "harness.cu"
    source.write_text(harness.harness_source())  # as the session reads it: from the package's files
    out = tmp_path / "harness.cubin"
    proc = subprocess.run([nvcc.find_nvcc(), "--cubin", "-O3", "-arch", "sm_90", "-o", str(out), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert nvcc.cubin_symbols_present(out.read_bytes(), HARNESS_KERNELS) == []


def test_harness_source_is_the_packaged_file():
    assert harness.harness_source() == (ROOT / "measure" / "harness" / "harness.cu").read_text(encoding="utf-8")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.cu" in pyproject["tool"]["setuptools"]["package-data"]["measure.harness"]


def test_a_size_that_cannot_be_allocated_names_its_buffer():
    spec = _spec()
    with pytest.raises(harness.MeasurementError, match=r"^buffer x: "):
        allocation_bytes(spec, {"m": 3})
    empty = dataclasses.replace(spec, buffers={**spec.buffers, "out": dataclasses.replace(spec.buffers["out"],
                                                                                         size="n - 8")})
    with pytest.raises(harness.MeasurementError, match=r"^buffer out has 0 elements at n=8$"):
        allocation_bytes(empty, {"n": 8})
    assert allocation_bytes(spec, {"n": 8}) == {"x": 32, "y": 32, "out": 32}


def test_failure_record_is_the_stores_failure():
    record = harness.failure_record("kernel-fusion", "nvidia-h200", "NVIDIA H200", "sha256:f", "boom")
    captured = record["environment"].pop("captured_at")
    assert record == {"entry": "kernel-fusion", "device": "nvidia-h200", "provenance": "measured",
                      "fingerprint": "sha256:f", "error": "boom", "environment": {"gpu": "NVIDIA H200"}}
    assert captured.endswith("+00:00") and "T" in captured


def test_the_harness_imports_neither_pycuda_nor_glossary():
    code = ("import sys, measure.harness, measure.harness.profile_main; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('pycuda', 'glossary')]; "
            "sys.exit(repr(bad) if bad else 0)")
    proc = fresh_python(code)
    assert proc.returncode == 0, proc.stderr


# ---- GPU ------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_saxpy_measures_and_serialises(entry):
    lines = []
    result = harness.measure_entry("fixture", entry, _spec(sizes=(1 << 20, 3 * 1000 + 7)), "sha256:test",
                                   progress=lines.append)
    json.dumps(result, allow_nan=False)
    assert result["status"] == "ok" and result["fingerprint"] == "sha256:test"
    env = result["environment"]
    assert env["arch"].startswith("sm_") and env["l2_bytes"] > 0 and "kernel.cu" in env["compile_command"]
    assert result["method"]["timer"] == "cuda-events" and result["method"]["interleaved"] is True
    assert result["counters"]["status"] == "skipped"
    for size in result["sizes"]:
        var = size["variants"]["saxpy"]
        assert 3 <= len(var["samples_ms"]) <= 200 and all(s > 0 for s in var["samples_ms"])
        assert size["check"]["elements_checked"] == size["params"]["n"]
        assert size["copy_floor"]["gbps"] > 0
        assert size["working_set_bytes"] == 12 * size["params"]["n"]
    assert any(" sample 3 (" in line for line in lines) and any("stopped:" in line for line in lines)


@pytest.mark.gpu
@pytest.mark.parametrize("elementwise", [False, True])
def test_wrong_kernel_is_refused(entry, elementwise):
    with pytest.raises(harness.MeasurementError, match="output out is wrong"):
        harness.measure_entry("fixture", entry, _spec("saxpy_wrong", elementwise=elementwise), "x",
                              progress=lambda s: None)


@pytest.mark.gpu
@pytest.mark.parametrize("elementwise", [False, True])
def test_unwritten_last_element_is_caught_by_poison(entry, elementwise):
    n = (1 << 23) + 5  # past one chunk of the chunked check
    with pytest.raises(harness.MeasurementError, match=rf"1 of {n} elements \(1 NaN.*index {n - 1}"):
        harness.measure_entry("fixture", entry, _spec("saxpy_skip_last", sizes=(n,), elementwise=elementwise), "x",
                              progress=lambda s: None)


@pytest.mark.gpu
def test_an_elementwise_reference_checks_every_element_in_chunks(entry):
    sizes = ((1 << 20), (1 << 24) + 3)
    phases = {}
    for elementwise in (False, True):
        result = harness.measure_entry("fixture", entry, _spec(sizes=sizes, elementwise=elementwise), "x",
                                       progress=lambda s: None)
        for size in result["sizes"]:
            assert size["check"]["elements_checked"] == size["params"]["n"] and size["check"]["max_abs_err"] >= 0
        phases[elementwise] = result["phases"]
    assert phases[True]["reference"] > 0 and phases[False]["reference"] > 0


@pytest.mark.gpu
def test_a_wrong_output_compared_beside_the_counter_pass_still_fails(entry):
    # With an elementwise reference and a counter pass, the comparison runs after timing, beside
    # ncu: a wrong output must still stop the measurement (and the counter thread must end).
    with pytest.raises(harness.MeasurementError, match="output out is wrong"):
        harness.measure_entry("fixture", entry, _spec("saxpy_wrong", elementwise=True, counters=True), "x",
                              progress=lambda s: None)
    result = harness.measure_entry("fixture", entry, _spec(elementwise=True, counters=True), "x",
                                   progress=lambda s: None)
    assert result["sizes"][0]["check"]["elements_checked"] == 1 << 20
    assert result["counters"]["status"] in ("ok", "skipped")


@pytest.mark.gpu
def test_a_false_elementwise_promise_is_caught_on_the_gpu(entry):
    (entry / "reference.py").write_text("import numpy as np\n\ndef reference(variant, inputs, scalars, params):\n"
                                        "    return {'out': scalars['a'] * inputs['x'] + inputs['y'].mean()}\n")
    with pytest.raises(harness.MeasurementError, match="differs from the reference computed on elements 0 to"):
        harness.measure_entry("fixture", entry, _spec(elementwise=True), "x", progress=lambda s: None)


@pytest.mark.gpu
def test_repeat_index_and_host_clock(entry):
    repeat = {"name": "repeat", "label": "three launches", "bytes_per_elem": 24,
              "launches": [_launch("add_index", ["x", "out", "i", "n"], repeat=3)]}
    spec = _spec(timing={"clock": "host", "blocking": False, "l2_flush": False, "warmups": 1, "runs": 2},
                 extra_variants=[repeat])
    result = harness.measure_entry("fixture", entry, spec, "x", progress=lambda s: None)
    assert result["method"]["timer"] == "host-perf-counter"
    assert result["sizes"][0]["variants"]["repeat"]["launches"] == 3


@pytest.mark.gpu
def test_compile_error_is_a_measurement_error(entry):
    (entry / "k.cu").write_text('extern "C" __global__ void saxpy(float* y) { y[0] = nope; }\n')
    with pytest.raises(harness.MeasurementError, match="nvcc failed"):
        harness.measure_entry("fixture", entry, _spec(), "x", progress=lambda s: None)


@pytest.mark.gpu
def test_kernel_fusion_small(tmp_path):
    text = (ROOT / "entries" / "kernel-fusion.md").read_text(encoding="utf-8")
    data = yaml.safe_load(text.split("\n---", 1)[0].removeprefix("---"))["measure"]
    data = dict(data, sizes=[{"n": 1 << 20}, {"n": 1 << 22}], headline={"n": 1 << 22},
                timing={"warmups": 2, "runs": 5, "statistic": "mean"})
    spec = load(MeasureSpec, data)
    result = harness.measure_entry("kernel-fusion", ROOT / "entries" / "kernel-fusion", spec, "sha256:kf",
                                   progress=print)
    json.dumps(result, allow_nan=False)
    big = result["sizes"][1]
    staged, fused = big["variants"]["staged"]["stats"]["mean"], big["variants"]["fused"]["stats"]["mean"]
    assert staged > fused
    if result["counters"]["status"] == "ok":
        fc = big["variants"]["fused"]["counters"]
        assert fc["flushed"]["dram_bytes_per_elem"] > 0 and fc["unflushed"]["cache_control"] == "none"
        assert [k["kernel"] for k in big["variants"]["staged"]["counters"]["flushed"]["per_kernel"]] == \
               ["scale_bias", "gelu", "residual_add", "clamp"]
    (tmp_path / "kernel-fusion.json").write_text(json.dumps(result, indent=1))
    if result["counters"]["status"] != "ok":
        return
    # Counters are their own result: measured again with the first result's counters on offer, every
    # size keeps them (same kernels, launches, inputs, device, ncu) and nothing is profiled.
    assert all(size["counter_key"].startswith("sha256:") for size in result["sizes"])
    assert result["phases"]["ncu_startup"] > 0
    offered = results.carried_counters(result, signer="test-node")
    lines = []
    again = harness.measure_entry("kernel-fusion", ROOT / "entries" / "kernel-fusion", spec, "sha256:kf",
                                  progress=lines.append, prior_counters=offered)
    assert not any("cache-control" in line for line in lines) and any("carried" in line for line in lines)
    for old, new in zip(result["sizes"], again["sizes"]):
        assert new["counter_key"] == old["counter_key"] and new["counters_from"]["signed_by"] == "test-node"
        assert new["variants"]["fused"]["counters"] == old["variants"]["fused"]["counters"]
    assert again["phases"]["counters"] < 0.1 and again["phases"]["ncu_startup"] == 0
    results.parse_measured(again)
