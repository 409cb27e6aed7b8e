"""Tooltips: each shown term's definition on hover wherever another entry uses it.

Material renders the ``abbr`` extension's ``*[Term]: definition`` lines as
tooltips (theme feature ``content.tooltips``).  This module decides which lines
a page gets: one per spelling of another shown entry (its title, the title in
lower case, its front-matter ``abbreviations``) that occurs in the page.
Refused entries are never passed in, so they contribute none.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from glossary.entries.model import Entry

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Term:
    slug: str
    spelling: str
    definition: str
    # Every \w+ run of the spelling is a whole \w+ run wherever the spelling matches (the
    # pattern's lookarounds and the spelling's own separators bound it), so a page lacking one
    # of these words cannot match: a set lookup instead of a regex search per term and page,
    # which is what keeps a thousand-entry build from costing N² regex searches.
    words: frozenset[str] = field(init=False, compare=False, repr=False)
    pattern: re.Pattern = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", frozenset(_WORD.findall(self.spelling)))
        object.__setattr__(self, "pattern", re.compile(rf"(?<![\w-]){re.escape(self.spelling)}(?![\w-])"))


# Python-Markdown's abbr extension reads "*[spelling]: definition" with the pattern
# ^[*]\[([^\\]*?)\][ ]?:[ ]*(.*)$: a spelling holding a backslash or a bracket would leave the line
# unread, a paragraph of its own where the definition is live Markdown and HTML.  Read as a
# definition, the text becomes the <abbr title="..."> attribute (see ``title_text``).
_SPELLING_BREAKS = re.compile(r"[\\\[\]\x00-\x1f\x7f-\x9f]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def terms(entries: list[Entry]) -> list[Term]:
    """Every spelling of the given entries, longest first (so 'CUDA graph' beats 'CUDA').

    A spelling that the abbreviation syntax cannot hold (a backslash or a bracket) gets no
    tooltip, and neither does an entry whose definition would read as the syntax that removes one."""
    out: dict[str, Term] = {}
    for entry in entries:
        definition = _CONTROLS.sub("", " ".join(entry.meta.summary.split()))
        if definition in ("", "''", '""'):
            continue
        spellings = [entry.meta.title, _lower_first(entry.meta.title), *entry.meta.abbreviations]
        for spelling in spellings:
            spelling = " ".join(spelling.split())
            if spelling and not _SPELLING_BREAKS.search(spelling) and spelling not in out:
                out[spelling] = Term(entry.slug, spelling, definition)
    return sorted(out.values(), key=lambda t: (-len(t.spelling), t.spelling))


def _lower_first(title: str) -> str:
    """'Kernel fusion' -> 'kernel fusion'; acronyms such as 'CUDA graph' stay as they are."""
    first = title.split(" ", 1)[0]
    if first[:1].isupper() and first[1:] == first[1:].lower():
        return title[:1].lower() + title[1:]
    return title


def definitions(markdown: str, all_terms: list[Term], own_slug: str | None) -> list[str]:
    """The ``*[spelling]: definition`` lines for terms of other entries used in ``markdown``."""
    lines = []
    present = set(_WORD.findall(markdown))
    for term in all_terms:
        if term.slug == own_slug or not term.words <= present:
            continue
        if term.pattern.search(markdown):
            lines.append(f"*[{term.spelling}]: {title_text(term.definition)}")
    return lines


def title_text(text: str) -> str:
    """``text`` as an abbreviation's definition, so that the page shows it as typed.

    Material's tooltips (``content.tooltips``) put an element's ``title`` into the page as HTML,
    so the attribute's value must be HTML-escaped text; Python-Markdown's serializer keeps
    character references in an attribute as they are (``&lt;`` stays ``&lt;`` and would reach the
    tooltip as ``<``), so the text is escaped twice: ``<`` is written ``&amp;lt;``, the attribute
    holds ``&lt;`` and the tooltip shows ``<``.
    """
    return html.escape(html.escape(text, quote=False), quote=False)


def append(markdown: str, all_terms: list[Term], own_slug: str | None) -> str:
    """``markdown`` with the abbreviation lines it needs appended."""
    lines = definitions(markdown, all_terms, own_slug)
    if not lines:
        return markdown
    return markdown.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
