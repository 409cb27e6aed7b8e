"""Entries: strict front-matter parsing into a typed model.

``mkdocs.utils.meta.get_data`` swallows YAML errors; a verified glossary must
fail loudly instead, so entries are parsed here, with duplicate keys, unknown
keys, wrong types and bad dates all reported as ``EntryError`` naming the file
and the key.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


from glossary.entries import parallel
from glossary.entries import images
from glossary.entries.errors import EntryError, EntryErrors
from glossary.entries.frontmatter import split_front_matter
from glossary.entries.markdown_budget import markup_problem
from measure.spec import MeasureSpec
from measure.spec.includes import IncludeError, included_files
from measure.typed import SchemaError, describe, doc, json_schema, load

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# An entry is a page of prose (the largest real one is 10 KB); anything this large is a mistake or
# an attack on the build.  Rendering is linear past the checks below, but not cheap: 256 KB of
# table cells or highlighted code take about two seconds to render.
MAX_ENTRY_BYTES = 256 * 1024

# Slugs that name a path the site already uses: Material's assets/, the search plugin's search/,
# the glossary's tags/ pages and glossary.json, MkDocs' sitemap.xml, 404.html and index.  An entry
# there would be overwritten by, or overwrite, that path.
RESERVED_SLUGS = ("404", "assets", "glossary", "index", "search", "sitemap", "tags")
# List caps: a tag is a topic page of the site (10,000 tags made 10,002 pages and 206 MB); related
# links and abbreviations render on the page and in other pages' tooltips.  Each is several times
# what a real entry uses (2 tags, 2 related, 3 abbreviations).
MAX_TAGS = 12
MAX_RELATED = 30
MAX_ABBREVIATIONS = 20
MAX_ALIASES = 20
MAX_LESSONS = 50
MAX_SOURCES = 50
MAX_SOURCE_ID_CHARS = 40
# A tag is a short topic name: words of letters and digits joined by single spaces, hyphens or
# underscores, which is also what its page's URL (tags/<tag>/) keeps of it.
MAX_TAG_CHARS = 32
TAG_RE = re.compile(r"^[A-Za-z0-9]+(?:[ _-][A-Za-z0-9]+)*$")
# The title is a term; the summary one sentence, shown in the index and in a tooltip wherever
# another entry uses the term (so its length is paid on every such page); an abbreviation is a term.
MAX_TITLE_CHARS = 120
MAX_SUMMARY_CHARS = 600
MAX_ABBREVIATION_CHARS = 60
# Dates are accepted up to a day past the clock: an author east of the build machine may already
# be on the next day.
CLOCK_SLACK = dt.timedelta(days=1)


@dataclass(frozen=True)
class Lesson:
    """A 'Where you meet this' item: a day of the course where the reader meets the term."""

    day: int = doc("day number of the course")
    title: str = doc("the lesson's title")
    note: str = doc("why the lesson matters for this term", default="")


@dataclass(frozen=True)
class Source:
    """A source the entry relies on, with the date someone last checked it."""

    title: str = doc("the source's title")
    url: str = doc("where to read it (http or https)")
    checked: dt.date = doc("when the link and the claim were last checked, YYYY-MM-DD")
    note: str = doc("what the source is used for", default="")
    id: str | None = doc("a short name cited figures refer to, {{ cite(\"3.35 TB/s\", \"h100-datasheet\") }}: "
                         "lowercase words and digits joined by '-'", default=None, max_length=MAX_SOURCE_ID_CHARS)

    def validate(self) -> None:
        if self.id is not None and not SLUG_RE.match(self.id):
            raise SchemaError("id", f"expected lowercase words and digits joined by '-', e.g. h100-datasheet, "
                                    f"found {describe(self.id)}")
        if not re.match(r"^https?://[^\s<>\"'`\\{}|^]+$", self.url):
            raise SchemaError("url", f"expected an http(s) URL, found {self.url!r}")


@dataclass(frozen=True)
class FrontMatter:
    """Front-matter of a glossary entry (entries/<slug>.md)."""

    title: str = doc("the term, e.g. \"Kernel fusion\"", max_length=MAX_TITLE_CHARS)
    summary: str = doc("the one-sentence definition: shown under the title, in the index and in tooltips",
                       max_length=MAX_SUMMARY_CHARS)
    related: list[str] = doc("slugs of related entries, each once; each must resolve to entries/<slug>.md",
                             default_factory=tuple, max_items=MAX_RELATED, unique_items=True,
                             max_items_why="link the closest ones")
    tags: list[str] = doc("topic tags, each once: words of letters and digits joined by single spaces, "
                          "hyphens or underscores, e.g. memory-bound", default_factory=tuple, max_items=MAX_TAGS,
                          unique_items=True, max_length=MAX_TAG_CHARS,
                          max_items_why="a tag is a topic page of the site; keep the main topics")
    abbreviations: list[str] = doc("other spellings of the term, each once, that get its tooltip in other "
                                   "entries", default_factory=tuple, max_items=MAX_ABBREVIATIONS,
                                   unique_items=True, max_length=MAX_ABBREVIATION_CHARS,
                                   max_items_why="keep the spellings readers use")
    aliases: list[str] = doc("other names of the term that prose uses (e.g. \"smem\" for shared memory), each "
                             "once: like the title they match in any case and in the plural, and get the "
                             "term's tooltip in other entries", default_factory=tuple, max_items=MAX_ALIASES,
                             unique_items=True, max_length=MAX_ABBREVIATION_CHARS,
                             max_items_why="keep the names readers use")
    lessons: list[Lesson] = doc("'Where you meet this' items", default_factory=tuple, max_items=MAX_LESSONS)
    sources: list[Source] = doc("sources with the date they were checked", default_factory=tuple,
                                max_items=MAX_SOURCES)
    author: str | None = doc("the named author: required to publish", default=None)
    written_on: dt.date | None = doc("when the author finished the entry, YYYY-MM-DD", default=None)
    reviewer: str | None = doc("the named reviewer, not the author: required to publish", default=None)
    reviewed_on: dt.date | None = doc("when the reviewer signed, YYYY-MM-DD", default=None)
    review_fingerprint: str | None = doc("written by `glossary sign`: what the reviewer saw", default=None)
    measure: MeasureSpec | None = doc("the measurement spec; without it the entry has no Measured section",
                                      default=None)

    def validate(self) -> None:
        for key in ("title", "summary"):
            if not getattr(self, key).strip():
                raise SchemaError(key, "expected non-empty text, found an empty string")
        for i, slug in enumerate(self.related):
            if not SLUG_RE.match(slug):
                raise SchemaError(f"related[{i}]", f"expected an entry slug such as kernel-fusion, found {slug!r}")
        first: dict[str, int] = {}
        for i, tag in enumerate(self.tags):
            if not TAG_RE.match(tag):
                raise SchemaError(f"tags[{i}]", f"expected a short topic name: words of letters and digits "
                                                f"joined by single spaces, hyphens or underscores (e.g. "
                                                f"memory-bound), found {describe(tag)}")
            same = re.sub(r"[ _]", "-", tag.casefold())  # one tag page: tags/<this>/
            if same == "index":
                raise SchemaError(f"tags[{i}]", "'index' is the page listing every tag (tags/index); "
                                                "choose another tag")
            if same in first:
                raise SchemaError(f"tags[{i}]", f"{tag!r} is the same tag as tags[{first[same]}] "
                                                f"({self.tags[first[same]]!r}); list it once")
            first[same] = i
        ids: dict[str, int] = {}
        for i, source in enumerate(self.sources):
            if source.id is not None and source.id in ids:
                raise SchemaError(f"sources[{i}].id", f"{source.id!r} is already the id of sources[{ids[source.id]}]; "
                                                      f"cited figures name one source: give each its own id")
            if source.id is not None:
                ids[source.id] = i


@dataclass(frozen=True)
class Entry:
    """A parsed, validated entry: front-matter, body and the files it measures."""

    slug: str
    path: Path
    meta: FrontMatter
    raw_meta: dict
    body: str
    kernel_files: dict[str, bytes] = field(default_factory=dict)
    image_files: dict[str, bytes] = field(default_factory=dict)  # assets/... -> bytes (glossary.entries.images)

    @property
    def folder(self) -> Path:
        """entries/<slug>/: kernels, reference, results."""
        return self.path.parent / self.slug

    @property
    def title(self) -> str:
        return self.meta.title


def parse_entry(path: Path, entries_dir: Path, today: dt.date | None = None) -> Entry:
    """Read and validate one entry file; raises EntryError.

    ``today`` is the date that written, reviewed and checked dates may not be after (by more
    than CLOCK_SLACK); the machine's date where not given (tests pass their own)."""
    text = _read_text(path)
    data, body = split_front_matter(text, path)
    _check_controls(path, text, body)
    try:
        meta = load(FrontMatter, data)
    except SchemaError as err:
        raise EntryError(path, err.key, err.message) from None
    slug = path.stem
    if not SLUG_RE.match(slug):
        raise EntryError(path, "", f"the file name must be a slug (lowercase words joined by '-'), found {slug!r}")
    if slug in RESERVED_SLUGS:
        raise EntryError(path, "", f"the slug {slug!r} is a path the site itself uses; rename the file (reserved: "
                                   f"{', '.join(RESERVED_SLUGS)})")
    for i, other in enumerate(meta.related):
        if other == slug:
            raise EntryError(path, f"related[{i}]", f"an entry cannot be related to itself ({slug!r}); remove it")
    _check_dates(path, meta, today or dt.date.today())
    problem = markup_problem(body)
    if problem:
        line, message = problem
        first = text.count("\n") - body.count("\n") + 1  # the body's first line in the file
        raise EntryError(path, "body", f"line {first + line}: {message}")
    entry = Entry(slug=slug, path=path, meta=meta, raw_meta=data, body=body,
                  image_files=images.read_images(body, entries_dir))
    if meta.measure is not None:
        entry = dataclasses.replace(entry, kernel_files=_read_measured_files(entry, entries_dir))
    return entry


