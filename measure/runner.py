"""The pycuda measurement harness: compile, check, time, copy floor, counters.

The method (issue 3): compile once through pycuda's cache; allocate outside the
timed region; fill inputs from a seeded generator (never zeros); poison outputs
and scratch, run every variant once and compare every element with the entry's
float64 reference before anything is timed; then warm up and take ``runs``
samples per variant, interleaved across variants, each behind an L2 flush and a
blocking kernel, timed with CUDA events; measure the copy floor in the same run;
record the environment.  Importing this module never imports pycuda: only
``probe_gpu`` and ``measure_entry`` do.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import re
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from measure import HARNESS_VERSION, expr, stats, store, units
from measure.harness import compile as nvcc, counters, envinfo
from measure.spec import MeasureSpec, Variant

NAN32 = 0x7FC00000          # a quiet float32 NaN: poison for float32 buffers
POISON_WIDE = 0xFFFFFFFF    # all ones: a NaN for float64, -1 for int32
BLOCK_TIMEOUT_NS = 5_000_000_000
_NP_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32}
_INT_TYPECODE = {"int32": "i", "int64": "q"}
_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}

# Harness kernels: the blocking kernel (nvbench's trick), the float4 copy of the copy floor, and
# the L2 flush.
HARNESS_CU = r"""
extern "C" __global__ void glossary_blocking_kernel(volatile int* flag, unsigned long long timeout_ns) {
    // flag[0]: released by the host; flag[1]: set here if the wait timed out.
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (unsigned long long spins = 0; flag[0] == 0; ++spins) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        // the spin cap is a backstop in case the global timer does not advance
        if (now - start > timeout_ns || spins > (1ull << 34)) {
            flag[1] = 1;
            __threadfence_system();
            return;
        }
    }
}

extern "C" __global__ void glossary_flush_read(const float4* __restrict__ buf, long long n4,
                                                float* __restrict__ sink) {
    // Reads (never writes) a buffer of twice the L2: every line a sample left, dirty ones
    // included, is evicted here, and what stays behind is clean, so no write-back of the
    // flush lands inside the next timed region (a memset flush leaves the L2 full of dirty lines).
    float acc = 0.0f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1.0e30f) sink[0] = acc;  // never true (the buffer holds zeros); keeps the loads
}

