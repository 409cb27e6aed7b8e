"""Unified-memory counters from CUPTI's activity API: bytes migrated each way, and GPU and CPU page
faults, for one untimed run of a variant.

Nsight Compute does not count unified-memory events; CUPTI does (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_
COUNTER), through libcupti, which ships with the CUDA toolkit.  It is read here with ctypes, the
record layout from cupti_activity.h (CUDA 13): a CUpti_ActivityUnifiedMemoryCounter3 record holds
its activity kind and counter kind (uint32 each) and the counter's value (uint64) first.
``UnifiedMemoryCounters()`` raises CountersUnavailable where the library, the platform or the device
does not give them; the harness then records why instead of the counts.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
from typing import Any

KIND_UNIFIED_MEMORY_COUNTER = 25
SCOPE_PROCESS_SINGLE_DEVICE = 1
COUNTERS = {1: "bytes_htod", 2: "bytes_dtoh", 3: "cpu_page_faults", 4: "gpu_page_faults"}
CPU_PAGE_FAULT = 3  # a CPU fault's record holds the faulting instruction's address, not a count: one per record
FLUSH_FORCED = 1
BUFFER_BYTES = 8 << 20
LIBRARY_GLOBS = ("/usr/local/cuda/lib64/libcupti.so*", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so*",
                 "/usr/local/cuda/lib/libcupti.so*", "/usr/local/cuda-*/lib*/libcupti.so*",
                 "/usr/local/cuda-*/extras/CUPTI/lib64/libcupti.so*")


class CountersUnavailable(RuntimeError):
    """CUPTI's unified-memory counters cannot be read here; the message says why."""


class _Config(ctypes.Structure):
    _fields_ = [("scope", ctypes.c_uint32), ("kind", ctypes.c_uint32), ("deviceId", ctypes.c_uint32),
                ("enable", ctypes.c_uint32)]


_REQUEST = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
                            ctypes.POINTER(ctypes.c_size_t))
_COMPLETE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.c_size_t)
_KEEP: list[Any] = []  # every callback CUPTI was given lives as long as the process: it may call one late


def _library() -> Any:
    names = [ctypes.util.find_library("cupti")] + sorted({p for g in LIBRARY_GLOBS for p in glob.glob(g)})
    errors = []
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as err:
            errors.append(str(err))
    raise CountersUnavailable("libcupti was not found" + (f" ({'; '.join(errors)})" if errors else ""))


class UnifiedMemoryCounters:
    """CUPTI's unified-memory counters for device 0, enabled from construction to ``close``;
    ``take()`` flushes and returns the totals since the last ``take`` (CUDA must be initialised)."""

    def __init__(self, device: int = 0) -> None:
        self.lib = _library()
        self.totals = {name: 0 for name in COUNTERS.values()}
        self.records = 0  # unified-memory counter records received since counting began
        self.buffers: dict[int, Any] = {}
        self._request, self._complete = _REQUEST(self._on_request), _COMPLETE(self._on_complete)
        _KEEP.extend((self, self._request, self._complete))
        configs = (_Config * len(COUNTERS))(*[_Config(SCOPE_PROCESS_SINGLE_DEVICE, kind, device, 1)
                                              for kind in COUNTERS])
        self._call("cuptiActivityConfigureUnifiedMemoryCounter", configs, ctypes.c_uint32(len(COUNTERS)))
        self._call("cuptiActivityRegisterCallbacks", self._request, self._complete)
        self._call("cuptiActivityEnable", ctypes.c_uint32(KIND_UNIFIED_MEMORY_COUNTER))

    def _call(self, name: str, *args: Any) -> None:
        code = getattr(self.lib, name)(*args)
        if code != 0:
            text = ctypes.c_char_p()
            try:
                self.lib.cuptiGetResultString(code, ctypes.byref(text))
                words = text.value.decode() if text.value else ""
            except Exception:
                words = ""
            raise CountersUnavailable(f"{name} returned {code}{f' ({words})' if words else ''}")

    def _on_request(self, buffer: Any, size: Any, records: Any) -> None:
        block = ctypes.create_string_buffer(BUFFER_BYTES + 8)
        address = (ctypes.addressof(block) + 7) // 8 * 8  # records are 8-byte aligned
        self.buffers[address] = block
        buffer[0] = address
        size[0] = BUFFER_BYTES
        records[0] = 0

    def _on_complete(self, context: Any, stream: int, buffer: int, size: int, valid: int) -> None:
        record = ctypes.c_void_p()
        try:
            while self.lib.cuptiActivityGetNextRecord(ctypes.c_void_p(buffer), ctypes.c_size_t(valid),
                                                      ctypes.byref(record)) == 0:
                kind, counter = ctypes.cast(record, ctypes.POINTER(ctypes.c_uint32))[0:2]
                if kind == KIND_UNIFIED_MEMORY_COUNTER and counter in COUNTERS:
                    self.records += 1
                    value = ctypes.cast(record.value + 8, ctypes.POINTER(ctypes.c_uint64))[0]
                    self.totals[COUNTERS[counter]] += 1 if counter == CPU_PAGE_FAULT else int(value)
        finally:
            self.buffers.pop(buffer, None)

    def take(self) -> dict[str, int]:
        """The counters since the last take: bytes_htod, bytes_dtoh, gpu_page_faults, cpu_page_faults."""
        self._call("cuptiActivityFlushAll", ctypes.c_uint32(FLUSH_FORCED))
        out, self.totals = self.totals, {name: 0 for name in COUNTERS.values()}
        return out

    def close(self) -> None:
        self.lib.cuptiActivityFlushAll(ctypes.c_uint32(FLUSH_FORCED))
        self.lib.cuptiActivityDisable(ctypes.c_uint32(KIND_UNIFIED_MEMORY_COUNTER))


def open_counters() -> tuple[UnifiedMemoryCounters | None, str | None]:
    """CUPTI's unified-memory counters, enabled now: (counters, None), or (None, why) where CUPTI cannot
    give them here.  Called after ``cuInit`` and before the process makes its CUDA context: on the H200
    node (driver 580, CUDA 13) counting enabled after the context got no record at all, and enabling it
    before ``cuInit`` returned CUPTI_ERROR_NOT_READY."""
    try:
        return UnifiedMemoryCounters(), None
    except CountersUnavailable as err:
        return None, str(err)
    except Exception as err:  # a library that misbehaves must not fail the measurement
        return None, f"{type(err).__name__}: {err}"


def count_variants(counters: UnifiedMemoryCounters, runs: dict[str, tuple[Any, Any]]
                   ) -> tuple[dict[str, dict[str, int]], str | None]:
    """For each variant, ``before()`` (its starting state, not counted) then ``run()`` (one untimed run,
    synchronised) under ``counters`` (``open_counters``), which are closed after: ({variant: counts},
    None), or ({}, why) where CUPTI gave nothing."""
    try:
        out, delivered = {}, 0
        for name, (before, run) in runs.items():
            before()
            counters.take()  # the reset's own migrations are not the variant's
            start = counters.records
            run()
            out[name] = counters.take()
            delivered += counters.records - start
        if not delivered:
            # Zero records for every variant is not zero faults: a variant that starts from host pages
            # must migrate them.  CUPTI enabled after the context was made delivered nothing (on the H200
            # node, 2026-12-02, every count read 0 while the faulting variant ran hundreds of times
            # slower than the resident one), so no count is recorded.
            return {}, ("CUPTI delivered no unified-memory counter records for any variant (counting was "
                        "enabled, but nothing came back), so no counts are recorded")
        return out, None
    except CountersUnavailable as err:
        return {}, str(err)
    finally:
        counters.close()
