"""Reproduce: measure entries again on this node and compare them with the committed records.

``glossary reproduce`` runs this.  For each entry and each GPU model here, the committed record
(``entries/<slug>/results/<device>.json``) must exist, verify under the project's trust policy and
be current; otherwise the entry is reported as not compared, and never measured for nothing.  The
rest are measured again through the same pool, sandbox and job check as ``glossary measure``
(``plan.remeasure``), nothing is recorded in ``results/``, and each re-measure becomes a
reproduction (``glossary.verdicts.reproductions``): signed by this node's key where it has one, and
compared number by number with the record (``glossary.verdicts.agreement``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

from glossary.entries.model import Entry, measurement_fingerprint
from glossary.measuring import plan, pool
from glossary.verdicts import agreement, reproductions, trust
from measure import attest, reproduction, results, store
from measure.results import Result, staleness
from measure.typed import SchemaError


@dataclass
class Report:
    """One entry on one device model: compared, or why not."""

    slug: str
    device: str
    status: Literal["compared", "no-record", "not-compared", "failed"]
    reason: str = ""
    agreement: agreement.Agreement | None = None
    claims: list[tuple[str, str, str]] = field(default_factory=list)
    path: Path | None = None  # the reproduction written, where it was signed
    unsigned_why: str = ""  # why no reproduction was written


Candidate = tuple[Entry, str, Result, str, str]


def candidates(entries: list[Entry], devices: list[str], policy: trust.Trust) -> tuple[list[Candidate], list[Report]]:
    """(entry, device, record, record digest, record key id) for each entry and device model here
    whose committed record can be compared, and a report for each that cannot."""
    todo, reports = [], []
    for entry in entries:
        if entry.meta.measure is None:
            continue
        for device in devices:
            path = store.results_dir(entry.folder) / f"{device}.json"
            if not path.exists():
                reports.append(Report(entry.slug, device, "no-record",
                                      f"no committed record for {device}; nothing to compare"))
                continue
            try:
                record = store.load_file(path)
            except store.StoreError as err:
                reports.append(Report(entry.slug, device, "not-compared", str(err)))
                continue
            state = staleness(record, measurement_fingerprint(entry))
            if state != "current":
                reports.append(Report(entry.slug, device, "not-compared",
                                      f"the committed record is {state}, so there is nothing current to reproduce"))
                continue
            digest, keyid = reproductions.record_digest(entry.slug, device, record, policy) if policy.signed \
                else (None, "reproductions count only under trust: signed")
            if digest is None:
                reports.append(Report(entry.slug, device, "not-compared",
                                      f"the committed record does not verify ({keyid})"))
                continue
            todo.append((entry, device, record, digest, keyid))
    return todo, reports


def reproduce(entries: list[Entry], policy: trust.Trust, log: logging.Logger, *, node: str,
              signer: attest.Signer | None, gpus: str = "all", deadline_s: float = pool.DEFAULT_DEADLINE_S,
              target: str = pool.HARNESS, available: list[dict] | None = None,
              say: Callable[[str, str], None] | None = None,
              on_report: Callable[[Report], None] | None = None) -> list[Report]:
    """Re-measure, compare, and write each signed reproduction as its measurement ends (so a run cut
    short keeps what it finished); one report per entry and device, each also to ``on_report``."""
    if available is None:
        available, why = plan.available_gpus()
        if not available:
            raise plan.NoGPU(why)
    chosen = pool.select_gpus(gpus, available)
    devices = list(dict.fromkeys(g["device"] for g in chosen))
    todo, reports = candidates(entries, devices, policy)
    wanted = {(e.slug, d): (e, r, digest, keyid) for e, d, r, digest, keyid in todo}

    def done(outcome: pool.Outcome) -> None:  # in the parent, as each job ends: written at once
        key = (outcome.job.slug, outcome.job.device)
        if key not in wanted:
            return  # a model here with no record of this entry: reported above
        entry, record, digest, keyid = wanted.pop(key)
        report = compared(entry, key[1], record, digest, keyid, outcome, node, signer)
        reports.append(report)
        if on_report is not None:
            on_report(report)

    if todo:
        plan.remeasure(list({e.slug: e for e, *_ in todo}.values()), log, gpus=gpus, deadline_s=deadline_s,
                       target=target, available=available, say=say, on_done=done)
    for (slug, device) in wanted:  # jobs the pool never answered (no worker of that model)
        reports.append(Report(slug, device, "failed", "the pool returned no measurement"))
    return reports


def compared(entry: Entry, device: str, record: Result, digest: str, keyid: str, outcome: pool.Outcome, node: str,
             signer: attest.Signer | None) -> Report:
    """One re-measure against its record: the report, and the signed reproduction written where it can be."""
    if not outcome.ok:
        return Report(entry.slug, device, "failed", outcome.error or "the measurement failed")
    data = dict(outcome.result, format=store.RESULT_FORMAT)
    try:
        result = results.parse(data)
    except SchemaError as err:  # the worker checked it already; a second look costs nothing
        return Report(entry.slug, device, "failed", f"the re-measure does not read as a result: {err}")
    report = Report(entry.slug, device, "compared", agreement=agreement.compare(entry.meta.measure, record, result),
                    claims=reproductions.claims_both(entry, device, record, result))
    if signer is None:
        report.unsigned_why = ("this machine has no node key (`glossary node init`), so no reproduction was "
                               "written; the comparison above is yours alone")
    elif signer.public.keyid == keyid:
        report.unsigned_why = ("this node's key signed the record itself; a reproduction comes from another "
                               "node's key, so none was written")
    else:
        content = reproductions.make(entry.slug, device, node, record, digest, keyid, data)
        report.path = reproductions.write(entry.folder, reproduction.sign_reproduction(content, signer))
    return report
