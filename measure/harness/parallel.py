"""Host work over large arrays, split into fixed chunks and run on every core.

NumPy's ufuncs, copies and random fills release the GIL, so a thread pool is enough.  The
chunk bounds depend only on the element count and the chunk size, never on the number of
cores, so every answer (a seeded draw, a check's first bad index) is the same on any host.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

import numpy as np

from measure import tools

T = TypeVar("T")

# Elements per chunk: a chunk's float64 temporaries are 1 MiB each, so a chunk's work stays in the
# cores' caches (measured 2x faster than 4 MiB chunks for the kernel-fusion reference and check),
# and 268,435,456 elements make 2,048 chunks, enough to keep every core busy.
CHUNK = 1 << 17


# glibc mallopt parameters.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


@functools.cache
def tune_malloc() -> bool:
    """Keep chunk-sized temporaries in the heap (glibc only; elsewhere a no-op returning False).

    By default glibc maps a large allocation fresh from the kernel and unmaps it when freed, so
    every chunk's 1 MiB temporaries page-fault again, and 16 threads doing so contend in the
    kernel: on the H200 node a check spent more time in the kernel than in NumPy.  Allocations up
    to 32 MiB now come from the heap, and up to 256 MiB of freed heap is kept for reuse; the
    gigabyte-sized buffers are still mapped and returned as before."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        return False
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, 256 << 20))


def chunk_bounds(count: int, chunk: int | None = None) -> list[tuple[int, int]]:
    """[(start, stop)] covering range(count) in order, each at most ``chunk`` (default ``CHUNK``) long (pure)."""
    chunk = CHUNK if chunk is None else chunk
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")
    return [(start, min(start + chunk, count)) for start in range(0, count, chunk)]


def workers(jobs: int) -> int:
    """Threads for ``jobs`` chunks: one per core this process may use, at most one per chunk."""
    return max(1, min(jobs, tools.cores()))


def map_chunks(fn: Callable[[int, int], T], count: int, chunk: int | None = None) -> list[T]:
    """``fn(start, stop)`` for every chunk of range(count), on every core; the answers in chunk order.

    One chunk runs inline (no thread for small work); an exception in any chunk is raised here.
    """
    bounds = chunk_bounds(count, chunk)
    if len(bounds) <= 1:
        return [fn(start, stop) for start, stop in bounds]
    with ThreadPoolExecutor(max_workers=workers(len(bounds))) as pool:
        return list(pool.map(lambda b: fn(*b), bounds))


def as_float64(values: np.ndarray) -> np.ndarray:
    """``values`` as a new float64 array, converted chunk by chunk on every core."""
    flat = np.asarray(values).ravel()
    out = np.empty(flat.size, dtype=np.float64)

    def convert(start: int, stop: int) -> None:
        out[start:stop] = flat[start:stop]

    map_chunks(convert, flat.size)
    return out.reshape(np.shape(values))


def empty_touched(count: int, dtype) -> np.ndarray:
    """An array of ``count`` zeros of ``dtype`` whose pages were first touched on every core, so a
    copy into it (a device-to-host memcpy) does not page-fault on one core."""
    out = np.empty(count, dtype=dtype)

    def touch(start: int, stop: int) -> None:
        out[start:stop] = 0

    map_chunks(touch, count)
    return out
