"""The results store: one versioned JSON file per entry and device.

Files live beside the entry, ``entries/<slug>/results/<device-key>.json``, so
they travel (and are left out) with the entry.  A file holds:

    format        RESULT_FORMAT; files of another format are refused with advice
    entry         the entry's slug
    device        the device key, e.g. "nvidia-h200"
    provenance    "measured" (by this harness) or "imported" (figures carried in
                  from elsewhere; never re-measured, never stale)
    imported_from where imported figures came from (imported only)
    fingerprint   of the spec, kernel sources, reference and harness version it
                  was measured for (None for imported results)
    environment   GPU, driver, CUDA, nvcc, compile command, L2, clocks, date ...
    method        timing method: warmups, runs, statistic, clock, blocking, l2_flush
    sizes         one record per size: params, elements, copy_floor, variants
                  (samples_ms, stats, counters ...)
    last_failure  the most recent failed attempt, kept beside the good data

A failed measurement never replaces a good one: ``record_failure`` only adds
``last_failure`` to an existing file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from measure import HARNESS_VERSION

RESULT_FORMAT = 1


class StoreError(ValueError):
    """A results file that cannot be used; the message says what to do."""


def device_key(gpu_name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200'; 'Tesla T4' -> 'tesla-t4'."""
    key = re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")
    return key or "unknown-gpu"


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


def results_dir(entry_dir: Path) -> Path:
    return entry_dir / "results"


def load_results(entry_dir: Path) -> dict[str, dict]:
    """Every device's results for the entry whose folder is ``entry_dir``, by device key."""
    out = {}
    folder = results_dir(entry_dir)
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        out[path.stem] = load_file(path)
    return out


def load_file(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise StoreError(f"{path}: cannot read results file: {err}") from None
    if not isinstance(data, dict) or "format" not in data:
        raise StoreError(f"{path}: not a results file (no 'format' key)")
    if data["format"] != RESULT_FORMAT:
        raise StoreError(
            f"{path}: results format {data['format']!r}, but this harness reads format {RESULT_FORMAT}. "
            f"Re-measure the entry on the verification node (glossary measure), or delete the file.")
    return data


def write_atomic(path: Path, data: dict) -> None:
    """Write JSON via a temporary file and rename, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def record_success(entry_dir: Path, result: dict) -> Path:
    """Store a good result, replacing whatever was there for that device."""
    if result.get("status") != "ok":
        raise ValueError("record_success takes only results with status 'ok'")
    result = dict(result, format=RESULT_FORMAT)
    path = results_dir(entry_dir) / f"{result['device']}.json"
    write_atomic(path, result)
    return path


def record_failure(entry_dir: Path, failure: dict) -> Path:
    """Store a failed attempt without losing a good result.

    ``failure`` holds at least device, fingerprint, error and environment.
    An existing good file keeps its data and gains ``last_failure``; where
    there is none, the file records the failure alone (status 'failed').
    """
    path = results_dir(entry_dir) / f"{failure['device']}.json"
    existing = None
    if path.exists():
        try:
            existing = load_file(path)
        except StoreError:
            existing = None
    if existing is not None and existing.get("status") == "ok":
        data = dict(existing, last_failure=failure)
    else:
        data = dict(failure, format=RESULT_FORMAT, status="failed")
    write_atomic(path, data)
    return path
