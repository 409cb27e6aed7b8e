"""Reading the folder to import: which files are terms, their front-matter and body, bounded.

The walk (``files.walk``: iterative, bounded in depth and names) never follows a symbolic link
out of the folder or into a loop and opens only regular files; it reads at most MAX_IMPORT_FILES
terms of at most MAX_ENTRY_BYTES each, and refuses a body whose markup the renderer could not bound
(``markup_problem``), so every later pass (sentences, links, images) runs on bounded text.
Front-matter is read with the entries' own strict YAML reader; each key is mapped here or
reported as not mapped (``map_front_matter``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from glossary.entries.errors import EntryError
from glossary.entries.frontmatter import FRONT_MATTER_RE, split_front_matter
from glossary.entries.markdown_budget import markup_problem
from glossary.entries.scaffold import slugify
from glossary.entries.model import (CLOCK_SLACK, MAX_ABBREVIATION_CHARS, MAX_ABBREVIATIONS, MAX_ALIASES,
                                    MAX_ENTRY_BYTES, MAX_SOURCES, MAX_SUMMARY_CHARS, MAX_TITLE_CHARS, Source)
from glossary.importer import files
from glossary.importer.markdown import leading_h1, plain_text
from glossary.importer.report import FileReport, ImportReport
from glossary.site.tooltips import is_acronym
from measure.typed import SchemaError, describe, load

# Several times the largest glossary we know of (a few hundred terms); past it the import stops
# reading terms and says so.  Every other file the walk meets counts towards files.MAX_WALKED.
MAX_IMPORT_FILES = 5_000
TERM_SUFFIXES = (".md", ".markdown")
# A section's landing page, not a term of its own; and pages about the glossary, never a term.
SECTION_PAGES = ("index", "_index", "readme")
SITE_PAGES = ("contributors", "contributing", "authors", "changelog", "license", "code-of-conduct")
# A page whose text is mostly list items (or table rows) that link somewhere lists pages: a landing page.
LIST_SHARE = 0.6
LIST_ITEMS = 4
LIST_PROSE = 400  # ...with at most this many characters of other text (a term's definition is longer)
_LINK_ITEM = re.compile(r"(?:[-*+]|\d+[.)]|\|)[ \t][^\n]*\]\(")
_EMPTY_FRONT = re.compile(r"\A---[ \t]*\r?\n---[ \t]*(?:\r?\n|\Z)")
# Front-matter keys this tool has; any other key is reported as not mapped.
MAPPED_KEYS = ("title", "summary", "tags", "aliases", "abbreviations", "sources", "related")
# Keys other glossaries give a term's short forms: read as this tool's ``abbreviations``.
ABBREVIATION_KEYS = ("abbreviations", "abbreviation", "abbr", "acronym", "acronyms")
# A title that ends in its abbreviation: "Streaming Multiprocessor (SM)", "Parallel Thread eXecution (PTX)".
_TITLE_ABBREVIATION = re.compile(r"^(?P<name>.*\S)\s*[(\uff08](?P<abbr>[A-Z0-9][A-Za-z0-9+./-]{0,11})[)\uff09]$")


@dataclass
class SourceTerm:
    """One term file of the folder, read: where it is, its section, its front-matter and body."""

    path: Path
    rel: str  # relative to the folder, '/'-separated
    section: str | None  # the top-level folder it is in (None at the folder's top)
    title: str
    body: str
    report: FileReport
    summary: str | None = None
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    abbreviations: list[str] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)
    related: list[str] = field(default_factory=list)  # front-matter related, as written (links resolve them)
    slug: str = ""
    source_body: str = ""  # the body as read, before its heading left: notes find their lines in it
    body_line: int = 1  # the line of the file the body starts on


def read_terms(src: Path, report: ImportReport, landing: set[str] | None = None) -> list[SourceTerm]:
    """Every term file of ``src`` read and its front-matter mapped; a file that cannot be read
    gets an error note in ``report`` (and no SourceTerm).  Landing pages (``landing_page``) are
    reported, not read as terms, and their paths added to ``landing``."""
    landing = set() if landing is None else landing
    terms = []
    found = files.walk(src, TERM_SUFFIXES)
    for severity, message in found.notes:
        report.note("file", message, severity)
    paths = found.files
    if len(paths) > MAX_IMPORT_FILES:
        report.note("file", f"the folder holds {len(paths):,} term files; at most {MAX_IMPORT_FILES:,} are "
                            f"imported at once: import it section by section", "error")
        paths = paths[:MAX_IMPORT_FILES]
    root = Path(os.path.realpath(src))
    sections = _sections([rel for _, rel in paths])
    for path, rel in paths:
        file_report = FileReport(rel)
        report.files.append(file_report)
        why = landing_page(rel, sections)
        if why is None:
            term = read_term(path, rel, file_report, root)
            why = None if term is None else listing_page(term.body)
            if why is None:
                if term is not None:
                    terms.append(term)
                continue
        landing.add(rel)
        file_report.notes.clear()
        file_report.note("file", f"is a section's landing page, not a term ({why}); it was not imported, "
                                 f"and its links give no aliases")
    return terms


def _sections(rels: list[str]) -> dict[str, set[str]]:
    """Section folders, as folder -> the slugs of the sections directly in it ('' for the top): a
    section holds two term files or more, or a section of its own.  A folder of one term file is
    that term's bundle ('warp/warp.md' beside its images), no section."""
    counts: dict[str, int] = {}
    for rel in rels:
        if "/" in rel:
            counts[rel.rsplit("/", 1)[0]] = counts.get(rel.rsplit("/", 1)[0], 0) + 1
    folders = {f for f, n in counts.items() if n >= 2}
    folders |= {f.rsplit("/", i)[0] for f in list(folders) for i in range(1, f.count("/") + 1)}
    out: dict[str, set[str]] = {}
    for f in folders:
        parent, _, name = f.rpartition("/")
        out.setdefault(parent, set()).add(slugify(name))
        out.setdefault(f, set())
    return out


