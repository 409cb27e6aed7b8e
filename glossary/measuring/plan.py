"""Measuring from the build and the command line: decide what is stale, run the harness, record.

The harness itself is ``measure.harness`` (pycuda); this module only decides
*which* entries to measure on this machine and stores what comes back.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Callable

from glossary.measuring import pool
from glossary.entries.model import Entry, display_path
from glossary.entries.model import measurement_fingerprint
from measure import attest, store
from measure.results import staleness


class NoGPU(Exception):
    """Measurement was required but this machine cannot measure."""


class NoSandbox(Exception):
    """This machine has a GPU but cannot confine author code: nothing is measured (the message says
    how to install bubblewrap)."""


def sandbox_problem() -> str | None:
    """None where author code can be confined here; else the one line to show."""
    from measure import sandbox

    why = sandbox.problem()
    return None if why is None else f"no sandbox for author code, so nothing is measured: {why}"


def probe() -> tuple[bool, str]:
    """(True, GPU name) where pycuda and a CUDA device work; else (False, why not)."""
    try:
        from measure import harness
    except Exception as err:  # pycuda may be missing or broken: that is an answer, not a crash
        return False, f"the harness cannot load: {err}"
    return harness.probe_gpu()


def stale_entries(entries: list[Entry], device: str) -> list[Entry]:
    """Entries with a spec whose result for ``device`` is not current (``measure.results.staleness``)."""
    out = []
    for entry in entries:
        if entry.meta.measure is None:
            continue
        path = store.results_dir(entry.folder) / f"{device}.json"
        try:
            result = store.load_file(path) if path.exists() else None
        except store.StoreError:
            result = None  # unreadable: measuring it again is the fix
        if staleness(result, measurement_fingerprint(entry)) != "current":
            out.append(entry)
    return out


def available_gpus() -> tuple[list[dict], str]:
    """This machine's GPUs as the pool wants them (index, name, pci_bus_id, device key), and why none."""
    ok, why = probe()
    if not ok:
        return [], why
    from measure import harness

    gpus = [dict(g, device=store.device_key(g["name"])) for g in harness.list_gpus()]
    return gpus, ("" if gpus else "the driver lists no CUDA device")


# What a job may keep from the recorded result: (entry, device key) -> JSON or None.
Carry = Callable[[Entry, str], "str | None"]


def plan(entries: list[Entry], gpus: list[dict], *, only_stale: bool = True,
         shard: tuple[int, int] | None = None, carry: Carry | None = None) -> list[pool.Job]:
    """One job per (entry, device model) to measure: stale ones (or all), in this shard only;
    ``carry`` says what counters each job may keep from the recorded result."""
    measurable = [e for e in entries if e.meta.measure is not None]
    owned = pool.shard_slugs([e.slug for e in measurable], *shard) if shard else None
    jobs = []
    for device in dict.fromkeys(g["device"] for g in gpus):  # each model once, in GPU order
        todo = stale_entries(measurable, device) if only_stale else measurable
        for entry in todo:
            if owned is None or entry.slug in owned:
                jobs.append(pool.Job(slug=entry.slug, entry_path=str(entry.path),
                                     entries_dir=str(entry.path.parent), fingerprint=measurement_fingerprint(entry),
                                     device=device, prior_counters=carry(entry, device) if carry else None))
    return jobs


def ready_gpus(gpus: str, available: list[dict] | None, target: str) -> list[dict]:
    """The GPUs ``gpus`` chooses among ``available`` (this machine's where None), once it is sure
    author code can be confined here; NoGPU, NoSandbox or pool.PoolError say why not."""
    if available is None:
        available, why = available_gpus()
        if not available:
            raise NoGPU(why)
    chosen = pool.select_gpus(gpus, available)
    why = sandbox_problem() if target == pool.HARNESS else None
    if why:
        raise NoSandbox(why)
    return chosen


