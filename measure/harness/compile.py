"""Compiling an entry: cubins with nvcc on the CPU, pycuda's cached compile on the GPU, the reference.

The CPU test suite compiles every entry's kernels for every arch the spec claims
(``compile_cubin``).  On the GPU the harness compiles through pycuda's
``SourceModule`` into a cache folder of ours (``compile_kernels``, ``cache_dir``);
``pycuda_command`` reproduces the exact command line pycuda runs so it can be
recorded with the results.  ``load_reference`` imports the entry's float64 reference.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from measure import tools
from measure.harness.errors import MeasurementError
from measure.spec import MeasureSpec

if TYPE_CHECKING:
    from measure.harness.session import GpuSession


class NvccError(RuntimeError):
    """nvcc is missing or refused a kernel source; the message carries nvcc's output."""


def find_nvcc() -> str | None:
    """The nvcc to use: $NVCC, then PATH, then the usual CUDA install folders."""
    return tools.find_cuda_tool("nvcc", env_var="NVCC", folders=(tools.CUDA_BIN, "/usr/local/bin"))


def nvcc_command(spec: MeasureSpec, source_path: Path, arch: str, output: Path,
                 nvcc: str = "nvcc", extra: tuple[str, ...] = ()) -> list[str]:
    """The nvcc argv that builds ``source_path`` into a cubin for ``arch``.

    Same flag order as pycuda's compile (``--cubin``, the spec's flags, a variant's own options
    ``extra``, ``-arch``, the entry folder as include path), so CPU and GPU builds agree.
    """
    source_path = Path(source_path)
    return [nvcc, "--cubin", *spec.nvcc_flags, *extra, "-arch", arch,
            f"-I{source_path.parent}", "-o", str(output), str(source_path)]


def module_options(spec: MeasureSpec, limits: dict[str, int]) -> dict[str, tuple[str, ...]]:
    """Each measured variant's own nvcc options (defines, register limit) with the device names
    bound to ``limits``: variants with the same options share a module."""
    return {v.name: v.compile_options(limits) for v in spec.measured_variants}


def compile_cubin(spec: MeasureSpec, source_path: Path, arch: str, output: Path,
                  nvcc: str | None = None, timeout_s: float = 300.0, extra: tuple[str, ...] = ()) -> Path:
    """Compile one kernel source to a cubin; raises NvccError with nvcc's output on failure."""
    exe = nvcc or find_nvcc()
    if exe is None:
        raise NvccError("nvcc was not found (set $NVCC or put it on PATH)")
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    cmd = nvcc_command(spec, source_path, arch, output, nvcc=exe, extra=extra)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise NvccError(f"{shlex.join(cmd)}: {err}") from None
    if proc.returncode != 0 or not output.is_file():
        raise NvccError(f"{shlex.join(cmd)} failed (exit {proc.returncode}):\n"
                        f"{(proc.stdout + proc.stderr).strip()}")
    return output


def pycuda_command(spec: MeasureSpec, arch: str, include_dirs: list[str],
                   pycuda_include: str, nvcc: str = "nvcc", extra: tuple[str, ...] = ()) -> list[str]:
    """The argv pycuda's compile runs (it compiles a temporary copy named kernel.cu)."""
    return [nvcc, "--cubin", *spec.nvcc_flags, *extra, "-arch", arch,
            *(f"-I{d}" for d in [*include_dirs, pycuda_include]), "kernel.cu"]


def parse_nvcc_version(text: str) -> str | None:
    """'... release 13.0, V13.0.88 ...' -> 'V13.0.88' (None when absent)."""
    match = re.search(r"\bV(\d+(?:\.\d+)+)", text)
    return f"V{match.group(1)}" if match else None


def nvcc_version(nvcc: str | None = None) -> str | None:
    """The version string of the nvcc in use, e.g. 'V13.0.88', or None if it cannot be run."""
    exe = nvcc or find_nvcc()
    if exe is None:
        return None
    text = tools.version_output(exe)
    return None if text is None else parse_nvcc_version(text)


def cubin_symbols_present(cubin: bytes, names: list[str]) -> list[str]:
    """Names from ``names`` that do NOT appear as NUL-terminated symbols in ``cubin``.

    A cheap check that the kernels a spec launches are exported unmangled
    (declared extern "C"); an empty list means all are there.
    """
    return [n for n in names if b"\0" + n.encode() + b"\0" not in cubin]


