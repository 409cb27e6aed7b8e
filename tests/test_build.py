"""Real `mkdocs build` runs over small fixture projects."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from conftest import mkdocs

from glossary.verdicts import review
from glossary.build import GlossaryBuild
from glossary.settings import Settings
from glossary.entries.model import load_entries

SIGNED = """\
---
title: Warp
summary: Thirty-two threads that a multiprocessor schedules and issues as one unit.
related: [coalescing]
author: Ada Lovelace
written_on: 2026-10-01
reviewer: Charles Babbage
reviewed_on: 2026-10-02
---
A warp executes one instruction at a time for all of its threads. See also
[coalescing](coalescing.md) for how its loads combine.
"""

UNSIGNED = """\
---
title: Coalescing
summary: Loads from neighbouring threads merging into few memory transactions quietly everywhere.
author: Grace Hopper
reviewer: pending
---
Marmalade penguins orchestrate saxophone lighthouses beneath velvet tangerine umbrellas daily.
"""


def site_text(project: Path) -> str:
    parts = []
    for path in (project / "site").rglob("*"):
        if path.is_file() and path.suffix in (".html", ".json", ".xml"):
            parts.append(path.read_text(errors="replace"))
    return "\n".join(parts)


def test_signed_published_unsigned_refused_everywhere(project):
    proj = project({"warp": SIGNED, "coalescing": UNSIGNED}, files={"coalescing/kernel.cu": "// marmalade\n"})
    run = mkdocs(proj, "build")
    assert run.returncode == 0, run.stderr
    site = proj / "site"
    assert (site / "warp" / "index.html").exists()
    assert not (site / "coalescing").exists()
    text = site_text(proj)
    assert "Marmalade penguins" not in text
    assert "quietly everywhere" not in text
    assert "coalescing/" not in text
    search = json.loads((site / "search" / "search_index.json").read_text())
    assert not any("coalescing" in doc["location"] for doc in search["docs"])
    assert "coalescing" not in (site / "sitemap.xml").read_text()
    warp = (site / "warp" / "index.html").read_text()
    assert 'href="../coalescing/' not in warp
    assert "Thirty-two threads" in (site / "index.html").read_text()
    assert "WARNING" in run.stderr
    assert "entries/coalescing.md" in run.stderr
    assert "no named reviewer (reviewer is 'pending')" in run.stderr
    assert "Traceback" not in run.stderr


def test_strict_build_fails_while_an_entry_is_refused(project):
    proj = project({"warp": SIGNED, "coalescing": UNSIGNED})
    assert mkdocs(proj, "build", "--strict").returncode != 0
    proj_ok = project({"warp": SIGNED.replace("related: [coalescing]", "related: []")
                       .replace("[coalescing](coalescing.md)", "coalescing")})
    (proj_ok / "entries" / "coalescing.md").unlink(missing_ok=True)
    sign(proj_ok / "entries" / "warp.md")  # a hand-written review is a WARNING, so --strict needs a signed one
    run = mkdocs(proj_ok, "build", "--strict")
    assert run.returncode == 0, run.stderr


def sign(path: Path) -> None:
    """Sign an entry as `glossary sign` does, keeping its reviewer and review date."""
    entry = load_entries(path.parent)[path.stem]
    fingerprint = review.compute_review_fingerprint(entry, {})
    path.write_text(review.sign_text(path.read_text(), entry.meta.reviewer, entry.meta.reviewed_on, fingerprint))


def test_preview_shows_drafts_with_banner(project):
    proj = project({"warp": SIGNED, "coalescing": UNSIGNED})
    run = mkdocs(proj, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    page = (proj / "site" / "coalescing" / "index.html").read_text()
    assert "Draft: not published" in page
    assert "a named reviewer" in page
    assert "Marmalade penguins" in page


def test_malformed_entry_is_a_clear_error(project):
    bad = UNSIGNED.replace("reviewer: pending", "reviewer: pending\nreveiwer: Bob")
    proj = project({"warp": SIGNED, "coalescing": bad})
    run = mkdocs(proj, "build")
    assert run.returncode != 0
    assert "coalescing.md" in run.stderr
    assert "reveiwer" in run.stderr and "did you mean 'reviewer'" in run.stderr
    assert "Traceback" not in run.stderr


def test_leak_check_finds_refused_traces_not_shared_text(tmp_path):
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "coalescing.md").write_text(UNSIGNED)
    (entries / "warp.md").write_text(SIGNED.replace(
        "A warp executes", "Marmalade penguins orchestrate saxophone lighthouses. A warp executes"))
    build = GlossaryBuild(Settings(entries_dir=entries, templates_dir=tmp_path, trust="names"), logging.getLogger("t"))
    build.load()
    site = tmp_path / "site"
    site.mkdir()
    clean = [
        "<p>Nothing to see.</p>",
        "<p>Marmalade penguins orchestrate saxophone lighthouses. A warp executes</p>",  # shared words
        '<a href="https://docs.nvidia.com/cuda/coalescing/">NVIDIA on coalescing</a>',  # the slug, elsewhere
        '<a href="warp/">Warp</a>',
    ]
    for i, html in enumerate(clean):
        (site / f"page{i}.html").write_text(html)
    assert build.leak_check(site) == []
    leaks = {
        "summary.html": "<p>Loads from neighbouring threads merging into few memory transactions quietly everywhere.</p>",
        "body.html": "<p>Marmalade penguins orchestrate saxophone lighthouses beneath velvet tangerine umbrellas "
                     "daily.</p>",
        "link.html": '<a href="../coalescing/#top">Coalescing</a>',
        "coalescing/index.html": "<p>hello</p>",
        "search/search_index.json": json.dumps({"docs": [{"location": "coalescing/", "text": "x"}]}),
        "glossary.json": json.dumps({"entries": [{"slug": "coalescing"}]}),
        "sitemap.xml": "<urlset><url><loc>https://example.org/coalescing/</loc></url></urlset>",
    }
    for name, content in leaks.items():
        path = site / "sub" / name if name.endswith(".html") and "/" not in name else site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        found = build.leak_check(site)
        assert len(found) == 1 and "coalescing" in found[0], (name, found)
        path.unlink()