def measure_entries(entries: list[Entry], log: logging.Logger, *, only_stale: bool = True,
                    gpus: str = "all", shard: tuple[int, int] | None = None,
                    deadline_s: float = pool.DEFAULT_DEADLINE_S, target: str = pool.HARNESS,
                    available: list[dict] | None = None,
                    say: Callable[[str, str], None] | None = None,
                    on_done: Callable[[pool.Outcome], None] | None = None,
                    on_configs: Callable[[pool.Job, float, int], None] | None = None,
                    carry: Carry | None = None) -> list[pool.Outcome]:
    """Measure entries on this machine's GPUs, one worker process per GPU, and record each result.

    A failure is recorded beside the last good result (never over it), logged
    as a WARNING when it happens, and listed again in one WARNING at the end.
    Raises NoGPU when there is no GPU to measure on, pool.PoolError for a bad
    ``gpus`` choice.  ``available`` and ``target`` stand in for the GPUs and
    the harness in tests; ``on_configs`` is the pool's (configurations done per job);
    ``carry`` (``glossary.verdicts.trust.counters_to_carry`` bound to the project's trust)
    lets unchanged counters be kept instead of profiled again.
    """
    chosen = ready_gpus(gpus, available, target)
    with pool.hold_gpus(chosen, lambda line: log.info("%s", line)):
        return _measure(entries, log, chosen, only_stale=only_stale, shard=shard, deadline_s=deadline_s,
                        target=target, say=say, on_done=on_done, on_configs=on_configs, carry=carry)


def remeasure(entries: list[Entry], log: logging.Logger, *, gpus: str = "all",
              deadline_s: float = pool.DEFAULT_DEADLINE_S, target: str = pool.HARNESS,
              available: list[dict] | None = None, say: Callable[[str, str], None] | None = None,
              on_done: Callable[[pool.Outcome], None] | None = None) -> list[pool.Outcome]:
    """Measure ``entries`` again on this machine's GPUs, every one whatever its recorded result,
    counters profiled anew, and record nothing: each outcome goes to ``on_done`` as its job ends,
    and all are returned (``glossary reproduce``).

    The same pool, sandbox and job check as ``measure_entries``; a result that is not the job's
    comes back as a failure."""
    chosen = ready_gpus(gpus, available, target)
    assigned = {g["index"]: g for g in chosen}
    checked: list[pool.Outcome] = []

    def done(outcome: pool.Outcome) -> None:
        mismatch = job_mismatch(outcome.job, outcome.result, assigned.get(outcome.gpu)) if outcome.ok else None
        outcome = dataclasses.replace(outcome, result=None, error=mismatch) if mismatch else outcome
        checked.append(outcome)
        if on_done is not None:
            on_done(outcome)

    with pool.hold_gpus(chosen, lambda line: log.info("%s", line)):
        jobs = plan(entries, chosen, only_stale=False)
        if jobs:
            pool.Pool(chosen, deadline_s=deadline_s, target=target, on_done=done,
                      say=say or (lambda who, line: log.info("[%s] %s", who, line))).run(jobs)
    return checked


def _measure(entries: list[Entry], log: logging.Logger, chosen: list[dict], *, only_stale: bool,
             shard: tuple[int, int] | None, deadline_s: float, target: str,
             say: Callable[[str, str], None] | None,
             on_done: Callable[[pool.Outcome], None] | None,
             on_configs: Callable[[pool.Job, float, int], None] | None, carry: Carry | None) -> list[pool.Outcome]:
    """measure_entries, once the GPUs are ours: plan (after any wait, so others' results count), run, record."""
    names = ", ".join(f"{g['index']}: {g['name']}" for g in chosen)
    jobs = plan(entries, chosen, only_stale=only_stale, shard=shard, carry=carry)
    if not jobs:
        log.info("every entry's results for %s are current; nothing to measure",
                 " and ".join(dict.fromkeys(g["name"] for g in chosen)))
        return []
    log.info("measuring %d entr%s on %d GPU(s) (%s), deadline %g s per entry", len(jobs),
             "y" if len(jobs) == 1 else "ies", len(chosen), names, deadline_s)
    by_slug = {e.slug: e for e in entries}
    gpu_names = {g["index"]: g["name"] for g in chosen}
    signer = node_signer(log)
    from measure.harness import failure_record  # the producer's own record; never built here

    assigned = {g["index"]: g for g in chosen}
    replaced: dict[tuple[str, str], pool.Outcome] = {}

    def record(outcome: pool.Outcome) -> None:
        entry, job = by_slug[outcome.job.slug], outcome.job
        error = outcome.error
        if outcome.ok:
            mismatch = job_mismatch(job, outcome.result, assigned.get(outcome.gpu))
            if mismatch:
                outcome = replaced[(job.slug, job.device)] = dataclasses.replace(outcome, result=None, error=mismatch)
                error = mismatch
        if outcome.ok:
            result = dict(outcome.result, format=store.RESULT_FORMAT)  # signed as it is stored
            result = attest.sign_result(result, signer) if signer else result
            try:
                path = store.record_success(entry.folder, result)
                log.info("%s: recorded %s (%.0f s)%s", entry.slug, display_path(path), outcome.seconds,
                         f", signed by node key {signer.public.keyid}" if signer else ", unsigned")
            except store.StoreError as err:  # too large, or not the model: recorded as the failure it is
                error = str(err)
                outcome = replaced[(job.slug, job.device)] = dataclasses.replace(outcome, result=None, error=error)
        if error is not None:
            gpu = gpu_names.get(outcome.gpu, job.device)
            failure = failure_record(entry.slug, job.device, gpu, job.fingerprint, error)
            if signer:
                failure = attest.sign_failure(entry.slug, job.device, failure, signer)
            store.record_failure(entry.folder, failure)
            log.warning("%s: measurement on %s failed, recorded results kept: %s", entry.slug, gpu, error)
        if on_done is not None:
            on_done(outcome)

    runner_pool = pool.Pool(chosen, deadline_s=deadline_s, target=target, on_done=record, on_configs=on_configs,
                            say=say or (lambda who, line: log.info("[%s] %s", who, line)))
    outcomes = [replaced.get((o.job.slug, o.job.device), o) for o in runner_pool.run(jobs)]
    failed = [o for o in outcomes if not o.ok]
    if failed:
        lines = "\n".join(f"  {o.job.slug} on {o.job.device}: {headline(o.error)}" for o in failed)
        log.warning("measurement failed for %d of %d job(s); their last good results (if any) are kept:\n%s",
                    len(failed), len(outcomes), lines)
    return outcomes


