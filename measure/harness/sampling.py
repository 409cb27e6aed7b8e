"""The sampling rule: warm up, then take interleaved rounds over every region until each median is
known to +/-target_ci (nvbench's stopping criterion), the round cap or the time cap."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Collection

from measure import stats
from measure.harness.envinfo import Nvml
from measure.harness.session import GpuSession


def sampling_done(samples: dict[str, list[float]], timing: Any, taken: int, elapsed_s: float) -> str | None:
    """Why sampling one size stops now, or None to take another round (pure).

    At least ``runs`` rounds; then stop once every region's median is known to
    within +/-``target_ci`` (95%), or at ``max_runs`` rounds, or past ``max_seconds``.
    """
    if taken < timing.runs:
        return None
    worst = max(stats.median_ci_rel(values) for values in samples.values())
    if worst <= timing.target_ci:
        return f"every median within +/-{100 * timing.target_ci:g}% (95% CI) after {taken} samples"
    if taken >= timing.max_runs:
        return f"max_runs ({timing.max_runs}) reached; widest median CI +/-{100 * worst:.2f}%"
    if elapsed_s >= timing.max_seconds:
        return f"max_seconds ({timing.max_seconds:g} s) reached after {taken} samples; widest median CI +/-{100 * worst:.2f}%"
    return None


def sample_region(gpu: GpuSession, enqueue: Callable[[], None], timing: Any,
                  setup: Any = None, blocking: bool | None = None) -> tuple[float, float | None]:
    """(published ms, host ms or None).  With clock "both" the region is run twice: once timed
    with events (behind the blocking kernel where asked: ``blocking``, else timing.blocking), then
    once on the host clock with no blocking kernel, so each sample pairs the GPU's time with what
    the host paid to enqueue it.  ``setup`` (the region's untimed fills) runs before each of them."""
    fills = {} if setup is None else {"setup": setup}
    blocking = timing.blocking if blocking is None else blocking
    if timing.clock != "both":
        return gpu.sample(enqueue, timing.clock, blocking, timing.l2_flush, **fills), None
    device_ms = gpu.sample(enqueue, "device", blocking, timing.l2_flush, **fills)
    return device_ms, gpu.sample(enqueue, "host", False, timing.l2_flush, **fills)


def host_part(host_samples: list[float]) -> dict:
    """The host-clock samples of a variant (clock: both), or nothing."""
    if not host_samples:
        return {}
    return {"host_samples_ms": host_samples, "host_stats": stats.summarize(host_samples)}


@dataclass
class Sampled:
    """What sampling one size took: samples per region, the clocks around them, why it stopped."""
    samples: dict[str, list[float]]
    host_samples: dict[str, list[float]]
    stop: str
    sm_before: int | None
    sm_after: int | None
    reasons: set[str]


def take_samples(gpu: GpuSession, regions: dict[str, Callable[[], None]], timing: Any, nvml: Nvml,
                 shown: list[str], label: str, progress: Callable[[str], None],
                 setups: dict[str, Any] | None = None, blocked: Collection[str] = ()) -> Sampled:
    """Warm up every region, then sample them round by round until ``sampling_done`` says stop.

    ``shown`` names the regions the progress lines show (the variants; the first one counts the rounds);
    ``setups`` the untimed fills run before each sample of a region, by region name; ``blocked`` the
    regions queued behind the blocking kernel although timing.blocking is off
    (timing.block_where_possible).
    """
    setups = setups or {}

    def block(name: str) -> bool | None:
        return True if name in blocked else None

    samples: dict[str, list[float]] = {name: [] for name in regions}
    host_samples: dict[str, list[float]] = {name: [] for name in regions}
    reasons: set[str] = set()
    for _ in range(timing.warmups):
        for name, enqueue in regions.items():
            sample_region(gpu, enqueue, timing, setups.get(name), block(name))
    sm_before = nvml.sm_clock_mhz()  # just after warm-up, so the clock reflects load
    started = time.monotonic()
    stop = None
    while stop is None:
        for name, enqueue in regions.items():
            ms, host_ms = sample_region(gpu, enqueue, timing, setups.get(name), block(name))
            samples[name].append(ms)
            if host_ms is not None:
                host_samples[name].append(host_ms)
        reasons.update(nvml.throttle_reasons() or [])
        taken = len(samples[shown[0]])
        stop = sampling_done(samples, timing, taken, time.monotonic() - started)
        if taken <= timing.runs or taken % 25 == 0 or stop:
            latest = ", ".join(f"{name} {samples[name][-1]:.4g} ms" for name in shown)
            progress(f"{label} sample {taken} ({latest}){f'; stopped: {stop}' if stop else ''}")
    return Sampled(samples, host_samples, stop, sm_before, nvml.sm_clock_mhz(), reasons)