def landing_page(rel: str, sections: dict[str, set[str]]) -> str | None:
    """Why the file at ``rel`` is a landing page by its name (None where its name is a term's):
    'index.md', 'README.md', a page about the site ('contributors.md'), a file named like the
    section folder it is in ('device-hardware/device-hardware.md') or like a section folder
    beside it ('device-hardware.md' next to 'device-hardware/'); ``sections`` is ``_sections``."""
    stem = slugify(Path(rel).stem)
    parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
    if Path(rel).stem.lower() in SECTION_PAGES:
        return f"{Path(rel).name} introduces its folder"
    if stem in SITE_PAGES:
        return "a page about the glossary itself"
    if parent and parent in sections and stem == slugify(parent.rsplit("/", 1)[-1]):
        return f"named like its folder {parent}/"
    if stem in sections.get(parent, ()):
        return f"named like the folder {(parent + '/' if parent else '')}{Path(rel).stem}/ beside it"
    return None


def listing_page(body: str) -> str | None:
    """Why ``body`` is a page that lists other pages (None where it is a term's): at least LIST_ITEMS
    list items or table rows with a link, holding LIST_SHARE or more of its text, and at most
    LIST_PROSE characters of anything else."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    items = [line for line in lines if _LINK_ITEM.match(line)]
    text, listed = sum(map(len, lines)), sum(map(len, items))
    if len(items) >= LIST_ITEMS and text and listed / text >= LIST_SHARE and text - listed <= LIST_PROSE:
        return f"{len(items)} list items of links make up {listed / text:.0%} of its text"
    return None


def read_term(path: Path, rel: str, report: FileReport, root: Path) -> SourceTerm | None:
    """One term file (``root``: the imported folder, resolved): None (with an error note) where it
    cannot be read or is not bounded."""
    text = _read_text(path, rel, report, root)
    if text is None:
        return None
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    meta: dict = {}
    if _EMPTY_FRONT.match(text):
        body = text[_EMPTY_FRONT.match(text).end():]
    elif text.startswith("---"):
        try:
            meta, body = split_front_matter(text, rel)
        except EntryError as err:
            empty = FRONT_MATTER_RE.match(text) if err.message.startswith("the front-matter is empty") else None
            if empty:  # only comments: no keys to map
                return _term(path, rel, {}, text[empty.end():], report, text.count("\n", 0, empty.end()) + 1)
            report.fail("front-matter", err.message if err.key == "" else f"key '{err.key}': {err.message}")
            return None
    else:
        body = text
    return _term(path, rel, meta, body, report, text.count("\n", 0, len(text) - len(body)) + 1)


def _term(path: Path, rel: str, meta: dict, body: str, report: FileReport, body_line: int = 1) -> SourceTerm | None:
    problem = markup_problem(body)
    if problem:
        report.fail("file", f"body line {problem[0] + 1}: {problem[1]}")
        return None
    parts = rel.split("/")
    term = SourceTerm(path=path, rel=rel, section=parts[0] if len(parts) > 1 else None, title="", body=body,
                      report=report, source_body=body, body_line=body_line)
    map_front_matter(term, meta)
    _take_title(term, meta)
    return None if report.failed else term


def _read_text(path: Path, rel: str, report: FileReport, root: Path) -> str | None:
    if not files.is_utf8(rel):
        report.fail("file", "its path is not UTF-8 text (each \\xNN above is a byte that is not): rename it, "
                            "since the entry records where it came from")
        return None
    try:
        if os.path.islink(path):  # a link to a term elsewhere in the folder is read there
            path = files.inside(path, root)
        raw = files.read_regular(path, MAX_ENTRY_BYTES)
    except files.TooLarge as err:
        report.fail("file", f"is {err.size / 1024:,.0f} KB; an entry may be at most {MAX_ENTRY_BYTES // 1024} KB: "
                            f"split it before importing")
        return None
    except files.Outside as err:
        report.fail("file", f"is a symbolic link that {err.message}; links out of the folder are never followed")
        return None
    except files.Missing:
        report.fail("file", "is a symbolic link to nothing (its target is missing); it is not imported")
        return None
    except files.Unreadable as err:
        report.fail("file", err.message)
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        report.fail("file", f"is not UTF-8 text (byte 0x{raw[err.start]:02x} on line {line}); save it as UTF-8")
        return None


def _take_title(term: SourceTerm, meta: dict) -> None:
    """The title: front-matter ``title``, else the body's opening '# H1' (removed), else the file name."""
    heading, rest = leading_h1(term.body)
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        term.title = " ".join(title.split())
        if heading is not None:  # the page shows the title as its heading: another would be a second one
            term.body = rest
            if plain_text(heading).casefold() != term.title.casefold():
                term.report.note("title", f"the body's opening heading '# {heading}' was removed: the page "
                                          f"shows the title {term.title!r} as its heading")
    elif heading is not None and plain_text(heading):
        term.title, term.body = plain_text(heading), rest
    else:
        if "title" in meta:
            term.report.note("title", f"the front-matter title is {describe(title)}, not text")
        stem = Path(term.rel).stem.replace("-", " ").replace("_", " ").strip()
        term.title = stem[:1].upper() + stem[1:]
        term.report.note("title", f"no title in the front-matter and no '# heading' opening the body; "
                                  f"the title {term.title!r} is made from the file name: check it")
    if len(term.title) > MAX_TITLE_CHARS:
        term.report.fail("title", f"the title is {len(term.title)} characters; at most {MAX_TITLE_CHARS} fit: "
                                  f"shorten it in the source")
    else:
        _title_abbreviation(term)


