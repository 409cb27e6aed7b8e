"""Signed statements: in-toto Statements (v1) in DSSE envelopes, signed with Ed25519 keys.

A verification node signs every result it records; a reviewer signs the review
of an entry.  Both are standard formats, so any in-toto / DSSE tool can read
them, and the cryptography is the ``cryptography`` package's, never our own:

- the envelope is DSSE v1 (https://github.com/secure-systems-lab/dsse): the
  signature is over ``PAE(payloadType, payload)``, the payload is the JSON of
  an in-toto Statement v1 (``_type``, ``subject``, ``predicateType``,
  ``predicate``);
- keys are Ed25519.  Public keys are written as OpenSSH one-line keys
  (``ssh-ed25519 AAAA...``) and key ids are their SHA-256 fingerprints as
  ``ssh-keygen -l`` prints them (``SHA256:...``), so a person can use the
  Ed25519 key they already have for SSH and git, and the repository lists keys
  in git's allowed-signers layout (``glossary.verdicts.trust``).

What a result statement binds: its subject is the result itself
(``<slug>@<device>``, with the SHA-256 of the result's canonical JSON without
its signature and its ``last_failure``), and its predicate repeats the entry,
the device key, the measurement fingerprint and a digest of the numbers
(``sizes``), so a signature copied to another file, entry or device, or over
other numbers, does not verify.  A failed attempt kept beside good figures is
signed on its own (``<slug>@<device>#last_failure``) by the node that failed.

An envelope's *digest* (``signed_digest``, ``Opened.digest``) is the SHA-256 of exactly the
bytes its signature covers, ``PAE(payloadType, payload)``; a retired node key is trusted only
for the digests its retirement record lists (``glossary.verdicts.retired``).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
RESULT_PREDICATE = "https://verified-cuda-glossary.dev/measurement-result/v1"
FAILURE_PREDICATE = "https://verified-cuda-glossary.dev/measurement-failure/v1"
REVIEW_PREDICATE = "https://verified-cuda-glossary.dev/review/v1"
REPRODUCTION_PREDICATE = "https://verified-cuda-glossary.dev/reproduction/v1"
SIGNATURE_KEY = "signature"  # where a result file (or its last_failure) holds its envelope
UNSIGNED_RESULT_KEYS = (SIGNATURE_KEY, "last_failure")
NODE_KEY_ENV = "GLOSSARY_NODE_KEY"


class AttestError(ValueError):
    """A key or an envelope that cannot be used; the message says why."""


# -- canonical bytes ----------------------------------------------------------------


def canonical(data: Any) -> bytes:
    """The JSON bytes a digest is taken over: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what the signature actually covers."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


# -- keys ---------------------------------------------------------------------------


def _crypto():
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as err:  # pragma: no cover - a dependency of the package
        raise AttestError(f"signing needs the cryptography package ({err}); pip install cryptography") from None
    return serialization, ed25519, InvalidSignature


@dataclass(frozen=True)
class PublicKey:
    """An Ed25519 public key, as OpenSSH writes it."""

    line: str  # "ssh-ed25519 AAAA..." (no comment)

    @classmethod
    def parse(cls, text: str) -> "PublicKey":
        fields = text.split()
        if len(fields) < 2 or fields[0] != "ssh-ed25519":
            raise AttestError(f"expected an OpenSSH Ed25519 public key ('ssh-ed25519 AAAA...'), found "
                              f"{text[:40]!r}")
        key = cls(f"{fields[0]} {fields[1]}")
        key._load()  # a malformed key fails here, not at the first verification
        return key

    def _load(self):
        serialization, ed25519, _ = _crypto()
        try:
            loaded = serialization.load_ssh_public_key(self.line.encode())
        except (ValueError, TypeError) as err:
            raise AttestError(f"not a valid OpenSSH public key ({err})") from None
        if not isinstance(loaded, ed25519.Ed25519PublicKey):
            raise AttestError("only Ed25519 keys are supported")
        return loaded

    @property
    def keyid(self) -> str:
        """The key's SHA-256 fingerprint, as ``ssh-keygen -l`` prints it."""
        blob = base64.b64decode(self.line.split()[1])
        return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")

    def verifies(self, signature: bytes, message: bytes) -> bool:
        _, _, invalid = _crypto()
        try:
            self._load().verify(signature, message)
        except invalid:
            return False
        return True


