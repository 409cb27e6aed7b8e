"""Trust: which keys the repository trusts, and whether a result or a review verifies.

Two files, reviewed like code, list the public keys in git's allowed-signers
layout (one key a line: principal, options, key)::

    # trust/nodes.allowed_signers: verification nodes
    h200-node-2026-12-01 namespaces="glossary-result",valid-after="20261201" ssh-ed25519 AAAA...
    # trust/people.allowed_signers: authors and reviewers
    "Ada Lovelace" namespaces="glossary-review" ssh-ed25519 AAAA...

``valid-after`` / ``valid-before`` (YYYYMMDD) bound when a key may have signed.
Removing a line revokes the key: every result or review it signed becomes
unverified.  A key may stand for one name only, and never for a node and a
person at once.

``extra.glossary.trust`` chooses the policy: ``signed`` (the default) needs a
trusted node's signature on every measured result an entry shows, and the
reviewer's signature, by a key listed under the reviewer's name and not under
the author's, over the review, and the author's signature, by a key listed under the author's
name, over the same content (an authorship statement the review names); ``names`` only wants named people, and pages
say that reviews and results are unsigned.  The signatures themselves are in-
toto statements in DSSE envelopes (``measure.attest``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from glossary.entries.model import display_path
from glossary.verdicts.gate import normalize_name, same_person
from measure import attest, store, units
from measure.attest import AttestError, PublicKey
from measure.results import Result, carried_counters

MODES = ("signed", "names")
NODES_FILE = "trust/nodes.allowed_signers"
PEOPLE_FILE = "trust/people.allowed_signers"
RESULT_NAMESPACE = "glossary-result"
REVIEW_NAMESPACE = "glossary-review"
REVIEW_FILE = "review.dsse.json"  # beside the entry's kernels: entries/<slug>/review.dsse.json
AUTHOR_FILE = "author.dsse.json"  # the author's signature, beside the review: entries/<slug>/author.dsse.json
AUTHORSHIP_PREDICATE = "https://verified-cuda-glossary.dev/authorship/v1"
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
    nodes: Keyring = field(default_factory=lambda: Keyring(path=None))
    people: Keyring = field(default_factory=lambda: Keyring(path=None))

    @property
    def signed(self) -> bool:
        return self.mode == "signed"


def load_trust(root: Path, mode: str = "signed", nodes_file: str = NODES_FILE,
               people_file: str = PEOPLE_FILE) -> Trust:
    """The trust files under ``root`` (the folder of mkdocs.yml); TrustError names a bad line."""
    if mode not in MODES:
        raise TrustError(f"extra.glossary.trust: expected one of {', '.join(MODES)}, found {mode!r}")
    nodes, people = load_keyring(root / nodes_file), load_keyring(root / people_file)
    both = set(nodes.keys) & set(people.keys)
    if both:
        keyid = sorted(both)[0]
        raise TrustError(f"{nodes.keys[keyid].where} and {people.keys[keyid].where}: key {keyid} is listed as a "
                         f"node and as a person; a node key signs results only")
    return Trust(mode=mode, nodes=nodes, people=people)


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
        why = trusted.problem_at(attest.signed_at(opened), RESULT_NAMESPACE)
        if why:
            return ResultCheck("unverified", reason=why)
        failure = data.get("last_failure")
        if result.last_failure is not None and result.last_failure.signature is None:
            return ResultCheck("unverified", reason="its last failure record carries no node signature")
        if result.last_failure is not None:
            signed_failure = attest.open_envelope(failure.get(attest.SIGNATURE_KEY), trust.nodes.public())
            attest.check_failure_statement(failure, signed_failure, slug, device)
    except AttestError as err:
        return ResultCheck("unverified", reason=str(err))
    return ResultCheck("verified", signer=trusted.name)


def counters_to_carry(entry, device: str, trust: Trust) -> str | None:
    """The counters a new measurement of ``entry`` on ``device`` may keep from the recorded result
    (``measure.results.carried_counters``, as JSON for the job), or None.

    Only a result that passes ``check_result`` offers them, so a node never re-signs counter figures
    it could not verify; under ``trust: names`` nothing is signed, and the recorded result is taken
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


