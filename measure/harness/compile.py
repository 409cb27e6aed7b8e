"""Compiling an entry: cubins from nvcc in the sandbox, on the CPU and on the GPU; the reference.

The CPU test suite compiles every entry's kernels for every arch the spec claims
(``compile_cubin``).  Every compile runs nvcc in the sandbox (``measure.sandbox``): on the GPU the
harness loads the cubins it returns, cached in a folder of ours (``compile_kernels``,
``cache_dir``), and records the command as it ran.  ``load_reference`` starts the entry's
float64 reference in the sandbox; nothing of the author's is imported here.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from measure import sandbox, tools
from measure.harness.errors import MeasurementError
from measure.sandbox import SandboxedReference
from measure.spec import MeasureSpec

if TYPE_CHECKING:
    from measure.harness.session import GpuSession


class NvccError(RuntimeError):
    """nvcc is missing or refused a kernel source; the message carries nvcc's output."""


find_nvcc = tools.find_nvcc  # the nvcc to use: $NVCC, then PATH, then the usual CUDA folders


def module_options(spec: MeasureSpec, limits: dict[str, int]) -> dict[str, tuple[str, ...]]:
    """Each measured variant's own nvcc options (defines, register limit) with the device names
    bound to ``limits``: variants with the same options share a module."""
    return {v.name: v.compile_options(limits) for v in spec.measured_variants}


def compile_cubin(spec: MeasureSpec, source_path: Path, arch: str, output: Path,
                  nvcc: str | None = None, timeout_s: float = 300.0, extra: tuple[str, ...] = ()) -> Path:
    """Compile one kernel source to a cubin in the sandbox; raises NvccError with nvcc's output on
    failure (or where no sandbox can be made: entry code is never compiled outside one)."""
    exe = nvcc or find_nvcc()
    if exe is None:
        raise NvccError("nvcc was not found (set $NVCC or put it on PATH)")
    source_path = Path(source_path).resolve()
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        built = sandbox.compile_source(source_path.parent, source_path.name, arch, [*spec.nvcc_flags, *extra],
                                       nvcc=exe)
    except (sandbox.CompileFailed, sandbox.SandboxUnavailable) as err:
        raise NvccError(str(err)) from None
    output.write_bytes(built.cubin)
    return output


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
    base = tools.user_cache() / "pycuda"
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


def load_reference(slug: str, entry_dir: Path, spec: MeasureSpec) -> SandboxedReference:
    """The entry's ``reference(variant, inputs, scalars, params)``, started in the sandbox (its import
    runs there now, so a broken one fails before any timing); nothing of the author's is imported
    here.  Close it when done."""
    _inside(entry_dir, spec.reference, "reference")
    try:
        return SandboxedReference(entry_dir, spec.reference, label=slug)
    except (sandbox.ReferenceFailed, sandbox.SandboxUnavailable) as err:
        raise MeasurementError(f"{slug}: {spec.reference}: {err}") from None


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


def compile_kernels(slug: str, entry_dir: Path, spec: MeasureSpec, gpu: GpuSession, cache_dir: str,
                    covered: set[str] | None = None) -> Built:
    """Every measured variant's kernels, compiled in the sandbox once per distinct set of options and
    loaded.  ``covered``: the entry files its fingerprints hash; a compile reading another is refused."""
    options = module_options(spec, gpu.limits)
    built = Built()
    modules: dict[tuple[str, ...], tuple[dict, dict, str]] = {}
    for variant in spec.measured_variants:
        extra = options[variant.name]
        if extra not in modules:
            modules[extra] = _build(slug, entry_dir, spec, gpu, cache_dir, extra, covered)
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
           covered: set[str] | None) -> tuple[dict, dict, str]:
    """One module per source with ``extra`` options: (kernel -> function, kernel -> cubin, commands)."""
    drv = gpu.drv
    exe = find_nvcc()
    if exe is None:
        raise MeasurementError(f"{slug}: nvcc was not found (set $NVCC or put it on PATH)")
    version = nvcc_version(exe) or ""
    wanted = {launch.kernel for v in spec.variants for launch in v.launches if launch.kernel}
    functions: dict[str, Any] = {}
    cubins: dict[str, bytes] = {}
    commands = []
    shown = f" with {' '.join(extra)}" if extra else ""
    for rel in spec.sources:
        _inside(entry_dir, rel, "kernel source")
        try:
            compiled = sandbox.compile_source(entry_dir, rel, gpu.arch, [*spec.nvcc_flags, *extra], nvcc=exe,
                                              covered=covered, cache=Path(cache_dir) / "cubins", version=version)
        except (sandbox.CompileFailed, sandbox.SandboxUnavailable) as err:
            raise MeasurementError(f"{slug}: nvcc failed on {rel} for {gpu.arch}{shown}:\n{err}") from None
        commands.append(compiled.command)
        mod = drv.module_from_buffer(compiled.cubin)
        gpu.modules.append(mod)
        for name in sorted(wanted - set(functions)):
            try:
                functions[name] = mod.get_function(name)
                cubins[name] = compiled.cubin
            except drv.Error:
                continue  # defined in another source, or missing (reported by the caller)
    return functions, cubins, "; ".join(commands)
