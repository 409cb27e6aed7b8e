"""Issue 33 on the GPU (marked gpu): the four new entries' kernels run through the harness at a small
size, every output checked against the reference before timing, and their timings say what the
entries' prose says.  A managed first touch is far slower than resident pages and a prefetch beats
it; a cluster's distributed shared memory beats the exchange through global memory; the TMA copy is
correct and keeps up with plain loads; an L2 window over a reused table beats no window.  A device
without a feature fails with the reason (simulated on this one by its arch)."""

from __future__ import annotations

import dataclasses

import pytest

import real_glossary

pytestmark = pytest.mark.gpu


def _result(slug: str, size: dict[str, int]) -> dict:
    from measure import harness
    entry = real_glossary.entries()[slug]
    spec = entry.meta.measure
    timing = dataclasses.replace(spec.timing, warmups=1, runs=5, max_runs=10, target_ci=0.05, max_seconds=10.0)
    spec = dataclasses.replace(spec, sizes=(size,), headline=size, timing=timing, counters=False, claims=(),
                               ratios=())
    result = harness.measure_entry(slug, entry.folder, spec, "issue 33 gpu test", progress=print)
    assert result["status"] == "ok"
    point = result["sizes"][0]
    assert point["check"]["elements_checked"] > 0
    return result


def _measure(slug: str, size: dict[str, int]) -> dict[str, float]:
    result = _result(slug, size)
    stat = result["method"]["statistic"]
    ms = {name: v["stats"][stat] for name, v in result["sizes"][0]["variants"].items()}
    print(slug, ms)
    return ms


def test_managed_first_touch_prefetch_and_read_mostly():
    ms = _measure("unified-memory", {"n": 1 << 24})
    assert ms["fault"] > 3 * ms["resident"]       # the fault handler's pace, not HBM's
    assert ms["prefetch"] < ms["fault"]            # one bulk migration beats many faulted ones
    assert ms["prefetch"] > ms["resident"]         # but the bytes still cross the link


def test_unified_memory_counters_where_cupti_gives_them():
    result = _result("unified-memory", {"n": 1 << 24})
    counts = {name: v["unified_memory"] for name, v in result["sizes"][0]["variants"].items()}
    print("unified-memory counters", counts)
    if "unavailable" in counts["fault"]:
        pytest.skip(f"CUPTI's unified-memory counters are not available here: {counts['fault']['unavailable']}")
    nbytes = 4 << 24
    assert counts["fault"]["gpu_page_faults"] > 0 and counts["fault"]["bytes_htod"] >= 0.9 * nbytes
    assert counts["prefetch"]["bytes_htod"] >= 0.9 * nbytes
    assert counts["resident"]["gpu_page_faults"] == 0 and counts["resident"]["bytes_htod"] < 0.1 * nbytes


def test_distributed_shared_memory_beats_the_global_exchange():
    ms = _measure("thread-block-clusters", {"n": 1 << 24})
    assert ms["dsmem"] < ms["global"]


def test_the_tma_copy_is_correct_and_keeps_up():
    ms = _measure("tensor-memory-accelerator", {"rows": 4096, "cols": 4096})
    assert ms["tma"] < 2 * ms["plain"] and ms["cp_async"] < 2 * ms["plain"]


def test_an_l2_window_over_the_reused_table_pays():
    ms = _measure("l2-persistence", {"n": 1 << 26, "t": 6291456})
    assert ms["plain"] > 1.1 * ms["window"]


def test_a_device_without_clusters_fails_with_the_reason():
    import pycuda.driver as drv

    from measure.harness.errors import MeasurementError
    from measure.harness.hopper import require
    from measure.harness.session import GpuSession
    spec = real_glossary.entries()["thread-block-clusters"].meta.measure
    gpu = GpuSession(drv)
    try:
        require(spec, gpu)  # the H200 has them
        gpu.arch = "sm_80"
        with pytest.raises(MeasurementError, match="thread-block clusters .* need sm_90 or newer; sm_80 lacks them"):
            require(spec, gpu)
    finally:
        gpu.close()