# -- authorship and reviews ----------------------------------------------------------------
#
# Both people sign the entry's content fingerprint (``glossary.verdicts.review.content_fingerprint``):
# the author in an authorship statement (entries/<slug>/author.dsse.json), the reviewer in the
# review statement (entries/<slug>/review.dsse.json), which also names the digest of the authorship
# envelope it reviewed.  A review naming no, or another, authorship statement does not publish.


def review_path(entry) -> Path:
    return entry.folder / REVIEW_FILE


def author_path(entry) -> Path:
    return entry.folder / AUTHOR_FILE


def envelope_digest(env: dict) -> str:
    """The sha256 a review names for the authorship envelope it reviewed."""
    return attest.sha256_hex(attest.canonical(env))


def authorship_statement(slug: str, author: str, signed_on: dt.date, content: str) -> dict:
    return attest.statement(slug, attest.sha256_hex(content.encode("utf-8")), AUTHORSHIP_PREDICATE, {
        "entry": slug, "author": author, "signed_on": signed_on.isoformat(), "content_fingerprint": content,
        "signed_at": attest.now()})


def review_statement(slug: str, reviewer: str, reviewed_on: dt.date, fingerprint: str,
                     content: str | None = None, authorship: str | None = None) -> dict:
    return attest.statement(slug, attest.sha256_hex(fingerprint.encode("utf-8")), attest.REVIEW_PREDICATE, {
        "entry": slug, "reviewer": reviewer, "reviewed_on": reviewed_on.isoformat(),
        "review_fingerprint": fingerprint, "content_fingerprint": content,
        "authorship": {"sha256": authorship} if authorship else None, "signed_at": attest.now()})


def _listed_key(name: str, signer: attest.Signer, trust: Trust) -> TrustedKey | str:
    """The people-file line of ``signer``'s key, where it is listed under ``name``; else why not."""
    listed = trust.people.keys.get(signer.public.keyid)
    where = trust.people.path or PEOPLE_FILE
    if listed is None:
        return (f"the key {signer.public.keyid} is not in {where}; add the line `glossary key line --as "
                f"\"{name}\"` prints, and have that change reviewed")
    if not same_person(listed.name, name):
        return f"the key {signer.public.keyid} is listed for {listed.name!r} in {listed.where}, not for {name!r}"
    return listed


def signing_problem(entry, name: str, signer: attest.Signer, trust: Trust) -> str | None:
    """Why ``signer`` may not sign ``entry``'s review as ``name`` (None when it may)."""
    listed = _listed_key(name, signer, trust)
    if isinstance(listed, str):
        return listed
    if any(t.key.keyid == signer.public.keyid for t in trust.people.of(entry.meta.author)):
        return f"the key {signer.public.keyid} is the author's; a different person must review with their own key"
    return listed.problem_at(dt.date.today(), REVIEW_NAMESPACE)


def author_signing_problem(entry, signer: attest.Signer, trust: Trust) -> str | None:
    """Why ``signer`` may not sign ``entry`` as its author (None when it may)."""
    listed = _listed_key(entry.meta.author, signer, trust)
    if isinstance(listed, str):
        return listed
    return listed.problem_at(dt.date.today(), REVIEW_NAMESPACE)


def _write(path: Path, env: dict) -> Path:
    store.write_bytes_atomic(path, (json.dumps(env, indent=1) + "\n").encode("utf-8"))
    return path


def write_author_signature(entry, signed_on: dt.date, content: str, signer: attest.Signer) -> Path:
    """Sign the authorship statement and write it beside the entry (entries/<slug>/author.dsse.json)."""
    env = attest.envelope(authorship_statement(entry.slug, entry.meta.author, signed_on, content), signer)
    return _write(author_path(entry), env)


