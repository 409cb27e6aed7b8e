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
from measure.harness.parallel import map_chunks
from measure.spec import BufferSizeError, MeasureSpec, iter_buffer_bytes
from measure.spec.budget import host_copy_bytes
from measure.spec.sizes import buffer_count, swept_names
from measure.spec.limits import HOST_MEMORY_SHARE

if TYPE_CHECKING:
    from measure.harness.session import GpuSession

NAN32 = 0x7FC00000          # a quiet float32 NaN: poison for float32 buffers
POISON_WIDE = 0xFFFFFFFF    # all ones: a NaN for float64, -1 for int32


class _DtypeTable(dict):
    """dtype name -> NumPy type; ml-dtypes' bfloat16 is imported the first time it is asked for, since
    loading ml-dtypes alone takes about a second (issue 34: `glossary check` imports this module)."""

    def __missing__(self, key: str):
        if key != "bfloat16":
            raise KeyError(key)
        import ml_dtypes

        self[key] = ml_dtypes.bfloat16
        return self[key]

    def __contains__(self, key: object) -> bool:
        return key == "bfloat16" or super().__contains__(key)


NP_DTYPES = _DtypeTable({"float32": np.float32, "float64": np.float64, "int32": np.int32, "float16": np.float16,
                         "int8": np.int8})
# Poison by data type: (memset width in bytes, pattern).  A quiet NaN where the type has one; for
# integers a value the seeded fill never draws (int8 fills stay within [-127, 127]).
POISON = {"float32": (4, NAN32), "float64": (4, POISON_WIDE), "int32": (4, POISON_WIDE),
          "float16": (2, 0x7E00), "bfloat16": (2, 0x7FC0), "int8": (1, 0x80)}
# Integer fills: the float draws scaled by this and rounded (int8 then clipped to [-127, 127]).
INT_SCALE = {"int32": 1000.0, "int8": 32.0}


@dataclass
class Workspace:
    """The buffers of one size (device allocations, or host arrays for host buffers), and the host
    copies of its inputs."""
    allocs: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, np.ndarray] = field(default_factory=dict)
    host: dict[str, np.ndarray] = field(default_factory=dict)   # the host buffers (pinned or pageable)
    itemsizes: dict[str, int] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)  # the size the buffers were allocated for
    managed: dict[str, np.ndarray] = field(default_factory=dict)  # managed buffers; allocs holds their pointers

    def itemsize(self, name: str) -> int:
        return self.itemsizes[name]

    def count_for(self, spec: MeasureSpec, name: str, variant: Any) -> int:
        """Elements of buffer ``name`` as ``variant`` uses it: the allocation's, or for a buffer sized
        by sweep names (``measure.spec.sizes.buffer_count``) the count at the variant's point."""
        if not swept_names(spec, name) or not swept_names(spec, name) <= set(variant.point):
            return self.counts[name]
        return buffer_count(spec, name, self.params, variant)

    def view(self, name: str, offset: int, count: int) -> Any:
        """Elements [offset, offset + count) of a buffer: a host array view, or a device pointer."""
        if name in self.host:
            return self.host[name][offset:offset + count]
        return int(self.allocs[name]) + offset * self.itemsizes[name]

    def free(self) -> None:
        """Free every device buffer and let the host buffers go (the host copies of inputs stay)."""
        for name, alloc in self.allocs.items():
            if name not in self.host and name not in self.managed:
                alloc.free()
        for array in self.managed.values():
            array.base.free()
        self.managed.clear()
        for array in self.host.values():
            base = getattr(array, "base", None)
            if base is not None and hasattr(base, "free"):  # pycuda's page-locked allocation
                base.free()
        self.allocs.clear()
        self.host.clear()


# Elements drawn per generator: each chunk of a buffer has its own generator, seeded from
# (seed, stream, chunk index), so a buffer is drawn on every core and its values depend only on the
# seed, the stream and the element index, not on the number of cores.
DRAW_CHUNK = 1 << 20
FLOOR_STREAM = 0  # the copy floor's source; buffer k of the spec (in spec order) is stream k + 1