def _title_abbreviation(term: SourceTerm) -> None:
    """A title ending in its abbreviation ("Streaming Multiprocessor (SM)") gives the abbreviation
    and the name without it, so prose that says either gets the tooltip."""
    match = _TITLE_ABBREVIATION.match(term.title)
    if not match or not is_acronym(match.group("abbr")):
        return
    name, abbr = match.group("name"), match.group("abbr")
    added = []
    if abbr.casefold() not in {a.casefold() for a in term.abbreviations} and len(term.abbreviations) < MAX_ABBREVIATIONS:
        term.abbreviations.append(abbr)
        added.append(f"abbreviation {abbr!r}")
    if name.casefold() not in {a.casefold() for a in term.aliases} and len(term.aliases) < MAX_ALIASES:
        term.aliases.append(name)
        added.append(f"alias {name!r}")
    if added:
        term.report.note("aliases", f"the title ends in its abbreviation: {' and '.join(added)} added")


def map_front_matter(term: SourceTerm, meta: dict) -> None:
    """Copy the keys this tool has into ``term``; note every other key, and every value left out."""
    report = term.report
    unmapped = [str(k) for k in meta if k not in MAPPED_KEYS + ABBREVIATION_KEYS]
    if unmapped:
        people = [k for k in unmapped if k.lower() in ("author", "authors", "reviewer", "reviewers", "contributors")]
        why = ("; authors are never copied: author and reviewer are 'pending' until the real people sign"
               if people else "")
        report.note("front-matter", f"not mapped: {', '.join(unmapped)}{why}")
    summary = meta.get("summary")
    if summary is not None:
        if isinstance(summary, str) and summary.strip() and len(" ".join(summary.split())) <= MAX_SUMMARY_CHARS:
            term.summary = " ".join(summary.split())
        else:
            report.note("summary", f"the front-matter summary ({describe(summary)}) is not one line of at most "
                                   f"{MAX_SUMMARY_CHARS} characters; the body's first sentence is used instead")
    term.tags = _texts(meta, "tags", report, 100, 1000)
    term.aliases = _texts(meta, "aliases", report, MAX_ALIASES, MAX_ABBREVIATION_CHARS)
    for key in ABBREVIATION_KEYS:  # 'abbreviation: SM', 'acronym: [PTX]': this tool's abbreviations
        for text in _texts(meta, key, report, MAX_ABBREVIATIONS, MAX_ABBREVIATION_CHARS):
            if text.casefold() in {a.casefold() for a in term.abbreviations}:
                continue
            if len(term.abbreviations) == MAX_ABBREVIATIONS:
                report.note("front-matter", f"{key}: more than {MAX_ABBREVIATIONS} abbreviations; {text!r} left out")
                break
            term.abbreviations.append(text)
    term.related = _texts(meta, "related", report, 1000, 1000)
    term.sources = _sources(meta.get("sources"), report)


