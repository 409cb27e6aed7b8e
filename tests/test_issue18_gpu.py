"""The spec's reach inside the SM (issue 18), run for real on a GPU (marked gpu): sweeps of block size
and dynamic shared memory, per-variant defines and register limits, kernel attributes and occupancy
(the formula against the driver's answer), integer scalars, float16/bfloat16/int8 buffers, declared
Nsight Compute metrics and an unknown one refused before timing.  Fixture entries of their own."""

import json

import numpy as np
import pytest

from measure import harness, occupancy
from measure.harness import counters
from measure.spec import MeasureSpec
from measure.typed import load

pytestmark = pytest.mark.gpu

KERNELS = r"""
#ifndef FACTOR
#define FACTOR 1
#endif
extern "C" __global__ void scale_shared(const float* x, float* y, float s, int reps, long long n) {
    extern __shared__ float stage[];
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    stage[threadIdx.x] = v;
    __syncthreads();
    if (i < n) y[i] = FACTOR * (stage[threadIdx.x] * s + (float)reps);
}
extern "C" __global__ void scale_spill(const float* x, float* y, float s, int reps, long long n) {
    float a[64];
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 64; ++k) a[k] = x[i] * (float)(k + 1);
    int pick = (int)(i & 63);                      // a dynamic index keeps the array in local memory
    y[i] = (a[pick] / (float)(pick + 1)) * s + (float)reps;
}
"""

REFERENCE = """
def reference(variant, inputs, scalars, params):
    factor = 2.0 if variant == "doubled" else 1.0
    return {"y": factor * (scalars["s"] * inputs["x"] + scalars["reps"])}
"""

NARROW = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void narrow(const __half* xh, __half* yh, const __nv_bfloat16* xb, __nv_bfloat16* yb,
                                  const signed char* xi, signed char* yi, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) {
        yh[i] = __hmul(xh[i], __float2half(2.0f));
        yb[i] = __float2bfloat16(__bfloat162float(xb[i]) * 0.5f);
        yi[i] = (signed char)(xi[i] / 2);
    }
}
"""

NARROW_REFERENCE = """
import numpy as np
def reference(variant, inputs, scalars, params):
    return {"yh": 2.0 * inputs["xh"], "yb": 0.5 * inputs["xb"], "yi": np.trunc(inputs["xi"] / 2.0)}
