"""Trust: which keys the repository trusts, and whether a result or a review verifies.

Two files, reviewed like code, list the public keys in git's allowed-signers
layout (one key a line: principal, options, key)::

    # trust/nodes.allowed_signers: verification nodes
    h200-node-2026-12-01 namespaces="glossary-result",valid-after="20261201" ssh-ed25519 AAAA...
    # trust/people.allowed_signers: authors and reviewers
    "Ada Lovelace" namespaces="glossary-review" ssh-ed25519 AAAA...

``valid-after`` / ``valid-before`` (YYYYMMDD) bound when a key may have signed
(by the ``signed_at`` the signer writes itself, so a window does not stop a backdated
signature).  Removing a line revokes the key: every result or review it signed becomes
unverified.  A node key whose machine is gone is *retired* instead
(``glossary.verdicts.retired``): its line moves into ``trust/retired-nodes/<name>.json``
with the digests of what it signed, and any other result under it is refused.  A key may stand for one name only, and never for a node and a
person at once.

``extra.glossary.trust`` chooses the policy: ``signed`` (the default) needs a
trusted node's signature on every measured result an entry shows, and the
reviewer's signature, by a key listed under the reviewer's name and not under
the author's, over the review, and the author's signature, by a key listed under the author's
name, over the same content (an authorship statement the review names); ``names`` only wants named people, and pages
say that reviews and results are unsigned.  The signatures themselves are in-
toto statements in DSSE envelopes (``measure.attest``); the people's signatures are checked in
``glossary.verdicts.people``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from glossary.verdicts import NODES_FILE, PEOPLE_FILE, TRUST_MODES
from glossary.verdicts import retired as retired_mod
from glossary.verdicts.gate import normalize_name, same_person
from measure import attest, store, units
from measure.attest import AttestError, PublicKey
from measure.results import Result, carried_counters

MODES = TRUST_MODES
# Nodes whose reproductions of other nodes' records the site counts (glossary.verdicts.reproductions);
# their retired keys are in trust/retired-reproducers/, as retired node keys are in retired-nodes/.
REPRODUCERS_FILE = "trust/reproducers.allowed_signers"
RETIRED_REPRODUCERS = "retired-reproducers"
RESULT_NAMESPACE = "glossary-result"
REPRODUCTION_NAMESPACE = "glossary-reproduction"
REVIEW_NAMESPACE = "glossary-review"
REVIEW_FILE = "review.dsse.json"  # beside the entry's kernels: entries/<slug>/review.dsse.json
AUTHOR_FILE = "author.dsse.json"  # the author's signature, beside the review: entries/<slug>/author.dsse.json
MAX_KEY_FILE_BYTES = 1 << 20
_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:\d{2}){0,2}(?:Z)?$")


class TrustError(ValueError):
    """A malformed allowed-signers file: the message names the file and the line."""


@dataclass(frozen=True)
class TrustedKey:
    """One line of an allowed-signers file."""

    name: str
    key: PublicKey
    namespaces: tuple[str, ...] | None = None  # None: any
    valid_after: dt.date | None = None
    valid_before: dt.date | None = None
    where: str = ""  # file:line, for messages

    def problem_at(self, when: dt.date | None, namespace: str) -> str | None:
        """Why this key may not have signed in ``namespace`` on ``when`` (None when it may)."""
        if self.namespaces is not None and namespace not in self.namespaces:
            return f"key {self.key.keyid} ({self.name}) is not trusted for {namespace} ({self.where})"
        if when is None and (self.valid_after or self.valid_before):
            return f"the signature carries no date to check against {self.name}'s validity window"
        if self.valid_after and when < self.valid_after:
            return f"key {self.key.keyid} ({self.name}) is valid only from {self.valid_after} ({self.where})"
        if self.valid_before and when >= self.valid_before:
            return f"key {self.key.keyid} ({self.name}) expired on {self.valid_before} ({self.where})"
        return None


@dataclass(frozen=True)
class Keyring:
    """The keys of one allowed-signers file, by key id."""

    path: Path | None
    keys: dict[str, TrustedKey] = field(default_factory=dict)

    def public(self) -> dict[str, PublicKey]:
        return {k: t.key for k, t in self.keys.items()}

    def of(self, name: str | None) -> list[TrustedKey]:
        """The keys listed under ``name`` (compared as the gate compares people)."""
        return [t for t in self.keys.values() if name and same_person(t.name, name)]


def load_keyring(path: Path) -> Keyring:
    """Parse an allowed-signers file; a missing file is an empty keyring."""
    if not path.is_file():
        return Keyring(path=path)
    if path.stat().st_size > MAX_KEY_FILE_BYTES:
        raise TrustError(f"{path}: larger than {units.binary_bytes(MAX_KEY_FILE_BYTES, 'KiB', 0)}; "
                         "it should list a few keys")
    keys: dict[str, TrustedKey] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{path}:{number}"
        trusted = _parse_line(line, where)
        first = keys.get(trusted.key.keyid)
        if first is not None:
            raise TrustError(f"{where}: key {trusted.key.keyid} is already listed for {first.name!r} "
                             f"({first.where}); one key stands for one signer")
        keys[trusted.key.keyid] = trusted
    return Keyring(path=path, keys=keys)


def _parse_line(line: str, where: str) -> TrustedKey:
    try:
        fields = shlex.split(line, posix=True)
    except ValueError as err:
        raise TrustError(f"{where}: cannot read the line ({err})") from None
    try:
        at = fields.index("ssh-ed25519")
    except ValueError:
        raise TrustError(f"{where}: expected 'NAME [options] ssh-ed25519 AAAA...'; only Ed25519 keys are "
                         f"supported") from None
    if at not in (1, 2) or at + 1 >= len(fields):
        raise TrustError(f"{where}: expected 'NAME [options] ssh-ed25519 AAAA...'")
    name = fields[0]
    if not normalize_name(name):
        raise TrustError(f"{where}: the line names no signer")
    try:
        key = PublicKey.parse(f"ssh-ed25519 {fields[at + 1]}")
    except AttestError as err:
        raise TrustError(f"{where}: {err}") from None
    options = _options(fields[1] if at == 2 else "", where)
    return TrustedKey(name=name, key=key, namespaces=options.get("namespaces"),
                      valid_after=options.get("valid-after"), valid_before=options.get("valid-before"), where=where)


def _options(text: str, where: str) -> dict:
    out: dict = {}
    for item in filter(None, (o.strip() for o in text.split(","))):
        name, _, value = item.partition("=")
        value = value.strip('"')
        if name == "namespaces":
            out["namespaces"] = tuple(v for v in value.split("|") if v) or None
            continue
        if name in ("valid-after", "valid-before"):
            match = _DATE.match(value)
            if not match:
                raise TrustError(f"{where}: {name} expects YYYYMMDD, found {value!r}")
            out[name] = dt.date(*map(int, match.groups()[:3]))
            continue
        raise TrustError(f"{where}: unknown option {name!r} (known: namespaces, valid-after, valid-before)")
    return out


def allowed_signers_line(name: str, key: PublicKey, namespace: str, valid_after: dt.date | None = None) -> str:
    """The line to add to an allowed-signers file for ``key``."""
    principal = f'"{name}"' if re.search(r'[\s,"]', name) else name
    options = [f'namespaces="{namespace}"']
    if valid_after:
        options.append(f'valid-after="{valid_after:%Y%m%d}"')
    return f"{principal} {','.join(options)} {key.line}"


# -- the policy --------------------------------------------------------------------------


@dataclass(frozen=True)
class Trust:
    """The project's trust policy and keys."""

    mode: Literal["signed", "names"] = "signed"
    nodes: Keyring = field(default_factory=lambda: Keyring(path=None))  # retired node keys included
    people: Keyring = field(default_factory=lambda: Keyring(path=None))
    retired: dict[str, retired_mod.RetiredKey] = field(default_factory=dict)  # by key id
    reproducers: Keyring = field(default_factory=lambda: Keyring(path=None))  # retired ones included
    retired_reproducers: dict[str, retired_mod.RetiredKey] = field(default_factory=dict)

    @property
    def signed(self) -> bool:
        return self.mode == "signed"


