"""nvcc commands for an entry's kernels: building cubins on the CPU, and recording
the command the harness compiles with on the GPU.

The CPU test suite compiles every entry's kernels for every arch the spec claims
(``compile_cubin``).  On the GPU the harness compiles through pycuda's
``SourceModule``; ``pycuda_command`` reproduces the exact command line pycuda runs
so it can be recorded with the results.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from measure import tools
from measure.spec import MeasureSpec


class NvccError(RuntimeError):
    """nvcc is missing or refused a kernel source; the message carries nvcc's output."""


def find_nvcc() -> str | None:
    """The nvcc to use: $NVCC, then PATH, then the usual CUDA install folders."""
    return tools.find_cuda_tool("nvcc", env_var="NVCC", folders=(tools.CUDA_BIN, "/usr/local/bin"))


def nvcc_command(spec: MeasureSpec, source_path: Path, arch: str, output: Path,
                 nvcc: str = "nvcc") -> list[str]:
    """The nvcc argv that builds ``source_path`` into a cubin for ``arch``.

    Same flag order as pycuda's compile (``--cubin``, the spec's flags, ``-arch``,
    the entry folder as include path), so CPU and GPU builds agree.
    """
    source_path = Path(source_path)
    return [nvcc, "--cubin", *spec.nvcc_flags, "-arch", arch,
            f"-I{source_path.parent}", "-o", str(output), str(source_path)]


def compile_cubin(spec: MeasureSpec, source_path: Path, arch: str, output: Path,
                  nvcc: str | None = None, timeout_s: float = 300.0) -> Path:
    """Compile one kernel source to a cubin; raises NvccError with nvcc's output on failure."""
    exe = nvcc or find_nvcc()
    if exe is None:
        raise NvccError("nvcc was not found (set $NVCC or put it on PATH)")
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    cmd = nvcc_command(spec, source_path, arch, output, nvcc=exe)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise NvccError(f"{shlex.join(cmd)}: {err}") from None
    if proc.returncode != 0 or not output.is_file():
        raise NvccError(f"{shlex.join(cmd)} failed (exit {proc.returncode}):\n"
                        f"{(proc.stdout + proc.stderr).strip()}")
    return output


def pycuda_command(spec: MeasureSpec, arch: str, include_dirs: list[str],
                   pycuda_include: str, nvcc: str = "nvcc") -> list[str]:
    """The argv pycuda's SourceModule runs (it compiles a temporary copy named kernel.cu)."""
    return [nvcc, "--cubin", *spec.nvcc_flags, "-arch", arch,
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
