"""The link floor: the best pinned host-to-device and device-to-host bandwidth of the card's host
link, timed in the same run as the variants (as the copy floor is), for entries with host buffers."""

from __future__ import annotations

from typing import Any, Callable

from measure import stats
from measure.harness.session import GpuSession

LINK_BYTES = 256 << 20   # per copy: long enough (~5 ms on PCIe Gen5) that the launch cost is noise
LINK_REGIONS = ("__link_h2d", "__link_d2h")


class LinkBuffers:
    """A pinned host buffer and a device buffer of LINK_BYTES, freed by ``free``."""

    def __init__(self, gpu: GpuSession) -> None:
        import numpy as np
        drv = gpu.drv
        self.host = drv.pagelocked_empty(LINK_BYTES, np.uint8)
        self.host[:] = 1
        self.device = drv.mem_alloc(LINK_BYTES)

    def regions(self, gpu: GpuSession) -> dict[str, Callable[[], None]]:
        drv = gpu.drv
        return {"__link_h2d": lambda: drv.memcpy_htod_async(self.device, self.host, gpu.stream),
                "__link_d2h": lambda: drv.memcpy_dtoh_async(self.host, self.device, gpu.stream)}

    def free(self) -> None:
        self.device.free()
        self.host.base.free()


def link_floor_record(samples: dict[str, list[float]], statistic: str) -> dict:
    """A size's ``link_floor``: each direction's GB/s (bytes moved once per second, 10^9) from the
    published statistic of its samples."""
    def rate(name: str) -> float:
        return stats.gbps(LINK_BYTES, stats.pick(stats.summarize(samples[name]), statistic))
    return {"h2d_gbps": rate("__link_h2d"), "d2h_gbps": rate("__link_d2h"), "bytes": LINK_BYTES,
            "stat": statistic}


def copy_record(spec: Any, calls: list[Any]) -> tuple[list[dict], dict[str, int]]:
    """A variant's copies (each distinct step once) and its bytes per direction in one region."""
    steps, totals = {}, {}
    for call in calls:
        if call.kernel is not None or getattr(call, "direction", None) is None:  # a kernel, a prefetch or advice
            continue
        totals[call.direction] = totals.get(call.direction, 0) + call.nbytes
        src, dst = call.buffers
        rec = steps.setdefault((src, dst), {"src": src, "dst": dst, "direction": call.direction, "bytes": 0,
                                            "copies": 0})
        rec["bytes"] += call.nbytes
        rec["copies"] += 1
    return list(steps.values()), totals
