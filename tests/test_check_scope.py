"""`glossary check SLUG` reads that entry and its own folder, not the whole glossary (issue 34): in a
glossary of 1,000 entries a check of one parsed all 1,000 for the stray files of the tree (3.8 s)."""

from __future__ import annotations

import os

from glossary import checks

A = """\
---
title: Alpha
summary: The first term, which links [the second](beta.md).
related: [beta]
---
See [beta](beta.md).
"""
BROKEN = "---\ntitle: [unclosed\n---\nBody.\n"


def _tree(root):
    entries = root / "entries"
    (entries / "assets" / "images").mkdir(parents=True)
    (entries / "alpha.md").write_text(A)
    (entries / "beta.md").write_text(BROKEN)  # a malformed entry elsewhere
    (entries / "gamma.md").write_text(A.replace("Alpha", "Gamma"))
    for rel in ("alpha/notes.txt", "beta/notes.txt", "gamma/results/dev.json", "assets/images/orphan.png"):
        (entries / rel).parent.mkdir(parents=True, exist_ok=True)
        (entries / rel).write_text("x")
    os.symlink("/etc", entries / "gamma" / "etc")
    return entries


def _files(general):
    return sorted(p.message.split(": ")[0].rsplit("entries/", 1)[1] for p in general if p.check == "files")


def test_a_check_of_some_entries_reads_only_them_and_their_folders(tmp_path, monkeypatch):
    entries = _tree(tmp_path)
    parsed = []
    real = checks.parse_entry
    monkeypatch.setattr(checks, "parse_entry", lambda path, *a, **k: parsed.append(path.name) or real(path, *a, **k))
    reports, general = checks.inspect(entries, only=["alpha"])
    assert parsed == ["alpha.md"]
    assert [r.slug for r in reports] == ["alpha"]
    assert not [p for p in reports[0].problems if p.check == "links"]  # beta is an entry, parsed or not
    assert _files(general) == ["alpha/notes.txt"]
    reports, general = checks.inspect(entries, only=["gamma"])
    assert _files(general) == ["gamma/etc"]  # the link is named, never followed


def test_a_check_of_every_entry_names_every_stray_file(tmp_path):
    entries = _tree(tmp_path)
    reports, general = checks.inspect(entries)
    assert [r.slug for r in reports] == ["alpha", "beta", "gamma"]
    assert [p.check for p in reports[1].problems] == ["schema"]
    # beta's folder is that of an entry that does not parse: its error is the one to fix
    assert _files(general) == ["alpha/notes.txt", "assets/images/orphan.png", "gamma/etc"]
