"""Entries: strict front-matter parsing into a typed model.

``mkdocs.utils.meta.get_data`` swallows YAML errors; a verified glossary must
fail loudly instead, so entries are parsed here, with duplicate keys, unknown
keys, wrong types and bad dates all reported as ``EntryError`` naming the file
and the key.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from glossary.entries.markdown_budget import markup_problem
from measure.spec import MeasureSpec
from measure.typed import SchemaError, describe, doc, json_schema, load

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_EMPTY_FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n---[ \t]*(?:\r?\n|\Z)")
_TOP_KEY_RE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")
# An entry is a page of prose (the largest real one is 10 KB); anything this large is a mistake or
# an attack on the build.  Rendering is linear past the checks below, but not cheap: 256 KB of
# table cells or highlighted code take about two seconds to render.
MAX_ENTRY_BYTES = 256 * 1024
# The front-matter (the largest real one is 6 KB): when libyaml refuses it, the pure-Python loader
# reads it again for its messages, at about 150 KB a second.
MAX_FRONT_MATTER_BYTES = 64 * 1024
# Values the front-matter expands to, counting each use of a YAML alias as a copy of what it names:
# a real entry's is under 1,000.  Aliases share nodes, so a 15 KB document can stand for 90 million
# launch arguments (30 variants x 1,000 launches x 3,000 args), which the model would then walk one
# by one for minutes.  Counted on the node graph before anything is built, so the count is cheap.
MAX_YAML_VALUES = 100_000

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
MAX_LESSONS = 50
MAX_SOURCES = 50
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


class EntryError(Exception):
    """A malformed entry: names the file and the key, says what was expected and found."""

    def __init__(self, path: Path | str, key: str, message: str) -> None:
        where = f"{path}" + (f", key '{key}'" if key else "")
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.key = key
        self.message = message


class EntryErrors(EntryError):
    """Every malformed entry of a folder at once, so one bad file does not hide the others."""

    def __init__(self, errors: list[EntryError]) -> None:
        Exception.__init__(self, "\n".join(str(e) for e in errors))
        self.errors = list(errors)
        self.path = errors[0].path
        self.key = errors[0].key
        self.message = "\n".join(str(e) for e in errors)


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

    def validate(self) -> None:
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


@dataclass(frozen=True)
class Entry:
    """A parsed, validated entry: front-matter, body and the files it measures."""

    slug: str
    path: Path
    meta: FrontMatter
    raw_meta: dict
    body: str
    kernel_files: dict[str, bytes] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        """entries/<slug>/: kernels, reference, results."""
        return self.path.parent / self.slug

    @property
    def title(self) -> str:
        return self.meta.title


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys instead of keeping the last one."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            first = seen.get(key)
        except TypeError:  # an unhashable key ("? [a, b]"): SafeLoader reports it below
            continue
        if first is not None:
            # +2: marks count from 0 inside the front-matter, which starts on the file's line 2
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {first + 2})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


def _construct_timestamp(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
    # An impossible date such as 2026-13-45 stays text, so the model can say which key is wrong.
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except ValueError:
        return loader.construct_scalar(node)


# libyaml's parser where PyYAML was built with it: the same constructors (they work on nodes,
# whichever parser made them), about nine times faster than the pure-Python scanner
# (3.4 s against 30 s profiled over 1,000 entries, BENCHMARKS.md).
_FastLoader: type = type("_FastLoader", (yaml.CSafeLoader,), {}) if yaml.__with_libyaml__ else _StrictLoader

for _loader in (_StrictLoader, _FastLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


class _ExpansionError(Exception):
    """A front-matter whose aliases expand past MAX_YAML_VALUES (or refer to themselves)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def _load_yaml(front: str) -> Any:
    """The front-matter as data: parsed by libyaml, or on any error by the pure loader again,
    whose messages and marks (line, column, problem) are the ones users see.  Either way the
    composed node graph is sized (``_check_expansion``) before any Python value is built."""
    if _FastLoader is not _StrictLoader:
        try:
            return _load_with(_FastLoader, front)
        except (yaml.YAMLError, RecursionError):
            pass
    return _load_with(_StrictLoader, front)


