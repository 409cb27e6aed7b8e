"""Tooltips: each shown term's definition on hover wherever another entry uses it.

Material renders the ``abbr`` extension's ``*[Term]: definition`` lines as tooltips (theme
feature ``content.tooltips``).  The abbr extension matches each line's text exactly, case and
all, so this module finds how a page's prose actually writes each term and emits one line per
spelling found there, as written ("Shared Memory", "shared memory", "warps", "SMs").

What matches (``Matcher``):

* a shown entry's title, its front-matter ``abbreviations`` and ``aliases``; for a question-style
  title ("What is occupancy?"), the term it asks about (``question_terms``);
* in any case, except a spelling whose letters are all capitals (an acronym: "SM", "TMA"), which
  matches as written, so "sm" of ``sm_90`` or a lower-case word is never taken for it;
* in the singular or a simple English plural of its last word: +s, +es after s/x/z/ch/sh,
  y -> ies after a consonant ("SMs", "warps", "caches", "buses", "latencies");
* longest first ("CUDA graphs" beats "CUDA"), whole words only: not inside a longer word nor
  joined by a hyphen ("multi-warp", "kernel-fusion" are not "warp", "kernel").

Where (``prose``): the page's Markdown outside code (fenced and inline), link and image URLs, raw
HTML tags and their attributes, headings, attribute lists, abbreviation lines and the Related
terms section.  The abbr extension itself skips code; ``ScopeExtension`` (added by the hook) keeps
headings and the Related list free of tooltips wherever else the spelling occurs.

No tooltip for the page's own term: its spellings take part in matching (so "shared memory" on
its own page is not read as a shorter term "memory") but get no line.  Refused entries are never
passed in, so they contribute none.

Cost: one ``\\w+`` pass over the text; at each word a dictionary lookup by that word and a check
of the forms that start with it (``Matcher.checks`` counts them).  So the cost is linear in the
text and does not grow with the number of entries (a thousand-entry build pays no N x text regex
searches); only forms sharing a first word ("CUDA", "CUDA graph", "CUDA stream") are compared.
A spelling that starts with a character other than a letter, digit or underscore never matches.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from glossary.entries.model import Entry

_WORD = re.compile(r"\w+")
_JOINS = re.compile(r"[\w-]")  # a character that continues a word: a match may not end before one


@dataclass(frozen=True)
class Term:
    slug: str
    spelling: str  # as the author wrote it (title, abbreviation or alias), spaces normalised
    definition: str
    exact: bool = False  # an acronym: matches as written, not in any case

    @property
    def forms(self) -> tuple[str, ...]:
        """The spelling and its plural forms, longest first; lower case unless ``exact``."""
        base = self.spelling if self.exact else self.spelling.lower()
        return tuple(sorted({base, *plurals(base)}, key=lambda f: (-len(f), f)))


def plurals(spelling: str) -> list[str]:
    """Simple English plurals of ``spelling``'s last word: 'warp' -> 'warps', 'SM' -> 'SMs',
    'cache' -> 'caches', 'bus' -> 'buses', 'latency' -> 'latencies' (and 'latencys' never)."""
    last = _WORD.findall(spelling)[-1:] or [""]
    word = last[0]
    if not word or not spelling.endswith(word) or word[-1].isdigit() or word[-1] == "_":
        return []
    low = word.lower()
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return [spelling + ("ES" if word.isupper() and len(word) > 1 else "es")]
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return [spelling[:-1] + "ies"]
    return [spelling + "s"]


def is_acronym(spelling: str) -> bool:
    """All its letters are capitals ('SM', 'TMA', 'L2'): matched as written."""
    letters = [c for c in spelling if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


# Python-Markdown's abbr extension reads "*[spelling]: definition" with the pattern
# ^[*]\[([^\\]*?)\][ ]?:[ ]*(.*)$: a spelling holding a backslash or a bracket would leave the line
# unread, a paragraph of its own where the definition is live Markdown and HTML.  Read as a
# definition, the text becomes the <abbr title="..."> attribute (see ``title_text``).
_SPELLING_BREAKS = re.compile(r"[\\\[\]\x00-\x1f\x7f-\x9f]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def terms(entries: list[Entry]) -> list[Term]:
    """Every spelling of the given entries, longest first (so 'CUDA graph' beats 'CUDA').

    A spelling that the abbreviation syntax cannot hold (a backslash or a bracket) gets no
    tooltip, and neither does an entry whose definition would read as the syntax that removes one.
    A spelling two entries share (in any case) is the first entry's."""
    out: dict[str, Term] = {}
    for entry in entries:
        definition = _CONTROLS.sub("", " ".join(entry.meta.summary.split()))
        if definition in ("", "''", '""'):
            continue
        spellings = [*question_terms(entry.meta.title, entry.slug), *entry.meta.abbreviations, *entry.meta.aliases]
        for spelling in spellings:
            spelling = " ".join(spelling.split())
            if not spelling or _SPELLING_BREAKS.search(spelling):
                continue
            exact = is_acronym(spelling)
            key = spelling if exact else spelling.lower()
            if key not in out:
                out[key] = Term(entry.slug, spelling, definition, exact)
    return sorted(out.values(), key=lambda t: (-len(t.spelling), t.spelling))


_QUESTION = re.compile(r"^(?:what|who|which)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(.+?)\s*\??$", re.I)


def question_terms(title: str, slug: str) -> list[str]:
    """The spellings a title gives: itself, and for a question ('What is occupancy?', 'What are
    tensor cores?', 'How does a warp scheduler pick a warp?') the term it asks about: what
    follows 'What is/are (a, an, the)', and the slug's words where the title holds them
    ('warp-scheduler' -> 'warp scheduler'), since prose never writes the question."""
    title = " ".join(title.split())
    if not title.endswith("?"):
        return [title]
    out = [title]
    asked = _QUESTION.match(title)
    if asked and len(asked.group(1).split()) <= 6:
        out.append(asked.group(1))
    words = " ".join(slug.split("-"))
    if words and words.lower() in title.lower():
        at = title.lower().index(words.lower())
        out.append(title[at:at + len(words)])
    return list(dict.fromkeys(out))


