"""What a result was measured for, and where it stands against the entry now: the measurement
fingerprint and staleness, each defined once."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, Literal

from measure import HARNESS_VERSION
from measure.results.model import Result
from measure.spec import MeasureSpec


Staleness = Literal["missing", "failed", "imported", "stale", "current"]


def staleness(result: Result | None, fingerprint: str | None) -> Staleness:
    """Where a device's recorded result stands against the entry as it is now (its measurement
    ``fingerprint``): the one definition of "current" and "stale".

    missing   nothing recorded for the device;
    failed    only a failed attempt is recorded;
    imported  figures carried in from elsewhere: never stale, never current (no fingerprint of ours);
    stale     measured for another spec, kernels, reference or harness version;
    current   measured by the harness for exactly this entry.

    A verification node measures every device whose result is not current; a page flags
    only a stale one.
    """
    if result is None:
        return "missing"
    if result.status != "ok":
        return "failed"
    if result.provenance == "imported":
        return "imported"
    return "current" if result.fingerprint == fingerprint else "stale"


def fingerprint(spec_data: Any, files: dict[str, bytes], harness_version: str = HARNESS_VERSION) -> str:
    """A hash over what determines a measurement.

    ``spec_data`` is the plain-data measured part of the spec (see
    ``measured_part``); ``files`` maps names to contents (kernels, reference).
    """
    h = hashlib.sha256()
    h.update(f"harness {harness_version}\n".encode())
    h.update(json.dumps(spec_data, sort_keys=True, default=str).encode())
    for name in sorted(files):
        h.update(f"\nfile {name} {len(files[name])}\n".encode())
        h.update(files[name])
    return "sha256:" + h.hexdigest()


# Spec keys that change only how results are shown or judged, not what is measured.
PRESENTATION_KEYS = ("ratios", "claims", "headline")


def measured_part(spec_data: dict) -> dict:
    """The spec without presentation-only keys, and without variant labels."""
    out = {k: v for k, v in spec_data.items() if k not in PRESENTATION_KEYS}
    out["variants"] = [{k: v for k, v in var.items() if k != "label"} for var in spec_data.get("variants", [])]
    return out


def measurement_fingerprint(spec: MeasureSpec, files: dict[str, bytes]) -> str:
    """The fingerprint of an entry's spec as it is now, with the files it names (kernels, reference)."""
    return fingerprint(measured_part(_plain(dataclasses.asdict(spec))), files)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
