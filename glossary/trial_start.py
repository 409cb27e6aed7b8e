"""What a trial starts first: the entry's sandboxes, before NumPy and the harness are imported (issue 34).

A first `glossary check` waits on two processes in the sandbox: nvcc compiling the entry's kernels,
and the Python that imports the entry's reference (and NumPy, there).  Neither needs anything of this
process but the entry, so ``start`` begins both at once: the compiles of the spec's first arch
(``glossary.trial_compiles.begin``) and the reference's server (``SandboxedReference``, whose import
of the author's file runs on a thread of its own while this process imports the trial and draws the
inputs).  ``glossary.trial.try_entry`` takes what was started and closes it.  This module is light
on purpose, as ``trial_compiles`` is: no NumPy, no harness.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from glossary import trial_compiles
from glossary.entries.model import Entry
from glossary.trial_compiles import Compiles
from measure import sandbox

# What the trial may use: it runs on an author's laptop and on CI, so it stays small.
LIMITS = sandbox.Limits(wall_s=30, cpu_s=60, memory_bytes=4 << 30, file_bytes=1 << 30, processes=64)


class StartedReference:
    """An entry's reference starting in the sandbox: ``take()`` waits for its import and hands it over
    (the taker closes it), raising ReferenceFailed or SandboxUnavailable as the sandbox did."""

    def __init__(self, entry: Entry) -> None:
        spec = entry.meta.measure
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="trial reference start")
        self._future: Future | None = self._pool.submit(sandbox.SandboxedReference, entry.folder, spec.reference,
                                                        limits=LIMITS, label=entry.slug)
        self._lock = threading.Lock()

    def take(self) -> sandbox.SandboxedReference:
        """The reference, once: it is the taker's from now on (nothing here holds it, nor its inputs)."""
        with self._lock:
            future, self._future = self._future, None
        if future is None:
            raise RuntimeError("the started reference was taken or closed already")
        return future.result()

    def close(self) -> None:
        """Wait for the start (within its limits); close the reference unless it was taken."""
        self._pool.shutdown(wait=True)
        with self._lock:
            future, self._future = self._future, None
        if future is not None and future.exception() is None:
            future.result().close()


@dataclass
class Started:
    """A trial's sandboxes, begun: the compiles (None where nothing compiles here) and the reference."""

    compiles: Compiles | None
    reference: StartedReference

    def close(self) -> None:
        """Close what no one took; each part is closed once, however often this is called."""
        try:
            if self.compiles is not None:
                self.compiles.close()
        finally:
            self.reference.close()


def start(entry: Entry, compile_kernels: bool = True) -> Started | None:
    """The trial of ``entry``, begun: nvcc first (a first check waits on it longest), then the reference.
    None where there is nothing to start here (no spec, or no sandbox: the trial says so)."""
    if entry.meta.measure is None or sandbox.problem():
        return None
    compiles = trial_compiles.begin(entry, compile_kernels)
    return Started(compiles, StartedReference(entry))