class Signer:
    """An Ed25519 private key that signs envelopes.  It is never written into the repository."""

    def __init__(self, private_key) -> None:
        self._key = private_key
        serialization, _, _ = _crypto()
        line = private_key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                                     serialization.PublicFormat.OpenSSH).decode()
        self.public = PublicKey(line)

    @classmethod
    def generate(cls) -> "Signer":
        _, ed25519, _ = _crypto()
        return cls(ed25519.Ed25519PrivateKey.generate())

    @classmethod
    def from_file(cls, path: Path, password: bytes | None = None) -> "Signer":
        """An OpenSSH (``ssh-keygen -t ed25519``) or PEM Ed25519 private key file."""
        serialization, ed25519, _ = _crypto()
        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise AttestError(f"cannot read the private key {path}: {err.strerror or err}") from None
        try:
            if b"OPENSSH PRIVATE KEY" in data:
                key = serialization.load_ssh_private_key(data, password=password)
            else:
                key = serialization.load_pem_private_key(data, password=password)
        except TypeError:
            raise AttestError(f"{path} is protected by a passphrase; give it (--passphrase-env) or use an "
                              f"unencrypted key file") from None
        except ValueError as err:
            raise AttestError(f"{path} is not a private key this tool can read ({err})") from None
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise AttestError(f"{path} is not an Ed25519 key; make one with ssh-keygen -t ed25519")
        return cls(key)

    def save(self, path: Path) -> None:
        """Write the private key (OpenSSH format, mode 0600) where only its owner can read it."""
        serialization, _, _ = _crypto()
        data = self._key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                       serialization.NoEncryption())
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        path.with_name(path.name + ".pub").write_text(self.public.line + "\n")

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


# -- envelopes ----------------------------------------------------------------------


def statement(subject_name: str, digest: str, predicate_type: str, predicate: dict) -> dict:
    return {"_type": STATEMENT_TYPE, "subject": [{"name": subject_name, "digest": {"sha256": digest}}],
            "predicateType": predicate_type, "predicate": predicate}


def envelope(statement_data: dict, signer: Signer) -> dict:
    """A DSSE envelope over ``statement_data``, signed by ``signer``."""
    payload = canonical(statement_data)
    sig = signer.sign(pae(PAYLOAD_TYPE, payload))
    return {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(payload).decode(),
            "signatures": [{"keyid": signer.public.keyid, "sig": base64.b64encode(sig).decode()}]}


def signed_digest(payload_type: str, payload: bytes) -> str:
    """The digest that names one signed statement: SHA-256 (hex) of ``PAE(payload_type, payload)``.

    Why these bytes, and not the envelope's JSON or its signature: they are exactly what the
    signature covers, and the payload holds the whole statement (the result's content digest,
    the entry, device, fingerprint, numbers and ``signed_at``), so any other result, number or
    date is another digest.  Ed25519 (RFC 8032) is deterministic, so the node re-signing the
    same payload makes the same signature; a holder of the private key can make a different
    signature over the same bytes (another nonce), but it asserts exactly the statement already
    listed, so it gains nothing.  A new statement under a retired key -- a backdated
    ``signed_at`` included -- can only collide with a listed digest by breaking SHA-256.  The
    envelope's base64 spelling and signature list are left out: they are not what was signed.
    """
    return sha256_hex(pae(payload_type, payload))


@dataclass(frozen=True)
class Opened:
    """An envelope whose signature verified: the key that signed it, the statement it holds, and
    the digest of what was signed (``signed_digest``)."""

    keyid: str
    statement: dict
    digest: str = ""


def open_envelope(env: Any, keys: dict[str, PublicKey]) -> Opened:
    """Verify ``env`` against ``keys`` (key id -> key); AttestError says why it does not verify."""
    if not isinstance(env, dict) or env.get("payloadType") != PAYLOAD_TYPE:
        raise AttestError(f"not a DSSE envelope of an in-toto statement (payloadType {PAYLOAD_TYPE})")
    try:
        payload = base64.b64decode(env["payload"], validate=True)
        signatures = list(env["signatures"])
    except (KeyError, TypeError, ValueError):
        raise AttestError("the envelope has no readable payload or signatures") from None
    unknown = []
    for entry in signatures[:8]:  # bounded: an envelope is signed once or twice
        keyid = entry.get("keyid") if isinstance(entry, dict) else None
        key = keys.get(keyid)
        if key is None:
            unknown.append(str(keyid))
            continue
        try:
            sig = base64.b64decode(entry.get("sig", ""), validate=True)
        except ValueError:
            raise AttestError(f"the signature by {keyid} is not base64") from None
        if not key.verifies(sig, pae(PAYLOAD_TYPE, payload)):
            raise AttestError(f"the signature by key {keyid} does not match the signed content")
        try:
            data = json.loads(payload)
        except ValueError:
            raise AttestError("the signed payload is not JSON") from None
        if not isinstance(data, dict) or data.get("_type") != STATEMENT_TYPE:
            raise AttestError("the signed payload is not an in-toto Statement v1")
        return Opened(keyid=keyid, statement=data, digest=signed_digest(PAYLOAD_TYPE, payload))
    if not signatures:
        raise AttestError("the envelope carries no signature")
    raise AttestError(f"signed by a key that is not trusted ({', '.join(unknown)})")


# -- results ------------------------------------------------------------------------


def result_content(result: dict) -> dict:
    """The part of a result file its signature covers: everything but the envelope and last_failure."""
    return {k: v for k, v in result.items() if k not in UNSIGNED_RESULT_KEYS}


def numbers_digest(result: dict) -> str:
    return sha256_hex(canonical(result.get("sizes", [])))


