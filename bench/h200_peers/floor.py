"""Part 1, the copy floor: the harness's copy regions against plain-event copies and torch's copy_."""

from __future__ import annotations

from typing import Any

from measure import stats

from bench.h200_peers.method import GOALS, summary
from bench.h200_peers.session import Session, interleave, timer_notes

FLOOR_ELEMENTS = 268_435_456   # 1 GiB per copy buffer, 17x the H200's 60 MiB L2

FLOOR_LABELS = {
    "harness_vector_copy": ("harness float4 copy", "harness (flush, blocking kernel, events)"),
    "harness_memcpy_dtod": ("harness cuMemcpyDtoD", "harness (flush, blocking kernel, events)"),
    "plain_vector_copy": ("float4 copy kernel", "plain pycuda events"),
    "plain_memcpy_dtod": ("cuMemcpyDtoD", "plain pycuda events"),
    "torch_copy": ("torch dst.copy_(src)", "torch.cuda.Event, default stream"),
    "torch_copy_harness": ("torch dst.copy_(src)", "harness (flush, blocking kernel, events)"),
}


def floor_verdict(gbps: dict[str, float], harness_floor_gbps: float) -> dict:
    """The harness's floor against the best copy of all contestants (GB/s at the median)."""
    if not gbps:
        raise ValueError("no copy was timed")
    best = max(gbps, key=lambda name: gbps[name])
    ratio = harness_floor_gbps / gbps[best]
    goal = GOALS["floor_of_best_copy"]
    return {"best": best, "best_gbps": gbps[best], "harness_floor_gbps": harness_floor_gbps,
            "ratio": ratio, "goal": goal, "ok": ratio >= goal}


def floor_record(samples: dict[str, list[float]], errors: dict[str, str], notes: dict[str, str],
                 floor_bytes: int, warmups: int, runs: int, clocks: dict) -> dict:
    """Part 1's record from its samples: each copy's stats and GB/s, and the harness's floor
    (``harness.copy_floor_record`` over its two regions, at the median) against the best copy."""
    from measure.harness import copy_floor_record
    contestants = {}
    for name, (label, timing) in FLOOR_LABELS.items():
        rec: dict[str, Any] = {"label": label, "timing": timing, "samples_ms": samples.get(name, [])}
        if rec["samples_ms"] and name not in errors:
            rec["stats"] = summary(rec["samples_ms"])
            rec["gbps"] = stats.gbps(2 * floor_bytes, rec["stats"]["median"])
        else:
            rec["error"] = errors.get(name, "no samples")
        if name in notes:
            rec["note"] = notes[name]
        contestants[name] = rec
    out = {"elements": floor_bytes // 4, "bytes_per_buffer": floor_bytes, "bytes_moved": 2 * floor_bytes,
           "warmups": warmups, "runs": runs, "contestants": contestants, "clocks": clocks}
    if "stats" in contestants["harness_vector_copy"] and "stats" in contestants["harness_memcpy_dtod"]:
        harness = copy_floor_record({"__vector_copy": samples["harness_vector_copy"],
                                     "__memcpy_dtod": samples["harness_memcpy_dtod"]}, floor_bytes, "median")
        out["verdict"] = floor_verdict({n: c["gbps"] for n, c in contestants.items() if "gbps" in c},
                                       harness["gbps"])
    return out


def part_floor(s: Session, seed: int, elements: int, warmups: int, runs: int) -> dict:
    """Part 1 on the GPU: every copy of FLOOR_LABELS, interleaved, in the session's buffers and torch's."""
    torch, harness, gpu = s.torch, s.harness, s.gpu
    floor_bytes = harness.copy_floor_bytes(elements, gpu.l2_bytes)
    regions = harness.copy_floor_regions(gpu, s.floor_src, s.floor_dst, floor_bytes)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed + 1)
    tsrc = torch.rand(floor_bytes // 4, device="cuda", generator=gen)
    tdst = torch.empty_like(tsrc)

    def copy() -> None:
        tdst.copy_(tsrc)
    copy()
    torch.cuda.synchronize()
    if not torch.equal(tdst, tsrc):
        raise RuntimeError("torch copy_ did not copy (dst differs from src)")
    timers = {
        "harness_vector_copy": s.harness_timer(regions["__vector_copy"]),
        "harness_memcpy_dtod": s.harness_timer(regions["__memcpy_dtod"]),
        "plain_vector_copy": s.plain_timer(regions["__vector_copy"]),
        "plain_memcpy_dtod": s.plain_timer(regions["__memcpy_dtod"]),
        "torch_copy": s.torch_timer(copy),
        "torch_copy_harness": s.harness_timer(copy, torch_work=True),
    }
    before = s.clocks()
    samples, errors = interleave(timers, warmups, runs, s.say, "copy floor")
    clocks = {"before": before, "after": s.clocks()}
    return floor_record(samples, errors, timer_notes(timers), floor_bytes, warmups, runs, clocks)