extern "C" __global__ void glossary_copy_f4(const float4* __restrict__ src, float4* __restrict__ dst,
                                             long long n4) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n4) dst[i] = src[i];
}
"""


TIMERS = {"device": "cuda-events", "host": "host-perf-counter", "both": "cuda-events+host-perf-counter"}


class MeasurementError(RuntimeError):
    """A measurement that cannot be trusted: compile error, wrong result, CUDA error."""


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


# ---------------------------------------------------------------------------------------------
# Pure helpers (no pycuda)


def check_elements(got: np.ndarray, ref: np.ndarray, rtol: float, atol: float) -> dict:
    """Compare every element: |got - ref| <= atol + rtol * |ref|; NaN never passes.

    Returns {"ok", "elements_checked", "bad", "nan", "first_bad", "max_abs_err", "max_rel_err",
    "max_tolerance_used"} (the largest |err| / (atol + rtol |ref|), at most 1 when ok); the
    maxima are None when the check fails (they could be NaN).
    """
    got64 = np.asarray(got, dtype=np.float64).ravel()
    ref64 = np.asarray(ref, dtype=np.float64).ravel()
    err = np.abs(got64 - ref64)
    abs_ref = np.abs(ref64)
    good = err <= atol + rtol * abs_ref      # False wherever either side is NaN
    n_bad = int(good.size - np.count_nonzero(good))
    out: dict[str, Any] = {"ok": n_bad == 0, "elements_checked": int(got64.size), "bad": n_bad,
                           "nan": int(np.count_nonzero(np.isnan(got64))), "first_bad": None,
                           "max_abs_err": None, "max_rel_err": None, "max_tolerance_used": None}
    if n_bad:
        first = int(np.argmin(good))
        out["first_bad"] = {"index": first, "got": float(got64[first]), "expected": float(ref64[first])}
        return out
    out["max_abs_err"] = float(err.max()) if err.size else 0.0
    # Near-zero references make max_rel_err large while atol covers them; this says how close to failing.
    out["max_tolerance_used"] = float((err / (atol + rtol * abs_ref)).max()) if err.size else 0.0
    nonzero = abs_ref > 0
    out["max_rel_err"] = float((err[nonzero] / abs_ref[nonzero]).max()) if nonzero.any() else 0.0
    return out


def nan_note(count: int) -> str:
    """' (12 NaN: unwritten, poisoned or computed NaN)' where a check found NaN, else ''."""
    return f" ({count} NaN: unwritten, poisoned or computed NaN)" if count else ""


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
    return data.astype(_NP_DTYPES[dtype], copy=False)


def copy_floor_bytes(elements: int, l2_bytes: int) -> int:
    """Bytes in each copy-floor buffer: elements x 4 bytes, at least four times the L2, a multiple of 16.

    Four L2s a buffer keeps the copy's timed region long (about 0.1 ms on an H200) and its
    traffic DRAM's, so the floor's own spread stays well under a percent at every size."""
    nbytes = max(elements * 4, 4 * l2_bytes)
    return -(-nbytes // 16) * 16


def buffers_touched(variant: Variant) -> set[str]:
    """Names a variant passes to its kernels (buffers and scalars alike; callers filter)."""
    return {arg for launch in variant.launches for arg in launch.args}


# ---------------------------------------------------------------------------------------------
# GPU session


@dataclass
class _Call:
    """One prepared kernel launch."""
    kernel: str
    func: Any
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple

    def launch(self, stream: Any) -> None:
        self.func.prepared_async_call(self.grid, self.block, stream, *self.args)


@dataclass
class _Workspace:
    """The device buffers of one size, and the host copies of its inputs."""
    allocs: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, np.ndarray] = field(default_factory=dict)

    def free(self) -> None:
        for alloc in self.allocs.values():
            alloc.free()
        self.allocs.clear()


class _Gpu:
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
        buf = self.drv.mem_alloc(nbytes)
        self._extra.append(buf)
        return buf

    def load_harness(self, cache_dir: str) -> None:
        from pycuda.compiler import SourceModule
        mod = SourceModule(HARNESS_CU, options=["-O3"], arch=self.arch, no_extern_c=True, cache_dir=cache_dir)
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

    # -- timing ---------------------------------------------------------------------------------

    def sample(self, enqueue: Callable[[], None], clock: str, blocking: bool, l2_flush: bool) -> float:
        """One timed region in milliseconds."""
        stream = self.stream
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


# ---------------------------------------------------------------------------------------------
# measure_entry


def measure_entry(slug: str, entry_dir: Path, spec: MeasureSpec, fingerprint: str,
                  progress: Callable[[str], None] = print) -> dict:
    """Measure one entry on device 0 and return its result dict (status "ok").

    Raises MeasurementError for a compile error, a wrong or NaN result, or a CUDA error.
    """
    try:
        import pycuda.driver as drv
    except Exception as err:
        raise MeasurementError(f"pycuda cannot be imported: {err}") from None
    entry_dir = Path(entry_dir).resolve()
    reference = _load_reference(slug, entry_dir, spec)
    cache_dir = _cache_dir()
    try:
        gpu = _Gpu(drv)
    except drv.Error as err:
        raise MeasurementError(f"{slug}: cannot open a CUDA context: {err}") from None
    nvml = None
    try:
        nvml = envinfo.Nvml(gpu.dev.pci_bus_id())
        gpu.load_harness(cache_dir)
        modules, commands = _compile(slug, entry_dir, spec, gpu, cache_dir)
        environment = _environment(gpu, nvml, commands)
        progress(f"{slug}: compiled for {gpu.arch} on {gpu.name}")
        sizes = []
        for params in spec.sizes:
            sizes.append(_measure_size(slug, spec, params, gpu, modules, reference, nvml, progress))
    except MeasurementError:
        raise
    except drv.Error as err:
        raise MeasurementError(f"{slug}: CUDA error: {type(err).__name__}: {err}") from None
    except Exception as err:  # the caller records failures; a harness bug must not crash the build
        raise MeasurementError(f"{slug}: harness error: {type(err).__name__}: {err}\n"
                               f"{traceback.format_exc(limit=4)}") from err
    finally:
        modules = None  # noqa: F841 -- release kernel handles before the context goes
        try:
            gpu.close()
        finally:
            if nvml is not None:
                nvml.close()
    _finish_environment(environment, sizes)
    result = {
        "entry": slug,
        "device": store.device_key(environment["gpu"]),
        "status": "ok",
        "provenance": "measured",
        "fingerprint": fingerprint,
        "environment": environment,
        "method": {
            "warmups": spec.timing.warmups, "runs": spec.timing.runs, "statistic": spec.timing.statistic,
            "max_runs": spec.timing.max_runs, "target_ci": spec.timing.target_ci,
            "max_seconds": spec.timing.max_seconds,
            "clock": spec.timing.clock, "blocking": spec.timing.blocking, "l2_flush": spec.timing.l2_flush,
            "flush_bytes": gpu.flush_bytes if spec.timing.l2_flush else 0,
            "flush_method": "a kernel reads (never writes) 2x the L2 before each sample" if spec.timing.l2_flush else None,
            "interleaved": True,
            "timer": TIMERS[spec.timing.clock],
            "blocking_timeout_s": BLOCK_TIMEOUT_NS / 1e9, "seed": spec.seed,
            "check": {"rtol": spec.rtol, "atol": spec.atol, "poison": "0x7fc00000 (float32) / 0xffffffff"},
        },
        "sizes": sizes,
    }
    _counter_pass(slug, entry_dir, spec, result, progress)
    return result


def _cache_dir() -> str:
    """pycuda's compiler cache: ~/.cache/glossary/pycuda, else a per-user folder in the temp dir."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glossary" / "pycuda"
    for folder in (base, Path(tempfile.gettempdir()) / f"glossary-pycuda-{os.getuid()}"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return str(folder)
        except OSError:
            continue
    raise MeasurementError("no writable folder for pycuda's compiler cache")


def _inside(entry_dir: Path, rel: str, what: str) -> Path:
    path = (entry_dir / rel).resolve()
    if entry_dir not in path.parents:
        raise MeasurementError(f"{what} {rel!r} is outside the entry folder {entry_dir}")
    if not path.is_file():
        raise MeasurementError(f"{what} {rel!r} does not exist in {entry_dir}")
    return path


def _load_reference(slug: str, entry_dir: Path, spec: MeasureSpec) -> Callable:
    path = _inside(entry_dir, spec.reference, "reference")
    name = f"_glossary_reference_{slug.replace('-', '_')}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise MeasurementError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception:
        raise MeasurementError(f"{path}: importing the reference failed:\n{traceback.format_exc(limit=3)}") from None
    fn = getattr(module, "reference", None)
    if not callable(fn):
        raise MeasurementError(f"{path}: defines no function reference(variant, inputs, scalars, params)")
    return fn


def _compile(slug: str, entry_dir: Path, spec: MeasureSpec, gpu: _Gpu,
             cache_dir: str) -> tuple[dict[str, Any], list[str]]:
    """Kernel name -> function, across all sources; plus the exact nvcc command of each source."""
    import pycuda
    from pycuda.compiler import SourceModule
    drv = gpu.drv
    pycuda_include = str(Path(pycuda.__file__).resolve().parent / "cuda")
    functions: dict[str, Any] = {}
    commands = []
    wanted = {launch.kernel for v in spec.variants for launch in v.launches}
    for rel in spec.sources:
        path = _inside(entry_dir, rel, "kernel source")
        text = path.read_text(encoding="utf-8")
        # pycuda compiles a temporary copy, so quoted includes need the entry folder on the path.
        include = [str(path.parent)] if re.search(r'#\s*include\s*"', text) else []
        commands.append(" ".join(nvcc.pycuda_command(spec, gpu.arch, include, pycuda_include)))
        try:
            mod = SourceModule(text, options=list(spec.nvcc_flags), arch=gpu.arch,
                               no_extern_c=True, cache_dir=cache_dir, include_dirs=include)
        except drv.CompileError as err:
            detail = (getattr(err, "stderr", "") or getattr(err, "stdout", "") or str(err)).strip()
            raise MeasurementError(f"{slug}: nvcc failed on {rel} for {gpu.arch}:\n{detail}") from None
        gpu.modules.append(mod)
        for name in sorted(wanted - set(functions)):
            try:
                functions[name] = mod.get_function(name)
            except drv.Error:
                continue  # defined in another source, or missing (reported below)
    missing = sorted(wanted - set(functions))
    if missing:
        raise MeasurementError(f"{slug}: kernel(s) {', '.join(missing)} not found in {', '.join(spec.sources)} "
                               f"(declare them extern \"C\" __global__)")
    return functions, commands


def _environment(gpu: _Gpu, nvml: envinfo.Nvml, commands: list[str]) -> dict:
    import pycuda
    drv = gpu.drv
    env = {
        "gpu": gpu.name,
        "driver": nvml.driver_version() or envinfo.smi_driver_version(),
        "cuda_driver": envinfo.cuda_version_string(int(drv.get_driver_version())),
        "pycuda_cuda": ".".join(str(p) for p in drv.get_version()[:2]),
        "nvcc": nvcc.nvcc_version(),
        "compile_command": "; ".join(commands),
        "arch": gpu.arch,
        "l2_bytes": gpu.l2_bytes,
        "sm_count": gpu.sm_count,
        "memory_bytes": gpu.memory_bytes,
        # Which physical card measured: same-model cards share a result file, so keep their identity here.
        "pci_bus_id": gpu.dev.pci_bus_id(),
        "gpu_uuid": nvml.uuid(),
        "clocks": {"sm_mhz_max": nvml.max_sm_clock_mhz(), "memory_mhz": nvml.memory_clock_mhz()},
        "captured_at": envinfo.captured_at(),
        "harness_version": HARNESS_VERSION,
        "pycuda": pycuda.VERSION_TEXT,
    }
    if nvml.error:
        env["nvml_error"] = nvml.error
    env.update(envinfo.host_info())
    return env


def _finish_environment(env: dict, sizes: list[dict]) -> None:
    """Clocks before the first and after the last timed sample; throttle reasons seen under load."""
    env["clocks"]["sm_mhz_before"] = sizes[0]["clocks"]["sm_mhz_before"]
    env["clocks"]["sm_mhz_after"] = sizes[-1]["clocks"]["sm_mhz_after"]
    reasons = sorted({r for s in sizes for r in s["clocks"]["throttle_reasons"]})
    env["throttle_reasons"] = reasons
    env["throttled"] = envinfo.is_throttled(reasons)


def buffer_bytes(spec: MeasureSpec, params: dict[str, int]) -> dict[str, int]:
    """Bytes of each of the spec's buffers at one size (pure; raises MeasurementError on a bad size)."""
    out = {}
    for name, buf in spec.buffers.items():
        try:
            count = expr.evaluate_int(buf.size, params)
        except expr.ExprError as err:
            raise MeasurementError(f"buffer {name}: {err}") from None
        if count < 1:
            raise MeasurementError(f"buffer {name} has {count} elements at {stats.size_label(params)}")
        out[name] = count * np.dtype(_NP_DTYPES[buf.dtype]).itemsize
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


def _allocate(spec: MeasureSpec, params: dict[str, int], gpu: _Gpu, extra_bytes: int = 0) -> _Workspace:
    """Allocate and fill the size's buffers, after checking that they (and ``extra_bytes``) fit."""
    sizes = buffer_bytes(spec, params)
    free, total = gpu.drv.mem_get_info()
    shortfall = memory_shortfall(sum(sizes.values()) + extra_bytes, free, total,
                                 stats.size_label(params), gpu.name)
    if shortfall:
        raise MeasurementError(shortfall)
    ws = _Workspace()
    rng = np.random.default_rng(spec.seed)  # per size, so each size's inputs do not depend on the sweep
    try:
        for name, buf in spec.buffers.items():
            itemsize = np.dtype(_NP_DTYPES[buf.dtype]).itemsize
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


def _prepare_calls(spec: MeasureSpec, variant: Variant, functions: dict[str, Any], ws: _Workspace,
                   params: dict[str, int], prepared: dict[str, str], first_only: bool = False) -> list[_Call]:
    """The variant's launches as prepared calls (repeats expanded; ``first_only`` keeps i = 0)."""
    int_code = _INT_TYPECODE[spec.index_type]
    lo, hi = _INT_RANGE[spec.index_type]
    calls = []
    for li, launch in enumerate(variant.launches):
        where = f"variant {variant.name}, launch {li} ({launch.kernel})"
        codes, fixed = [], []
        for arg in launch.args:
            if arg in spec.buffers:
                codes.append("P")
            elif arg in spec.scalars:
                codes.append("f")
            else:
                codes.append(int_code)
            fixed.append(arg)
        typestring = "".join(codes)
        if prepared.setdefault(launch.kernel, typestring) != typestring:
            raise MeasurementError(f"{where}: kernel {launch.kernel} is launched with argument kinds "
                                   f"{typestring} here and {prepared[launch.kernel]} elsewhere")
        func = functions[launch.kernel]
        func.prepare(typestring)
        block = tuple(launch.block) + (1,) * (3 - len(launch.block))
        for i in range(1 if first_only else launch.repeat):
            env = dict(params, i=i)
            try:
                grid = tuple(expr.evaluate_int(g, env) for g in launch.grid) + (1,) * (3 - len(launch.grid))
                args = []
                for arg, code in zip(fixed, codes):
                    if code == "P":
                        args.append(int(ws.allocs[arg]))
                    elif code == "f":
                        args.append(float(spec.scalars[arg]))
                    else:
                        value = expr.evaluate_int(arg, env)
                        if not lo <= value <= hi:
                            raise MeasurementError(f"{where}: argument {arg!r} = {value} does not fit "
                                                   f"{spec.index_type}")
                        args.append(value)
            except expr.ExprError as err:
                raise MeasurementError(f"{where}: {err}") from None
            if min(grid) < 1 or grid[0] > 2**31 - 1 or max(grid[1:]) > 65535:
                raise MeasurementError(f"{where}: grid {grid} at {stats.size_label(params)} is outside "
                                       f"what CUDA launches")
            calls.append(_Call(launch.kernel, func, grid, block, tuple(args)))
    return calls


def _poison(spec: MeasureSpec, ws: _Workspace, gpu: _Gpu) -> None:
    for name, buf in spec.buffers.items():
        if buf.role in ("output", "scratch"):
            nbytes = ws.counts[name] * np.dtype(_NP_DTYPES[buf.dtype]).itemsize
            gpu.drv.memset_d32(ws.allocs[name], NAN32 if buf.dtype == "float32" else POISON_WIDE, nbytes // 4)


def _check_variant(slug: str, spec: MeasureSpec, variant: Variant, calls: list[_Call], ws: _Workspace,
                   gpu: _Gpu, reference: Callable, inputs64: dict[str, np.ndarray],
                   params: dict[str, int]) -> list[dict]:
    """Poison, run once with a sync after every launch, compare every output element."""
    drv = gpu.drv
    label = f"{slug}: {stats.size_label(params)} variant {variant.name}"
    _poison(spec, ws, gpu)
    gpu.ctx.synchronize()
    for k, call in enumerate(calls):
        try:
            call.launch(gpu.stream)
            gpu.stream.synchronize()
        except drv.Error as err:
            raise MeasurementError(f"{label}: launch {k} ({call.kernel}, grid {call.grid}, block {call.block}) "
                                   f"failed: {err}") from None
    # Scalars as the kernels received them (float32), so both sides compute the same function.
    scalars = {k: float(np.float32(v)) for k, v in spec.scalars.items()}
    try:
        expected = reference(variant.name, inputs64, scalars, dict(params))
    except Exception:
        raise MeasurementError(f"{label}: the reference raised:\n{traceback.format_exc(limit=3)}") from None
    outputs = {n for n, b in spec.buffers.items() if b.role == "output"}
    if not isinstance(expected, dict) or set(expected) != outputs:
        got_keys = sorted(expected) if isinstance(expected, dict) else type(expected).__name__
        raise MeasurementError(f"{label}: the reference must return {{output name: array}} for exactly "
                               f"{sorted(outputs)}, returned {got_keys}")
    checks = []
    for name in sorted(outputs):
        buf = spec.buffers[name]
        host = np.empty(ws.counts[name], dtype=_NP_DTYPES[buf.dtype])
        drv.memcpy_dtoh(host, ws.allocs[name])
        ref = np.asarray(expected[name], dtype=np.float64)
        if ref.size != host.size:
            raise MeasurementError(f"{label}: reference output {name} has {ref.size} elements, "
                                   f"the buffer {host.size}")
        result = check_elements(host, ref, spec.rtol, spec.atol)
        if not result["ok"]:
            bad = result["first_bad"]
            raise MeasurementError(
                f"{label}: output {name} is wrong in {result['bad']} of {result['elements_checked']} elements"
                f"{nan_note(result['nan'])}; first at index {bad['index']}: "
                f"got {bad['got']!r}, expected {bad['expected']!r} "
                f"(tolerance {spec.atol} + {spec.rtol} x |expected|). Nothing was timed.")
        checks.append(result)
    return checks


def _measure_size(slug: str, spec: MeasureSpec, params: dict[str, int], gpu: _Gpu, functions: dict[str, Any],
                  reference: Callable, nvml: envinfo.Nvml, progress: Callable[[str], None]) -> dict:
    drv, timing = gpu.drv, spec.timing
    label = f"{slug}: {stats.size_label(params)}"
    try:
        elements = expr.evaluate_int(spec.elements, params)
    except expr.ExprError as err:
        raise MeasurementError(f"{label}: elements: {err}") from None
    progress(f"{label} allocating and filling inputs (seed {spec.seed})")
    floor_bytes = copy_floor_bytes(elements, gpu.l2_bytes)
    ws = _allocate(spec, params, gpu, extra_bytes=2 * floor_bytes)
    floor_src = floor_dst = None
    try:
        prepared: dict[str, str] = {}
        calls = {v.name: _prepare_calls(spec, v, functions, ws, params, prepared) for v in spec.variants}
        inputs64 = {k: v.astype(np.float64) for k, v in ws.inputs.items()}
        checks = []
        for v in spec.variants:
            progress(f"{label} checking {v.name}")
            checks += _check_variant(slug, spec, v, calls[v.name], ws, gpu, reference, inputs64, params)
        del inputs64

        floor_src, floor_dst = drv.mem_alloc(floor_bytes), drv.mem_alloc(floor_bytes)
        drv.memcpy_htod(floor_src, fill_input(np.random.default_rng(spec.seed + 1), floor_bytes // 4,
                                              "float32", "uniform"))
        floor_regions = copy_floor_regions(gpu, floor_src, floor_dst, floor_bytes)

        def enqueue_variant(name: str) -> Callable[[], None]:
            def run() -> None:
                for call in calls[name]:
                    call.launch(gpu.stream)
            return run

        regions: dict[str, Callable[[], None]] = {v.name: enqueue_variant(v.name) for v in spec.variants}
        regions.update(floor_regions)
        samples: dict[str, list[float]] = {name: [] for name in regions}
        host_samples: dict[str, list[float]] = {name: [] for name in regions}
        reasons: set[str] = set()
        for _ in range(timing.warmups):
            for enqueue in regions.values():
                _sample_region(gpu, enqueue, timing)
        sm_before = nvml.sm_clock_mhz()  # just after warm-up, so the clock reflects load
        started = time.monotonic()
        stop = None
        while stop is None:
            for name, enqueue in regions.items():
                ms, host_ms = _sample_region(gpu, enqueue, timing)
                samples[name].append(ms)
                if host_ms is not None:
                    host_samples[name].append(host_ms)
            reasons.update(nvml.throttle_reasons() or [])
            taken = len(samples[spec.variants[0].name])
            stop = sampling_done(samples, timing, taken, time.monotonic() - started)
            if taken <= timing.runs or taken % 25 == 0 or stop:
                shown = ", ".join(f"{v.name} {samples[v.name][-1]:.4g} ms" for v in spec.variants)
                progress(f"{label} sample {taken} ({shown}){f'; stopped: {stop}' if stop else ''}")
        sm_after = nvml.sm_clock_mhz()
    finally:
        ws.free()
        for buf in (floor_src, floor_dst):
            if buf is not None:
                buf.free()

    itemsize = {n: np.dtype(_NP_DTYPES[b.dtype]).itemsize for n, b in spec.buffers.items()}
    working_set = max(sum(ws.counts[n] * itemsize[n] for n in buffers_touched(v) if n in spec.buffers)
                      for v in spec.variants)
    variants = {}
    for v in spec.variants:
        variants[v.name] = {
            "bytes_per_elem": v.bytes_per_elem,
            "useful_bytes_per_elem": v.useful_bytes,
            "flops_per_elem": v.flops_per_elem,
            "launches": len(calls[v.name]),
            "samples_ms": samples[v.name],
            "stats": stats.summarize(samples[v.name]),
            "counters": None,
        }
        variants[v.name].update(_host_part(host_samples[v.name]))
    return {
        "params": dict(params),
        "elements": elements,
        "working_set_bytes": working_set,
        "copy_floor": copy_floor_record(samples, floor_bytes, timing.statistic),
        "check": {"max_abs_err": max(c["max_abs_err"] for c in checks),
                  "max_rel_err": max(c["max_rel_err"] for c in checks),
                  "max_tolerance_used": max(c["max_tolerance_used"] for c in checks),
                  "elements_checked": sum(c["elements_checked"] for c in checks),
                  "rtol": spec.rtol, "atol": spec.atol},
        "clocks": {"sm_mhz_before": sm_before, "sm_mhz_after": sm_after, "throttle_reasons": sorted(reasons)},
        "sampling": {"samples": len(samples[spec.variants[0].name]), "stopped": stop,
                     "median_ci_rel": {name: stats.median_ci_rel(values) for name, values in samples.items()}},
        "variants": variants,
    }


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


def _sample_region(gpu: _Gpu, enqueue: Callable[[], None], timing: Any) -> tuple[float, float | None]:
    """(published ms, host ms or None).  With clock "both" the region is run twice: once timed
    with events (behind the blocking kernel where asked), then once on the host clock with no
    blocking kernel, so each sample pairs the GPU's time with what the host paid to enqueue it."""
    if timing.clock != "both":
        return gpu.sample(enqueue, timing.clock, timing.blocking, timing.l2_flush), None
    device_ms = gpu.sample(enqueue, "device", timing.blocking, timing.l2_flush)
    return device_ms, gpu.sample(enqueue, "host", False, timing.l2_flush)


def _host_part(host_samples: list[float]) -> dict:
    """The host-clock samples of a variant (clock: both), or nothing."""
    if not host_samples:
        return {}
    return {"host_samples_ms": host_samples, "host_stats": stats.summarize(host_samples)}


def copy_floor_regions(gpu: _Gpu, src: Any, dst: Any, floor_bytes: int) -> dict[str, Callable[[], None]]:
    """The copy floor's two timed regions over ``floor_bytes`` of two buffers: a float4 copy kernel
    and cuMemcpyDtoD, named as in ``copy_floor_record``."""
    n4 = floor_bytes // 16
    copy_call = _Call("glossary_copy_f4", gpu.copy_kernel, (-(-n4 // 256), 1, 1), (256, 1, 1),
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


def _counter_pass(slug: str, entry_dir: Path, spec: MeasureSpec, result: dict,
                  progress: Callable[[str], None]) -> None:
    """Run ncu at the headline size (or every size) and attach per-variant counters; record why when skipped."""
    headline = dict(spec.headline)
    if not spec.counters:
        result["counters"] = {"status": "skipped", "reason": "counters: false in the spec", "size": headline}
        return
    targets = [s for s in result["sizes"] if spec.counter_sizes == "all" or s["params"] == headline]
    if not targets:  # validated away by the spec; kept so a bad spec cannot crash here
        result["counters"] = {"status": "skipped", "reason": "headline is not among the sizes", "size": headline}
        return
    summaries = []
    for target in targets:
        outcome = counters.run_counter_pass(slug, entry_dir, spec, target["params"], target["elements"], progress)
        summary = {k: v for k, v in outcome.items() if k != "variants"}
        summaries.append(summary)
        for name, rec in target["variants"].items():
            if outcome["status"] == "ok":
                rec["counters"] = outcome["variants"].get(name, {"error": "ncu reported no launch of this variant"})
            elif outcome["status"] == "error":
                rec["counters"] = {"error": outcome["error"]}
    lead = next((s for s in summaries if s.get("size") == headline), summaries[-1])
    result["counters"] = dict(lead, sizes=[s.get("size") for s in summaries],
                              statuses=[s.get("status") for s in summaries])
