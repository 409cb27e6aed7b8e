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

from glossary.typed import SchemaError, doc, json_schema, load
from measure.spec import MeasureSpec

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


class EntryError(Exception):
    """A malformed entry: names the file and the key, says what was expected and found."""

    def __init__(self, path: Path | str, key: str, message: str) -> None:
        where = f"{path}" + (f", key '{key}'" if key else "")
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.key = key
        self.message = message


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
        if not re.match(r"^https?://\S+$", self.url):
            raise SchemaError("url", f"expected an http(s) URL, found {self.url!r}")


@dataclass(frozen=True)
class FrontMatter:
    """Front-matter of a glossary entry (entries/<slug>.md)."""

    title: str = doc("the term, e.g. \"Kernel fusion\"")
    summary: str = doc("the one-sentence definition: shown under the title, in the index and in tooltips")
    related: list[str] = doc("slugs of related entries; each must resolve to entries/<slug>.md",
                             default_factory=tuple)
    tags: list[str] = doc("topic tags", default_factory=tuple)
    abbreviations: list[str] = doc("other spellings of the term that get its tooltip in other entries",
                                   default_factory=tuple)
    lessons: list[Lesson] = doc("'Where you meet this' items", default_factory=tuple)
    sources: list[Source] = doc("sources with the date they were checked", default_factory=tuple)
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
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


def _construct_timestamp(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
    # An impossible date such as 2026-13-45 stays text, so the model can say which key is wrong.
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except ValueError:
        return loader.construct_scalar(node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def split_front_matter(text: str, path: Path | str) -> tuple[dict, str]:
    """Split an entry into its YAML front-matter (as plain data) and its Markdown body."""
    match = FRONT_MATTER_RE.match(text.lstrip("\ufeff"))
    if not match:
        raise EntryError(path, "", "expected YAML front-matter between '---' lines at the top of the file")
    try:
        data = yaml.load(match.group(1), Loader=_StrictLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 2}, column {mark.column + 1})" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise EntryError(path, "", f"front-matter is not valid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise EntryError(path, "", "expected the front-matter to be a mapping of keys to values")
    return data, text[match.end():]


def parse_entry(path: Path, entries_dir: Path) -> Entry:
    """Read and validate one entry file; raises EntryError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise EntryError(path, "", f"cannot read the file: {err}") from None
    data, body = split_front_matter(text, path)
    try:
        meta = load(FrontMatter, data)
    except SchemaError as err:
        raise EntryError(path, err.key, err.message) from None
    slug = path.stem
    if not SLUG_RE.match(slug):
        raise EntryError(path, "", f"the file name must be a slug (lowercase words joined by '-'), found {slug!r}")
    entry = Entry(slug=slug, path=path, meta=meta, raw_meta=data, body=body)
    if meta.measure is not None:
        files = _read_measured_files(entry, entries_dir)
        entry = Entry(slug=slug, path=path, meta=meta, raw_meta=data, body=body, kernel_files=files)
    return entry


def _read_measured_files(entry: Entry, entries_dir: Path) -> dict[str, bytes]:
    spec = entry.meta.measure
    root = entries_dir.resolve()
    named = [(f"measure.sources[{i}]", name) for i, name in enumerate(spec.sources)]
    named.append(("measure.reference", spec.reference))
    files = {}
    for key, name in named:
        target = (entry.folder / name).resolve()
        if root not in target.parents:
            raise EntryError(entry.path, key, f"expected a file inside {entries_dir}, found {name!r}, "
                                              f"which resolves to {target}")
        if not target.is_file():
            raise EntryError(entry.path, key, f"expected a file at {entry.folder / name}, found none")
        files[name] = target.read_bytes()
    return files


def load_entries(entries_dir: Path) -> dict[str, Entry]:
    """Parse every entries/*.md (except index.md) and check cross-entry references."""
    entries = {}
    for path in sorted(entries_dir.glob("*.md")):
        if path.name == "index.md":
            continue
        entry = parse_entry(path, entries_dir)
        entries[entry.slug] = entry
    for entry in entries.values():
        for i, slug in enumerate(entry.meta.related):
            if slug not in entries:
                close = difflib.get_close_matches(slug, entries, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise EntryError(entry.path, f"related[{i}]",
                                 f"expected the slug of an entry in {entries_dir}, found {slug!r}{hint}")
    return entries


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
