"""Managed (unified) memory on the node: allocation, prefetch and advise steps, and the state every
sample starts from.

A managed buffer is a NumPy array over cuMemAllocManaged memory (pycuda's ``managed_empty``); the
workspace passes its device pointer to kernels.  ``ManagedState.reset(variant)`` runs outside the
timed region, before every sample and before the check's run: it clears every advice on every
managed buffer and prefetches its pages to where the variant's ``resident`` says (the host by
default), then waits, so no sample inherits the pages or the advice of the one before.  Prefetch and
advise steps go through NVIDIA's cuda-bindings on pycuda's own context and streams.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from measure import units
from measure.harness.errors import MeasurementError
from measure.spec import MeasureSpec
from measure.spec.steps import MAIN_STREAM
from measure.spec.unified import MANAGED_DEVICE_SHARE, managed_buffers

ADVICE_SET = {"read_mostly": "CU_MEM_ADVISE_SET_READ_MOSTLY",
              "preferred_location": "CU_MEM_ADVISE_SET_PREFERRED_LOCATION",
              "accessed_by": "CU_MEM_ADVISE_SET_ACCESSED_BY"}
ADVICE_UNSET = ("CU_MEM_ADVISE_UNSET_READ_MOSTLY", "CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION",
                "CU_MEM_ADVISE_UNSET_ACCESSED_BY")


def bindings() -> Any:
    try:
        from cuda.bindings import driver as cu
    except Exception as err:
        raise MeasurementError(f"managed memory steps need cuda-bindings (pip install cuda-bindings), which "
                               f"cannot be imported: {err}") from None
    return cu


def check(result: Any, what: str) -> Any:
    """A cuda-bindings call's result: its values, or a MeasurementError naming the call."""
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise MeasurementError(f"{what} failed: {err}")
    return result[1:] if isinstance(result, tuple) else ()


def location(cu: Any, place: str, device: int = 0) -> Any:
    loc = cu.CUmemLocation()
    if place == "device":
        loc.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        loc.id = device
    else:
        loc.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        loc.id = 0
    return loc


def managed_shortfall(spec: MeasureSpec, sizes: dict[str, int], free: int, label: str) -> str | None:
    """Where the size's managed buffers pass MANAGED_DEVICE_SHARE of the free device memory, why (pure)."""
    managed = sum(sizes[name] for name in managed_buffers(spec))
    if managed <= free * MANAGED_DEVICE_SHARE:
        return None
    gib = lambda n: units.binary_bytes(n, "GiB", digits=1)  # noqa: E731
    return (f"{label} needs {gib(managed)} of managed memory, more than {MANAGED_DEVICE_SHARE:.0%} of the "
            f"{gib(free)} of device memory free: an oversubscribed managed allocation can stall the GPU; lower "
            f"the size in the entry's measure.sizes. Nothing was allocated or timed.")


def require_managed(gpu: Any) -> None:
    """A MeasurementError where the device cannot page managed memory on demand or prefetch it."""
    attr = getattr(gpu.drv.device_attribute, "CONCURRENT_MANAGED_ACCESS", None)
    if attr is not None and not int(gpu.dev.get_attribute(attr)):
        raise MeasurementError(f"{gpu.name} does not report concurrent managed access: managed buffers, their "
                               f"page faults and prefetches cannot be measured on it")


def allocate_managed(gpu: Any, count: int, dtype: Any, name: str, label: str) -> np.ndarray:
    """A managed array of ``count`` elements, attached globally (every stream may touch it)."""
    drv = gpu.drv
    flags = getattr(drv, "mem_attach_flags", None)
    attach = int(getattr(flags, "GLOBAL", 1))  # CU_MEM_ATTACH_GLOBAL
    try:
        return drv.managed_empty(count, np.dtype(dtype), "C", attach)
    except (drv.Error, MemoryError) as err:
        raise MeasurementError(f"{label}: cannot allocate managed buffer {name}: {err}") from None


def device_pointer(array: np.ndarray) -> int:
    return int(array.base.get_device_pointer())


class MemoryCall:
    """A prefetch (stream-ordered) or advise (a host call, made as the variant is enqueued) step."""

    kernel = None
    direction = None  # not a copy: no link bytes of its own are recorded

    def __init__(self, cu: Any, kind: str, ptr: int, nbytes: int, place: str | None, advice: str | None,
                 label: str, stream: str = MAIN_STREAM, after: tuple[str, ...] = (), id: str | None = None,
                 buffer: str = "") -> None:
        self.cu, self.kind, self.ptr, self.nbytes = cu, kind, ptr, nbytes
        self.advice, self.label, self.stream, self.after, self.id = advice, label, stream, after, id
        self.buffers = (buffer, buffer)
        self.loc = location(cu, place or "device")

    def launch(self, stream: Any) -> None:
        cu = self.cu
        if self.kind == "prefetch":
            check(cu.cuMemPrefetchAsync(self.ptr, self.nbytes, self.loc, 0, cu.CUstream(int(stream.handle))),
                  f"cuMemPrefetchAsync ({self.label})")
        else:
            check(cu.cuMemAdvise(self.ptr, self.nbytes, getattr(cu.CUmem_advise, ADVICE_SET[self.advice]), self.loc),
                  f"cuMemAdvise ({self.label})")


def memory_calls(spec: MeasureSpec, step: Any, ws: Any, first_only: bool) -> list[MemoryCall]:
    """A prefetch or advise step as calls (a prefetch's repeats expanded), over the whole buffer."""
    cu = bindings()
    name = step.prefetch if step.prefetch is not None else step.advise
    from measure.spec.steps import stream_name
    ptr, nbytes = device_pointer(ws.managed[name]), ws.counts[name] * ws.itemsize(name)
    kind = "prefetch" if step.prefetch is not None else "advise"
    return [MemoryCall(cu, kind, ptr, nbytes, step.location, step.advice, step.label, stream_name(step, i),
                       tuple(step.after), step.id, name)
            for i in range(1 if first_only else step.repeat)]


class ManagedState:
    """Puts every managed buffer of a workspace in a variant's starting state (``reset``)."""

    def __init__(self, spec: MeasureSpec, ws: Any, gpu: Any) -> None:
        self.spec, self.gpu = spec, gpu
        self.cu = bindings()
        self.buffers = {name: (device_pointer(ws.managed[name]), ws.counts[name] * ws.itemsize(name))
                        for name in managed_buffers(spec)}
        self.device = location(self.cu, "device")
        self.host = location(self.cu, "host")

    def reset(self, resident: dict[str, str]) -> None:
        """Clear every advice, prefetch each managed buffer to its place (host unless ``resident`` says
        device) and wait: outside any timed region."""
        cu = self.cu
        stream = cu.CUstream(int(self.gpu.stream.handle))
        for name, (ptr, nbytes) in self.buffers.items():
            for advice in ADVICE_UNSET:
                for loc in (self.device, self.host):
                    cu.cuMemAdvise(ptr, nbytes, getattr(cu.CUmem_advise, advice), loc)  # unset what is unset: fine
            place = self.device if resident.get(name, "host") == "device" else self.host
            check(cu.cuMemPrefetchAsync(ptr, nbytes, place, 0, stream), f"cuMemPrefetchAsync ({name} reset)")
        self.gpu.stream.synchronize()
