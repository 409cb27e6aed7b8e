"""The GPU session: a pycuda context on device 0, its stream and events, the blocking kernel, the L2 flush.

``GpuSession.sample`` is one timed region as nvbench's cold measurement takes it: the L2 flushed
by a kernel that reads twice the L2, the stream held by the blocking kernel while the host
enqueues the region, CUDA events around it (or the host clock).  The kernels are the harness's
own CUDA source, ``harness.cu`` beside this module.
"""

from __future__ import annotations

import gc
import time
from importlib import resources
from typing import Any, Callable

import numpy as np

from measure.harness.errors import MeasurementError

BLOCK_TIMEOUT_NS = 5_000_000_000


def harness_source() -> str:
    """The text of harness.cu: the blocking kernel, the L2 flush and the copy floor's float4 copy."""
    return resources.files("measure.harness").joinpath("harness.cu").read_text(encoding="utf-8")


def probe_gpu() -> tuple[bool, str]:
    """(True, GPU name) when pycuda imports and a CUDA device exists, else (False, why). Never raises."""
    try:
        import pycuda.driver as drv
    except ImportError as err:
        if "pycuda" in str(err) and getattr(err, "name", "") in ("pycuda", "pycuda.driver"):
            return False, "pycuda is not installed"
        return False, f"pycuda cannot be imported: {err}"
    except Exception as err:
        return False, f"pycuda cannot be imported: {err}"
    try:
        drv.init()
        count = drv.Device.count()
        if count < 1:
            return False, "no CUDA device: the driver reports 0 devices"
        return True, drv.Device(0).name()
    except Exception as err:
        return False, f"no CUDA device: {err}"


def list_gpus() -> list[dict]:
    """Every CUDA device this process sees: [{"index", "name", "pci_bus_id"}]; [] where none. Never raises."""
    try:
        import pycuda.driver as drv
        drv.init()
        return [{"index": i, "name": drv.Device(i).name(), "pci_bus_id": drv.Device(i).pci_bus_id()}
                for i in range(drv.Device.count())]
    except Exception:
        return []


def device_limits(drv: Any, dev: Any) -> dict[str, int]:
    """The device's limits that spec expressions may name, and the reservation occupancy needs,
    from its attributes (measure.occupancy.DEVICE_ATTRIBUTES); one pycuda lacks is left out."""
    from measure.occupancy import DEVICE_ATTRIBUTES
    out = {}
    for name, attr in DEVICE_ATTRIBUTES.items():
        code = getattr(drv.device_attribute, attr, None)
        if code is None:
            continue
        try:
            out[name] = int(dev.get_attribute(code))
        except drv.Error:
            continue
    return out