class Matcher:
    """Finds the terms' spellings in a text in one pass over its words (see the module's doc)."""

    def __init__(self, all_terms: list[Term]) -> None:
        self.by_word: dict[str, list[tuple[str, Term]]] = {}
        self.checks = 0  # forms compared, over every scan: what the linearity test counts
        self.passes = 0  # passes of the word pattern over a text
        for term in all_terms:
            for form in term.forms:
                first = _WORD.match(form)
                if first is None:  # starts with punctuation: never matches
                    continue
                self.by_word.setdefault(first.group().lower(), []).append((form, term))
        for forms in self.by_word.values():
            forms.sort(key=lambda ft: -len(ft[0]))

    def scan(self, text: str):
        """(start, end, surface, term) of each match, left to right, longest first, not overlapping."""
        self.passes += 1
        done = 0
        for word in _WORD.finditer(text):
            start = word.start()
            if start < done or (start and text[start - 1] == "-"):
                continue
            candidates = self.by_word.get(word.group().lower())
            if not candidates:
                continue
            for form, term in candidates:
                self.checks += 1
                end = start + len(form)
                piece = text[start:end]
                if (piece == form if term.exact else piece.lower() == form) and not _JOINS.match(text, end):
                    yield start, end, piece, term
                    done = end
                    break


# What is not prose: where a term gets no tooltip line of its own (see the module's doc).
RELATED_HEADING = "## Related terms"
_NOT_PROSE = re.compile("|".join([
    r"^[ \t]*(?P<fence>`{3,}|~{3,}).*?^[ \t]*(?P=fence)[ \t]*$",  # fenced code
    r"(?P<ticks>`+).+?(?P=ticks)",  # inline code
    r"^" + re.escape(RELATED_HEADING) + r"[ \t]*$.*?(?=^\#{1,2}[ \t]|\Z)",  # the Related section
    r"^\#{1,6}[ \t].*?$",  # headings
    r"^\*\[.*?$",  # abbreviation lines
    r"^[ \t]*\[[^\]\n]*\]:.*?$",  # link reference definitions
    r"\]\([^)\n]*\)",  # link and image URLs (and titles)
    r"<[^>\n]*>",  # HTML tags with their attributes, autolinks
    r"https?://\S+",  # bare URLs
    r"\{:[^}\n]*\}",  # attribute lists
]), re.MULTILINE | re.DOTALL)


def prose(markdown: str) -> str:
    """``markdown`` with what is not prose blanked out (one pass)."""
    return _NOT_PROSE.sub(" ", markdown)


def definitions(markdown: str, all_terms: list[Term] | Matcher, own_slug: str | None) -> list[str]:
    """The ``*[spelling]: definition`` lines for terms of other entries used in ``markdown``'s
    prose, one per spelling as written there, longest first."""
    matcher = all_terms if isinstance(all_terms, Matcher) else Matcher(all_terms)
    found: dict[str, Term] = {}
    for _, _, surface, term in matcher.scan(prose(markdown)):
        if term.slug != own_slug:
            found.setdefault(surface, term)
    return [f"*[{s}]: {title_text(t.definition)}" for s, t in sorted(found.items(), key=lambda st: (-len(st[0]), st[0]))]


def title_text(text: str) -> str:
    """``text`` as an abbreviation's definition, so that the page shows it as typed.

    Material's tooltips (``content.tooltips``) put an element's ``title`` into the page as HTML,
    so the attribute's value must be HTML-escaped text; Python-Markdown's serializer keeps
    character references in an attribute as they are (``&lt;`` stays ``&lt;`` and would reach the
    tooltip as ``<``), so the text is escaped twice: ``<`` is written ``&amp;lt;``, the attribute
    holds ``&lt;`` and the tooltip shows ``<``.
    """
    return html.escape(html.escape(text, quote=False), quote=False)


def append(markdown: str, all_terms: list[Term] | Matcher, own_slug: str | None) -> str:
    """``markdown`` with the abbreviation lines it needs appended."""
    lines = definitions(markdown, all_terms, own_slug)
    if not lines:
        return markdown
    return markdown.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


# -- where the abbr extension may not put a tooltip ---------------------------------------------

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
RELATED_TITLE = RELATED_HEADING.lstrip("# ")


def _freeze(el: etree.Element, with_tail: bool = False) -> None:
    """Make ``el``'s text (and its descendants') atomic: the abbr extension leaves it alone."""
    if el.text and not isinstance(el.text, AtomicString):
        el.text = AtomicString(el.text)
    for child in el:
        _freeze(child, with_tail=True)
    if with_tail and el.tail and not isinstance(el.tail, AtomicString):
        el.tail = AtomicString(el.tail)


class ScopeTreeprocessor(Treeprocessor):
    """Headings and the Related terms list get no tooltip: runs after attribute lists (priority 8)
    and before the abbr extension (7)."""

    def run(self, root: etree.Element) -> None:
        related = False
        for el in root.iter():
            if el.tag in _HEADINGS:
                _freeze(el)
        for el in list(root):
            if el.tag in _HEADINGS:
                related = el.tag == "h2" and "".join(el.itertext()).strip() == RELATED_TITLE
            elif related:
                _freeze(el)


class ScopeExtension(Extension):
    def extendMarkdown(self, md) -> None:
        md.treeprocessors.register(ScopeTreeprocessor(md), "glossary-tooltip-scope", 7.5)
