"""Measuring from the build and the command line: decide what is stale, run the harness, record.

The harness itself is ``measure.runner`` (pycuda); this module only decides
*which* entries to measure on this machine and stores what comes back.
"""

from __future__ import annotations

import logging
from typing import Callable

from glossary.model import Entry, display_path
from glossary.pages import entry_fingerprint
from measure import store


class NoGPU(Exception):
    """Measurement was required but this machine cannot measure."""


def probe() -> tuple[bool, str]:
    """(True, GPU name) where pycuda and a CUDA device work; else (False, why not)."""
    try:
        from measure import runner
    except Exception as err:  # pycuda may be missing or broken: that is an answer, not a crash
        return False, f"the harness cannot load: {err}"
    return runner.probe_gpu()


def stale_entries(entries: list[Entry], device: str) -> list[Entry]:
    """Entries with a spec whose result for ``device`` is missing, failed or has another fingerprint."""
    out = []
    for entry in entries:
        if entry.meta.measure is None:
            continue
        path = store.results_dir(entry.folder) / f"{device}.json"
        try:
            result = store.load_file(path) if path.exists() else None
        except store.StoreError:
            result = None
        if result is None or result.get("status") != "ok" or result.get("fingerprint") != entry_fingerprint(entry):
            out.append(entry)
    return out


def measure_entries(entries: list[Entry], log: logging.Logger, *, only_stale: bool = True,
                    progress: Callable[[str], None] | None = None) -> dict[str, str]:
    """Measure entries on this machine's GPU; returns {slug: "ok" | error text}.

    Raises NoGPU when there is no GPU to measure on.
    """
    ok, gpu = probe()
    if not ok:
        raise NoGPU(gpu)
    from measure import runner

    device = store.device_key(gpu)
    todo = stale_entries(entries, device) if only_stale else [e for e in entries if e.meta.measure]
    if not todo:
        log.info("every entry's results for %s are current; nothing to measure", gpu)
        return {}
    say = progress or (lambda line: log.info("%s", line))
    outcome = {}
    for number, entry in enumerate(todo, 1):
        log.info("measuring %s on %s (%d of %d)", entry.slug, gpu, number, len(todo))
        fingerprint = entry_fingerprint(entry)
        try:
            result = runner.measure_entry(entry.slug, entry.folder, entry.meta.measure, fingerprint, progress=say)
        except runner.MeasurementError as err:
            store.record_failure(entry.folder, _failure(entry, device, gpu, fingerprint, str(err)))
            log.warning("%s: measurement on %s failed, recorded results kept: %s", entry.slug, gpu, err)
            outcome[entry.slug] = str(err)
            continue
        path = store.record_success(entry.folder, result)
        log.info("%s: recorded %s", entry.slug, display_path(path))
        outcome[entry.slug] = "ok"
    return outcome


def _failure(entry: Entry, device: str, gpu: str, fingerprint: str | None, error: str) -> dict:
    import datetime as dt

    return {
        "entry": entry.slug, "device": device, "provenance": "measured", "fingerprint": fingerprint,
        "error": error,
        "environment": {"gpu": gpu, "captured_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")},
    }