def write_review_signature(entry, reviewer: str, reviewed_on: dt.date, fingerprint: str,
                           signer: attest.Signer, content: str | None = None) -> Path:
    """Sign the review and write its envelope beside the entry (entries/<slug>/review.dsse.json).

    The review names the authorship envelope beside the entry, where there is one (the one the
    reviewer reviewed), and the content fingerprint both signatures cover."""
    authorship = author_path(entry)
    digest = None
    if authorship.is_file() and authorship.stat().st_size <= MAX_KEY_FILE_BYTES:
        try:
            digest = envelope_digest(json.loads(authorship.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            digest = None
    env = attest.envelope(review_statement(entry.slug, reviewer, reviewed_on, fingerprint, content, digest),
                          signer)
    return _write(review_path(entry), env)


@dataclass(frozen=True)
class AuthorCheck:
    """Whether the entry's content carries its author's signature, by the author's trusted key."""

    problem: str | None  # why not, in words; None when it does (or under trust: names)
    keyid: str | None = None  # the author's key, where it verified
    digest: str | None = None  # the envelope's sha256, where it verified (what a review names)
    signed_on: str | None = None


def _read_envelope(path: Path, what: str, keys: Keyring) -> tuple[dict | None, attest.Opened | None, str | None]:
    """(the envelope, opened) of a signature file, or the problem with it."""
    try:
        if path.stat().st_size > MAX_KEY_FILE_BYTES:
            return None, None, f"{path} is too large to be {what}"
        env = json.loads(path.read_text(encoding="utf-8"))
        return env, attest.open_envelope(env, keys.public()), None
    except (OSError, ValueError) as err:
        return None, None, f"{what} {path} does not verify: {err}"


def check_author(entry, content: str, trust: Trust, changed=None) -> AuthorCheck:
    """The author's signature against the people file and the content fingerprint now.

    ``changed(old_fingerprint)`` says in words what changed since a stale signature (for the reason)."""
    if not trust.signed:
        return AuthorCheck(None)
    meta = entry.meta
    path = author_path(entry)
    if not path.is_file():
        return AuthorCheck(f"missing the author's signature (no {display_path(path)}): the author {meta.author!r} runs "
                           f"`glossary sign {entry.slug} --as \"{meta.author}\" --key KEY`")
    env, opened, problem = _read_envelope(path, "the author's signature", trust.people)
    if problem:
        return AuthorCheck(problem)
    trusted = trust.people.keys[opened.keyid]
    st = opened.statement
    pred = st.get("predicate") if isinstance(st.get("predicate"), dict) else {}
    if st.get("predicateType") != AUTHORSHIP_PREDICATE or pred.get("entry") != entry.slug:
        return AuthorCheck(f"the author's signature {display_path(path)} is not an authorship statement for "
                           f"{entry.slug!r}; the author signs again")
    if not same_person(trusted.name, meta.author) or not same_person(pred.get("author"), meta.author):
        return AuthorCheck(f"the author's signature {display_path(path)} was made with {trusted.name!r}'s key "
                           f"({trusted.where}) for {pred.get('author')!r}, but the author is {meta.author!r}; "
                           f"the author signs with their own key")
    signed = pred.get("content_fingerprint")
    if signed != content:
        what = changed(signed) if changed else []
        since = f"the {_and(what)} changed since" if what else "the content is not what"
        return AuthorCheck(f"the author's signature is stale: {since} {meta.author} signed it on "
                           f"{pred.get('signed_on')}; the author reads it again and runs `glossary sign "
                           f"{entry.slug} --as \"{meta.author}\"`")
    why = trusted.problem_at(attest.signed_at(opened), REVIEW_NAMESPACE)
    if why:
        return AuthorCheck(f"the author's signature: {why}")
    return AuthorCheck(None, keyid=opened.keyid, digest=envelope_digest(env), signed_on=pred.get("signed_on"))


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class ReviewCheck:
    """Whether an entry's review is signed by its reviewer's trusted key."""

    problem: str | None  # why not, in words; None when it is (or under trust: names)
    keyid: str | None = None  # the reviewer's key, where it verified


def check_review(entry, current_fingerprint: str, trust: Trust, author: AuthorCheck | None = None,
                 content: str | None = None) -> ReviewCheck:
    """The review's signature against the people file, and the authorship statement it names against
    the author's signature that verified (``author``): its problem, or the key that signed it."""
    if not trust.signed:
        return ReviewCheck(None)
    opened, problem = _review_problem(entry, current_fingerprint, trust)
    if problem is None:
        problem = _reviewed_authorship(entry, opened, author, content)
    return ReviewCheck(problem, None if problem else opened.keyid)


def _reviewed_authorship(entry, opened: attest.Opened, author: AuthorCheck | None, content: str | None) -> str | None:
    """Why the review does not stand on the author's current signature (None when it does)."""
    if author is None or author.digest is None:
        return None  # the author's own problem is the reason given; the review is judged once they sign
    pred = opened.statement.get("predicate") or {}
    named = pred.get("authorship") if isinstance(pred.get("authorship"), dict) else {}
    if not named.get("sha256"):
        return (f"the review names no authorship statement (signed before {entry.meta.author} signed); "
                f"the reviewer reads it again and runs `glossary sign {entry.slug}` to re-sign")
    if named.get("sha256") != author.digest:
        return (f"the review names another authorship statement than the author's current one "
                f"({display_path(author_path(entry))}); the reviewer runs `glossary sign {entry.slug}` again")
    if content is not None and pred.get("content_fingerprint") != content:
        return "the review's content fingerprint is not the one the author signed; the reviewer signs again"
    if opened.keyid == author.keyid:
        return "the review was signed with the key that signed as author; a different person must review"
    return None


def _review_problem(entry, current_fingerprint: str, trust: Trust) -> tuple[attest.Opened | None, str | None]:
    meta = entry.meta
    path = review_path(entry)
    if not path.is_file():
        return None, (f"missing the reviewer's signature: the review is not signed with the reviewer's key (no "
                      f"{path.name}): a reviewer field written by hand does not publish; the reviewer runs "
                      f"`glossary sign {entry.slug} --as NAME --key KEY`")
    _, opened, problem = _read_envelope(path, "the review signature", trust.people)
    if problem:
        return None, problem
    trusted = trust.people.keys[opened.keyid]
    st = opened.statement
    pred = st.get("predicate") if isinstance(st.get("predicate"), dict) else {}
    if st.get("predicateType") != attest.REVIEW_PREDICATE or pred.get("entry") != entry.slug:
        return opened, f"the review signature {path} is for another entry ({pred.get('entry')!r}), not {entry.slug!r}"
    if not same_person(trusted.name, meta.reviewer):
        return opened, (f"the review was signed with {trusted.name!r}'s key ({trusted.where}), but the reviewer "
                        f"is {meta.reviewer!r}")
    if pred.get("reviewer") != meta.reviewer or pred.get("reviewed_on") != (
            meta.reviewed_on.isoformat() if meta.reviewed_on else None):
        return opened, (f"the signed review names {pred.get('reviewer')!r} on {pred.get('reviewed_on')}, the "
                        f"entry {meta.reviewer!r} on {meta.reviewed_on}; the reviewer signs again")
    if pred.get("review_fingerprint") != current_fingerprint:
        return opened, "the signed review fingerprint is not the entry's current one; the reviewer signs again"
    author_keys = trust.people.of(meta.author)
    if not author_keys:
        return opened, f"the author {meta.author!r} has no key in {trust.people.path or PEOPLE_FILE}"
    if any(t.key.keyid == opened.keyid for t in author_keys):
        return opened, "the review was signed with the author's key; a different person must review"
    when = attest.signed_at(opened)
    return opened, trusted.problem_at(when, REVIEW_NAMESPACE)
