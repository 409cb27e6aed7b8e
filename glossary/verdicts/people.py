"""People's signatures: the author's over the content, the reviewer's over the review.

Both people sign the entry's content fingerprint (``glossary.verdicts.review.content_fingerprint``):
the author in an authorship statement (``entries/<slug>/author.dsse.json``, predicate type
``AUTHORSHIP_PREDICATE``), the reviewer in the review statement (``entries/<slug>/review.dsse.json``),
which also names the SHA-256 of the authorship envelope it reviewed.  Each is an in-toto statement in
a DSSE envelope (``measure.attest``) by a key ``trust/people.allowed_signers`` lists under that
person's name, in the ``glossary-review`` namespace.  A review naming no, or another, authorship
statement does not publish, and neither does one signed with the key that signed as author.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from glossary.entries.model import display_path
from glossary.verdicts.gate import same_person
from glossary.verdicts.trust import (AUTHOR_FILE, MAX_KEY_FILE_BYTES, PEOPLE_FILE, REVIEW_FILE, REVIEW_NAMESPACE,
                                     Keyring, Trust, TrustedKey)
from measure import attest, store

AUTHORSHIP_PREDICATE = "https://verified-cuda-glossary.dev/authorship/v1"


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
