"""Disassembling a cubin in the sandbox: ``cuobjdump -sass``, confined as the compile that made it.

The cubin came out of the author's compile, so the tool that reads it runs confined too: the
toolkit read-only, the cubin in one scratch folder at ``/out``, where the tool's output is written
and read back bounded (``measure.sass.MAX_TEXT_BYTES``); the text is parsed by trusted code
(``measure.sass.parse_sass``), never run.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from measure import sass, tools
from measure.sandbox import bwrap
from measure.sandbox.nvcc import OUT, CompileFailed, _read_limited, tool_mounts

LIMITS = bwrap.Limits(wall_s=120, cpu_s=240, memory_bytes=2 << 30, file_bytes=sass.MAX_TEXT_BYTES + (1 << 20),
                      processes=8, tmp_bytes=256 << 20)


class DisassemblyFailed(RuntimeError):
    """cuobjdump refused the cubin, broke a limit, or printed more than is read."""


def find_cuobjdump() -> str | None:
    """cuobjdump: $CUOBJDUMP, then PATH, then the CUDA install folder; None where it is not here."""
    return tools.find_cuda_tool("cuobjdump", env_var="CUOBJDUMP")


def disassemble(cubin: bytes, *, cuobjdump: str, limits: bwrap.Limits = LIMITS) -> str:
    """``cuobjdump -sass`` of ``cubin``, run in the sandbox; its text (bounded)."""
    import os

    exe = os.path.realpath(cuobjdump)
    root = Path(exe).parent.parent if Path(exe).parent.name == "bin" else Path(exe).parent
    scratch = Path(tempfile.mkdtemp(prefix="glossary-sass-"))
    try:
        (scratch / "kernel.cubin").write_bytes(cubin)
        mounts = tool_mounts(exe, root, rw={OUT: str(scratch)})
        argv = ["/bin/sh", "-c", f'exec "$0" -sass {OUT}/kernel.cubin > {OUT}/sass.txt', exe]
        done = bwrap.run(bwrap.require(), mounts, limits, argv)
        if done.killed:
            raise DisassemblyFailed(f"cuobjdump -sass: stopped, {done.killed}")
        if done.returncode != 0:
            log = bwrap.printable(done.stderr.decode("utf-8", "replace"), 2000).strip()
            raise DisassemblyFailed(f"cuobjdump -sass failed (exit {done.returncode}): {log}")
        try:
            text = _read_limited(scratch / "sass.txt", sass.MAX_TEXT_BYTES)
        except CompileFailed as err:
            raise DisassemblyFailed(str(err)) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return text.decode("utf-8", "replace")
