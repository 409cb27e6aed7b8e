"""Where a measurement's time goes: wall seconds per phase, recorded in the result as ``phases``.

Phases: ``compile`` (context, harness and kernels), ``inputs`` (allocate and fill), ``reference``
(the float64 reference), ``check`` (poison, run, compare every element, the reference excluded),
``timing`` (warm-ups and samples of the variants and the copy floor), ``counters`` (the Nsight
Compute passes) and ``total``.  Pure bookkeeping around a clock that tests can replace.
"""

from __future__ import annotations

import contextlib
import time
from typing import Callable, Iterator

PHASES = ("compile", "inputs", "reference", "check", "timing", "counters")


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

    def record(self) -> dict[str, float]:
        """The result's ``phases``: seconds per phase and in all, rounded to milliseconds."""
        out = {name: round(s, 3) for name, s in self.seconds.items()}
        out["total"] = round(self._clock() - self._start, 3)
        return out


def breakdown(phases: dict[str, float]) -> str:
    """'41.2 s: compile 1.1, inputs 9.8, reference 7.7, check 3.0, timing 8.6, counters 11.0 s'."""
    parts = ", ".join(f"{name} {phases[name]:.1f}" for name in PHASES if name in phases)
    return f"{phases.get('total', sum(phases.get(n, 0.0) for n in PHASES)):.1f} s: {parts} s"
