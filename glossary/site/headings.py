"""Ids for headings written in Han, kana or Thai script (issue 31).

Python-Markdown's default slugify keeps ASCII only, so a heading in Chinese gets an empty slug and
then ``_1``, ``_2``: ids that change whenever a heading is added above and that no link can name
(``#什么是线程束`` is dead).  This treeprocessor runs before ``toc`` and gives such a heading (one
without an id of its own) the id of its text: lower case, its punctuation dropped, spaces as
``-``, Han and other letters kept (``什么是线程束``, ``线程束-warp``), made unique on the page as toc does.
Headings in Latin script keep the ids they had.
"""

from __future__ import annotations

import unicodedata

import regex
from markdown.extensions import Extension
from markdown.extensions.toc import unique
from markdown.treeprocessors import Treeprocessor

from glossary.site import termmatch

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_PLACEHOLDER = regex.compile(r"\x02[^\x03]*\x03")  # Python-Markdown's stashed inline HTML
_DROP = regex.compile(r"[^\w\s-]")
_SPACES = regex.compile(r"[\s-]+")
MAX_ID_CHARS = 80


def slug(text: str) -> str:
    """The id of a heading's text: lower case, punctuation dropped, spaces as '-', letters of
    every script kept."""
    text = unicodedata.normalize("NFKC", _PLACEHOLDER.sub("", text))
    return _SPACES.sub("-", _DROP.sub("", text).strip().lower()).strip("-")[:MAX_ID_CHARS].strip("-")


def needs_id(text: str) -> bool:
    return any(termmatch.is_unspaced(c) for c in text)


class HeadingIdTreeprocessor(Treeprocessor):
    def run(self, root) -> None:
        used = {el.get("id") for el in root.iter() if el.get("id")}
        for el in root.iter():
            if el.tag in _HEADINGS and "id" not in el.attrib:
                text = "".join(el.itertext())
                if needs_id(text) and (base := slug(text)):
                    el.set("id", unique(base, used))
                    used.add(el.get("id"))


class HeadingIdExtension(Extension):
    def extendMarkdown(self, md) -> None:
        # after attribute lists (8: an explicit {#id} stays) and before toc (5), which keeps an id it finds
        md.treeprocessors.register(HeadingIdTreeprocessor(md), "glossary-heading-ids", 6)


def makeExtension(**kwargs) -> HeadingIdExtension:  # noqa: N802 (Python-Markdown's name)
    return HeadingIdExtension(**kwargs)
