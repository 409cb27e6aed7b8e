"""The CUDA toolkit's command-line tools (nvcc, ncu): finding one, and asking it its version.

One search for every tool, so that a machine where one is found and the other is not
differs only in what is installed, never in where it was looked for.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CUDA_BIN = "/usr/local/cuda/bin"


def find_cuda_tool(name: str, env_var: str | None = None,
                   folders: tuple[str, ...] = (CUDA_BIN,)) -> str | None:
    """The path of the CUDA tool ``name``, or None where it is not installed.

    Looked for in this order: the file named by ``$env_var`` (when given and it is a file),
    then ``name`` on PATH, then ``name`` in each of ``folders`` (the usual CUDA install
    folder unless told otherwise).
    """
    if env_var:
        env = os.environ.get(env_var)
        if env and Path(env).is_file():
            return env
    found = shutil.which(name)
    if found:
        return found
    for folder in folders:
        candidate = f"{folder}/{name}"
        if Path(candidate).is_file():
            return candidate
    return None


def version_output(exe: str, timeout_s: float = 60.0) -> str | None:
    """What ``exe --version`` prints on stdout, or None where it cannot be run."""
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout


def find_nvcc() -> str | None:
    """The nvcc to use: $NVCC, then PATH, then the usual CUDA install folders."""
    return find_cuda_tool("nvcc", env_var="NVCC", folders=(CUDA_BIN, "/usr/local/bin"))


def user_cache() -> Path:
    """The user's cache folder of this project ($XDG_CACHE_HOME/glossary, else ~/.cache/glossary):
    outside every repository, so nothing a pull request commits lands in it."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glossary"


def cores() -> int:
    """The cores this process may run on (its affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