# C0 controls but tab and newline (a CR only before LF, as in CRLF), DEL and the C1 controls: no
# page shows them, and a NUL or an ESC in a signed body would reach the HTML as it is.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def _check_controls(path: Path, text: str, body: str) -> None:
    """EntryError naming the file line of the first control character in the body."""
    found = _CONTROL.search(body)
    if found is None:
        return
    start = len(text) - len(body)  # the body is the file's tail (split_front_matter)
    line = text.count("\n", 0, start + found.start()) + 1
    raise EntryError(path, "body", f"line {line}: the control character U+{ord(found.group()[0]):04X} is not "
                                   f"text a page can show; delete it (only tab and newline are allowed)")


def _check_dates(path: Path, meta: FrontMatter, today: dt.date) -> None:
    """A date after ``today`` (past CLOCK_SLACK) records something that has not happened yet."""
    latest = today + CLOCK_SLACK
    dated = [("written_on", meta.written_on), ("reviewed_on", meta.reviewed_on)]
    dated += [(f"sources[{i}].checked", source.checked) for i, source in enumerate(meta.sources)]
    for key, day in dated:
        if day is not None and day > latest:
            raise EntryError(path, key, f"the date {day.isoformat()} is in the future (today is "
                                        f"{today.isoformat()}); write the day it happened")


