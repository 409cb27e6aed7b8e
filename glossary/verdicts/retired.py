"""Retired node keys: the results a key signed, listed once, and nothing after.

A node key lives only as long as its machine.  When the machine is gone, the key
is *retired*: one record per key in ``trust/retired-nodes/<name>.json`` holds the
key's allowed-signers line and the digests (``measure.attest.signed_digest``) of
every statement it signed that the repository holds.  From then on the record is
the only place the key is trusted (its line leaves ``trust/nodes.allowed_signers``),
and only for those digests: any other result or failure record under it is refused,
whatever ``signed_at`` it claims.  Deleting a record revokes the key outright, so
every edit of ``trust/`` fails closed but one: a digest added to a record, which is
what the review of ``trust/`` changes is for.

A record::

    {"format": 1, "name": "h200-node-2026-12-01", "keyid": "SHA256:...",
     "key": "h200-node-2026-12-01 namespaces=\\"glossary-result\\" ssh-ed25519 AAAA...",
     "retired_on": "2026-12-02", "reason": "its machine is gone",
     "digest": "sha256(dsse-pae)", "signed": ["<64 hex>", ...]}   # sorted, each once
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from glossary.entries.model import display_path
from measure import attest, store
from measure.attest import AttestError, PublicKey

FORMAT = 1
FOLDER = "retired-nodes"  # beside the nodes file: trust/retired-nodes/
DIGEST = "sha256(dsse-pae)"  # what each listed digest is: measure.attest.signed_digest
MAX_RECORD_BYTES = 4 << 20  # about 50,000 digests; a node signs a few dozen
MAX_RECORDS = 1000
_KEYS = ("format", "name", "keyid", "key", "retired_on", "reason", "digest", "signed")
_HEX = re.compile(r"^[0-9a-f]{64}$")
_KEY = re.compile(r"(?:^|\s)ssh-ed25519\s+(\S+)")


class RetiredError(ValueError):
    """A retirement record that cannot be used: the message names the file and the key."""


@dataclass(frozen=True)
class RetiredKey:
    """One retired node key and the digests of what it signed."""

    name: str
    line: str  # its allowed-signers line, as it stood in trust/nodes.allowed_signers
    keyid: str
    retired_on: dt.date
    reason: str
    signed: frozenset[str]
    path: Path

    def refusal(self, opened: attest.Opened, what: str) -> str | None:
        """Why ``opened`` (a statement this key signed) is refused, or None when it is listed."""
        if opened.digest in self.signed:
            return None
        claimed = attest.signed_at(opened)
        return (f"{what} is signed by node key {self.name} ({self.keyid}), retired on {self.retired_on} "
                f"({display_path(self.path)}), and is not among the {len(self.signed)} signatures its retirement "
                f"lists, so it is refused whatever date it claims (signed_at "
                f"{claimed.isoformat() if claimed else 'missing'}); re-measure on a live node")


def folder_of(nodes_file: Path) -> Path:
    """Where the retirement records of the keys in ``nodes_file`` live."""
    return nodes_file.parent / FOLDER


def record_path(folder: Path, name: str) -> Path:
    """The record file of the key named ``name``: its name, made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "node"
    return folder / f"{safe}.json"


def load_retired(folder: Path) -> dict[str, RetiredKey]:
    """Every record in ``folder``, by key id; RetiredError names a malformed file and its key."""
    if not folder.is_dir():
        return {}
    paths = sorted(folder.glob("*.json"))
    if len(paths) > MAX_RECORDS:
        raise RetiredError(f"{folder}: more than {MAX_RECORDS} retirement records; this is not a trust folder")
    out: dict[str, RetiredKey] = {}
    for path in paths:
        record = read_record(path)
        first = out.get(record.keyid)
        if first is not None:
            raise RetiredError(f"{path}, key 'key': key {record.keyid} is retired already in {first.path}; "
                               f"one record a key")
        out[record.keyid] = record
    return out


def read_record(path: Path) -> RetiredKey:
    """One record, strictly read (bounded size and nesting, no key given twice)."""
    return parse_record(path, read_strict_json(path, MAX_RECORD_BYTES, "retirement record", RetiredError,
                                               "; restore it from git"))


def read_strict_json(path: Path, limit: int, what: str, error: type[Exception], hint: str = "",
                     shown: str | None = None):
    """The JSON data of a small file the trust check reads (a retirement record, a reproduction):
    a plain file, at most ``limit`` bytes, no key given twice; ``error`` names the file and why not."""
    shown = str(path) if shown is None else shown
    try:
        if not path.is_file() or path.is_symlink():
            raise error(f"{shown}: a {what} is a plain file")
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as err:
        raise error(f"{shown}: cannot read the {what}: {err.strerror or err}") from None
    if len(raw) > limit:
        raise error(f"{shown}: larger than {limit >> 20} MiB; not a {what}")
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_unique)
    except RecursionError:
        raise error(f"{shown}: nested too deeply to be a {what}") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise error(f"{shown}: not JSON ({err}){hint}") from None


