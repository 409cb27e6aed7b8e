"""torch and the harness's pycuda session in the device's primary context, one stream; the timers.

Every timer is a function returning one sample in milliseconds; ``interleave`` takes rounds of
one sample per contestant, as the harness interleaves its variants.
"""

from __future__ import annotations

import gc
import math
from typing import Any, Callable

from measure import HARNESS_VERSION

from bench.h200_peers.method import check_passes


class _HarnessTimer:
    """One contestant timed by harness.GpuSession.sample (flush, blocking kernel, events).

    If the blocking kernel times out (the host could not enqueue behind it: something in the
    contestant synchronised), the contestant is timed without it from then on, and ``note`` says so.
    """

    def __init__(self, gpu: Any, enqueue: Callable[[], None]) -> None:
        self.gpu, self.enqueue = gpu, enqueue
        self.blocking = True
        self.note: str | None = None

    def __call__(self) -> float:
        from measure.harness import MeasurementError
        try:
            return self.gpu.sample(self.enqueue, "device", self.blocking, True)
        except MeasurementError as err:
            if not self.blocking:
                raise
            self.blocking = False
            self.note = f"timed without the blocking kernel after: {err}"
            return self.gpu.sample(self.enqueue, "device", False, True)


class Session:
    """torch and the harness's pycuda session in the device's primary context, one stream."""

    def __init__(self, seed: int, floor_bytes: int, say: Callable[[str], None]) -> None:
        import numpy as np
        import torch
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the runtime makes the primary context current first
        import pycuda
        import pycuda.driver as drv
        from measure import harness
        from measure.harness import envinfo
        self.np, self.torch, self.drv, self.harness, self.say = np, torch, drv, harness, say
        self.pycuda_version = pycuda.VERSION_TEXT
        self.cache_dir = harness.cache_dir()
        self.gpu = harness.GpuSession(drv, primary=True)
        self.nvml = None
        try:
            self.nvml = envinfo.Nvml(self.gpu.dev.pci_bus_id())
            self.gpu.load_harness(self.cache_dir)
            self.stream = torch.cuda.ExternalStream(int(self.gpu.stream.handle))
            # The copy buffers of every part, allocated once, filled as the harness fills its own.
            self.floor_bytes = floor_bytes
            self.floor_src, self.floor_dst = self.gpu.alloc(floor_bytes), self.gpu.alloc(floor_bytes)
            drv.memcpy_htod(self.floor_src, harness.fill_input(np.random.default_rng(seed + 1), floor_bytes // 4,
                                                               "float32", "uniform"))
        except BaseException:
            self.close()
            raise

    def environment(self) -> dict:
        torch, gpu, nvml = self.torch, self.gpu, self.nvml
        env = {"gpu": gpu.name, "arch": gpu.arch, "sm_count": gpu.sm_count, "l2_bytes": gpu.l2_bytes,
               "memory_bytes": gpu.memory_bytes, "driver": nvml.driver_version() if nvml else None,
               "torch": torch.__version__, "torch_cuda": torch.version.cuda, "pycuda": self.pycuda_version,
               "harness_version": HARNESS_VERSION, "sm_mhz_max": nvml.max_sm_clock_mhz() if nvml else None,
               "memory_mhz": nvml.memory_clock_mhz() if nvml else None}
        for name in ("triton", "cupy"):
            try:
                env[name] = __import__(name).__version__
            except Exception as err:
                env[name] = f"unavailable: {err}"
        return env

    def clocks(self) -> dict:
        nvml = self.nvml
        return {"sm_mhz": nvml.sm_clock_mhz() if nvml else None,
                "throttle_reasons": (nvml.throttle_reasons() if nvml else None) or []}

    def harness_timer(self, enqueue: Callable[[], Any], torch_work: bool = False) -> _HarnessTimer:
        if not torch_work:
            return _HarnessTimer(self.gpu, enqueue)
        torch, stream = self.torch, self.stream

        def run() -> None:
            with torch.cuda.stream(stream):
                enqueue()
        return _HarnessTimer(self.gpu, run)

    def plain_timer(self, enqueue: Callable[[], None]) -> Callable[[], float]:
        """Events around the region on the harness's stream; no flush, no blocking kernel."""
        return lambda: self.gpu.sample(enqueue, "device", False, False)

    def torch_timer(self, enqueue: Callable[[], Any]) -> Callable[[], float]:
        """torch.cuda.Event around the region on torch's current (default) stream, as torch users time."""
        torch = self.torch
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def sample() -> float:
            start.record()
            enqueue()
            stop.record()
            stop.synchronize()
            return float(start.elapsed_time(stop))
        return sample

    def compare(self, y: Any, ref: Any) -> dict:
        """rel. L2 error, max. abs. error and NaN count of a float32 output against a float64 reference."""
        torch = self.torch
        nan = int(torch.isnan(y).sum())
        diff = y.double() - ref
        rel = float(torch.linalg.vector_norm(diff) / torch.linalg.vector_norm(ref))
        max_abs = float(diff.abs().max()) if nan == 0 else math.nan
        del diff
        return {"rel_l2": rel, "max_abs_err": max_abs, "nan": nan, "elements": int(y.numel()),
                "ok": check_passes(rel, nan)}

    def close(self) -> None:
        """Free torch's cache and our buffers, then leave the primary context (torch keeps it)."""
        torch = self.torch
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        try:
            self.gpu.close()
        finally:
            if self.nvml is not None:
                self.nvml.close()


def interleave(timers: dict[str, Callable[[], float]], warmups: int, runs: int,
               say: Callable[[str], None], label: str) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Rounds of one sample per contestant, as the harness interleaves variants; errors are data."""
    samples: dict[str, list[float]] = {name: [] for name in timers}
    errors: dict[str, str] = {}
    total = warmups + runs
    for k in range(total):
        for name, timer in timers.items():
            if name in errors:
                continue
            try:
                ms = timer()
            except Exception as err:  # a failing contestant is recorded; the others go on
                errors[name] = f"{type(err).__name__}: {err}"
                say(f"{label}: {name} failed: {errors[name]}")
                continue
            if k >= warmups:
                samples[name].append(ms)
        if k + 1 == warmups or (k + 1 - warmups) % 25 == 0 and k >= warmups:
            say(f"{label}: round {k + 1}/{total}")
    return samples, errors


def timer_notes(timers: dict[str, Callable[[], float]]) -> dict[str, str]:
    """name -> why a contestant was timed otherwise than asked (a harness timer's ``note``)."""
    return {name: t.note for name, t in timers.items() if getattr(t, "note", None)}
