"""The reviewer's sign-off as one step: write the review into the entry, sign it, prove it reads back.

``glossary sign`` is this function plus key loading and printing.  The entry's text changes
only in the review keys (``glossary.verdicts.review.sign_entry``), the signed review is written
beside it (``glossary.verdicts.trust``), and the entry is judged again: unless that gives a
current review the gate accepts, both files are put back as they were and nothing is signed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from glossary.entries.errors import EntryError
from glossary.entries.model import Entry, parse_entry
from glossary.verdicts import assess, review, trust
from measure import attest, store


class SignOffError(Exception):
    """The entry was not signed; the message says why, and no file changed."""


@dataclass(frozen=True)
class SignedReview:
    review: review.Review
    day: dt.date
    keyid: str | None  # None: recorded by name only (trust: names)


def refusal(entry: Entry, name: str, signer: attest.Signer | None, policy: trust.Trust) -> str | None:
    """Why ``name`` (with ``signer``'s key under ``trust: signed``) may not sign ``entry``, or None."""
    problem = review.signer_problem(entry, name)
    if problem is None and policy.signed and signer is not None:
        problem = trust.signing_problem(entry, name, signer, policy)
    return problem


def sign(entry: Entry, name: str, day: dt.date, signer: attest.Signer | None, policy: trust.Trust,
         catalog: dict) -> SignedReview:
    """Sign ``entry``'s review as ``name`` on ``day``; SignOffError (files unchanged) where it cannot."""
    why = refusal(entry, name, signer, policy)
    if why:
        raise SignOffError(why)
    try:
        recorded = store.load_results(entry.folder)
    except store.StoreError as err:
        raise SignOffError(str(err)) from None
    raw = entry.path.read_bytes()
    try:
        signed, fingerprint = review.sign_entry(entry, raw.decode("utf-8"), name, day, recorded, catalog)
    except review.ReviewError as err:
        raise SignOffError(f"{entry.path}: {err}") from None
    store.write_bytes_atomic(entry.path, signed.encode("utf-8"))
    envelope = trust.review_path(entry)
    old_envelope = envelope.read_bytes() if envelope.exists() else None
    try:
        again_entry = parse_entry(entry.path, entry.path.parent)
        if signer is not None:
            trust.write_review_signature(again_entry, again_entry.meta.reviewer, day, fingerprint, signer)
        judged = assess.assess(again_entry, recorded, policy, catalog)
        again, why = judged.review, judged.review.status
        refused = [f.message for f in judged.refusals if f.check in ("gate", "review")]
    except EntryError as err:
        again, why, refused = None, str(err), []
    if again is None or again.status != "current" or refused:
        store.write_bytes_atomic(entry.path, raw)
        if old_envelope is None:
            envelope.unlink(missing_ok=True)
        else:
            store.write_bytes_atomic(envelope, old_envelope)
        raise SignOffError(f"re-reading {entry.path} after signing did not give a current, signed review "
                           f"({'; '.join(refused) or why}); the files are unchanged")
    return SignedReview(review=again, day=day, keyid=signer.public.keyid if signer is not None else None)
