"""A measuring worker: one process bound to one GPU, reading jobs on stdin and answering in JSON lines.

``python -m glossary.measuring.worker --worker module:function`` is what the pool starts; the
function (``run_harness`` for real work) measures one job.  The protocol is the pool's
(``glossary.measuring.pool``): a private copy of stdout carries ``ready``, ``progress``, ``configs``
and ``done``; everything else printed goes to stderr.

A target takes ``(job, progress)`` or ``(job, progress, on_configs)``: ``progress(line)`` says what
it is doing, ``on_configs(done, total)`` how many of the entry's configurations (size, variant
pairs) are finished, ``done`` a float that only grows.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from glossary.measuring.pool import Job
from measure import results

CONFIGS_INTERVAL_S = 0.1  # at most ten ``configs`` events a second per worker: the bar needs no more


def run_harness(job: Job, progress: Callable[[str], None],
                on_configs: Callable[[float, int], None] | None = None) -> dict:
    """The real job: parse the entry again and measure it with the pycuda harness.  The entry's
    reference and compiles run in the sandbox; nothing of the entry is imported into this process."""
    from glossary.entries.model import parse_entry
    from measure import harness

    entry = parse_entry(Path(job.entry_path), Path(job.entries_dir))
    if entry.meta.measure is None:
        raise harness.MeasurementError(f"{job.slug}: the entry has no measure spec any more")
    prior = json.loads(job.prior_counters) if job.prior_counters else None
    result = harness.measure_entry(entry.slug, entry.folder, entry.meta.measure, job.fingerprint,
                                   progress=progress, on_configs=on_configs, prior_counters=prior,
                                   covered=set(entry.kernel_files))
    measured = results.parse_measured(result)  # what the parent will store, checked here
    expected_bus = os.environ.get("GLOSSARY_WORKER_PCI_BUS_ID") or None
    got_bus = measured.environment.pci_bus_id
    if measured.device != job.device or (expected_bus and got_bus and got_bus.lower() != expected_bus.lower()):
        raise harness.MeasurementError(
            f"{job.slug}: measured on {measured.device} at {got_bus}, but the job was for {job.device} at "
            f"{expected_bus} (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')}): the worker "
            f"was bound to the wrong GPU, so nothing was recorded")
    return result


class ConfigsSender:
    """A job's configuration progress as ``configs`` events, throttled.

    At most one event per ``interval_s``; a report that reaches the total is always sent, and
    ``flush()`` sends the latest report held back, so the parent sees where the job got to.
    """

    def __init__(self, send: Callable[..., None], slug: str, interval_s: float = CONFIGS_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.send, self.slug, self.interval_s, self.clock = send, slug, interval_s, clock
        self.latest: tuple[float, int] | None = None
        self.sent: tuple[float, int] | None = None
        self.sent_at: float | None = None

    def __call__(self, done: float, total: int) -> None:
        self.latest = (float(done), int(total))
        if done >= total or self.sent_at is None or self.clock() - self.sent_at >= self.interval_s:
            self.flush()

    def flush(self) -> None:
        if self.latest is None or self.latest == self.sent:
            return
        self.send(event="configs", slug=self.slug, done=self.latest[0], total=self.latest[1])
        self.sent, self.sent_at = self.latest, self.clock()


def takes_configs(fn: Callable[..., Any]) -> bool:
    """Whether a target takes a third argument, ``on_configs`` (older targets take ``(job, progress)``)."""
    try:
        inspect.signature(fn).bind(None, None, None)
    except TypeError:
        return False
    return True


# What a worker may import as its target: the project's own packages, or a test's stand-in module in
# the project's tests/ folder. Never an entry's code: with the working directory on sys.path,
# "entries.roofline.reference" would import an author's file into the process that times and signs.
TRUSTED_PACKAGES = ("glossary", "measure")
_TESTS = Path(__file__).resolve().parents[2] / "tests"


def _resolve(target: str) -> Callable[..., dict]:
    module, _, name = target.partition(":")
    top = module.split(".")[0]
    if top not in TRUSTED_PACKAGES:
        # find_spec of a top-level name runs no code (a dotted name would import its parents first)
        spec = importlib.util.find_spec(top) if module == top and top.isidentifier() else None
        origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
        if origin is None or origin.parent != _TESTS:
            raise SystemExit(f"worker target {target!r} refused: a worker runs the project's own code "
                             f"({', '.join(p + '.*' for p in TRUSTED_PACKAGES)}, or a test's stand-in in "
                             f"tests/), never an entry's")
    return getattr(importlib.import_module(module), name)


def worker_main(target: str) -> None:
    """A worker's loop: read jobs from stdin, measure, answer on the protocol channel."""
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # anything printed from here on, by Python or C, lands on stderr
    sys.stdout = sys.stderr

    def send(**message: Any) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    def say(text: str) -> None:
        send(event="progress", line=str(text))

    fn = _resolve(target)
    with_configs = takes_configs(fn)
    send(event="ready", pid=os.getpid())
    for line in sys.stdin:
        job = Job(**json.loads(line))
        configs = ConfigsSender(send, job.slug)
        started = time.monotonic()
        try:
            result = fn(job, say, configs) if with_configs else fn(job, say)
        except Exception as err:  # failures are data: report and take the next job
            configs.flush()
            send(event="done", slug=job.slug, error=str(err) or type(err).__name__,
                 seconds=time.monotonic() - started)
            continue
        configs.flush()
        send(event="done", slug=job.slug, result=result, seconds=time.monotonic() - started)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
    else:
        sys.exit("usage: python -m glossary.measuring.worker --worker module:function")