class GpuSession:
    """A pycuda context on device 0, with the harness kernels loaded.

    The harness makes a context of its own; ``primary=True`` shares the device's primary context
    instead (the CUDA runtime's, so torch's), for benchmarks that time torch on the same stream.
    """

    def __init__(self, drv: Any, primary: bool = False) -> None:
        self.drv = drv
        drv.init()
        if drv.Device.count() < 1:
            raise MeasurementError("no CUDA device: the driver reports 0 devices")
        self.dev = drv.Device(0)
        # MAP_HOST: the blocking kernel reads a flag in mapped pinned host memory (the primary
        # context always supports mapped pinned memory).
        if primary:
            self.ctx = self.dev.retain_primary_context()
            self.ctx.push()
        else:
            self.ctx = self.dev.make_context(flags=drv.ctx_flags.MAP_HOST)
        self._extra: list[Any] = []
        self.modules: list[Any] = []
        try:
            major, minor = self.dev.compute_capability()
            self.arch = f"sm_{major}{minor}"
            self.name = self.dev.name()
            attr = drv.device_attribute
            self.l2_bytes = int(self.dev.get_attribute(attr.L2_CACHE_SIZE))
            self.sm_count = int(self.dev.get_attribute(attr.MULTIPROCESSOR_COUNT))
            self.memory_bytes = int(self.dev.total_memory())
            self.limits = device_limits(drv, self.dev)
            self.stream = drv.Stream()
            self.start, self.stop = drv.Event(), drv.Event()
            self.flag = drv.pagelocked_zeros((2,), np.int32, mem_flags=drv.host_alloc_flags.DEVICEMAP)
            self.flag_ptr = int(self.flag.base.get_device_pointer())
            self.flush_bytes = -(-2 * self.l2_bytes // 4) * 4
            self.flush = self.alloc(self.flush_bytes)
            drv.memset_d32(self.flush, 0, self.flush_bytes // 4)
            self.flush_sink = self.alloc(4)
        except BaseException:
            self.close()
            raise

    def alloc(self, nbytes: int) -> Any:
        """Device memory that lives as long as the session (freed by ``close``)."""
        buf = self.drv.mem_alloc(nbytes)
        self._extra.append(buf)
        return buf

    def load_harness(self, cache_dir: str) -> None:
        """Compile harness.cu (through pycuda's cache in ``cache_dir``) and prepare its kernels."""
        from pycuda.compiler import SourceModule
        mod = SourceModule(harness_source(), options=["-O3"], arch=self.arch, no_extern_c=True,
                           cache_dir=cache_dir)
        self.modules.append(mod)
        self.block_kernel = mod.get_function("glossary_blocking_kernel").prepare("PQ")
        self.copy_kernel = mod.get_function("glossary_copy_f4").prepare("PPq")
        self.flush_kernel = mod.get_function("glossary_flush_read").prepare("PqP")

    def flush_l2(self) -> None:
        """Enqueue the read-only L2 flush on our stream."""
        blocks = max(1, min(self.sm_count * 8, self.flush_bytes // 16 // 256))
        self.flush_kernel.prepared_async_call((blocks, 1, 1), (256, 1, 1), self.stream,
                                              self.flush, self.flush_bytes // 16, self.flush_sink)

    def close(self) -> None:
        """Free what we allocated, then pop and destroy our context (pycuda's test helpers' order)."""
        for buf in self._extra:
            try:
                buf.free()
            except Exception:
                pass
        self._extra.clear()
        flag = getattr(self, "flag", None)
        if flag is not None:
            try:
                flag.base.free()
            except Exception:
                pass
        self.flag = None
        # Drop modules and functions while our context is current, so pycuda unloads them cleanly.
        self.modules.clear()
        self.block_kernel = self.copy_kernel = self.flush_kernel = None
        gc.collect()
        try:
            self.ctx.pop()
        finally:
            try:
                self.ctx.detach()
            except Exception:
                pass

    def sample(self, enqueue: Callable[[], None], clock: str, blocking: bool, l2_flush: bool,
               setup: Any = None) -> float:
        """One timed region in milliseconds.  First, outside the timed region and before the L2 flush:
        ``enqueue.before_sample``, where it has one (the state the region starts from: managed pages,
        the L2 window), then ``setup`` (the variant's fills, ``measure.harness.fills``)."""
        stream = self.stream
        before = getattr(enqueue, "before_sample", None)
        if before is not None:
            before()
        if setup is not None:
            setup.enqueue(stream)
        if l2_flush:
            self.flush_l2()
        if clock == "host":
            stream.synchronize()
            t0 = time.perf_counter()
            enqueue()
            stream.synchronize()
            return (time.perf_counter() - t0) * 1e3
        if blocking:
            self.flag[0] = 0
            self.flag[1] = 0
            self.block_kernel.prepared_async_call((1, 1, 1), (1, 1, 1), stream, self.flag_ptr,
                                                  BLOCK_TIMEOUT_NS)
        try:
            self.start.record(stream)
            enqueue()
            self.stop.record(stream)
        finally:
            if blocking:
                self.flag[0] = 1  # release the queue whatever happened while enqueuing
        self.stop.synchronize()
        if blocking and self.flag[1]:
            raise MeasurementError(
                f"the blocking kernel timed out after {BLOCK_TIMEOUT_NS / 1e9:.0f} s: the host could not "
                f"enqueue the timed region behind it (too many launches for the launch queue?); "
                f"set timing.blocking: false for this entry")
        return float(self.stop.time_since(self.start))
