"""Stale results: which entries the verification node re-measures, and how a page shows them elsewhere."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from glossary.build import GlossaryBuild
from glossary.settings import Settings
from glossary.measuring.plan import stale_entries
from glossary.entries.model import load_entries

ROOT = Path(__file__).resolve().parent.parent
# Entries whose committed H200 result waits for the node to measure it again, each for one change named
# in test_committed_h200_result_is_current; the lead empties this set when the new results are committed.
AWAITING_REMEASURE: set[str] = set()


def copy_entries(tmp_path: Path) -> Path:
    entries = tmp_path / "entries"
    shutil.copytree(ROOT / "entries", entries, ignore=shutil.ignore_patterns("assets"))
    return entries


def test_committed_h200_result_is_current(tmp_path):
    entries = load_entries(copy_entries(tmp_path))
    measured = [e for e in entries.values() if (e.folder / "results" / "nvidia-h200.json").is_file()]
    assert "kernel-fusion" in [e.slug for e in measured]
    # Every committed H200 result is current (when a change makes some stale, name them in
    # AWAITING_REMEASURE and check here that the recorded fingerprint is the entry's with that change undone).
    stale = stale_entries(measured, "nvidia-h200")
    assert {e.slug for e in stale} <= AWAITING_REMEASURE
    # a device that never measured the entry measures it
    assert "kernel-fusion" in [e.slug for e in stale_entries(list(entries.values()), "nvidia-b200")]


def test_a_kernel_edit_makes_exactly_that_entry_stale(tmp_path):
    folder = copy_entries(tmp_path)
    (folder / "other.md").write_text("---\ntitle: Other\nsummary: No spec here.\n---\nText.\n")
    # entries not yet measured on the H200 are stale before the edit too; the edit adds exactly one
    before = {e.slug for e in stale_entries(list(load_entries(folder).values()), "nvidia-h200")}
    with open(folder / "kernel-fusion" / "chain.cu", "a") as fh:
        fh.write("// an edit\n")
    entries = load_entries(folder)
    after = {e.slug for e in stale_entries(list(entries.values()), "nvidia-h200")}
    assert "kernel-fusion" not in before and after - before == {"kernel-fusion"}


def test_stale_results_are_marked_and_warned_without_a_gpu(tmp_path, caplog):
    folder = copy_entries(tmp_path)
    with open(folder / "kernel-fusion" / "chain.cu", "a") as fh:
        fh.write("// an edit\n")
    build = GlossaryBuild(Settings(entries_dir=folder, templates_dir=ROOT / "templates", preview=True),
                          logging.getLogger("t"))
    with caplog.at_level(logging.WARNING):
        build.load()
    devices = {d.key: d for d in build.models["kernel-fusion"].devices}
    assert devices["nvidia-h200"].stale and not devices["tesla-t4"].stale  # imported results never go stale
    assert any("results for NVIDIA H200" in r.message and "stale" in r.message for r in caplog.records)
    assert '!!! warning "Stale results"' in build.render_page("kernel-fusion.md")