def load_trust(root: Path, mode: str = "signed", nodes_file: str = NODES_FILE,
               people_file: str = PEOPLE_FILE) -> Trust:
    """The trust files under ``root`` (the folder of mkdocs.yml); TrustError names a bad line."""
    if mode not in MODES:
        raise TrustError(f"extra.glossary.trust: expected one of {', '.join(MODES)}, found {mode!r}")
    nodes, people = load_keyring(root / nodes_file), load_keyring(root / people_file)
    nodes, retired = _with_retired(nodes, retired_mod.folder_of(root / nodes_file))
    reproducers_path = (root / nodes_file).parent / Path(REPRODUCERS_FILE).name
    reproducers, retired_reproducers = _with_retired(load_keyring(reproducers_path),
                                                     reproducers_path.parent / RETIRED_REPRODUCERS)
    for machines, what in ((nodes, "node"), (reproducers, "reproducing node")):
        both = set(machines.keys) & set(people.keys)
        if both:
            keyid = sorted(both)[0]
            raise TrustError(f"{machines.keys[keyid].where} and {people.keys[keyid].where}: key {keyid} is listed "
                             f"as a {what} and as a person; a node key signs measurements only")
    return Trust(mode=mode, nodes=nodes, people=people, retired=retired, reproducers=reproducers,
                 retired_reproducers=retired_reproducers)


