"""Measure on every GPU of a node at once: one worker process per GPU, one queue, deadlines.

A job is one entry on one device model.  Each worker is a separate Python
process bound to one GPU through ``CUDA_VISIBLE_DEVICES``, so a kernel that
never finishes, a driver fault or a crash costs one worker and the entry it
held, never the build: the pool kills a worker that runs past the deadline
(its whole process group, ncu included), starts a fresh one, and retries an
entry whose worker died once before reporting it.  Workers only measure; the
parent alone writes the results store, as each job finishes, so nothing
measured is lost when a later job fails.

Protocol: the parent writes one JSON job per line to a worker's stdin; the
worker answers on a private copy of its stdout with JSON lines
(``ready``, ``progress``, ``configs``, ``done``).  Everything else the worker or its
libraries print goes to stderr, so stray output cannot corrupt the protocol.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Iterator

from glossary.measuring import DEFAULT_DEADLINE_S

HARNESS = "glossary.measuring.worker:run_harness"  # what a worker runs per job (tests stand in their own)
START_TIMEOUT_S = 120.0


class PoolError(ValueError):
    """A pool request that cannot be carried out (bad --gpus or --shard); the message says why."""


@dataclass(frozen=True)
class Job:
    """Measure the entry at ``entry_path`` on a GPU whose device key is ``device``."""

    slug: str
    entry_path: str
    entries_dir: str
    fingerprint: str | None
    device: str
    prior_counters: str | None = None  # JSON: counters a verified earlier result offers (trust.counters_to_carry)


@dataclass
class Outcome:
    job: Job
    gpu: int | None
    result: dict | None = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


# -- choosing GPUs and shards (pure) --------------------------------------------------------


def select_gpus(choice: str, available: list[dict]) -> list[dict]:
    """``all``, a count ``N`` (the first N), or a list ``0,2`` of device indices."""
    choice = (choice or "all").strip()
    if not available:
        raise PoolError("no CUDA device is visible to this process")
    if choice == "all":
        return list(available)
    by_index = {g["index"]: g for g in available}
    if "," not in choice and choice.isdigit():
        count = int(choice)
        if not 1 <= count <= len(available):
            raise PoolError(f"--gpus {choice}: this machine has {len(available)} GPU(s)")
        return list(available[:count])
    try:
        wanted = [int(part) for part in choice.split(",") if part.strip()]
    except ValueError:
        raise PoolError(f"--gpus {choice!r}: expected 'all', a count such as 2, or indices such as 0,2") from None
    missing = [i for i in wanted if i not in by_index]
    if missing or not wanted or len(set(wanted)) != len(wanted):
        raise PoolError(f"--gpus {choice}: device indices must be distinct and among "
                        f"{', '.join(str(i) for i in sorted(by_index))}")
    return [by_index[i] for i in wanted]


def parse_shard(text: str) -> tuple[int, int]:
    """'2/4' -> (2, 4): the second of four shards (1-based, as job arrays count)."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise PoolError(f"--shard {text!r}: expected I/N, such as 1/4") from None
    if not (count >= 1 and 1 <= index <= count):
        raise PoolError(f"--shard {text}: I must be between 1 and N")
    return index, count


def shard_slugs(all_slugs: list[str], index: int, count: int) -> set[str]:
    """The slugs shard ``index`` of ``count`` owns: every count-th of the sorted list.

    The split is over every measurable entry, not over the stale ones, so it
    does not depend on which results a node happens to hold: every node of a
    fleet computes the same owner for an entry, on any GPU model.
    """
    return set(sorted(all_slugs)[index - 1::count])


def visible_device(index: int, environ: dict[str, str]) -> str:
    """What CUDA_VISIBLE_DEVICES must say for a worker to see the parent's device ``index`` alone.

    The worker inherits CUDA_DEVICE_ORDER, so both enumerate alike; where the
    parent itself sees a subset ("2,3"), its device 0 is that list's first item.
    """
    parent = [p.strip() for p in environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if p.strip()]
    if "CUDA_VISIBLE_DEVICES" in environ and index < len(parent):
        return parent[index]
    return str(index)


