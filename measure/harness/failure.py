"""A failed measurement as the store records it, built by the harness rather than by its callers."""

from __future__ import annotations

import datetime as dt


def failure_record(slug: str, device: str, gpu: str, fingerprint: str | None, error: str) -> dict:
    """The store's record of a measurement of ``slug`` on ``device`` (the GPU named ``gpu``) that
    failed with ``error``; recorded beside the last good result, never over it."""
    return {
        "entry": slug, "device": device, "provenance": "measured", "fingerprint": fingerprint,
        "error": error,
        "environment": {"gpu": gpu, "captured_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")},
    }