def _read_text(path: Path) -> str:
    """An entry file's text; EntryError for one that is not a readable, reasonably sized UTF-8 file."""
    try:
        size = path.stat().st_size
        if size > MAX_ENTRY_BYTES:
            raise EntryError(path, "", f"the file is {size / 1024:,.0f} KB; an entry may be at most "
                                       f"{MAX_ENTRY_BYTES // 1024} KB: split it, or move listings into "
                                       f"the entry's folder as kernel files")
        raw = path.read_bytes()
    except OSError as err:
        raise EntryError(path, "", f"cannot read the file: {err.strerror or err}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise EntryError(path, "", f"the file is not UTF-8 text (byte 0x{raw[err.start]:02x} on line {line}); "
                                   f"save it as UTF-8") from None


def _read_measured_files(entry: Entry, entries_dir: Path) -> dict[str, bytes]:
    spec = entry.meta.measure
    # Kernels must live in the entry's own folder (resolved, so symlinks count where they point):
    # a file of another entry would publish that entry's text even when it is refused.
    own = entries_dir.resolve() / entry.slug
    named = [(f"measure.sources[{i}]", name) for i, name in enumerate(spec.sources)]
    named.append(("measure.reference", spec.reference))
    files = {}
    for key, name in named:
        target = (entry.folder / name).resolve()
        if own not in target.parents:
            raise EntryError(entry.path, key, f"expected a file inside the entry's folder {entry.folder}, "
                                              f"found {name!r}, which resolves to {target}")
        if not target.is_file():
            raise EntryError(entry.path, key, f"expected a file at {entry.folder / name}, found none")
        try:
            files[name] = target.read_bytes()
        except OSError as err:
            raise EntryError(entry.path, key, f"cannot read {entry.folder / name}: {err.strerror or err}") from None
    # Every file of the entry's folder the sources include counts too: a header edited after review
    # makes both the results and the review stale.
    try:
        headers = included_files(own, list(spec.sources))
    except IncludeError as err:
        raise EntryError(entry.path, f"measure.sources ({err.file}, line {err.line})", err.message) from None
    except OSError as err:
        raise EntryError(entry.path, "measure.sources", f"cannot read an included file: {err.strerror or err}") from None
    files.update({name: data for name, data in headers.items() if name not in files})
    return files


