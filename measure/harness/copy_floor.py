"""The copy floor: the best of a float4 copy kernel and cuMemcpyDtoD over buffers past the L2,
timed in the same run as the variants, as the bandwidth a memory-bound kernel can hope for."""

from __future__ import annotations

from typing import Any, Callable

from measure import stats
from measure.harness.launches import Call
from measure.harness.session import GpuSession


def copy_floor_bytes(elements: int, l2_bytes: int) -> int:
    """Bytes in each copy-floor buffer: elements x 4 bytes, at least four times the L2, a multiple of 16.

    Four L2s a buffer keeps the copy's timed region long (about 0.1 ms on an H200) and its
    traffic DRAM's, so the floor's own spread stays well under a percent at every size."""
    nbytes = max(elements * 4, 4 * l2_bytes)
    return -(-nbytes // 16) * 16


def copy_floor_regions(gpu: GpuSession, src: Any, dst: Any, floor_bytes: int) -> dict[str, Callable[[], None]]:
    """The copy floor's two timed regions over ``floor_bytes`` of two buffers: a float4 copy kernel
    and cuMemcpyDtoD, named as in ``copy_floor_record``."""
    n4 = floor_bytes // 16
    copy_call = Call("glossary_copy_f4", gpu.copy_kernel, (-(-n4 // 256), 1, 1), (256, 1, 1),
                     (int(src), int(dst), n4))
    copy_call.launch(gpu.stream)  # load the harness kernel before any blocking sample
    gpu.stream.synchronize()
    return {"__vector_copy": lambda: copy_call.launch(gpu.stream),
            "__memcpy_dtod": lambda: gpu.drv.memcpy_dtod_async(dst, src, floor_bytes, gpu.stream)}


def copy_floor_record(samples: dict[str, list[float]], floor_bytes: int, statistic: str) -> dict:
    """A size's ``copy_floor``: both regions' samples and GB/s (bytes read plus written), and the better."""
    def part(name: str) -> dict:
        st = stats.summarize(samples[name])
        return {"samples_ms": samples[name], "stats": st,
                "gbps": stats.gbps(2 * floor_bytes, stats.pick(st, statistic))}

    vec, dtod = part("__vector_copy"), part("__memcpy_dtod")
    return {"gbps": max(vec["gbps"], dtod["gbps"]), "vector_copy_gbps": vec["gbps"],
            "memcpy_dtod_gbps": dtod["gbps"], "bytes_per_copy": 2 * floor_bytes,
            "stat": statistic, "vector_copy": vec, "memcpy_dtod": dtod}
