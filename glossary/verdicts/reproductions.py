"""Reproductions: another node's signed re-measure of a record, and whether it counts.

``glossary reproduce`` re-measures an entry on a node whose GPU has a committed, verified record,
and writes ``entries/<slug>/reproductions/<device>-<node>.json`` (format 1)::

    {"format": 1, "entry": SLUG, "device": DEVICE, "node": NAME,
     "record": {"digest": "<signed digest of the record's statement>", "signed_by": "SHA256:...",
                "captured_at": "...", "fingerprint": "sha256:..."},
     "result": {... the new measurement, a result file's content, unsigned ...},
     "signature": {DSSE envelope of an in-toto statement, predicate type
                   https://verified-cuda-glossary.dev/reproduction/v1 (measure.attest)}}

The record is named by the digest of the statement its node signed (``measure.attest.signed_digest``,
the digest retirement records list), so a reproduction reads as a reproduction of exactly that
record: once the record is measured again, the reproduction is of an earlier record and no longer
counts.  A reproduction counts (``Checked.counted``) only when its signature verifies against a key
of ``trust/reproducers.allowed_signers`` listed under the file's node name (or a retired reproducing
key that lists its digest, ``trust/retired-reproducers/``), by a key other than the one that signed
the record, over a result of the same entry, device and fingerprint as the record.  It never changes
the record: the page shows it beside the record, agreeing or not (``glossary.verdicts.agreement``).

Reproductions are not part of the review fingerprint: they add a node's statement about the
record's numbers, and change none of what the reviewer signed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from glossary.entries.model import display_path
from glossary.verdicts import agreement as agreement_mod
from glossary.verdicts import trust as trust_mod
from glossary.verdicts.retired import check_head, read_strict_json
from measure import attest, reproduction, results, store
from measure.attest import AttestError
from measure.results import Result
from measure.typed import SchemaError

FORMAT = 1
FOLDER = "reproductions"  # beside results/: entries/<slug>/reproductions/
MAX_FILE_BYTES = store.MAX_FILE_BYTES + (64 << 10)  # a result, and the few lines around it
MAX_FILES = 64  # per entry: a few nodes per device model
_KEYS = ("format", "entry", "device", "node", "record", "result", attest.SIGNATURE_KEY)
_RECORD_KEYS = ("digest", "signed_by", "captured_at", "fingerprint")
_HEX = re.compile(r"^[0-9a-f]{64}$")

Status = Literal["agrees", "disagrees", "earlier", "refused"]


class ReproductionError(ValueError):
    """A reproduction file that cannot be read: the message names the file and the key."""


@dataclass(frozen=True)
class Reproduction:
    """One reproduction file, read and typed (not yet verified)."""

    path: Path
    data: dict  # as written
    entry: str
    device: str
    node: str
    record_digest: str
    result: Result


@dataclass(frozen=True)
class Checked:
    """One reproduction, judged against the committed record."""

    path: Path
    device: str
    node: str
    status: Status
    reason: str = ""  # why it is refused or of an earlier record
    signer: str | None = None  # the trusted reproducing key's name, where it verified
    result: Result | None = None
    agreement: agreement_mod.Agreement | None = None

    @property
    def counted(self) -> bool:
        return self.status in ("agrees", "disagrees")

    @property
    def captured_on(self) -> str:
        return self.result.environment.captured_at[:10] if self.result is not None else ""


def folder_of(entry_dir: Path) -> Path:
    return entry_dir / FOLDER


def file_name(device: str, node: str) -> str:
    """``<device>-<node>.json``, the node's name made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", node).strip("-.") or "node"
    return f"{device}-{safe}.json"


# -- reading ------------------------------------------------------------------------------


def load_all(entry_dir: Path) -> list[tuple[Path, Reproduction | ReproductionError]]:
    """Every reproduction file of the entry in ``entry_dir``: (its path, the file read or the error
    that names why it was not)."""
    folder = folder_of(entry_dir)
    if not folder.is_dir() or folder.is_symlink():
        return []
    paths = sorted(folder.glob("*.json"))
    if len(paths) > MAX_FILES:
        return [(folder, ReproductionError(f"{display_path(folder)}: more than {MAX_FILES} reproduction files; "
                                           f"none read"))]
    out: list[tuple[Path, Reproduction | ReproductionError]] = []
    for path in paths:
        try:
            out.append((path, read(path)))
        except ReproductionError as err:
            out.append((path, err))
    return out


