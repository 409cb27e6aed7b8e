"""Where a measurement's time goes: wall seconds per phase, recorded in the result as ``phases``.

Phases: ``compile`` (context, harness and kernels), ``inputs`` (allocate and fill), ``reference``
(the float64 reference), ``check`` (poison, run, compare every element, the reference excluded),
``timing`` (warm-ups and samples of the variants and the copy floor), ``counters`` (the Nsight
Compute passes: the profiled process's set-up and ncu's profiling), ``ncu_startup`` (ncu's own
start-up and exit around the profiled process) and ``total``.  Pure bookkeeping around a clock that tests can replace.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator

PHASES = ("compile", "inputs", "reference", "check", "timing", "counters", "ncu_startup")


class PhaseClock:
    """Accumulates wall time per phase; a phase nested in another is taken out of the outer one."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._start = clock()
        self._open: list[tuple[str, float]] = []
        self.seconds: dict[str, float] = {name: 0.0 for name in PHASES}

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        if name not in self.seconds:
            raise ValueError(f"unknown phase {name!r} (phases: {', '.join(PHASES)})")
        now = self._clock()
        if self._open:  # pause the outer phase
            outer, since = self._open[-1]
            self.seconds[outer] += now - since
        self._open.append((name, now))
        try:
            yield
        finally:
            name, since = self._open.pop()
            now = self._clock()
            self.seconds[name] += now - since
            if self._open:  # resume the outer phase
                outer, _ = self._open[-1]
                self._open[-1] = (outer, now)

    def attribute(self, name: str, seconds: float) -> None:
        """Count ``seconds`` of the open phase's time as phase ``name`` instead: for work of two
        phases done together (the chunked reference and check share their threads)."""
        if name not in self.seconds:
            raise ValueError(f"unknown phase {name!r} (phases: {', '.join(PHASES)})")
        if not self._open:
            raise ValueError("attribute: no phase is open")
        self.seconds[self._open[-1][0]] -= seconds
        self.seconds[name] += seconds

    def record(self, also: "PhaseClock | None" = None) -> dict[str, float]:
        """The result's ``phases``: seconds per phase and in all, rounded to milliseconds.

        ``also`` is the clock of work that ran beside this one (the counter pass beside the
        deferred comparisons): its phases are added, so phases may then sum to more than the
        total, which stays this clock's wall time."""
        seconds = dict(self.seconds)
        for name, value in (also.seconds.items() if also is not None else ()):
            seconds[name] += value
        out = {name: round(s, 3) for name, s in seconds.items()}
        out["total"] = round(self._clock() - self._start, 3)
        return out


def breakdown(phases: dict[str, float]) -> str:
    """'41.2 s: compile 1.1, inputs 9.8, reference 7.7, check 3.0, timing 8.6, counters 11.0 s'."""
    parts = ", ".join(f"{name} {phases[name]:.1f}" for name in PHASES if name in phases)
    return f"{phases.get('total', sum(phases.get(n, 0.0) for n in PHASES)):.1f} s: {parts} s"


class ConfigProgress:
    """How much of an entry's work is done, counted in (size, variant) configurations.

    Each configuration passes through ``stages`` stages (checked, timed and, where counters run,
    counted), each a equal share, so ``report(done, total)`` sees a fraction of configurations that
    only grows, and ends at ``total``."""

    def __init__(self, total: int, stages: int, report: Callable[[float, int], None] | None) -> None:
        self.total, self.stages = total, max(1, stages)
        self._report = report or (lambda done, total: None)
        self._done = 0.0
        self._lock = threading.Lock()  # the counter pass reports from a thread of its own

    def advance(self, configurations: float = 1.0) -> None:
        """One stage of ``configurations`` configurations is done."""
        with self._lock:
            self._done = min(float(self.total), self._done + configurations / self.stages)
            self._report(round(self._done, 3), self.total)

    def finish(self) -> None:
        with self._lock:
            self._done = float(self.total)
            self._report(self._done, self.total)


def serialized(fn: Callable[[str], None]) -> Callable[[str], None]:
    """``fn`` behind a lock, for a progress callback that two threads call."""
    lock = threading.Lock()

    def call(line: str) -> None:
        with lock:
            fn(line)
    return call