def node_signer(log: logging.Logger) -> attest.Signer | None:
    """This node's signing key; without one, results are recorded unsigned, and the log says so."""
    try:
        signer = attest.node_signer()
    except attest.AttestError as err:
        log.warning("the node key %s cannot be used (%s); results are recorded unsigned and will not "
                    "publish under trust: signed", attest.node_key_path(), err)
        return None
    if signer is None:
        log.warning("this node has no signing key (%s); results are recorded unsigned and will not publish "
                    "under trust: signed: run `glossary node init` and add its line to "
                    "trust/nodes.allowed_signers (docs/maintainers/trust.md)", attest.node_key_path())
    return signer


def job_mismatch(job: pool.Job, result: object, gpu: dict | None) -> str | None:
    """Why a worker's result is not the job it was given, or None: its entry, its device (against this
    process's own query of the GPU it assigned) and its fingerprint must all be the job's.  A result
    that is not the job's is recorded as a failure, never signed."""
    if not isinstance(result, dict):
        return f"{job.slug}: the worker returned no result object; nothing was signed"
    env = result.get("environment") if isinstance(result.get("environment"), dict) else {}
    device = assigned_device(gpu) if gpu else None
    wrong = []
    if result.get("entry") != job.slug:
        wrong.append(f"entry {str(result.get('entry'))[:80]!r}")
    if result.get("device") != job.device or (device is not None and device != job.device):
        wrong.append(f"device {str(result.get('device'))[:80]!r} (this node assigned {device or job.device})")
    if result.get("fingerprint") != job.fingerprint:
        wrong.append("fingerprint " + str(result.get("fingerprint"))[:80])
    bus = str(env.get("pci_bus_id") or "").lower()
    if gpu and gpu.get("pci_bus_id") and bus and bus != str(gpu["pci_bus_id"]).lower():
        wrong.append(f"GPU at {bus[:40]} (assigned {gpu['pci_bus_id']})")
    if not wrong:
        return None
    return (f"{job.slug}: the result does not match the job it was given ({', '.join(wrong)}); "
            f"nothing was signed or recorded as a result")


def assigned_device(gpu: dict) -> str | None:
    """The device key of the GPU this node assigned, from its own NVML query by PCI bus id (the
    pool's listing where NVML is not there)."""
    name = gpu.get("name")
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            handle = pynvml.nvmlDeviceGetHandleByPciBusId(str(gpu["pci_bus_id"]).encode())
            got = pynvml.nvmlDeviceGetName(handle)
            name = got.decode() if isinstance(got, bytes) else got
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no NVML here (tests, a CPU machine): the pool's own listing stands
        pass
    return store.device_key(name) if name else None


def headline(error: str) -> str:
    """The first line of an error, with the first compiler 'error:' line after it where there is one."""
    lines = error.strip().splitlines() or [""]
    detail = next((line.strip() for line in lines[1:] if "error" in line.lower()), "")
    return f"{lines[0]} {detail}".strip()