def fill_input(seed: int, stream: int, count: int, dtype: str, init: str) -> np.ndarray:
    """Seeded input data, never zeros, drawn in fixed chunks on every core.

    Floats: standard normal, or uniform on [-1, 1); float16 and bfloat16 are float32 draws
    rounded to the type.  int32 and int8: the same draws scaled (by 1000 and 32) and rounded,
    int8 clipped to [-127, 127], so integer inputs are varied too.  Chunk ``c`` of stream
    ``stream`` comes from ``SeedSequence(seed, spawn_key=(stream, c))``, so a float32 buffer
    keeps the values it had before the narrower types existed.
    """
    out = np.empty(count, dtype=NP_DTYPES[dtype])
    draw_dtype = np.float64 if dtype == "float64" else np.float32
    direct = dtype in ("float32", "float64")

    def draw(start: int, stop: int) -> None:
        rng = np.random.Generator(np.random.PCG64(
            np.random.SeedSequence(seed, spawn_key=(stream, start // DRAW_CHUNK))))
        target = out[start:stop] if direct else np.empty(stop - start, dtype=draw_dtype)
        if init == "normal":
            rng.standard_normal(dtype=draw_dtype, out=target)
        else:
            rng.random(dtype=draw_dtype, out=target)
            target *= 2
            target -= 1
        if dtype in INT_SCALE:
            target *= INT_SCALE[dtype]
            np.rint(target, out=target)
            if dtype == "int8":
                np.clip(target, -127, 127, out=target)
        if not direct:
            out[start:stop] = target

    map_chunks(draw, count, DRAW_CHUNK)
    return out


def memory_shortfall(need: int, free: int, total: int, label: str, gpu_name: str) -> str | None:
    """The message for a size that cannot fit in device memory, or None where it fits (pure)."""
    if need <= free:
        return None
    def gib(n: int) -> str:
        return units.binary_bytes(n, "GiB", digits=1)
    return (f"{label} needs {gib(need)} of device memory (buffers and the copy floor), but "
            f"{gpu_name} has {gib(free)} free of {gib(total)}: lower the size in the "
            f"entry's measure.sizes. Nothing was allocated or timed.")


def host_shortfall(spec: MeasureSpec, sizes: dict[str, int], label: str, available: int | None = None) -> str | None:
    """The message for a size whose host buffers and the check's host copies (``host_copy_bytes``)
    pass HOST_MEMORY_SHARE of the memory this machine has available (``available``, else
    /proc/meminfo's MemAvailable), or None where they fit or the platform does not say."""
    host = {n: b for n, b in sizes.items() if spec.buffers[n].location != "device"}
    copies = host_copy_bytes(spec, sizes)
    if available is None:
        try:
            with open("/proc/meminfo", encoding="ascii") as handle:
                available = next(int(line.split()[1]) << 10 for line in handle if line.startswith("MemAvailable:"))
        except (OSError, StopIteration, ValueError, IndexError):
            return None
    if sum(host.values()) + copies <= available * HOST_MEMORY_SHARE:
        return None
    gib = lambda n: units.binary_bytes(n, "GiB", digits=1)  # noqa: E731
    shown = ", ".join(f"{name} {gib(n)} {spec.buffers[name].location}" for name, n in host.items()) or "none"
    return (f"{label} needs {gib(sum(host.values()) + copies)} of host memory (host buffers: {shown}; the "
            f"check's host copies of inputs and outputs: {gib(copies)}), but this machine has {gib(available)} "
            f"available and a measurement may use {HOST_MEMORY_SHARE:.0%} of it: lower the size in the entry's "
            f"measure.sizes, or keep buffers on the device (location: device). Nothing was allocated or timed.")


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
    on_device = sum(n for name, n in sizes.items() if spec.buffers[name].location == "device")
    # The device first: it is the smaller memory, and the one a size is usually chosen for.
    from measure.harness.unified import managed_shortfall
    shortfall = (memory_shortfall(on_device + extra_bytes, free, total, stats.size_label(params), gpu.name)
                 or managed_shortfall(spec, sizes, free - on_device - extra_bytes, stats.size_label(params))
                 or host_shortfall(spec, sizes, stats.size_label(params)))
    if shortfall:
        raise MeasurementError(shortfall)
    ws = Workspace(params=dict(params))
    try:  # each size's inputs come from the seed alone, so they do not depend on the sweep
        for stream, (name, buf) in enumerate(spec.buffers.items(), start=FLOOR_STREAM + 1):
            itemsize = np.dtype(NP_DTYPES[buf.dtype]).itemsize
            count = ws.counts[name] = sizes[name] // itemsize
            ws.itemsizes[name] = itemsize
            if buf.location == "managed":  # filled on the host: its pages start there
                from measure.harness.unified import allocate_managed, device_pointer
                ws.managed[name] = allocate_managed(gpu, count, NP_DTYPES[buf.dtype], name, stats.size_label(params))
                ws.allocs[name] = device_pointer(ws.managed[name])
                if buf.role == "input":
                    ws.inputs[name] = fill_input(spec.seed, stream, count, buf.dtype, buf.init)
                    ws.managed[name][:] = ws.inputs[name]
                continue
            if buf.location != "device":
                ws.allocs[name] = ws.host[name] = host_buffer(gpu, buf.location, count, buf.dtype, name, params)
                if buf.role == "input":
                    ws.inputs[name] = fill_input(spec.seed, stream, count, buf.dtype, buf.init)
                    ws.host[name][:] = ws.inputs[name]
                continue
            try:
                ws.allocs[name] = gpu.drv.mem_alloc(sizes[name])
            except gpu.drv.MemoryError as err:
                shown = units.binary_bytes(sizes[name], "GiB", digits=2)
                raise MeasurementError(f"{stats.size_label(params)}: out of device memory allocating "
                                       f"buffer {name} ({shown}): {err}") from None
            if buf.role == "input":
                ws.inputs[name] = fill_input(spec.seed, stream, count, buf.dtype, buf.init)
                gpu.drv.memcpy_htod(ws.allocs[name], ws.inputs[name])
    except BaseException:
        ws.free()
        raise
    return ws


def host_buffer(gpu: GpuSession, location: str, count: int, dtype: str, name: str, params: dict) -> np.ndarray:
    """A host buffer: page-locked through the driver (pinned), or ordinary memory (pageable), its
    pages touched so that the first copy does not pay for them."""
    np_dtype = NP_DTYPES[dtype]
    try:
        if location == "pinned":
            array = gpu.drv.pagelocked_empty(count, np.dtype(np_dtype) if dtype != "bfloat16" else np.uint16)
            array = array.view(np_dtype) if dtype == "bfloat16" else array
        else:
            array = np.empty(count, dtype=np_dtype)
    except (gpu.drv.Error, MemoryError) as err:
        shown = units.binary_bytes(count * np.dtype(np_dtype).itemsize, "GiB", digits=2)
        raise MeasurementError(f"{stats.size_label(params)}: cannot allocate {location} host buffer {name} "
                               f"({shown}): {err}") from None
    array.view(np.uint8)[:] = 0
    return array


def poison(spec: MeasureSpec, ws: Workspace, gpu: GpuSession) -> None:
    """Poison every output and scratch buffer (POISON: a quiet NaN of its type, all ones for
    float64 and int32, -128 for int8)."""
    setters = {4: gpu.drv.memset_d32, 2: gpu.drv.memset_d16, 1: gpu.drv.memset_d8}
    for name, buf in spec.buffers.items():
        if buf.role in ("output", "scratch"):
            width, pattern = POISON[buf.dtype]
            nbytes = ws.counts[name] * np.dtype(NP_DTYPES[buf.dtype]).itemsize
            if name in ws.host:
                ws.host[name].view({4: np.uint32, 2: np.uint16, 1: np.uint8}[width])[:] = pattern
                continue
            setters[width](ws.allocs[name], pattern, nbytes // width)