def cache_dir() -> str:
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


def load_reference(slug: str, entry_dir: Path, spec: MeasureSpec) -> Callable:
    """The entry's ``reference(variant, inputs, scalars, params)``, imported from its file in ``entry_dir``."""
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


@dataclass
class Built:
    """An entry's kernels as loaded: each measured variant's functions (its own module where its
    options differ), the cubins they came from, and the exact nvcc command of each build."""
    functions: dict[str, dict[str, Any]] = field(default_factory=dict)   # variant -> kernel -> function
    cubins: dict[str, dict[str, bytes]] = field(default_factory=dict)    # variant -> kernel -> cubin
    commands: dict[str, str] = field(default_factory=dict)               # variant -> '; '-joined commands

    @property
    def distinct_commands(self) -> list[str]:
        return list(dict.fromkeys(c for joined in self.commands.values() for c in joined.split("; ")))


def compile_kernels(slug: str, entry_dir: Path, spec: MeasureSpec, gpu: GpuSession, cache_dir: str) -> Built:
    """Every measured variant's kernels, compiled once per distinct set of options and loaded."""
    import pycuda
    from pycuda.compiler import compile as pycuda_compile
    pycuda_include = str(Path(pycuda.__file__).resolve().parent / "cuda")
    options = module_options(spec, gpu.limits)
    built = Built()
    modules: dict[tuple[str, ...], tuple[dict, dict, str]] = {}
    for variant in spec.measured_variants:
        extra = options[variant.name]
        if extra not in modules:
            modules[extra] = _build(slug, entry_dir, spec, gpu, cache_dir, extra, pycuda_compile, pycuda_include)
        functions, cubins, command = modules[extra]
        wanted = {launch.kernel for launch in variant.launches if launch.kernel}
        missing = sorted(wanted - set(functions))
        if missing:
            raise MeasurementError(f"{slug}: kernel(s) {', '.join(missing)} not found in {', '.join(spec.sources)} "
                                   f"(declare them extern \"C\" __global__)")
        built.functions[variant.name] = {k: functions[k] for k in wanted}
        built.cubins[variant.name] = {k: cubins[k] for k in wanted}
        built.commands[variant.name] = command
    return built


def _build(slug: str, entry_dir: Path, spec: MeasureSpec, gpu: GpuSession, cache_dir: str, extra: tuple[str, ...],
           pycuda_compile: Callable, pycuda_include: str) -> tuple[dict, dict, str]:
    """One module per source with ``extra`` options: (kernel -> function, kernel -> cubin, commands)."""
    drv = gpu.drv
    wanted = {launch.kernel for v in spec.variants for launch in v.launches if launch.kernel}
    functions: dict[str, Any] = {}
    cubins: dict[str, bytes] = {}
    commands = []
    shown = f" with {' '.join(extra)}" if extra else ""
    for rel in spec.sources:
        path = _inside(entry_dir, rel, "kernel source")
        text = path.read_text(encoding="utf-8")
        # pycuda compiles a temporary copy, so quoted includes need the entry folder on the path.
        include = [str(path.parent)] if re.search(r'#\s*include\s*"', text) else []
        commands.append(" ".join(pycuda_command(spec, gpu.arch, include, pycuda_include, extra=extra)))
        try:
            cubin = pycuda_compile(text, options=[*spec.nvcc_flags, *extra], arch=gpu.arch, no_extern_c=True,
                                   cache_dir=cache_dir, include_dirs=include)
        except drv.CompileError as err:
            detail = (getattr(err, "stderr", "") or getattr(err, "stdout", "") or str(err)).strip()
            raise MeasurementError(f"{slug}: nvcc failed on {rel} for {gpu.arch}{shown}:\n{detail}") from None
        mod = drv.module_from_buffer(cubin)
        gpu.modules.append(mod)
        for name in sorted(wanted - set(functions)):
            try:
                functions[name] = mod.get_function(name)
                cubins[name] = cubin
            except drv.Error:
                continue  # defined in another source, or missing (reported by the caller)
    return functions, cubins, "; ".join(commands)