def _load_with(loader_class: type, front: str) -> Any:
    loader = loader_class(front)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph that expands to more than MAX_YAML_VALUES values, or loops.

    Aliases make the graph a DAG (or, with an alias inside its own anchor, a cycle); the expanded
    size of each node is 1 + its children's, worked out once per node (iteratively: a deep
    nesting must not exhaust the stack here)."""
    if isinstance(root, yaml.ScalarNode):
        return
    sizes: dict[int, int] = {}
    on_path: set[int] = set()  # the nodes being sized: the current path from the root
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack[-1]
        ident = id(node)
        if ident in sizes:
            stack.pop()
            continue
        children = _children(node)
        if ident not in on_path:
            on_path.add(ident)
            pending = [c for c in children if not isinstance(c, yaml.ScalarNode) and id(c) not in sizes]
            for child in pending:
                if id(child) in on_path:
                    raise _ExpansionError(_top_key(root, child), "a YAML alias refers to the node that contains "
                                                                 "it, so the value would be infinite; write it out")
            if pending:
                stack.extend(pending)
                continue
        total = 1 + sum(1 if isinstance(c, yaml.ScalarNode) else sizes[id(c)] for c in children)
        sizes[ident] = min(total, MAX_YAML_VALUES + 1)  # capped: the exact excess is never needed
        on_path.discard(ident)
        stack.pop()
    if sizes[id(root)] > MAX_YAML_VALUES:
        key, biggest = "", 0
        if isinstance(root, yaml.MappingNode):
            for key_node, value_node in root.value:
                size = sizes.get(id(value_node), 1)
                if size > biggest and isinstance(key_node, yaml.ScalarNode):
                    key, biggest = key_node.value, size
        raise _ExpansionError(key, f"the front-matter expands to more than {MAX_YAML_VALUES:,} values (YAML "
                                   f"aliases count once per use); a real entry has under 1,000: write the "
                                   f"values out instead of repeating anchors")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _top_key(root: yaml.Node, node: yaml.Node) -> str:
    """The top-level key whose value is (or holds) ``node``'s anchor, as far as cheaply known."""
    if isinstance(root, yaml.MappingNode):
        for key_node, value_node in root.value:
            if value_node is node and isinstance(key_node, yaml.ScalarNode):
                return key_node.value
        mark = node.start_mark.line
        best = ""
        for key_node, _ in root.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.start_mark.line <= mark:
                best = key_node.value
        return best
    return ""


def split_front_matter(text: str, path: Path | str) -> tuple[dict, str]:
    """Split an entry into its YAML front-matter (as plain data) and its Markdown body."""
    text = text.lstrip("\ufeff")
    empty = _EMPTY_FRONT_MATTER_RE.match(text)
    if empty:
        raise EntryError(path, "title", "the front-matter is empty; it needs at least title and summary")
    match = FRONT_MATTER_RE.match(text)
    if not match:
        if re.match(r"---[ \t]*\r?\n", text):
            raise EntryError(path, "", "the front-matter opened with '---' on line 1 is never closed; "
                                       "add a line '---' after its last key")
        raise EntryError(path, "", "expected YAML front-matter between '---' lines at the top of the file")
    front = match.group(1)
    if len(front) > MAX_FRONT_MATTER_BYTES:
        raise EntryError(path, "", f"the front-matter is {len(front):,} characters; at most "
                                   f"{MAX_FRONT_MATTER_BYTES:,} are read (a real one is a few thousand): "
                                   f"move prose into the body")
    try:
        data = _load_yaml(front)
    except _ExpansionError as err:
        raise EntryError(path, err.key, err.message) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 2}, column {mark.column + 1})" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        if "\t" in problem or "'\\t'" in problem:
            problem += "; indent with spaces, not tabs"
        key = _key_at(front, mark.line) if mark else ""
        raise EntryError(path, key, f"front-matter is not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise EntryError(path, "", "front-matter nests too deeply to be an entry's") from None
    if data is None:
        raise EntryError(path, "title", "the front-matter is empty; it needs at least title and summary")
    if not isinstance(data, dict):
        raise EntryError(path, "", f"expected the front-matter to be a mapping of keys to values, "
                                   f"found {describe(data)}")
    return data, text[match.end():]


def _key_at(front: str, line: int) -> str:
    """The top-level key whose value holds front-matter line ``line`` (0-based), for messages."""
    for text in reversed(front.splitlines()[:line + 1]):
        found = _TOP_KEY_RE.match(text)
        if found:
            return found.group(1)
    return ""


def parse_entry(path: Path, entries_dir: Path, today: dt.date | None = None) -> Entry:
    """Read and validate one entry file; raises EntryError.

    ``today`` is the date that written, reviewed and checked dates may not be after (by more
    than CLOCK_SLACK); the machine's date where not given (tests pass their own)."""
    text = _read_text(path)
    data, body = split_front_matter(text, path)
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
    entry = Entry(slug=slug, path=path, meta=meta, raw_meta=data, body=body)
    if meta.measure is not None:
        files = _read_measured_files(entry, entries_dir)
        entry = Entry(slug=slug, path=path, meta=meta, raw_meta=data, body=body, kernel_files=files)
    return entry


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
    return files


def load_entries(entries_dir: Path, today: dt.date | None = None) -> dict[str, Entry]:
    """Parse every entries/*.md (except index.md) and check cross-entry references.

    Raises EntryErrors listing every malformed entry, not only the first.  ``today``: as for
    ``parse_entry``.
    """
    entries = {}
    errors: list[EntryError] = []
    paths = [p for p in sorted(entries_dir.glob("*.md")) if p.name != "index.md"]
    for path in paths:
        try:
            entry = parse_entry(path, entries_dir, today)
        except EntryError as err:
            errors.append(err)
            continue
        entries[entry.slug] = entry
    known = [p.stem for p in paths]  # a slug whose file is malformed is reported once, for that file
    for entry in entries.values():
        errors += related_problems(entry, known, entries_dir)
    if errors:
        raise EntryErrors(errors)
    return entries


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
