"""What `glossary import` did, per source file and in total: data first, then Markdown or JSON.

Each source file gets a ``FileReport``: the entry it became (or why none), and a ``Note`` for
everything that did not map as it was (an unmapped front-matter key, a link to a term that is not
in the folder, a missing image, a summary problem, aliases left out, related links past the cap,
a slug clash, a file the walk did not read).  A note is ``error`` when the term could not be
imported at all; everything else is ``info``: the entry was written, and the note says what a
person should look at.  Paths and messages are printable: a byte of a file name that is not UTF-8
shows as ``\\xNN``, a control character as its escape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from glossary.importer.files import lkind, printable
from measure.store import write_bytes_atomic

REPORT_VERSION = 1
Severity = Literal["error", "info"]
# The kinds of note, in the order a report lists them; docs/maintainers/importing.md explains each.
KINDS = ("file", "slug", "front-matter", "title", "summary", "tags", "links", "images", "related",
         "aliases", "sources", "validate")


@dataclass(frozen=True)
class Note:
    """One thing that did not map as it was: its kind (one of KINDS), how bad, and a sentence."""

    kind: str
    message: str
    severity: Severity = "info"

    def __post_init__(self) -> None:  # a path in it may hold bytes that are not UTF-8, or control characters
        object.__setattr__(self, "message", printable(self.message))

    def to_json(self) -> dict:
        return {"kind": self.kind, "severity": self.severity, "message": self.message}


@dataclass
class FileReport:
    """One source file: where it came from, the entry it became (slug, path) and its notes."""

    source: str  # the path relative to the imported folder, with '/'
    slug: str | None = None
    entry: Path | None = None  # the entry file written (or that would be, under --dry-run)
    imported: bool = False
    notes: list[Note] = field(default_factory=list)
    links_rewritten: int = 0
    images_copied: int = 0

    def __post_init__(self) -> None:
        self.source = printable(self.source)

    def note(self, kind: str, message: str, severity: Severity = "info") -> None:
        self.notes.append(Note(kind, message, severity))

    def fail(self, kind: str, message: str) -> None:
        """The term cannot be imported: an error note, and nothing is written for it."""
        self.imported = False
        self.note(kind, message, "error")

    @property
    def failed(self) -> bool:
        return any(n.severity == "error" for n in self.notes)

    def to_json(self) -> dict:
        return {"source": self.source, "slug": self.slug, "entry": str(self.entry) if self.entry else None,
                "imported": self.imported, "links_rewritten": self.links_rewritten,
                "images_copied": self.images_copied, "notes": [n.to_json() for n in self.notes]}


@dataclass
class ImportReport:
    """The whole import: one FileReport per source file (in path order) and folder-wide notes."""

    source_dir: Path
    entries_dir: Path
    dry_run: bool = False
    files: list[FileReport] = field(default_factory=list)
    general: list[Note] = field(default_factory=list)

    def note(self, kind: str, message: str, severity: Severity = "info") -> None:
        """A note about the whole folder (links to folders, caps), not one file."""
        self.general.append(Note(kind, message, severity))

    @property
    def imported(self) -> list[FileReport]:
        return [f for f in self.files if f.imported]

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.failed]

    @property
    def ok(self) -> bool:
        """Every term was imported (notes or not): the command exits 0."""
        return not self.failed and not any(n.severity == "error" for n in self.general)

    @property
    def links_rewritten(self) -> int:
        return sum(f.links_rewritten for f in self.files)

    @property
    def images_copied(self) -> int:
        return sum(f.images_copied for f in self.files)

    def totals(self) -> dict:
        return {"files": len(self.files), "imported": len(self.imported), "failed": len(self.failed),
                "links_rewritten": self.links_rewritten, "images_copied": self.images_copied,
                "notes": sum(len(f.notes) for f in self.files) + len(self.general)}

    def summary_line(self) -> str:
        t = self.totals()
        verb = "would import" if self.dry_run else "imported"
        return (f"{verb} {t['imported']} of {t['files']} term(s) into {self.entries_dir}; "
                f"{t['failed']} could not be imported; {t['links_rewritten']} link(s) rewritten, "
                f"{t['images_copied']} image(s) copied; {t['notes']} note(s)")

    def to_json(self) -> dict:
        return {"version": REPORT_VERSION, "source": str(self.source_dir), "entries": str(self.entries_dir),
                "dry_run": self.dry_run, "ok": self.ok, "totals": self.totals(),
                "general": [n.to_json() for n in self.general], "files": [f.to_json() for f in self.files]}

    def to_markdown(self) -> str:
        """The report as a Markdown page: totals, folder-wide notes, then one section per file with notes."""
        lines = [f"# Import of {self.source_dir}", "", self.summary_line() + ".", ""]
        if self.general:
            lines += ["## Whole folder", ""] + [f"- **{n.severity}** {n.kind}: {n.message}" for n in self.general]
            lines.append("")
        for report in self.files:
            if not report.notes:
                continue
            target = f"`{report.entry}`" if report.imported and report.entry else "not imported"
            lines += [f"## {report.source} → {target}", ""]
            lines += [f"- **{n.severity}** {n.kind}: {n.message}" for n in _ordered(report.notes)]
            lines.append("")
        return "\n".join(lines)


def _ordered(notes: list[Note]) -> list[Note]:
    rank = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(notes, key=lambda n: (n.severity != "error", rank.get(n.kind, len(KINDS))))


class ReportFileError(Exception):
    """The report file cannot be written (its path is a folder, a FIFO, a link, or unwritable)."""


def check_report_path(path: Path) -> None:
    """ReportFileError where ``path`` holds something other than a regular file (checked before an
    import starts, so a bad ``--report`` stops it before anything is written)."""
    what = lkind(path)
    if what not in (None, "a regular file"):
        raise ReportFileError(f"{printable(str(path))} is {what}, not a report file: name another file")


def write_report(report: ImportReport, path: Path) -> None:
    """Write the report to ``path``: JSON where it ends in .json, Markdown otherwise.  A folder, a
    FIFO (which would block) or a link at ``path`` is refused with ReportFileError, as is a write
    that fails; the file is replaced atomically, never written through."""
    check_report_path(path)
    if path.suffix.lower() == ".json":
        text = json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = report.to_markdown()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, text.encode("utf-8"))
    except OSError as err:
        raise ReportFileError(f"{printable(str(path))} could not be written: {err.strerror or err}") from None
