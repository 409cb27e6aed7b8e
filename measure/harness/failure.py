"""A failed measurement as the store records it, built by the harness rather than by its callers."""

from __future__ import annotations

import datetime as dt

MAX_ERROR_CHARS = 8000  # a failure record stays small: the start and the end of a long message


def failure_record(slug: str, device: str, gpu: str, fingerprint: str | None, error: str) -> dict:
    """The store's record of a measurement of ``slug`` on ``device`` (the GPU named ``gpu``) that
    failed with ``error``; recorded beside the last good result, never over it."""
    return {
        "entry": slug, "device": device, "provenance": "measured", "fingerprint": fingerprint,
        "error": bounded(error),
        "environment": {"gpu": gpu, "captured_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")},
    }


def bounded(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` as a record keeps it: printable (tab and newline kept, other controls as U+FFFD), and
    at most ``limit`` characters, its start and its end kept where it is longer."""
    text = "".join(c if c.isprintable() or c in "\n\t" else "\ufffd" for c in str(text))
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit:,} characters left out ...]\n{text[-half:]}"
