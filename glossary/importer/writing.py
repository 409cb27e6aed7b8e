"""An imported term as an entry file: its front-matter text, checked by the strict parser, written atomically.

The front-matter has the scaffold's keys and order (``glossary new``): the people are
``pending``, the dates null, no ``measure:`` and no lessons.  A comment line names the file it
was imported from; ``--overwrite`` replaces only files that carry it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from glossary.entries.errors import EntryError
from glossary.entries import lint
from glossary.entries.model import parse_entry
from glossary.entries.scaffold import SCHEMA_HINT
from glossary.importer import files

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


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _scalar(value: str) -> str:
    """``value`` as a YAML scalar: plain where that reads back as the same text, else double-quoted
    (``glossary.entries.frontmatter.yaml_scalar``'s rule, read back with libyaml: an import writes
    thousands)."""
    plain_ok = "#" not in value and ": " not in value and not value.endswith(":")
    if plain_ok:
        try:
            plain_ok = yaml.load(f"k: {value}\n", Loader=_LOADER) == {"k": value}
        except yaml.YAMLError:
            plain_ok = False
    return value if plain_ok else json.dumps(value, ensure_ascii=False)


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
    lines = ["---", SCHEMA_HINT, IMPORTED_MARK + json.dumps(files.printable(draft.source), ensure_ascii=False),
             f"title: {_scalar(draft.title)}",
             f"summary: {_scalar(draft.summary)}",
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


def problem(text: str, slug: str, entries_dir: Path, scratch: Path) -> tuple[str | None, list[str]]:
    """What the strict entry parser says about ``text`` as entries/<slug>.md (None where it parses),
    and what the hand-typed-figure lint says of the parsed entry (``glossary.entries.lint``: each
    number with a figure's unit that is neither bound, cited nor arithmetic).  The text is parsed
    from ``scratch``/<slug>.md (a folder of the caller's, emptied by it)."""
    path = scratch / f"{slug}.md"
    path.write_text(text, encoding="utf-8")
    try:
        entry = parse_entry(path, entries_dir)
        return None, [_figure_note(f) for f in lint.unbound_figures(entry)]
    except EntryError as err:
        return (f"key '{err.key}': " if err.key else "") + err.message, []
    finally:
        path.unlink(missing_ok=True)


def _figure_note(finding: lint.Finding) -> str:
    if finding.kind == "arithmetic":
        return f"line {finding.line}: '{finding.text}' does not hold ({finding.why})"
    if finding.kind == "table column":
        return (f"line {finding.line}: {finding.why}: wrap the table in {{% call cite_table(\"<source id>\") %}} "
                f"with the source the figures come from")
    return (f"line {finding.line}: '{finding.text}' reads as a {finding.kind} figure typed by hand: cite its source "
            f"({{{{ cite(...) }}}}) or mark it as no figure ({{{{ nofig(...) }}}})")


def earlier_import(path: Path) -> bool:
    """Whether the entry file at ``path`` was written by `glossary import` (and so may be replaced):
    only a regular file is read (a link, a FIFO or a device there never is), and only its head."""
    try:
        head = files.read_regular(path, 4096, head=True).decode("utf-8", "replace").splitlines()[:4]
    except files.Unreadable:
        return False
    return any(line.startswith(IMPORTED_MARK) for line in head)


def write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it: a reader never sees half
    an entry, and a link or a FIFO at ``path`` is replaced, never written through (the caller
    refuses those first: ``run._name``).  Not fsynced one by one (an import writes thousands;
    ``sync_folder`` runs once after)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sync_folder(folder: Path) -> None:
    """Flush the written files and the folder's names to disk, once for the whole import."""
    if hasattr(os, "sync"):
        os.sync()