def read(path: Path) -> Reproduction:
    """One reproduction file, strictly: bounded, no key twice, every key known, the result typed."""
    return parse(path, read_strict_json(path, MAX_FILE_BYTES, "reproduction", ReproductionError,
                                        shown=display_path(path)))


def parse(path: Path, data) -> Reproduction:
    """``data`` read from ``path`` as a Reproduction; ReproductionError names the key that does not fit."""
    shown = display_path(path)

    def bad(key: str, why: str) -> ReproductionError:
        return ReproductionError(f"{shown}, key {key!r}: {why}")

    check_head(data, _KEYS, FORMAT, "reproduction", bad,
               ReproductionError(f"{shown}: a reproduction is a JSON object"))
    for key in ("entry", "device", "node"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise bad(key, "expected a non-empty string")
    entry_folder = path.parent.parent.name
    if data["entry"] != entry_folder:
        raise bad("entry", f"expected {entry_folder!r} (the file's place: entries/<entry>/{FOLDER}/), "
                           f"found {data['entry']!r}")
    if file_name(data["device"], data["node"]) != path.name:
        raise bad("node", f"a reproduction of {data['device']} by {data['node']!r} is named "
                          f"{file_name(data['device'], data['node'])}, not {path.name}")
    record = data["record"]
    if not isinstance(record, dict) or sorted(set(record) - set(_RECORD_KEYS)):
        raise bad("record", f"expected an object of {', '.join(_RECORD_KEYS)}")
    if not isinstance(record.get("digest"), str) or not _HEX.match(record["digest"]):
        raise bad("record.digest", "expected the 64 hex digits of the record's signed statement")
    try:
        result = results.parse(data["result"])
    except SchemaError as err:
        raise bad(f"result.{err.key}" if err.key else "result", err.message) from None
    if (result.entry, result.device) != (data["entry"], data["device"]):
        raise bad("result", f"the result is of {result.entry}@{result.device}, the file of "
                            f"{data['entry']}@{data['device']}")
    if not result.ok or result.imported:
        raise bad("result", "a reproduction holds a successful measurement by the harness")
    return Reproduction(path=path, data=data, entry=data["entry"], device=data["device"], node=data["node"],
                        record_digest=record["digest"], result=result)


# -- judging --------------------------------------------------------------------------------


def record_digest(slug: str, device: str, record: Result, policy: trust_mod.Trust) -> tuple[str | None, str]:
    """(the digest of the record's signed statement, the key id that signed it) where the record
    verifies under ``policy``; (None, why not) otherwise."""
    checked = trust_mod.check_result(slug, device, record, policy)
    if checked.status != "verified":
        return None, checked.reason or f"the record is {checked.status}"
    opened = attest.open_envelope(record.plain().get(attest.SIGNATURE_KEY), policy.nodes.public())
    return opened.digest, opened.keyid


def judge(repro: Reproduction, spec, records: dict[str, Result], policy: trust_mod.Trust,
          fingerprint: str | None) -> Checked:
    """Whether ``repro`` counts, and how it agrees with the committed record of its device."""
    def refused(why: str, status: Status = "refused") -> Checked:
        return Checked(repro.path, repro.device, repro.node, status, reason=why)

    opened, why = _open(repro, policy)
    if why:
        return refused(why)
    signer = policy.reproducers.keys[opened.keyid].name
    record = records.get(repro.device)
    if record is None:
        return refused(f"there is no committed record for {repro.device} to reproduce")
    digest, keyid = record_digest(repro.entry, repro.device, record, policy)
    if digest is None:
        return refused(f"the record for {repro.device} does not verify ({keyid}), so nothing is compared")
    if keyid == opened.keyid:
        return refused("it is signed by the key that signed the record itself; a reproduction is another node's")
    if repro.record_digest != digest:
        return refused(f"it reproduces an earlier record of {repro.device} (digest {repro.record_digest[:12]}), "
                       f"not the committed one ({digest[:12]}); reproduce it again", "earlier")
    if repro.result.fingerprint != record.fingerprint:
        return refused("it was measured for another measurement fingerprint than the record's")
    if fingerprint and record.fingerprint != fingerprint:
        return refused("the record it reproduces is stale (measured for an earlier spec, kernels or harness); "
                       "measure the entry again, then reproduce it again", "earlier")
    if repro.result.environment.gpu != record.environment.gpu:
        return refused(f"it was measured on {repro.result.environment.gpu}, the record on {record.environment.gpu}")
    agreed = agreement_mod.compare(spec, record, repro.result)
    return Checked(repro.path, repro.device, repro.node, "agrees" if agreed.agrees else "disagrees", signer=signer,
                   result=repro.result, agreement=agreed)


def _open(repro: Reproduction, policy: trust_mod.Trust) -> tuple[attest.Opened | None, str | None]:
    """(the verified statement, None), or (None, why the signature does not count)."""
    env = repro.data.get(attest.SIGNATURE_KEY)
    if not isinstance(env, dict):
        return None, "it carries no signature"
    try:
        opened = attest.open_envelope(env, policy.reproducers.public())
        reproduction.check_reproduction_statement(repro.data, opened, repro.entry, repro.device, repro.node)
    except AttestError as err:
        listed = trust_mod.REPRODUCERS_FILE
        return None, f"{err} (reproducing keys are listed in {listed})" if "not trusted" in str(err) else str(err)
    key = policy.reproducers.keys[opened.keyid]
    if key.name != repro.node:
        return None, (f"it names node {repro.node!r}, but is signed by the key listed for {key.name!r} "
                      f"({key.where}); a reproduction is signed by the node it names")
    why = key.problem_at(attest.signed_at(opened), trust_mod.REPRODUCTION_NAMESPACE)
    retired = policy.retired_reproducers.get(opened.keyid)
    if why is None and retired is not None:
        why = retired.refusal(opened, "it")
    return (None, why) if why else (opened, None)


def check_entry(entry, records: dict[str, Result], policy: trust_mod.Trust) -> list[Checked]:
    """Every reproduction of ``entry``, judged (a file that does not read is refused, naming it)."""
    from glossary.entries.model import measurement_fingerprint

    spec = entry.meta.measure
    if not policy.signed:  # under trust: names nothing is signed, so no reproduction is judged
        return []
    out = []
    for path, item in load_all(entry.folder):
        if isinstance(item, ReproductionError):
            out.append(Checked(path, "", "", "refused", reason=str(item)))
            continue
        if spec is None:
            out.append(Checked(item.path, item.device, item.node, "refused", reason="the entry has no measure spec"))
            continue
        out.append(judge(item, spec, records, policy, measurement_fingerprint(entry)))
    return out


# -- making one -----------------------------------------------------------------------------


def make(entry: str, device: str, node: str, record: Result, digest: str, keyid: str, result: dict) -> dict:
    """A reproduction's content (unsigned): the new result, naming the record it reproduces."""
    return {"format": FORMAT, "entry": entry, "device": device, "node": node,
            "record": {"digest": digest, "signed_by": keyid, "captured_at": record.environment.captured_at,
                       "fingerprint": record.fingerprint},
            "result": {k: v for k, v in result.items() if k not in attest.UNSIGNED_RESULT_KEYS}}


def write(entry_dir: Path, data: dict) -> Path:
    """Write a signed reproduction where it belongs; what ``read`` would refuse is never written."""
    path = folder_of(entry_dir) / file_name(data["device"], data["node"])
    path.parent.mkdir(parents=True, exist_ok=True)
    parse(path, data)
    store.write_bytes_atomic(path, (json.dumps(data, indent=1, allow_nan=False) + "\n").encode("utf-8"))
    return path


def scan(entries_dir: Path, key: attest.PublicKey) -> dict[str, str]:
    """Digest -> file of every reproduction under ``entries/*/reproductions/`` signed by ``key``
    (what retiring a reproducing key lists)."""
    found: dict[str, str] = {}
    keys = {key.keyid: key}
    for folder in sorted(p for p in entries_dir.iterdir() if p.is_dir()) if entries_dir.is_dir() else []:
        for _, item in load_all(folder):
            if isinstance(item, ReproductionError):
                continue
            try:
                opened = attest.open_envelope(item.data.get(attest.SIGNATURE_KEY), keys)
            except AttestError:
                continue
            found.setdefault(opened.digest, display_path(item.path))
    return found


def claims_both(entry, device: str, record: Result, result: Result) -> list[tuple[str, str, str]]:
    """(the claim in words, its verdict on the record, its verdict on the reproduction) for each claim."""
    from glossary.figures import views
    from glossary.verdicts import claims

    spec = entry.meta.measure
    if spec is None:
        return []
    (was,) = views.device_views(entry, {device: record})
    (now,) = views.device_views(entry, {device: result})
    before = claims.summarize(claims.evaluate(spec, was))
    after = claims.summarize(claims.evaluate(spec, now))
    return [(a.statement, a.status, b.status) for a, b in zip(before, after)]
