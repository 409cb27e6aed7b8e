"""An imported term as an entry file: its front-matter text, checked by the strict parser, written atomically.

The front-matter has the scaffold's keys and order (``glossary new``): the people are
``pending``, the dates null, no ``measure:`` and no lessons.  A comment line names the file it
was imported from; ``--overwrite`` replaces only files that carry it.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from glossary.entries.errors import EntryError
from glossary.entries.frontmatter import yaml_scalar
from glossary.entries.model import parse_entry
from glossary.entries.scaffold import SCHEMA_HINT
from measure.store import write_bytes_atomic

IMPORTED_MARK = "# imported by `glossary import` from "


@dataclass
class Draft:
    """What an imported entry says: the front-matter values and the body."""

    slug: str
    source: str  # the file it came from, relative to the imported folder
    title: str
    summary: str
    body: str
    related: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    abbreviations: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)


def _flow(items: list[str]) -> str:
    """A YAML flow list of texts (JSON strings are YAML): ["a", "b"]."""
    return json.dumps(items, ensure_ascii=False)


def _source(item: dict) -> str:
    parts = []
    for key, value in item.items():
        if isinstance(value, dt.date):
            parts.append(f"{key}: {value.isoformat()}")
        else:
            parts.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "  - {" + ", ".join(parts) + "}"


def render(draft: Draft) -> str:
    """The entry file's text."""
    lines = ["---", SCHEMA_HINT, IMPORTED_MARK + json.dumps(draft.source, ensure_ascii=False),
             f"title: {yaml_scalar(draft.title)}",
             f"summary: {yaml_scalar(draft.summary)}",
             f"related: {_flow(draft.related)}",
             f"tags: {_flow(draft.tags)}"]
    if draft.abbreviations:
        lines.append(f"abbreviations: {_flow(draft.abbreviations)}")
    if draft.aliases:
        lines.append(f"aliases: {_flow(draft.aliases)}")
    lines.append("lessons: []")
    if draft.sources:
        lines += ["sources:"] + [_source(s) for s in draft.sources]
    else:
        lines.append("sources: []")
    lines += ["author: pending            # the real author's name: required to publish",
              "written_on: null",
              "reviewer: pending          # written by `glossary sign`: someone other than the author",
              "reviewed_on: null",
              "review_fingerprint: null",
              "---", ""]
    body = draft.body.strip("\n")
    return "\n".join(lines) + (body + "\n" if body else "")


def problem(text: str, slug: str, entries_dir: Path) -> str | None:
    """What the strict entry parser says about ``text`` as entries/<slug>.md; None where it parses."""
    with tempfile.TemporaryDirectory(prefix="glossary-import-") as tmp:
        path = Path(tmp) / f"{slug}.md"
        path.write_text(text, encoding="utf-8")
        try:
            parse_entry(path, entries_dir)
        except EntryError as err:
            return (f"key '{err.key}': " if err.key else "") + err.message
    return None


def earlier_import(path: Path) -> bool:
    """Whether the entry file at ``path`` was written by `glossary import` (and so may be replaced)."""
    try:
        with path.open(encoding="utf-8") as fh:
            head = [fh.readline() for _ in range(4)]
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.startswith(IMPORTED_MARK) for line in head)


def write(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))