@contextlib.contextmanager
def hold_gpus(gpus: list[dict], say: Callable[[str], None], lock_dir: str | None = None) -> Iterator[None]:
    """Hold an exclusive lock on each GPU for as long as the block runs.

    Two measuring runs on one node would time each other's kernels, so a second
    run waits here until the first is done (and then finds its entries current).
    The locks are flock()s on files named after the card's PCI bus id: the kernel
    drops them when the holder exits, however it exits.
    """
    folder = Path(lock_dir or os.environ.get("GLOSSARY_LOCK_DIR") or Path(tempfile.gettempdir()) / "glossary-gpu-locks")
    folder.mkdir(parents=True, exist_ok=True)
    held = []
    try:
        for gpu in gpus:
            name = re.sub(r"[^A-Za-z0-9.-]+", "_", str(gpu.get("pci_bus_id") or f"index-{gpu['index']}"))
            fh = open(folder / f"{name}.lock", "a+")
            held.append(fh)
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                say(f"GPU {gpu['index']} is measuring for {holder}; waiting for it to finish")
                fcntl.flock(fh, fcntl.LOCK_EX)
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
            fh.flush()
        yield
    finally:
        for fh in held:
            fh.close()  # closing drops the lock


# -- the parent side ------------------------------------------------------------------------


