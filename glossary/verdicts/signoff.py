"""Sign-off as one step: the author signs the content, or the reviewer writes the review into the
entry and signs it; either way the signature is proved to read back.

``glossary sign`` is this function plus key loading and printing.  ``--as NAME`` signs as the
entry's **author** when NAME is its ``author`` (``glossary.verdicts.review.signs_as_author``): an
authorship statement over the content fingerprint, written beside the entry
(``entries/<slug>/author.dsse.json``), the entry's text unchanged.  Any other NAME signs as
**reviewer**: the entry's text changes only in the review keys (``review.sign_entry``), the signed
review, naming the authorship statement it reviewed, is written beside it
(``glossary.verdicts.people``).  The entry is then judged again: unless that gives a current
signature of that role the gate accepts, the files are put back as they were and nothing is signed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from glossary.entries.errors import EntryError
from glossary.entries.model import Entry, parse_entry
from glossary.verdicts import assess, people, review, trust
from measure import attest, store


class SignOffError(Exception):
    """The entry was not signed; the message says why, and no file changed."""


@dataclass(frozen=True)
class SignedReview:
    review: review.Review
    day: dt.date
    keyid: str | None  # None: recorded by name only (trust: names)
    role: Literal["author", "reviewer"] = "reviewer"
    fingerprint: str = ""  # 12 hex digits standing for what was signed (the review's, or the content's)


def refusal(entry: Entry, name: str, signer: attest.Signer | None, policy: trust.Trust) -> str | None:
    """Why ``name`` (with ``signer``'s key under ``trust: signed``) may not sign ``entry``, or None."""
    if review.signs_as_author(entry, name):
        if not policy.signed:
            return (f"{name!r} is the author of {entry.path.name}; under `trust: names` an author signs nothing "
                    f"(the `author:` field is the record): a different person must review and sign")
        return people.author_signing_problem(entry, signer, policy) if signer is not None else None
    problem = review.signer_problem(entry, name)
    if problem is None and policy.signed and signer is not None:
        problem = people.signing_problem(entry, name, signer, policy)
    return problem


def sign(entry: Entry, name: str, day: dt.date, signer: attest.Signer | None, policy: trust.Trust,
         catalog: dict) -> SignedReview:
    """Sign ``entry`` as ``name`` on ``day`` (as its author or its reviewer); SignOffError (files
    unchanged) where it cannot."""
    why = refusal(entry, name, signer, policy)
    if why:
        raise SignOffError(why)
    try:
        recorded = store.load_results(entry.folder)
    except store.StoreError as err:
        raise SignOffError(str(err)) from None
    if review.signs_as_author(entry, name):
        return _sign_as_author(entry, day, signer, policy, catalog, recorded)
    if policy.signed:
        before = assess.assess(entry, recorded, policy, catalog)
        waiting = [f.message for f in before.refusals if f.check == "author"]
        if waiting:
            raise SignOffError(f"the author has not signed this content ({'; '.join(waiting)}); the reviewer "
                               f"signs after the author, naming the authorship statement reviewed")
    raw = entry.path.read_bytes()
    try:
        signed, fingerprint = review.sign_entry(entry, raw.decode("utf-8"), name, day, recorded, catalog)
    except review.ReviewError as err:
        raise SignOffError(f"{entry.path}: {err}") from None
    store.write_bytes_atomic(entry.path, signed.encode("utf-8"))
    envelope = people.review_path(entry)
    with _restored_on_failure(entry.path, raw, envelope):
        try:
            again_entry = parse_entry(entry.path, entry.path.parent)
            if signer is not None:
                people.write_review_signature(again_entry, again_entry.meta.reviewer, day, fingerprint, signer,
                                             review.content_fingerprint(again_entry, recorded, catalog))
            judged = assess.assess(again_entry, recorded, policy, catalog)
            again, why = judged.review, judged.review.status
            refused = [f.message for f in judged.refusals if f.check in ("gate", "review", "author")]
        except EntryError as err:
            again, why, refused = None, str(err), []
        if again is None or again.status != "current" or refused:
            raise SignOffError(f"re-reading {entry.path} after signing did not give a current, signed review "
                               f"({'; '.join(refused) or why}); the files are unchanged")
    return SignedReview(review=again, day=day, keyid=signer.public.keyid if signer is not None else None,
                        fingerprint=again.short or "")


def _sign_as_author(entry: Entry, day: dt.date, signer: attest.Signer | None, policy: trust.Trust,
                    catalog: dict, recorded: dict) -> SignedReview:
    """The author's signature over the content fingerprint; the entry's text is left as it is."""
    if signer is None:
        raise SignOffError("the author signs with their key (--key); none was given")
    judged = assess.assess(entry, recorded, policy, catalog)
    content = review.content_fingerprint(entry, recorded, catalog)
    done = SignedReview(review=judged.review, day=day, keyid=signer.public.keyid, role="author",
                        fingerprint=review.short_fingerprint(content))
    if judged.author_key == signer.public.keyid:
        return done  # already signed over this content: signing again would void the review that names it
    envelope = people.author_path(entry)
    with _restored_on_failure(None, None, envelope):
        people.write_author_signature(entry, day, content, signer)
        again = assess.assess(parse_entry(entry.path, entry.path.parent), recorded, policy, catalog)
        refused = [f.message for f in again.refusals if f.check == "author"]
        if refused or again.author_key != signer.public.keyid:
            raise SignOffError(f"re-reading {envelope} after signing did not give a current author's signature "
                               f"({'; '.join(refused) or 'it did not verify'}); the files are unchanged")
    return done


class _restored_on_failure:
    """Puts the entry's text and a signature file back as they were when the block raises."""

    def __init__(self, path: Path | None, raw: bytes | None, envelope: Path) -> None:
        self.path, self.raw, self.envelope = path, raw, envelope
        self.old = envelope.read_bytes() if envelope.exists() else None

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, err, tb) -> bool:
        if kind is None:
            return False
        if self.path is not None:
            store.write_bytes_atomic(self.path, self.raw)
        if self.old is None:
            self.envelope.unlink(missing_ok=True)
        else:
            store.write_bytes_atomic(self.envelope, self.old)
        return False
