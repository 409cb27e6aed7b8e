"""The compiles of one `glossary check` trial: each (source, arch, flags) once, a few at a time (issue 34).

The trial compiles an entry's sources for its first arch (``glossary.trial``) and, to read the sass
claims, for every arch it claims (``glossary.sass_trial``): the same compile was asked for twice.
Here each one is asked for as soon as it is known to be wanted, runs in the sandbox
(``measure.sandbox.compile_source``, with its own limits) on one of ``WORKERS`` threads while the
reference runs, and is kept for whoever asks again; a compile that failed fails again for the next
asker, with the same error.  This module is light on purpose (no NumPy): ``begin`` starts nvcc
before the rest of the trial is even imported.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from glossary.entries.model import Entry
from measure import sandbox
from measure.harness import compile as nvcc
from measure.spec.limits import NOMINAL_DEVICE

WORKERS = 2  # compiles at once: nvcc is one process a compile, and a laptop or CI runner has few cores


def begin(entry: Entry, compile_kernels: bool = True) -> Compiles | None:
    """The trial's compiles of ``entry``, begun (``first_arch``); None where it compiles nothing here
    (no spec, ``compile_kernels`` off, no sandbox or no nvcc)."""
    if entry.meta.measure is None or not compile_kernels or sandbox.problem():
        return None
    exe = nvcc.find_nvcc()
    if exe is None:
        return None
    compiles = Compiles(entry, exe)
    for job in first_arch(entry.meta.measure):
        compiles.start(*job)
    return compiles


def first_arch(spec) -> list[tuple[str, str, list[str]]]:
    """(source, arch, flags) of the compiles the trial reads first, in its order: every source for the
    spec's first arch, with each set of options its variants compile with."""
    arch = spec.archs[0] if spec.archs else "sm_90"
    return [(rel, arch, flags) for flags in flag_sets(spec) for rel in spec.sources]


def flag_sets(spec) -> list[list[str]]:
    """The spec's nvcc flags with each distinct set of options its measured variants compile with, in
    the order of the variants."""
    options = nvcc.module_options(spec, NOMINAL_DEVICE)
    return [[*spec.nvcc_flags, *extra] for extra in dict.fromkeys(options.values())]


class Compiles:
    """The sandboxed compiles of one entry, each (source, arch, flags) run once."""

    def __init__(self, entry: Entry, nvcc: str, workers: int = WORKERS) -> None:
        self._entry, self._nvcc = entry, nvcc
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="trial compile")
        self._jobs: dict[tuple[str, str, tuple[str, ...]], Future] = {}
        self._lock = threading.Lock()

    def start(self, source: str, arch: str, flags: Sequence[str]) -> Future:
        """Begin compiling ``source`` for ``arch`` with ``flags`` unless it is begun already."""
        key = (source, arch, tuple(flags))
        with self._lock:
            if key not in self._jobs:
                self._jobs[key] = self._pool.submit(self._compile, *key)
            return self._jobs[key]

    def get(self, source: str, arch: str, flags: Sequence[str]) -> sandbox.Compiled:
        """The compile's result: the cubin and the files read; CompileFailed or SandboxUnavailable as the
        sandbox raised it."""
        return self.start(source, arch, flags).result()

    @property
    def asked(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """Every (source, arch, flags) asked for, in the order first asked."""
        with self._lock:
            return list(self._jobs)

    def close(self) -> None:
        """Drop the compiles nobody waits for yet; wait for those running (each within its limits)."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Compiles:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _compile(self, source: str, arch: str, flags: tuple[str, ...]) -> sandbox.Compiled:
        return sandbox.compile_source(self._entry.folder, source, arch, list(flags), nvcc=self._nvcc,
                                      covered=set(self._entry.kernel_files))
