"""Tooltips: each shown term's definition on hover wherever another entry uses it.

This module knows the terms: which spellings an entry gives (``terms``), their forms, and which
of them a page may use (``Matcher.candidates``, ``table``).  The tooltips themselves are placed
over each page's rendered HTML by ``glossary.site.tooltip_html``, with the matcher of
``glossary.site.termmatch`` (issue 31: Python-Markdown's abbr, with its ``\\b...\\b``, never
matched after ")" or "+" and wrapped every occurrence everywhere).

What matches:

* a shown entry's title, its front-matter ``abbreviations`` and ``aliases``; for a question-style
  title ("What is occupancy?", "什么是共享内存？"), the term it asks about (``question_terms``);
* in any case, except a spelling whose letters are all capitals (an acronym: "SM", "TMA"), which
  matches as written, so "sm" of ``sm_90`` or a lower-case word is never taken for it;
* in the singular or a simple English plural of its last word (a noun's inflection matches as the
  noun): +s, +es after s/x/z/ch/sh, y -> ies after a consonant ("SMs", "warps", "caches",
  "latencies"); a Han word has no plural;
* longest first ("CUDA graphs" beats "CUDA"), with termmatch's boundary rules.

No tooltip for the page's own term: its spellings take part in matching (so "shared memory" on
its own page is not read as a shorter term "memory") but get none.  Refused entries are never
passed in, so they contribute none.  ``ScopeExtension`` still keeps the author's own
abbreviations (``*[x]: y`` lines, for Python-Markdown's abbr) out of headings and the Related list.
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
from glossary.site import termmatch

_WORD = re.compile(r"\w+")


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
    if not word or not spelling.endswith(word) or not word[-1].isalpha() or termmatch.is_unspaced(word[-1]):
        return []  # no plural after a digit, an underscore or a Han character (Chinese marks no plural)
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
# Chinese: 什么是线程束？ ("what is a warp?") and 线程束是什么？ ("a warp is what?")
_QUESTION_ZH = re.compile(r"^(?:什么是|何为|何谓)\s*(.+?)\s*[？?]$|^(.+?)\s*(?:是什么|是啥)\s*[？?]$")


def question_terms(title: str, slug: str) -> list[str]:
    """The spellings a title gives: itself, and for a question ('What is occupancy?', 'What are
    tensor cores?', 'How does a warp scheduler pick a warp?') the term it asks about: what
    follows 'What is/are (a, an, the)', and the slug's words where the title holds them
    ('warp-scheduler' -> 'warp scheduler'), since prose never writes the question."""
    title = " ".join(title.split())
    if not title.endswith(("?", "？")):
        return [title]
    out = [title]
    asked = _QUESTION.match(title)
    if asked and len(asked.group(1).split()) <= 6:
        out.append(asked.group(1))
    asked_zh = _QUESTION_ZH.match(title)
    if asked_zh and len(asked := asked_zh.group(1) or asked_zh.group(2)) <= 30:
        out.append(asked)
    words = " ".join(slug.split("-"))
    if words and words.lower() in title.lower():
        at = title.lower().index(words.lower())
        out.append(title[at:at + len(words)])
    return list(dict.fromkeys(out))


class Matcher:
    """Every shown term's forms, indexed for the render stage's one question per page: which terms
    may this page use?  (``candidates``; the tooltips themselves are placed later, over the page's
    HTML, by ``glossary.site.tooltip_html``.)"""

    def __init__(self, all_terms: list[Term]) -> None:
        self.terms = list(all_terms)
        self.definitions: dict[str, str] = {}
        self.by_key: dict[str, list[tuple[frozenset[str], Term]]] = {}
        self.checks = 0  # forms compared over every page: what the linearity test counts
        for term in self.terms:
            self.definitions.setdefault(term.slug, term.definition)
            for form in term.forms:
                keys = _loose_keys(form)
                if keys:
                    first = min(keys)  # any one key of the form indexes it: all of them must be on the page
                    self.by_key.setdefault(first, []).append((frozenset(keys), term))

    def candidates(self, markdown: str) -> tuple[list[Term], set[str]]:
        """The terms whose every word (or Han character) occurs somewhere in ``markdown``, and the
        shown slugs it links to (``slug.md``): a superset of what the page can show, found in one
        pass over the text.  Markdown's markup is no obstacle (``_warps_``, ``C\\+\\+``, ``&amp;``)."""
        keys = set(_loose_keys(markdown))
        found: dict[tuple[str, str], Term] = {}
        for key in keys:
            for need, term in self.by_key.get(key, ()):
                self.checks += 1
                if need <= keys:
                    found.setdefault((term.slug, term.spelling), term)
        linked = {m.group(1) for m in _MD_LINK.finditer(markdown)} & self.definitions.keys()
        return list(found.values()), linked


_BACKSLASHED = re.compile(r"\\([!-/:-@\[-`{-~])")
_MD_LINK = re.compile(r"(?<![\w-])([a-z0-9][a-z0-9-]*)\.md(?![\w-])")


def _loose_keys(text: str) -> list[str]:
    text = html.unescape(_BACKSLASHED.sub(r"\1", text)).replace("_", " ")
    return [key for _, _, key, _ in termmatch.tokens(text) if key.isalnum()]

def title_text(text: str) -> str:
    """``text`` as an abbreviation's definition, so that the page shows it as typed.

    Material's tooltips (``content.tooltips``) put an element's ``title`` into the page as HTML,
    so the attribute's value must be HTML-escaped text; Python-Markdown's serializer keeps
    character references in an attribute as they are (``&lt;`` stays ``&lt;`` and would reach the
    tooltip as ``<``), so the text is escaped twice: ``<`` is written ``&amp;lt;``, the attribute
    holds ``&lt;`` and the tooltip shows ``<``.
    """
    return html.escape(html.escape(text, quote=False), quote=False)


def table(markdown: str, all_terms: list[Term] | Matcher, own_slug: str | None) -> dict:
    """What the page's tooltips need (``glossary.site.tooltip_html`` reads it back): the spellings
    of the terms it may use, its own term's among them (they take part in matching, so "scratchpad
    memory" on its own page is not read as a shorter term "memory", but get no tooltip), and the
    definitions of those terms and of the entries it links to."""
    from glossary.site import tooltip_html

    matcher = all_terms if isinstance(all_terms, Matcher) else Matcher(all_terms)
    used, linked = matcher.candidates("\n".join(tooltip_html.prose_parts(markdown)))
    if own_slug is not None:
        used += [t for t in matcher.terms if t.slug == own_slug]
    spellings = sorted({(t.slug, t.spelling) for t in used})
    slugs = {s for s, _ in spellings} | linked
    return {"own": own_slug, "spellings": [list(s) for s in spellings],
            "definitions": {s: matcher.definitions[s] for s in sorted(slugs) if s != own_slug}}


def append(markdown: str, all_terms: list[Term] | Matcher, own_slug: str | None) -> str:
    """``markdown`` with the tooltip table its page needs appended (``tooltip_html.carrier``)."""
    from glossary.site import tooltip_html

    page_table = table(markdown, all_terms, own_slug)
    if not page_table["definitions"]:
        return markdown
    return markdown.rstrip("\n") + "\n\n" + tooltip_html.carrier(page_table) + "\n"

# -- where the abbr extension may not put a tooltip ---------------------------------------------

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
RELATED_HEADING = "## Related terms"
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


def mentions(text: str, all_terms: list[Term] | Matcher, own_slug: str | None = None) -> list[tuple[str, Term]]:
    """Every use of another entry's term in plain ``text`` (no markup, no one-per-section rule), as
    written, with its term: what the matcher finds, for checks and tests."""
    from glossary.site import tooltip_html

    matcher = all_terms if isinstance(all_terms, Matcher) else Matcher(all_terms)
    page = tooltip_html.PageTerms(table(text, matcher, own_slug))
    by_slug = {t.slug: t for t in reversed(matcher.terms)}
    return [(f.surface, by_slug[f.item]) for f in page.matcher.scan(text) if f.item != own_slug]
