"""A fixture entry with hand-built results in a project of its own, rendered as the build renders
it: shared by the page tests of sweeps, kernel attributes and metrics (test_sweeps_page) and of
the host side (test_host_page).  Fixture results are test data, never published figures."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from conftest import ROOT, current_result, write_project
from glossary.build import GlossaryBuild
from glossary.entries.model import parse_entry
from glossary.figures.views import device_views
from glossary.settings import Settings
from measure import results

DEVICE = "fixture-gpu"


def write_fixture(tmp: Path, slug: str, text: str, files: dict[str, str], data: dict) -> Path:
    """A project with one entry (``text``, its ``files``) and ``data`` recorded as its current result."""
    project = write_project(tmp, {slug: text}, {f"{slug}/{name}": body for name, body in files.items()})
    data = current_result(project / "entries", slug, dict(data, entry=slug))
    (project / "entries" / slug / "results").mkdir(parents=True, exist_ok=True)
    (project / "entries" / slug / "results" / f"{DEVICE}.json").write_text(json.dumps(data))
    return project


def fixture_entry(project: Path, slug: str):
    return parse_entry(project / "entries" / f"{slug}.md", project / "entries")


def fixture_view(entry, slug: str, data: dict):
    """The device view of ``data`` as the page sees it."""
    result = results.parse(current_result(entry.path.parent, slug, dict(data, entry=slug)))
    return device_views(entry, {DEVICE: result})[0]


def render(project: Path, slug: str) -> str:
    """The entry's page Markdown, as the build renders it (nothing measured, names trusted)."""
    extra = {"glossary": {"measure": "never", "templates": str(ROOT / "templates"), "trust": "names"}}
    build = GlossaryBuild(settings=Settings.resolve(project / "entries", project, extra, serving=True, environ={}),
                          log=logging.getLogger("test"))
    build.load()
    return build.render_page(f"{slug}.md")


def table_after(page: str, heading: str) -> list[list[str]]:
    """The rows of the first Markdown table after the line that starts with ``heading``."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(heading))
    rows = []
    for line in lines[start + 1:]:
        text = line.strip()
        if text.startswith("|"):
            rows.append([c.strip() for c in text.strip("|").split("|")])
        elif rows:
            break
    return rows
