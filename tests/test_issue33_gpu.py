"""Issue 33 on the GPU node (marked gpu): untimed fills before each sample, an output sized by a
block-size sweep, and the compiled code read with cuobjdump for claims of kind sass.

Run on the node:  python -m pytest -q -p no:cacheprovider tests/test_issue33_gpu.py
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from measure import harness
from measure.results.model import SassRecord
from measure.sandbox.sass import find_cuobjdump
from measure.spec import MeasureSpec
from measure.typed import load

KERNELS = r"""
#include <cuda_pipeline.h>
extern "C" __global__ void count_positive(const int* x, int* total, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0) atomicAdd(total, 1);
}
extern "C" __global__ void block_sum(const float* x, float* partial, long long n) {
    extern __shared__ float s[];
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
extern "C" __global__ void copy_async(const float* x, float* y, long long n) {
    __shared__ float tile[256];
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) __pipeline_memcpy_async(&tile[threadIdx.x], &x[i], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    if (i < n) y[i] = tile[threadIdx.x];
}
extern "C" __global__ void copy_plain(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
"""

REFERENCE = """
import math
import numpy as np

def reference(variant, inputs, scalars, params):
    n = params["n"]
    x = inputs["x"]
    out = {"total": np.array([float((inputs["xi"] > 0).sum())]), "y": x, "partial": np.zeros(1)}
    if "block" in params:
        block = params["block"]
        padded = np.zeros(math.ceil(n / block) * block)
        padded[:n] = x
        out["partial"] = padded.reshape(-1, block).sum(axis=1)
    return out
"""


def spec(n: int = 1 << 20) -> MeasureSpec:
    return load(MeasureSpec, {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"x": {"role": "input"}, "xi": {"role": "input", "dtype": "int32"},
                    "total": {"role": "output", "dtype": "int32", "size": "1"},
                    "partial": {"role": "output", "size": "ceil(n / block)", "atol": 1e-3, "rtol": 1e-4},
                    "y": {"role": "output"}},
        "sizes": [{"n": n}], "headline": {"n": n},
        "timing": {"warmups": 1, "runs": 3, "max_runs": 3}, "counters": False,
        "variants": [
            {"name": "atomic", "label": "one atomicAdd per positive element", "bytes_per_elem": 4,
             "setup": [{"fill": "total", "value": 0}],
             "launches": [{"kernel": "count_positive", "grid": ["ceil(n / 256)"], "block": [256],
                           "args": ["xi", "total", "n"]}]},
            {"name": "tree", "label": "one partial sum per block", "bytes_per_elem": 4,
             "sweep": {"block": [128, 512]},
             "launches": [{"kernel": "block_sum", "grid": ["ceil(n / block)"], "block": ["block"],
                           "shared": "block * 4", "args": ["x", "partial", "n"]}]},
            {"name": "async", "label": "cp.async through shared memory", "bytes_per_elem": 8,
             "launches": [{"kernel": "copy_async", "grid": ["ceil(n / 256)"], "block": [256], "args": ["x", "y", "n"]}]},
            {"name": "plain", "label": "plain copy", "bytes_per_elem": 8,
             "launches": [{"kernel": "copy_plain", "grid": ["ceil(n / 256)"], "block": [256], "args": ["x", "y", "n"]}]},
        ],
        "claims": [{"kind": "sass", "variant": "async", "has": "LDGSTS"},
                   {"kind": "sass", "variant": "plain", "lacks": "LDGSTS", "has": "LDG"}]})


@pytest.fixture()
def entry(tmp_path):
    folder = tmp_path / "fixture33"
    folder.mkdir()
    (folder / "k.cu").write_text(KERNELS)
    (folder / "reference.py").write_text(REFERENCE)
    return folder


@pytest.mark.gpu
def test_fills_sweep_sized_outputs_and_the_disassembly(entry):
    lines: list[str] = []
    result = harness.measure_entry("fixture33", entry, spec(), "sha256:test", progress=lines.append)
    json.dumps(result, allow_nan=False)
    (size,) = result["sizes"]
    # the atomic count checks (so the fill ran after the poison, before the check's run) and records its fill
    assert size["variants"]["atomic"]["setup"] == [{"buffer": "total", "pattern": "0x00000000", "bytes": 4}]
    # each sweep point's output compared at its own count
    assert {"tree[block=128]", "tree[block=512]"} <= set(size["variants"])
    assert size["check"]["elements_checked"] >= 1 + (1 << 20) // 128 + (1 << 20) // 512
    code = result["sass"]
    if find_cuobjdump() is None:
        assert "cuobjdump" in code["unavailable"]
        pytest.skip("cuobjdump is not on this node: the record says so and sass claims are not checked")
    record = load(SassRecord, code)
    kernels = record.variants
    assert set(kernels) == {"atomic", "tree[block=128]", "tree[block=512]", "async", "plain"}
    assert any(m.startswith("LDGSTS") for m in kernels["async"]["copy_async"]), kernels["async"]
    assert not any(m.startswith("LDGSTS") for m in kernels["plain"]["copy_plain"])
    assert any(m.startswith(("RED", "ATOM")) for m in kernels["atomic"]["count_positive"])
    from glossary.verdicts.sass_claims import judge_sass
    from measure.spec.claims import Claim

    assert judge_sass(Claim(kind="sass", variant="async", has="LDGSTS"), record)[0] == "holds"
    assert judge_sass(Claim(kind="sass", variant="plain", lacks="LDGSTS"), record)[0] == "holds"
    print("sass of atomic:", kernels["atomic"]["count_positive"])  # what nvcc made of the atomic


@pytest.mark.gpu
def test_a_fill_runs_before_every_sample_not_only_the_first():
    """Each sample logs the buffer's first element, then overwrites it with 1: the log reads the
    fill's 2.0 at every sample only where the fill runs before each one."""
    import pycuda.driver as drv

    from measure.harness.fills import Fill, Fills
    from measure.harness.session import GpuSession
    from measure.spec.setup import fill_pattern

    gpu = GpuSession(drv)
    try:
        buf, ones_dev, log = gpu.alloc(4 * 1024), gpu.alloc(4 * 1024), gpu.alloc(4 * 8)
        drv.memcpy_htod(ones_dev, np.ones(1024, dtype=np.float32))
        width, pattern = fill_pattern("float32", 2.0)
        fills = Fills([Fill("b", int(buf), width, pattern, 1024)])
        for k in range(8):
            def region(k=k):
                drv.memcpy_dtod_async(int(log) + 4 * k, int(buf), 4, gpu.stream)
                drv.memcpy_dtod_async(int(buf), int(ones_dev), 4 * 1024, gpu.stream)
            assert gpu.sample(region, "device", True, False, setup=fills) > 0  # no L2 flush: a bare session has no flush kernel
        got = np.empty(8, dtype=np.float32)
        drv.memcpy_dtoh(got, log)
        assert (got == 2.0).all(), got
    finally:
        gpu.close()
