"""A measuring worker: one process bound to one GPU, reading jobs on stdin and answering in JSON lines.

``python -m glossary.measuring.worker --worker module:function`` is what the pool starts; the
function (``run_harness`` for real work) measures one job.  The protocol is the pool's
(``glossary.measuring.pool``): a private copy of stdout carries ``ready``, ``progress`` and ``done``;
everything else printed goes to stderr.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from glossary.measuring.pool import Job
from measure import results


def run_harness(job: Job, progress: Callable[[str], None]) -> dict:
    """The real job: parse the entry again and measure it with the pycuda harness."""
    from glossary.entries.model import parse_entry
    from measure import harness

    entry = parse_entry(Path(job.entry_path), Path(job.entries_dir))
    if entry.meta.measure is None:
        raise harness.MeasurementError(f"{job.slug}: the entry has no measure spec any more")
    prior = json.loads(job.prior_counters) if job.prior_counters else None
    result = harness.measure_entry(entry.slug, entry.folder, entry.meta.measure, job.fingerprint,
                                   progress=progress, prior_counters=prior)
    measured = results.parse_measured(result)  # what the parent will store, checked here
    expected_bus = os.environ.get("GLOSSARY_WORKER_PCI_BUS_ID") or None
    got_bus = measured.environment.pci_bus_id
    if measured.device != job.device or (expected_bus and got_bus and got_bus.lower() != expected_bus.lower()):
        raise harness.MeasurementError(
            f"{job.slug}: measured on {measured.device} at {got_bus}, but the job was for {job.device} at "
            f"{expected_bus} (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')}): the worker "
            f"was bound to the wrong GPU, so nothing was recorded")
    return result


def _resolve(target: str) -> Callable[[Job, Callable[[str], None]], dict]:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def worker_main(target: str) -> None:
    """A worker's loop: read jobs from stdin, measure, answer on the protocol channel."""
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # anything printed from here on, by Python or C, lands on stderr
    sys.stdout = sys.stderr

    def send(**message: Any) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    fn = _resolve(target)
    send(event="ready", pid=os.getpid())
    for line in sys.stdin:
        job = Job(**json.loads(line))
        started = time.monotonic()
        try:
            result = fn(job, lambda text: send(event="progress", line=str(text)))
        except Exception as err:  # failures are data: report and take the next job
            send(event="done", slug=job.slug, error=str(err) or type(err).__name__,
                 seconds=time.monotonic() - started)
            continue
        send(event="done", slug=job.slug, result=result, seconds=time.monotonic() - started)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
    else:
        sys.exit("usage: python -m glossary.measuring.worker --worker module:function")
