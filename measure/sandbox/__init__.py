"""The one room where author code runs: an entry's reference and every compile of its kernels.

Everything an author supplies that runs on the host runs here, confined by bubblewrap (no
network, no home folder, no repository, the entry's folder read-only, one scratch folder,
rlimits, a wall-clock limit, death with its parent).  Data crosses the door as files with
declared names, shapes and types, checked on the way back.  Nothing outside this package imports
an entry's code; the processes that time, sign and render never do.

- ``SandboxedReference(entry_dir, "reference.py")``: call it like the author's ``reference``.
- ``compile_source(entry_dir, "kernel.cu", arch, flags, nvcc=...)``: the cubin and the files read.
- ``problem()``: None where a sandbox can be made here, else why not and how to install one.
"""

from measure.sandbox.bwrap import INSTALL_HINT, Limits, SandboxUnavailable, find_bwrap, problem, require
from measure.sandbox.nvcc import CompileFailed, Compiled, compile_source
from measure.sandbox.reference import ReferenceFailed, SandboxedReference

__all__ = ["INSTALL_HINT", "CompileFailed", "Compiled", "Limits", "ReferenceFailed", "SandboxUnavailable",
           "SandboxedReference", "compile_source", "find_bwrap", "problem", "require"]
