"""Progress in configurations, not entries: one entry takes a minute, one configuration a second or two.

A configuration is one (size, variant) pair of an entry's spec.  Workers report how many of a
job's configurations are done (``Pool(on_configs=...)``); ``Tally`` adds them up over a run for a
progress bar, and ``ConfigsLog`` turns them into a few log lines per entry where there is no bar
(the MkDocs build).
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from glossary.entries.model import Entry
from glossary.measuring.pool import Job

LOG_EVERY_S = 5.0  # the build log says how an entry is getting on at most this often
LOG_STEPS = 4  # ... and only as it passes a quarter of its configurations


def configurations(entry: Entry) -> int:
    """How many (size, variant) pairs measuring ``entry`` takes: sizes × variants, 0 without a spec."""
    spec = entry.meta.measure
    return 0 if spec is None else len(spec.sizes) * len(spec.measured_variants)


class Tally:
    """Configurations done over a run's jobs, for one overall progress bar.

    ``totals`` are the planned configurations per job.  A running job counts what it last
    reported (scaled to its planned total, should the entry have changed since it was planned);
    a finished job counts its whole total, however it ended, so the bar reaches its end when an
    entry fails half way.  A report of 0 (the pool's, for a retried job) takes the job back to
    nothing, so a retry is not counted twice.
    """

    def __init__(self, totals: dict[Job, int]) -> None:
        self.totals = dict(totals)
        self.done: dict[Job, float] = {}

    @property
    def total(self) -> int:
        return sum(self.totals.values())

    @property
    def completed(self) -> float:
        return sum(self.done.values())

    def update(self, job: Job, done: float, total: int) -> None:
        """A report from the pool: ``done`` of ``total`` of this job's configurations are finished."""
        planned = self.totals.setdefault(job, total)  # a job not planned here counts as reported
        self.done[job] = planned * min(max(done / total, 0.0), 1.0) if total > 0 else 0.0

    def finish(self, job: Job) -> None:
        """The job ended (measured, failed, killed or given up): its share is full."""
        self.done[job] = float(self.totals.get(job, 0))


class ConfigsLog:
    """An ``on_configs`` that logs "slug on device: 10 of 20 configurations" now and then.

    A line when a job passes a quarter of its configurations (not the last: the line saying it
    was recorded follows), and at most one a job every ``every_s`` seconds.
    """

    def __init__(self, log: logging.Logger, every_s: float = LOG_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.log, self.every_s, self.clock = log, every_s, clock
        self.logged: dict[Job, tuple[int, float]] = {}  # the quarter last logged, and when

    def __call__(self, job: Job, done: float, total: int) -> None:
        if total <= 0:
            return
        step = int(LOG_STEPS * min(done, total) / total)
        last_step, last_at = self.logged.get(job, (0, float("-inf")))
        if done <= 0:
            self.logged.pop(job, None)  # a retry: its quarters count again
            return
        now = self.clock()
        if last_step < step < LOG_STEPS and now - last_at >= self.every_s:
            self.logged[job] = (step, now)
            self.log.info("%s on %s: %d of %d configurations", job.slug, job.device, int(done), total)
