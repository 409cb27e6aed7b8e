"""A reproduction's statement: what a reproducing node signs over a reproduction file (the new
result whole, naming the record it reproduced by digest), and the check that an opened envelope is
exactly that file's.  The DSSE and in-toto parts are ``measure.attest``'s."""

from __future__ import annotations

from measure.attest import (REPRODUCTION_PREDICATE, SIGNATURE_KEY, AttestError, Opened, Signer, canonical,
                            envelope, now, numbers_digest, result_content, sha256_hex, statement)

# -- reproductions ------------------------------------------------------------------
# A reproduction is a node's own result for an entry and device that another node's signed record
# holds: the file (glossary.verdicts.reproductions) carries the new result whole and names the
# record by the digest of its signed statement (``signed_digest``), so it can only be read as a
# reproduction of exactly that record.


DIGEST_NAME = "sha256(dsse-pae)"  # what names a record: glossary.verdicts.retired.DIGEST, the same digest


def reproduction_subject(entry: str, device: str, node: str) -> str:
    return f"{entry}@{device}#reproduction/{node}"


def reproduction_statement(reproduction: dict, signed_at: str) -> dict:
    """The in-toto statement a reproducing node signs over ``reproduction`` (the file's content)."""
    content = result_content(reproduction)
    record = content.get("record") if isinstance(content.get("record"), dict) else {}
    result = content.get("result") if isinstance(content.get("result"), dict) else {}
    return statement(reproduction_subject(str(content.get("entry")), str(content.get("device")),
                                          str(content.get("node"))),
                     sha256_hex(canonical(content)), REPRODUCTION_PREDICATE, {
                         "entry": content.get("entry"), "device": content.get("device"), "node": content.get("node"),
                         "reproduces": {"digest": {DIGEST_NAME: record.get("digest")}},
                         "measurement_fingerprint": result.get("fingerprint"),
                         "numbers_sha256": numbers_digest(result), "signed_at": signed_at})


def sign_reproduction(reproduction: dict, signer: Signer, signed_at: str | None = None) -> dict:
    """``reproduction`` with its ``signature`` made by ``signer``."""
    out = {k: v for k, v in reproduction.items() if k != SIGNATURE_KEY}
    out[SIGNATURE_KEY] = envelope(reproduction_statement(out, signed_at or now()), signer)
    return out


def check_reproduction_statement(reproduction: dict, opened: Opened, entry: str, device: str, node: str) -> None:
    """AttestError unless ``opened`` is the statement of exactly this reproduction file."""
    st = opened.statement
    pred = st.get("predicate") if isinstance(st.get("predicate"), dict) else {}
    subjects = st.get("subject") if isinstance(st.get("subject"), list) else []
    want = reproduction_subject(entry, device, node)
    content = result_content(reproduction)
    if st.get("predicateType") != REPRODUCTION_PREDICATE:
        raise AttestError("the signed statement is not a reproduction")
    if not any(isinstance(s, dict) and s.get("name") == want for s in subjects):
        names = ", ".join(str(s.get("name")) for s in subjects if isinstance(s, dict))
        raise AttestError(f"the signature is for {names or 'nothing'}, not for {want} (copied from another file?)")
    if (pred.get("entry"), pred.get("device"), pred.get("node")) != (entry, device, node):
        raise AttestError(f"the signature is for {pred.get('entry')}@{pred.get('device')} by {pred.get('node')}, "
                          f"not {entry}@{device} by {node}")
    record = content.get("record") if isinstance(content.get("record"), dict) else {}
    if (pred.get("reproduces") or {}).get("digest", {}).get(DIGEST_NAME) != record.get("digest"):
        raise AttestError("the record digest differs from the one the node signed")
    result = content.get("result") if isinstance(content.get("result"), dict) else {}
    if pred.get("numbers_sha256") != numbers_digest(result):
        raise AttestError("the numbers differ from the ones the node signed")
    if not any(isinstance(s, dict) and (s.get("digest") or {}).get("sha256") == sha256_hex(canonical(content))
               for s in subjects):
        raise AttestError("the file's content differs from what the node signed")
