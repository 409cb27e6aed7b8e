"""Lessons: course day numbers resolved to titles and URLs through one data file.

The catalogue is ``data/lessons.yml`` beside ``mkdocs.yml`` (another path can
be set with ``extra.glossary.lessons``).  It maps a day number to its title and,
where the lesson is online, its URL::

    48: {title: Kernel fusion, url: "https://example.org/course/day-48/"}

An entry's lesson whose day is not in the catalogue keeps the entry's own title
and has no link.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from glossary.entries.model import Entry, Lesson

DEFAULT_PATH = "data/lessons.yml"


class LessonsError(ValueError):
    """A malformed catalogue: the message names the file and the day."""


@dataclass(frozen=True)
class CatalogLesson:
    title: str
    url: str | None = None


def load_catalog(path: Path) -> dict[int, CatalogLesson]:
    """The catalogue at ``path``; empty when the file does not exist."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        raise LessonsError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise LessonsError(f"{path}: expected a mapping of day numbers to {{title, url}}")
    catalog = {}
    for day, item in data.items():
        if not isinstance(day, int) or isinstance(day, bool):
            raise LessonsError(f"{path}, day {day!r}: expected a day number")
        if not isinstance(item, dict) or not isinstance(item.get("title"), str) or not item["title"].strip():
            raise LessonsError(f"{path}, day {day}: expected {{title: ..., url: ...}} with a non-empty title")
        unknown = set(item) - {"title", "url"}
        if unknown:
            raise LessonsError(f"{path}, day {day}: unknown key(s) {', '.join(sorted(unknown))}; "
                               f"expected title and url")
        url = item.get("url")
        if url is not None and not (isinstance(url, str) and re.match(r"^https?://\S+$", url)):
            raise LessonsError(f"{path}, day {day}, key 'url': expected an http(s) URL, found {url!r}")
        catalog[day] = CatalogLesson(title=item["title"].strip(), url=url)
    return catalog


class DayEntries(list):
    """The entries that list one lesson day ({slug, title}), with their slugs as a set: each page asks
    whether its own entry is among them, and a scan of the list on every page was N x N."""

    @functools.cached_property
    def slugs(self) -> frozenset[str]:
        return frozenset(e["slug"] for e in self)


def entries_by_day(entries: list[Entry]) -> dict[int, list[dict]]:
    """Day -> the entries that list it ({slug, title}, by title): where else a lesson meets the reader."""
    out: dict[int, DayEntries] = {}
    for entry in sorted(entries, key=lambda e: e.title.casefold()):
        for day in dict.fromkeys(lesson.day for lesson in entry.meta.lessons):
            out.setdefault(day, DayEntries()).append({"slug": entry.slug, "title": entry.title})
    return out


def resolve(lessons: list[Lesson], catalog: dict[int, CatalogLesson],
            by_day: dict[int, list[dict]] | None = None, own_slug: str | None = None) -> list[dict]:
    """Plain values for the template: day, title, url (or None), note, and the other entries of
    this glossary that the same lesson meets (from ``entries_by_day``), in the entry's order."""
    out = []
    for lesson in lessons:
        known = catalog.get(lesson.day)
        out.append({
            "day": lesson.day,
            "title": known.title if known else lesson.title,
            "url": known.url if known else None,
            "note": lesson.note,
            **_others((by_day or {}).get(lesson.day, []), own_slug),
        })
    return out


MAX_LINKED = 5  # a lesson that many entries list links a few, not all: N links on N pages is N^2


def _others(entries: list[dict], own_slug: str | None) -> dict:
    # the first MAX_LINKED others and how many more: a page reads a few of the list, not all of it
    head = []
    for e in entries:
        if e["slug"] != own_slug:
            head.append(e)
            if len(head) == MAX_LINKED:
                break
    slugs = entries.slugs if isinstance(entries, DayEntries) else {e["slug"] for e in entries}
    others = len(entries) - (own_slug in slugs)  # an entry lists a day once (entries_by_day)
    return {"entries": head, "more_entries": max(0, others - MAX_LINKED)}
