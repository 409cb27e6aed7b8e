"""Aliases from link texts: the names other terms use when they link to a term.

Tooltips (``glossary.site.tooltips``) match a term's title, abbreviations and aliases in any case
and in the plural.  Prose that linked "[SMs](streaming-multiprocessor.md)" in the old glossary
loses the link's meaning unless "SMs" matches too, so each text others link a term with becomes
one of its aliases where it is a plausible name and no spelling matches it yet.  Matching is
asked of the tooltips' own ``Matcher``, so "what matches" here and on the site are one rule.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from glossary.entries.model import MAX_ABBREVIATION_CHARS, MAX_ALIASES
from glossary.site.tooltips import Matcher, Term, is_acronym

MAX_ALIAS_WORDS = 4
# Link texts that say where, not what: a text made only of these words is no name ("here",
# "this page", "click here", "more details").
GENERIC_WORDS = frozenset("""here this that these those see link links page pages more details docs documentation
above below there it its source reference next previous back section entry definition click read learn full
article the a an on in of for and or to""".split())
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_BREAKS = re.compile(r"[\\\[\]\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Named:
    """A term as aliases see it: slug, title and the spellings it already has."""

    slug: str
    title: str
    spellings: tuple[str, ...]  # title, abbreviations, aliases
    aliases: int = 0  # how many of them are aliases: new ones fill up to MAX_ALIASES


def _terms(slug: str, spellings) -> list[Term]:
    return [Term(slug, s, "", is_acronym(s)) for s in spellings if s.strip()]


def _covers(matcher: Matcher, text: str) -> Term | None:
    """The term whose spelling is all of ``text`` (as tooltips match: any case, plurals), or None."""
    found = list(matcher.scan(text))
    if len(found) == 1 and found[0][0] == 0 and found[0][1] == len(text):
        return found[0][3]
    return None


def _generic(text: str) -> bool:
    if not re.search(r"[^\W\d_]", text):
        return True  # no letter at all: a bare number, a symbol
    return all(w in GENERIC_WORDS for w in re.findall(r"\w+", text.casefold()))


def _title_parts(named: list[Named]) -> dict[str, set[str]]:
    """Every run of up to MAX_ALIAS_WORDS words of each title (lower case) -> the slugs whose title holds it."""
    parts: dict[str, set[str]] = {}
    for n in named:
        words = re.findall(r"[\w'-]+", n.title.lower())
        for i in range(len(words)):
            for j in range(i + 1, min(len(words), i + MAX_ALIAS_WORDS) + 1):
                parts.setdefault(" ".join(words[i:j]), set()).add(n.slug)
    return parts


def choose(named: list[Named], uses: dict[str, list[str]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(new aliases per slug, most used first; what was left out per slug, as sentences).

    ``uses`` maps a slug to the link texts (plain text, in link order, repeats kept) that link to it.
    A text is left out where it is generic ("here", "this page", a number), over MAX_ALIAS_WORDS
    words or MAX_ABBREVIATION_CHARS characters, another term's name, taken by a term it links to
    more often, or past MAX_ALIASES; a text a spelling already matches needs no alias and is not
    listed."""
    by_slug = {n.slug: n for n in named}
    everyone = Matcher([t for n in named for t in _terms(n.slug, n.spellings)])
    own = {n.slug: list(n.spellings) for n in named}
    new: dict[str, list[str]] = {slug: [] for slug in by_slug}
    left: dict[str, list[str]] = {slug: [] for slug in by_slug}
    parts = _title_parts(named)
    claimed: dict[str, str] = {}  # a spelling's tooltip key -> the slug that has it
    ranked = []
    for slug, texts in uses.items():
        if slug not in by_slug:
            continue
        counts = Counter(" ".join(_ARTICLE.sub("", " ".join(t.split())).split()) for t in texts)
        first = {}
        for t in texts:
            first.setdefault(" ".join(_ARTICLE.sub("", " ".join(t.split())).split()), len(first))
        ranked += [(-n, first[text], slug, text) for text, n in counts.items() if text]
    for minus_n, _, slug, text in sorted(ranked):
        n = -minus_n
        uses_said = f"{text!r} (linked {n} time{'s' if n != 1 else ''})"
        if _covers(Matcher(_terms(slug, own[slug])), text):
            continue
        if _generic(text):
            left[slug].append(f"{uses_said}: a generic link text, not a name")
            continue
        if len(text.split()) > MAX_ALIAS_WORDS or len(text) > MAX_ABBREVIATION_CHARS or _BREAKS.search(text):
            left[slug].append(f"{uses_said}: longer than {MAX_ALIAS_WORDS} words or {MAX_ABBREVIATION_CHARS} "
                              f"characters, or holds a bracket or backslash")
            continue
        other = _covers(everyone, text)
        if other is not None and other.slug != slug:
            left[slug].append(f"{uses_said}: it is the name of another term ({other.slug})")
            continue
        inside = [other for form in _terms(slug, [text])[0].forms for other in parts.get(form.lower(), ())
                  if other != slug]
        if inside:
            left[slug].append(f"{uses_said}: it is part of another term's name ({inside[0]}), so it would "
                              f"take that term's prose too")
            continue
        key = text if is_acronym(text) else text.lower()
        if claimed.get(key, slug) != slug:
            left[slug].append(f"{uses_said}: it links more often to {claimed[key]}, whose alias it became")
            continue
        if by_slug[slug].aliases + len(new[slug]) >= MAX_ALIASES:
            left[slug].append(f"{uses_said}: the term already has {MAX_ALIASES} aliases, the most an entry may have")
            continue
        claimed[key] = slug
        new[slug].append(text)
        own[slug].append(text)
    return new, left