@dataclass
class _Worker:
    gpu: dict
    proc: subprocess.Popen
    job: Job | None = None
    started: float = 0.0
    ready: bool = False
    spawned: float = field(default_factory=time.monotonic)
    configs_total: int = 0  # the job's configurations, once the worker has reported any

    @property
    def label(self) -> str:
        return f"GPU {self.gpu['index']}"

    def send(self, job: Job) -> None:
        self.job, self.started, self.configs_total = job, time.monotonic(), 0
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(dataclasses.asdict(job)) + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the worker and whatever it started (ncu, nvcc)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def stop(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()


class Pool:
    """Measure jobs on the given GPUs; ``on_done`` is called in the parent as each job ends.

    ``target`` is "module:function" taking (job, progress) or (job, progress,
    on_configs) in the worker: the harness by default, a stand-in in tests.
    ``on_configs(job, done, total)`` is called in the parent as a running job
    reports configurations done; every job ends with one ``on_done`` (so the
    job's share of a progress bar can be closed there, however it ended), and
    a job retried after its worker died first reports ``on_configs(job, 0.0,
    total)``: its progress starts again.
    """

    def __init__(self, gpus: list[dict], *, deadline_s: float = DEFAULT_DEADLINE_S, target: str = HARNESS,
                 retries: int = 1, say: Callable[[str, str], None] | None = None,
                 on_done: Callable[[Outcome], None] | None = None,
                 on_configs: Callable[[Job, float, int], None] | None = None) -> None:
        if not gpus:
            raise PoolError("a pool needs at least one GPU")
        self.gpus, self.deadline_s, self.target, self.retries = gpus, deadline_s, target, retries
        self.say = say or (lambda who, line: print(f"[{who}] {line}", file=sys.stderr))
        self.on_done = on_done or (lambda outcome: None)
        self.on_configs = on_configs or (lambda job, done, total: None)
        self._events: queue.Queue = queue.Queue()

    def run(self, jobs: list[Job]) -> list[Outcome]:
        pending: deque[Job] = deque(jobs)
        attempts: dict[Job, int] = {}
        outcomes: list[Outcome] = []
        start_failures: dict[int, int] = {}
        workers: dict[int, _Worker] = {}

        def finish(outcome: Outcome) -> None:
            outcomes.append(outcome)
            self.on_done(outcome)

        def can_serve(gpu: dict) -> bool:  # a GPU whose worker failed to start twice is given up
            return start_failures.get(gpu["index"], 0) < 2

        try:
            for gpu in self.gpus:
                if any(job.device == gpu["device"] for job in pending):
                    workers[gpu["index"]] = self._spawn(gpu)
            total = len(pending)
            while pending or any(w.job for w in workers.values()):
                self._dispatch(workers, pending, total, len(outcomes))
                for job in self._orphans(pending, workers, can_serve):
                    pending.remove(job)
                    finish(Outcome(job, None, error=f"no working GPU of model {job.device} in this pool"))
                if not pending and not any(w.job for w in workers.values()):
                    break
                self._handle_events(workers, pending, attempts, start_failures, finish, can_serve)
                self._enforce_deadlines(workers, pending, finish, can_serve)
        finally:
            for worker in workers.values():
                if worker.job is not None:
                    worker.kill()
                else:
                    worker.stop()
        return outcomes

    # -- steps of the loop ------------------------------------------------------------------

    def _spawn(self, gpu: dict) -> _Worker:
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=visible_device(gpu["index"], os.environ),
                   GLOSSARY_WORKER_PCI_BUS_ID=str(gpu.get("pci_bus_id") or ""), PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        proc = subprocess.Popen([sys.executable, "-m", "glossary.measuring.worker", "--worker", self.target],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, start_new_session=True)
        worker = _Worker(gpu, proc)
        threading.Thread(target=self._read, args=(worker, proc.stdout, "out"), daemon=True).start()
        threading.Thread(target=self._read, args=(worker, proc.stderr, "err"), daemon=True).start()
        return worker

    def _read(self, worker: _Worker, stream: IO[str], kind: str) -> None:
        for line in stream:
            line = line.rstrip("\n")
            if kind == "err":
                if line.strip():
                    self._events.put((worker, {"event": "stderr", "line": line}))
                continue
            try:
                self._events.put((worker, json.loads(line)))
            except ValueError:
                self._events.put((worker, {"event": "stderr", "line": line}))
        if kind == "out":
            self._events.put((worker, {"event": "exit"}))

    def _dispatch(self, workers: dict[int, _Worker], pending: deque[Job], total: int, done: int) -> None:
        for worker in workers.values():
            if worker.job is not None or not worker.ready:
                continue
            job = next((j for j in pending if j.device == worker.gpu["device"]), None)
            if job is None:
                continue
            pending.remove(job)
            number = total - len(pending)
            self.say(worker.label, f"measuring {job.slug} ({number} of {total})")
            worker.send(job)

    @staticmethod
    def _orphans(pending: deque[Job], workers: dict[int, _Worker], can_serve) -> list[Job]:
        alive = {w.gpu["device"] for w in workers.values() if can_serve(w.gpu)}
        return [job for job in pending if job.device not in alive]

    def _handle_events(self, workers, pending, attempts, start_failures, finish, can_serve) -> None:
        try:
            worker, message = self._events.get(timeout=0.2)
        except queue.Empty:
            return
        if workers.get(worker.gpu["index"]) is not worker:
            return  # a message from a worker already replaced
        event = message.get("event")
        if event == "ready":
            worker.ready = True
        elif event == "progress":
            self.say(worker.label, message["line"])
        elif event == "stderr":
            self.say(worker.label, message["line"])
        elif event == "configs":
            if worker.job is not None and message.get("slug") == worker.job.slug:
                worker.configs_total = int(message["total"])
                self.on_configs(worker.job, float(message["done"]), worker.configs_total)
        elif event == "done":
            job, worker.job = worker.job, None
            if job is not None:
                finish(Outcome(job, worker.gpu["index"], result=message.get("result"),
                               error=message.get("error"), seconds=float(message.get("seconds", 0.0))))
        elif event == "exit":
            code = worker.proc.wait()
            job, worker.job = worker.job, None
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            del workers[worker.gpu["index"]]
            if job is not None:
                attempts[job] = attempts.get(job, 0) + 1
                if attempts[job] <= self.retries:
                    self.say(worker.label, f"the worker died ({how}) while measuring {job.slug}; retrying it")
                    if worker.configs_total:
                        self.on_configs(job, 0.0, worker.configs_total)  # the retry starts from nothing
                    pending.appendleft(job)
                else:
                    finish(Outcome(job, worker.gpu["index"], seconds=time.monotonic() - worker.started,
                                   error=f"the measuring process on {worker.label} died ({how}) "
                                         f"{attempts[job]} times while measuring {job.slug}"))
            elif not worker.ready:
                start_failures[worker.gpu["index"]] = start_failures.get(worker.gpu["index"], 0) + 1
                self.say(worker.label, f"the worker could not start ({how})")
            if can_serve(worker.gpu) and any(j.device == worker.gpu["device"] for j in pending):
                workers[worker.gpu["index"]] = self._spawn(worker.gpu)

    def _enforce_deadlines(self, workers, pending, finish, can_serve) -> None:
        now = time.monotonic()
        for index, worker in list(workers.items()):
            if not worker.ready and now - worker.spawned > START_TIMEOUT_S:
                worker.kill()  # its exit event follows and counts as a start failure
                continue
            if worker.job is None or now - worker.started <= self.deadline_s:
                continue
            job = worker.job
            worker.job = None
            del workers[index]
            worker.kill()
            finish(Outcome(job, worker.gpu["index"], seconds=now - worker.started,
                           error=f"did not finish within the {self.deadline_s:g} s deadline on {worker.label} "
                                 f"(a kernel that never ends?); the measuring process was killed"))
            if can_serve(worker.gpu) and any(j.device == worker.gpu["device"] for j in pending):
                workers[index] = self._spawn(worker.gpu)