def _unique(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key is given twice in one object")
    return out


def parse_record(path: Path, data) -> RetiredKey:
    """``data`` (read from ``path``) as a RetiredKey; RetiredError names the key that does not fit."""
    def bad(key: str, why: str) -> RetiredError:
        return RetiredError(f"{path}, key {key!r}: {why}; restore the record from git, or retire the key "
                            f"again with `glossary node retire` on the commit that holds its results")

    check_head(data, _KEYS, FORMAT, "retirement record", bad,
               RetiredError(f"{path}: a retirement record is a JSON object"))
    if data["digest"] != DIGEST:
        raise bad("digest", f"expected {DIGEST!r} (the digests measure.attest.signed_digest makes)")
    for key in ("name", "key", "keyid", "reason", "retired_on"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise bad(key, "expected a non-empty string")
    match = _KEY.search(data["key"])
    try:
        public = PublicKey.parse(f"ssh-ed25519 {match.group(1)}") if match else None
    except AttestError as err:
        raise bad("key", str(err)) from None
    if public is None:
        raise bad("key", "expected the key's allowed-signers line, 'NAME [options] ssh-ed25519 AAAA...'")
    if public.keyid != data["keyid"]:
        raise bad("keyid", f"{data['keyid']} is not the id of the key in 'key' ({public.keyid}); the record was "
                           f"edited")
    if record_path(path.parent, data["name"]).name != path.name:
        raise bad("name", f"the record of {data['name']!r} is named {record_path(path.parent, data['name']).name}")
    try:
        retired_on = dt.date.fromisoformat(data["retired_on"])
    except ValueError:
        raise bad("retired_on", f"expected YYYY-MM-DD, found {data['retired_on']!r}") from None
    signed = data["signed"]
    if not isinstance(signed, list):
        raise bad("signed", "expected a list of SHA-256 digests")
    for i, digest in enumerate(signed):
        if not isinstance(digest, str) or not _HEX.match(digest):
            raise bad(f"signed[{i}]", f"expected 64 lowercase hex digits, found {str(digest)[:80]!r}")
        if i and digest <= signed[i - 1]:
            raise bad(f"signed[{i}]", "the digests are not sorted, or one is given twice")
    return RetiredKey(name=data["name"], line=data["key"], keyid=public.keyid, retired_on=retired_on,
                      reason=data["reason"], signed=frozenset(signed), path=path)


def check_head(data, known: tuple[str, ...], fmt: int, what: str, bad, not_object: Exception) -> None:
    """A trust file's JSON object (a retirement record, a reproduction): exactly the ``known`` keys,
    in format ``fmt``; ``bad(key, why)`` makes the error naming the key, ``not_object`` is raised
    for anything but an object."""
    if not isinstance(data, dict):
        raise not_object
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise bad(unknown[0], f"not a key of a {what} (known: {', '.join(known)})")
    missing = [k for k in known if k not in data]
    if missing:
        raise bad(missing[0], "missing")
    if data["format"] != fmt or isinstance(data["format"], bool):
        raise bad("format", f"format {data['format']!r} found, this glossary reads format {fmt}")


def record_data(name: str, line: str, key: PublicKey, day: dt.date, reason: str, digests) -> dict:
    """A record as it is written."""
    return {"format": FORMAT, "name": name, "keyid": key.keyid, "key": line, "retired_on": day.isoformat(),
            "reason": reason, "digest": DIGEST, "signed": sorted(set(digests))}


def write_record(path: Path, data: dict) -> None:
    parse_record(path, data)  # what the loader would refuse is never written
    store.write_bytes_atomic(path, (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


# -- what a key signed ------------------------------------------------------------------


@dataclass
class Scan:
    """What a key signed among the results files: digest -> what it is, and files passed over."""

    signed: dict[str, str] = field(default_factory=dict)
    results: int = 0
    failures: int = 0
    unreadable: list[str] = field(default_factory=list)


def scan(entries_dir: Path, key: PublicKey) -> Scan:
    """Every envelope under ``entries/*/results/`` whose signature verifies under ``key``: each
    result's ``signature`` and its ``last_failure``'s, a failure-only file's own."""
    found = Scan()
    keys = {key.keyid: key}
    folders = sorted(p for p in entries_dir.iterdir() if p.is_dir()) if entries_dir.is_dir() else []
    for folder in folders:
        for path in sorted(store.results_dir(folder).glob("*.json")):
            try:
                data = store.load_file(path).plain()
            except store.StoreError as err:
                found.unreadable.append(str(err))
                continue
            where = display_path(path)
            failure = data.get("last_failure")
            for env, what in ((data.get(attest.SIGNATURE_KEY), where),
                              (failure.get(attest.SIGNATURE_KEY) if isinstance(failure, dict) else None,
                               f"{where} (last_failure)")):
                try:
                    opened = attest.open_envelope(env, keys)
                except AttestError:
                    continue  # another key's, or no signature: not this key's to list
                if opened.digest not in found.signed:
                    found.signed[opened.digest] = what
                    if opened.statement.get("predicateType") == attest.FAILURE_PREDICATE:
                        found.failures += 1
                    else:
                        found.results += 1
    return found
