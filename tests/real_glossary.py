"""The repository's own entries and recorded results as test data, parsed once per test process.

Tests that read the real glossary as data (its pages, plots and figures) share one parse here; the
tests of parsing itself call ``load_entries`` and ``store`` directly.  Six modules parsed every entry
while they were collected, in every pytest-xdist worker (issue 34).  Entries and results are frozen
dataclasses, and each call hands out a dict of its own, so no test can change another's data.
"""

from __future__ import annotations

import functools
from pathlib import Path

from glossary.entries.model import Entry, load_entries
from glossary.figures.views import DeviceView, device_views
from measure import store
from measure.results.model import Result

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def _entries() -> dict[str, Entry]:
    return load_entries(ROOT / "entries")


@functools.cache
def _recorded(slug: str) -> dict[str, Result]:
    return store.load_results(_entries()[slug].folder)


def entries() -> dict[str, Entry]:
    """Every entry of the repository, by slug."""
    return dict(_entries())


def recorded(slug: str) -> dict[str, Result]:
    """The results recorded for entry ``slug``, by device key ({} where it has none)."""
    return dict(_recorded(slug))


def view(slug: str, device: str = "nvidia-h200") -> DeviceView:
    """Entry ``slug``'s view of its results on ``device``, as its page shows them."""
    return {v.key: v for v in device_views(_entries()[slug], recorded(slug))}[device]
