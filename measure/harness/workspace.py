"""A size's device buffers: checked against free memory, inputs from the seeded generator, outputs poisoned.

Everything is allocated and filled outside the timed region; outputs and scratch are poisoned
with NaN before the check, so an element a kernel never writes cannot pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from measure import stats, units
from measure.harness.errors import MeasurementError
from measure.spec import BufferSizeError, MeasureSpec, iter_buffer_bytes

if TYPE_CHECKING:
    from measure.harness.session import GpuSession

NAN32 = 0x7FC00000          # a quiet float32 NaN: poison for float32 buffers
POISON_WIDE = 0xFFFFFFFF    # all ones: a NaN for float64, -1 for int32
NP_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32}


@dataclass
class Workspace:
    """The device buffers of one size, and the host copies of its inputs."""
    allocs: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, np.ndarray] = field(default_factory=dict)

    def free(self) -> None:
        """Free every buffer (the host copies stay)."""
        for alloc in self.allocs.values():
            alloc.free()
        self.allocs.clear()


def fill_input(rng: np.random.Generator, count: int, dtype: str, init: str) -> np.ndarray:
    """Seeded input data, never zeros.

    Floats: standard normal, or uniform on [-1, 1).  int32: the same draws scaled by
    1000 and rounded, so integer inputs are varied too.
    """
    if init == "normal":
        data = rng.standard_normal(count, dtype=np.float64 if dtype == "float64" else np.float32)
    else:
        data = rng.random(count, dtype=np.float64 if dtype == "float64" else np.float32) * 2 - 1
    if dtype == "int32":
        return np.rint(data * 1000).astype(np.int32)
    return data.astype(NP_DTYPES[dtype], copy=False)


def memory_shortfall(need: int, free: int, total: int, label: str, gpu_name: str) -> str | None:
    """The message for a size that cannot fit in device memory, or None where it fits (pure)."""
    if need <= free:
        return None
    def gib(n: int) -> str:
        return units.binary_bytes(n, "GiB", digits=1)
    return (f"{label} needs {gib(need)} of device memory (buffers and the copy floor), but "
            f"{gpu_name} has {gib(free)} free of {gib(total)}: lower the size in the "
            f"entry's measure.sizes. Nothing was allocated or timed.")


def allocation_bytes(spec: MeasureSpec, params: dict[str, int]) -> dict[str, int]:
    """``measure.spec.buffer_bytes``, checked for allocating: a size expression that cannot be
    evaluated, or a buffer of no element, is a MeasurementError naming the buffer (pure)."""
    out = {}
    try:
        for name, nbytes in iter_buffer_bytes(spec, params):
            count = nbytes // np.dtype(NP_DTYPES[spec.buffers[name].dtype]).itemsize
            if count < 1:
                raise MeasurementError(f"buffer {name} has {count} elements at {stats.size_label(params)}")
            out[name] = nbytes
    except BufferSizeError as err:
        raise MeasurementError(f"buffer {err.buffer}: {err}") from None
    return out


def allocate(spec: MeasureSpec, params: dict[str, int], gpu: GpuSession, extra_bytes: int = 0) -> Workspace:
    """Allocate and fill the size's buffers, after checking that they (and ``extra_bytes``) fit."""
    sizes = allocation_bytes(spec, params)
    free, total = gpu.drv.mem_get_info()
    shortfall = memory_shortfall(sum(sizes.values()) + extra_bytes, free, total,
                                 stats.size_label(params), gpu.name)
    if shortfall:
        raise MeasurementError(shortfall)
    ws = Workspace()
    rng = np.random.default_rng(spec.seed)  # per size, so each size's inputs do not depend on the sweep
    try:
        for name, buf in spec.buffers.items():
            itemsize = np.dtype(NP_DTYPES[buf.dtype]).itemsize
            count = ws.counts[name] = sizes[name] // itemsize
            try:
                ws.allocs[name] = gpu.drv.mem_alloc(sizes[name])
            except gpu.drv.MemoryError as err:
                shown = units.binary_bytes(sizes[name], "GiB", digits=2)
                raise MeasurementError(f"{stats.size_label(params)}: out of device memory allocating "
                                       f"buffer {name} ({shown}): {err}") from None
            if buf.role == "input":
                ws.inputs[name] = fill_input(rng, count, buf.dtype, buf.init)
                gpu.drv.memcpy_htod(ws.allocs[name], ws.inputs[name])
    except BaseException:
        ws.free()
        raise
    return ws


def poison(spec: MeasureSpec, ws: Workspace, gpu: GpuSession) -> None:
    """Poison every output and scratch buffer: a float32 NaN, else all ones (a float64 NaN, -1 as int32)."""
    for name, buf in spec.buffers.items():
        if buf.role in ("output", "scratch"):
            nbytes = ws.counts[name] * np.dtype(NP_DTYPES[buf.dtype]).itemsize
            gpu.drv.memset_d32(ws.allocs[name], NAN32 if buf.dtype == "float32" else POISON_WIDE, nbytes // 4)