def _with_retired(nodes: Keyring, folder: Path) -> tuple[Keyring, dict[str, retired_mod.RetiredKey]]:
    """The node keyring with each retired key trusted through its record (which wins over a line of
    the same key left in, or put back into, the nodes file), and the records by key id."""
    try:
        retired = retired_mod.load_retired(folder)
    except retired_mod.RetiredError as err:
        raise TrustError(str(err)) from None
    keys = dict(nodes.keys)
    for keyid, record in retired.items():
        listed = _parse_line(record.line, f"{record.path}, key 'key'")
        if listed.key.keyid != keyid or listed.name != record.name:
            raise TrustError(f"{record.path}, key 'name': the record names {record.name!r}, its key line "
                             f"{listed.name!r}; restore the record from git")
        keys[keyid] = listed
    return Keyring(path=nodes.path, keys=keys), retired


@dataclass(frozen=True)
class ResultCheck:
    """Whether one result file verifies."""

    status: Literal["verified", "unverified", "imported", "unsigned"]
    signer: str | None = None  # the trusted key's name
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("verified", "unsigned")


def check_result(slug: str, device: str, result: Result, trust: Trust) -> ResultCheck:
    """Does this result, recorded for ``slug`` on ``device``, carry a trusted node's signature?"""
    if result.imported:
        return ResultCheck("imported", reason="imported, not measured by a trusted node")
    if not trust.signed:
        return ResultCheck("unsigned", reason="results are not signed (trust: names)")
    # A signature covers the data as written, so it is checked against that, not the typed fields.
    data = result.plain()
    env = data.get(attest.SIGNATURE_KEY)
    if env is None:
        return ResultCheck("unverified", reason="it carries no node signature (measured without a node key, "
                                                "or written by hand)")
    try:
        opened = attest.open_envelope(env, trust.nodes.public())
        attest.check_result_statement(data, opened, slug, device)
        trusted = trust.nodes.keys[opened.keyid]
        why = trusted.problem_at(attest.signed_at(opened), RESULT_NAMESPACE) or _retired(trust, opened, "it")
        if why:
            return ResultCheck("unverified", reason=why)
        failure = data.get("last_failure")
        if result.last_failure is not None and result.last_failure.signature is None:
            return ResultCheck("unverified", reason="its last failure record carries no node signature")
        if result.last_failure is not None:
            signed_failure = attest.open_envelope(failure.get(attest.SIGNATURE_KEY), trust.nodes.public())
            attest.check_failure_statement(failure, signed_failure, slug, device)
            why = _retired(trust, signed_failure, "its last failure record")
            if why:
                return ResultCheck("unverified", reason=why)
    except AttestError as err:
        return ResultCheck("unverified", reason=str(err))
    return ResultCheck("verified", signer=trusted.name)


def _retired(trust: Trust, opened: attest.Opened, what: str) -> str | None:
    """Why a statement signed by a retired node key is refused (None: a live key, or a listed digest)."""
    record = trust.retired.get(opened.keyid)
    return record.refusal(opened, what) if record else None


def counters_to_carry(entry, device: str, trust: Trust) -> str | None:
    """The counters a new measurement of ``entry`` on ``device`` may keep from the recorded result
    (``measure.results.carried_counters``, as JSON for the job), or None.

    Only a result that passes ``check_result`` offers them, so a node never re-signs counter figures
    it could not verify (a retired key's result off its list included); under ``trust: names`` nothing is signed, and the recorded result is taken
    as the build would take it."""
    path = store.results_dir(entry.folder) / f"{device}.json"
    if not path.exists():
        return None
    try:
        result = store.load_file(path)
    except store.StoreError:
        return None
    checked = check_result(entry.slug, device, result, trust)
    if not checked.ok:
        return None
    offered = carried_counters(result.plain(), checked.signer)
    return json.dumps(offered) if offered else None