def load_entries(entries_dir: Path, today: dt.date | None = None, workers: int | None = 1) -> dict[str, Entry]:
    """Parse every entries/*.md (except index.md) and check cross-entry references.

    Raises EntryErrors listing every malformed entry, not only the first.  ``today``: as for
    ``parse_entry``; ``workers``: as for ``read_entries``.
    """
    entries, errors = read_entries(entries_dir, today, workers=workers)
    if errors:
        raise EntryErrors(errors)
    return entries


def read_entries(entries_dir: Path, today: dt.date | None = None,
                 parse: Callable[[Path, Path, dt.date | None], Entry] | None = None,
                 workers: int | None = 1) -> tuple[dict[str, Entry], list[EntryError]]:
    """Every entries/*.md (except index.md) that parses, and an error for each that does not (or names
    a related slug that is no entry).  ``parse`` stands in for ``parse_entry`` (mkdocs serve's cache);
    ``workers`` processes parse the files (``glossary.entries.parallel.each``; None: one a core)."""
    paths = entry_paths(entries_dir)
    return gathered(entries_dir, paths, parallel.each(parsed, paths, (entries_dir, today, parse), workers))


def entry_paths(entries_dir: Path) -> list[Path]:
    """The entry files of ``entries_dir``: every *.md but index.md, in name order."""
    return [p for p in sorted(entries_dir.glob("*.md")) if p.name != "index.md"]


def gathered(entries_dir: Path, paths: list[Path], outcomes: list[Entry | EntryError]
             ) -> tuple[dict[str, Entry], list[EntryError]]:
    """The entries ``paths`` parsed to (``outcomes``, in their order), and the errors: each file's that
    did not parse, and each related slug that names no entry."""
    entries = {}
    errors: list[EntryError] = []
    for outcome in outcomes:
        if isinstance(outcome, EntryError):
            errors.append(outcome)
        else:
            entries[outcome.slug] = outcome
    known = [p.stem for p in paths]  # a slug whose file is malformed is reported once, for that file
    for entry in entries.values():
        errors += related_problems(entry, known, entries_dir)
    return entries, errors


def parsed(context: tuple[Path, dt.date | None, Callable | None], path: Path) -> Entry | EntryError:
    """The entry ``path`` holds, or why it does not parse (a pool's task: ``parallel.each``)."""
    entries_dir, today, parse = context
    try:
        return (parse or parse_entry)(path, entries_dir, today)
    except EntryError as err:
        return err


def related_problems(entry: Entry, known: list[str] | set[str], entries_dir: Path) -> list[EntryError]:
    """An error for each of the entry's ``related`` slugs that names no entry in ``known``."""
    out = []
    for i, slug in enumerate(entry.meta.related):
        if slug not in known:
            close = difflib.get_close_matches(slug, sorted(known), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            out.append(EntryError(entry.path, f"related[{i}]",
                                  f"expected the slug of an entry in {entries_dir}, found {slug!r}{hint}"))
    return out


def measurement_fingerprint(entry: Entry) -> str | None:
    """What the entry's results must have been measured for to be current (None without a spec):
    ``measure.results.measurement_fingerprint`` of its spec and the files it names."""
    spec = entry.meta.measure
    if spec is None:
        return None
    from measure import results  # here: parsing an entry (a first `glossary check`) does without the results model

    return results.measurement_fingerprint(spec, entry.kernel_files)


def display_path(path: Path) -> str:
    """A path as messages show it: relative to the working directory where it can be."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def front_matter_schema() -> dict:
    """The JSON Schema editors use to validate entries as authors type."""
    schema = json_schema(FrontMatter, title="Verified CUDA glossary entry front-matter")
    return schema