"""


def _write(tmp_path, name, kernels, reference):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "k.cu").write_text(kernels)
    (folder / "reference.py").write_text(reference)
    return folder


def _spec(metrics=(), counters_on=False):
    launch = {"kernel": "scale_shared", "grid": ["ceil(n / block)"], "block": ["block"], "shared": "block * 4",
              "args": ["x", "y", "s", "reps", "n"]}
    return load(MeasureSpec, {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"], "reference_elementwise": True,
        "buffers": {"x": {"role": "input"}, "y": {"role": "output"}},
        "scalars": {"s": 1.5, "reps": 3},
        "variants": [
            {"name": "shared", "label": "staged through shared memory", "bytes_per_elem": 8,
             "sweep": {"block": [128, 1024]}, "launches": [launch]},
            {"name": "optin", "label": "dynamic shared memory, opted in", "bytes_per_elem": 8, "sweep": {"kb": [96, 64]},
             "launches": [dict(launch, block=[256], grid=["ceil(n / 256)"], shared="kb * 1024")]},
            {"name": "doubled", "label": "built with FACTOR=2 and 32 registers", "bytes_per_elem": 8,
             "defines": {"FACTOR": 2}, "maxrregcount": 32,
             "launches": [dict(launch, block=[256], grid=["ceil(n / 256)"], shared="warp_size * 32")]},
            {"name": "spill", "label": "a local array", "bytes_per_elem": 8,
             "launches": [dict(launch, kernel="scale_spill", block=[256], grid=["ceil(n / 256)"], shared=0)]},
        ],
        "sizes": [{"n": 1 << 20}], "headline": {"n": 1 << 20},
        "timing": {"warmups": 1, "runs": 3, "max_runs": 5}, "counters": counters_on,
        "metrics": list(metrics)})


def test_sweeps_builds_and_attributes_on_the_gpu(tmp_path):
    folder = _write(tmp_path, "sweeps", KERNELS, REFERENCE)
    lines = []
    result = harness.measure_entry("sweeps", folder, _spec(), "sha256:test", progress=lines.append)
    json.dumps(result, allow_nan=False)
    from measure import results
    results.parse_measured(result)  # the results model takes every new key
    env = result["environment"]
    limits = env["limits"]
    assert limits["sm_count"] > 0 and limits["smem_per_block_optin"] >= 65536
    assert set(env["compile_commands"]) == {"shared[block=128]", "shared[block=1024]", "optin[kb=96]", "optin[kb=64]",
                                            "doubled", "spill"}
    assert "-DFACTOR=2 -maxrregcount=32" in env["compile_commands"]["doubled"]
    assert "-DFACTOR" not in env["compile_commands"]["shared[block=128]"]
    size = result["sizes"][0]
    variants = size["variants"]
    # optin[kb=96] and optin[kb=64] share one function: both are prepared before either runs
    assert list(variants) == ["shared[block=128]", "shared[block=1024]", "optin[kb=96]", "optin[kb=64]", "doubled",
                              "spill"]
    assert variants["shared[block=1024]"]["base"] == "shared" and variants["shared[block=1024]"]["point"] == {"block": 1024}
    attrs = {name: v["launch_attrs"][0] for name, v in variants.items()}
    assert attrs["shared[block=1024]"]["block"] == [1024, 1, 1] and attrs["shared[block=1024]"]["dynamic_shared_bytes"] == 4096
    assert attrs["optin[kb=64]"]["dynamic_shared_bytes"] == 65536
    assert attrs["optin[kb=96]"]["resident_blocks_per_sm"] == 2
    assert attrs["doubled"]["registers"] <= 32 and attrs["doubled"]["dynamic_shared_bytes"] == 32 * limits["warp_size"]
    assert attrs["spill"]["local_bytes"] > 0
    for name, rec in attrs.items():
        assert rec["registers"] > 0 and 0 < rec["theoretical_occupancy"] <= 1, name
        fit = occupancy.residency(rec["block"][0], rec["registers"], rec["static_shared_bytes"],
                                  rec["dynamic_shared_bytes"], limits)
        held = rec.get("limit_blocks_per_sm", rec["resident_blocks_per_sm"])  # before any grid limit
        assert fit.blocks_per_sm == rec.get("formula_blocks_per_sm", held)
        if rec["occupancy_source"] == "driver":  # cuda-bindings installed: the formula agrees with the driver
            assert rec["formula_blocks_per_sm"] == held, (name, rec)
    # 64 KiB + reservation per block: three fit the 228 KiB of an H100/H200 SM
    assert attrs["optin[kb=64]"]["occupancy_limit"] == "shared" and attrs["optin[kb=64]"]["resident_blocks_per_sm"] == 3
    print("occupancy source:", env["occupancy_source"])
    print({n: (a["registers"], a["resident_blocks_per_sm"], a["occupancy_limit"]) for n, a in attrs.items()})


def test_narrow_types_are_filled_poisoned_and_checked(tmp_path):
    folder = _write(tmp_path, "narrow", NARROW, NARROW_REFERENCE)
    spec = load(MeasureSpec, {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"xh": {"role": "input", "dtype": "float16"}, "yh": {"role": "output", "dtype": "float16"},
                    "xb": {"role": "input", "dtype": "bfloat16"}, "yb": {"role": "output", "dtype": "bfloat16"},
                    "xi": {"role": "input", "dtype": "int8"}, "yi": {"role": "output", "dtype": "int8"}},
        "variants": [{"name": "narrow", "label": "three narrow types", "bytes_per_elem": 10,
                      "launches": [{"kernel": "narrow", "grid": ["ceil(n / 256)"], "block": [256],
                                    "args": ["xh", "yh", "xb", "yb", "xi", "yi", "n"]}]}],
        "sizes": [{"n": 1 << 20}, {"n": 1001}], "headline": {"n": 1 << 20},
        "timing": {"warmups": 1, "runs": 3, "max_runs": 5}, "counters": False})
    result = harness.measure_entry("narrow", folder, spec, "sha256:test", progress=lambda s: None)
    json.dumps(result, allow_nan=False)
    assert [s["check"]["elements_checked"] for s in result["sizes"]] == [3 << 20, 3 * 1001]
    assert result["sizes"][0]["working_set_bytes"] == 10 << 20
    assert result["method"]["check"]["tolerances"]["yi"] == [0.0, 0.0]
    wrong = NARROW.replace("xi[i] / 2", "xi[i] / 2 + (i == 7)")
    bad = _write(tmp_path, "narrow-wrong", wrong, NARROW_REFERENCE)
    with pytest.raises(harness.MeasurementError, match=r"output yi is wrong in 1 of .* index 7"):
        harness.measure_entry("narrow", bad, spec, "x", progress=lambda s: None)


@pytest.mark.skipif(counters.find_ncu() is None, reason="ncu is not installed")
def test_declared_metrics_are_counted_and_an_unknown_one_refused_before_timing(tmp_path):
    folder = _write(tmp_path, "metrics", KERNELS, REFERENCE)
    good = {"name": "insts", "metric": "smsp__inst_executed.sum", "label": "warp instructions per element",
            "unit": "instructions", "per": "element"}
    occupancy_metric = {"name": "achieved", "metric": "sm__warps_active.avg.pct_of_peak_sustained_active",
                        "label": "achieved occupancy", "unit": "%", "per": "average"}
    result = harness.measure_entry("metrics", folder, _spec([good, occupancy_metric], counters_on=True), "sha256:t",
                                   progress=print)
    assert result["counters"]["status"] == "ok", result["counters"]
    for name, variant in result["sizes"][0]["variants"].items():
        counted = variant["counters"]["flushed"]["metrics"]
        assert counted["insts"]["value"] > 0 and counted["insts"]["per"] == "element", name
        assert 0 < counted["achieved"]["value"] <= 100, name
        print(name, {k: round(v["value"], 3) for k, v in counted.items()})
    lines = []
    bogus = dict(good, metric="smsp__inst_executed_typo.sum")
    with pytest.raises(harness.MeasurementError, match=r"measure.metrics\[0\].metric: ncu knows no metric") as err:
        harness.measure_entry("metrics", folder, _spec([bogus], counters_on=True), "x", progress=lines.append)
    assert "close: smsp__inst_executed" in str(err.value)
    assert not any("sample" in line for line in lines)  # refused before any timing