def _texts(meta: dict, key: str, report: FileReport, most: int, longest: int) -> list[str]:
    """A front-matter list of texts, each once (in any case), each at most ``longest`` characters."""
    value = meta.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        report.note("front-matter", f"{key} is {describe(value)}, not a list of texts; left out")
        return []
    out: list[str] = []
    seen: set[str] = set()
    for item in value:
        text = " ".join(item.split()) if isinstance(item, str) else ""
        if not text or len(text) > longest or text.casefold() in seen:
            report.note("front-matter", f"{key}: {describe(item)} left out (empty, not text, a repeat or over "
                                        f"{longest} characters)")
            continue
        if len(out) == most:
            report.note("front-matter", f"{key}: more than {most}; {describe(item)} and later ones left out")
            break
        seen.add(text.casefold())
        out.append(text)
    return out


_SOURCE_KEYS = {f.name for f in dataclasses.fields(Source)}


def _sources(value, report: FileReport) -> list[dict]:
    """Front-matter sources already in this tool's shape ({title, url, checked, note?, id?}); others reported."""
    if value is None:
        return []
    if not isinstance(value, list):
        report.note("sources", f"sources is {describe(value)}, not a list; left out")
        return []
    out = []
    latest = dt.date.today() + CLOCK_SLACK
    for i, item in enumerate(value):
        if len(out) == MAX_SOURCES:
            report.note("sources", f"more than {MAX_SOURCES} sources; sources[{i}] and later left out")
            break
        if isinstance(item, dict) and "id" in item and "id" not in _SOURCE_KEYS:
            item = {k: v for k, v in item.items() if k != "id"}
            report.note("sources", f"sources[{i}]: 'id' is not a key of this version's sources; left out")
        try:
            source = load(Source, item, f"sources[{i}]")
        except SchemaError as err:
            report.note("sources", f"{err.key or f'sources[{i}]'}: {err.message}; this source was left out "
                                   f"(a source needs title, url and checked: YYYY-MM-DD)")
            continue
        if source.checked > latest:
            report.note("sources", f"sources[{i}]: checked {source.checked.isoformat()} is in the future; left out")
            continue
        out.append({k: getattr(source, k) for k in item if k in _SOURCE_KEYS})
    return out