def result_statement(result: dict, signed_at: str) -> dict:
    """The in-toto statement a node signs for ``result`` (its entry and device are in the result)."""
    subject = f"{result.get('entry')}@{result.get('device')}"
    return statement(subject, sha256_hex(canonical(result_content(result))), RESULT_PREDICATE, {
        "entry": result.get("entry"), "device": result.get("device"),
        "measurement_fingerprint": result.get("fingerprint"), "numbers_sha256": numbers_digest(result),
        "status": result.get("status"), "signed_at": signed_at})


def failure_statement(entry: str, device: str, failure: dict, signed_at: str) -> dict:
    body = {k: v for k, v in failure.items() if k != SIGNATURE_KEY}
    return statement(f"{entry}@{device}#last_failure", sha256_hex(canonical(body)), FAILURE_PREDICATE,
                     {"entry": entry, "device": device, "signed_at": signed_at})


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def sign_result(result: dict, signer: Signer, signed_at: str | None = None) -> dict:
    """``result`` with its ``signature`` (and its last_failure's) made by ``signer``."""
    when = signed_at or now()
    out = {k: v for k, v in result.items() if k != SIGNATURE_KEY}
    failure = out.get("last_failure")
    if isinstance(failure, dict) and SIGNATURE_KEY not in failure:
        out["last_failure"] = sign_failure(str(out.get("entry")), str(out.get("device")), failure, signer, when)
    out[SIGNATURE_KEY] = envelope(result_statement(out, when), signer)
    return out


def sign_failure(entry: str, device: str, failure: dict, signer: Signer, signed_at: str | None = None) -> dict:
    body = {k: v for k, v in failure.items() if k != SIGNATURE_KEY}
    return dict(body, **{SIGNATURE_KEY: envelope(failure_statement(entry, device, body, signed_at or now()),
                                                 signer)})


def check_result_statement(result: dict, opened: Opened, entry: str, device: str) -> None:
    """AttestError unless ``opened`` is the statement of exactly this result, entry and device."""
    st = opened.statement
    pred = st.get("predicate") if isinstance(st.get("predicate"), dict) else {}
    subjects = st.get("subject") if isinstance(st.get("subject"), list) else []
    want = f"{entry}@{device}"
    digest = sha256_hex(canonical(result_content(result)))
    if st.get("predicateType") != RESULT_PREDICATE:
        raise AttestError("the signed statement is not a measurement result")
    if not any(isinstance(s, dict) and s.get("name") == want for s in subjects):
        names = ", ".join(str(s.get("name")) for s in subjects if isinstance(s, dict))
        raise AttestError(f"the signature is for {names or 'nothing'}, not for {want} (copied from another file?)")
    if pred.get("entry") != entry or pred.get("device") != device:
        raise AttestError(f"the signature is for {pred.get('entry')}@{pred.get('device')}, not {want}")
    if pred.get("measurement_fingerprint") != result.get("fingerprint"):
        raise AttestError("the measurement fingerprint differs from the one the node signed")
    if pred.get("numbers_sha256") != numbers_digest(result):
        raise AttestError("the numbers differ from the ones the node signed")
    if not any(isinstance(s, dict) and (s.get("digest") or {}).get("sha256") == digest for s in subjects):
        raise AttestError("the file's content differs from what the node signed")


def check_failure_statement(failure: dict, opened: Opened, entry: str, device: str) -> None:
    st = opened.statement
    body = {k: v for k, v in failure.items() if k != SIGNATURE_KEY}
    want = f"{entry}@{device}#last_failure"
    subjects = st.get("subject") if isinstance(st.get("subject"), list) else []
    if st.get("predicateType") != FAILURE_PREDICATE or not any(
            isinstance(s, dict) and s.get("name") == want
            and (s.get("digest") or {}).get("sha256") == sha256_hex(canonical(body)) for s in subjects):
        raise AttestError("the last failure's text differs from what the node signed")


def signed_at(opened: Opened) -> dt.date | None:
    """The date a statement says it was signed (for a key's validity window)."""
    pred = opened.statement.get("predicate")
    text = pred.get("signed_at") if isinstance(pred, dict) else None
    try:
        return dt.datetime.fromisoformat(str(text)).date()
    except ValueError:
        return None


# -- the node's own key -------------------------------------------------------------


def node_key_path(environ: dict | None = None) -> Path:
    """Where this machine's node key lives: $GLOSSARY_NODE_KEY, else the user's config folder."""
    environ = os.environ if environ is None else environ
    if environ.get(NODE_KEY_ENV):
        return Path(environ[NODE_KEY_ENV]).expanduser()
    base = Path(environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "verified-cuda-glossary" / "node_ed25519"


def node_signer(environ: dict | None = None) -> Signer | None:
    """This machine's node key, or None where it has none (`glossary node init` makes one)."""
    path = node_key_path(environ)
    if not path.is_file():
        return None
    return Signer.from_file(path)


__all__ = [
    "AttestError", "Opened", "PublicKey", "Signer", "canonical", "check_failure_statement",
    "check_result_statement", "envelope", "node_key_path", "node_signer", "open_envelope", "pae",
    "result_content", "sign_failure", "sign_result", "signed_at", "signed_digest", "statement",
]
