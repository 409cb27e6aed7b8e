"""Tooltips: each shown term's definition on hover wherever another entry uses it.

Material renders the ``abbr`` extension's ``*[Term]: definition`` lines as
tooltips (theme feature ``content.tooltips``).  This module decides which lines
a page gets: one per spelling of another shown entry (its title, the title in
lower case, its front-matter ``abbreviations``) that occurs in the page.
Refused entries are never passed in, so they contribute none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from glossary.model import Entry

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


def terms(entries: list[Entry]) -> list[Term]:
    """Every spelling of the given entries, longest first (so 'CUDA graph' beats 'CUDA')."""
    out: dict[str, Term] = {}
    for entry in entries:
        definition = " ".join(entry.meta.summary.split())
        spellings = [entry.meta.title, _lower_first(entry.meta.title), *entry.meta.abbreviations]
        for spelling in spellings:
            spelling = " ".join(spelling.split())
            if spelling and "]" not in spelling and spelling not in out:
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
            lines.append(f"*[{term.spelling}]: {term.definition}")
    return lines


def append(markdown: str, all_terms: list[Term], own_slug: str | None) -> str:
    """``markdown`` with the abbreviation lines it needs appended."""
    lines = definitions(markdown, all_terms, own_slug)
    if not lines:
        return markdown
    return markdown.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
