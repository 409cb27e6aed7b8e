"""Aliases from link texts: the names other terms use when they link to a term.

Tooltips (``glossary.site.tooltips``) match a term's title, abbreviations and aliases in any case
and in the plural.  Prose that linked "[SMs](streaming-multiprocessor.md)" in the old glossary
loses the link's meaning unless "SMs" matches too, so each text others link a term with becomes
one of its aliases where it names the term (``naming``: a title variant, an abbreviation, or a
phrase several files link it with; never one common word) and no spelling matches it yet.  A
spelling's forms come from the tooltips' own ``Term.forms`` (case, plurals, acronyms), so "what
matches" here and on the site are one rule.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from glossary.entries.model import MAX_ABBREVIATION_CHARS, MAX_ALIASES
from glossary.importer import naming
from glossary.importer.naming import MAX_ALIAS_WORDS
from glossary.site.tooltips import Term, is_acronym

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


class _Forms:
    """Every spelling's forms as the tooltips match them (``Term.forms``: the spelling and its
    plurals, in lower case unless it is an acronym) -> the slugs that have it.  A text is a term's
    name where one of its forms is all of the text, so the look-up is one dictionary access."""

    def __init__(self) -> None:
        self.exact: dict[str, set[str]] = {}
        self.any_case: dict[str, set[str]] = {}

    def add(self, slug: str, spelling: str) -> None:
        spelling = " ".join(spelling.split())
        if not spelling:
            return
        term = Term(slug, spelling, "", is_acronym(spelling))
        forms = self.exact if term.exact else self.any_case
        for form in term.forms:
            forms.setdefault(form, set()).add(slug)

    def named(self, text: str) -> set[str]:
        """The slugs whose spelling matches all of ``text``."""
        return self.exact.get(text, set()) | self.any_case.get(text.lower(), set())


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


def _bare(text: str) -> str:
    return " ".join(_ARTICLE.sub("", " ".join(text.split())).split())


def choose(named: list[Named], uses: dict[str, list[tuple[str, str]]]) -> tuple[dict[str, list[str]],
                                                                                dict[str, list[str]]]:
    """(new aliases per slug, most used first; what was left out per slug, as sentences).

    ``uses`` maps a slug to the (link text, slug of the linking file) of each link to it (plain
    text, in link order, repeats kept).  A text is left out where it is generic ("here", "this
    page", a number), over MAX_ALIAS_WORDS words (per script: ``naming.words``) or
    MAX_ABBREVIATION_CHARS characters, one common word, a verb form of the term's name, not a
    name of the term (``naming.names``), another term's name, part of another term's title
    (unless it is this term's abbreviation), taken by a term it links to more often, or past
    MAX_ALIASES; a text a spelling already matches needs no alias and is not listed."""
    by_slug = {n.slug: n for n in named}
    forms = _Forms()
    for n in named:
        for spelling in n.spellings:
            forms.add(n.slug, spelling)
    new: dict[str, list[str]] = {slug: [] for slug in by_slug}
    left: dict[str, list[str]] = {slug: [] for slug in by_slug}
    parts = _title_parts(named)
    taken = _Forms()  # the new aliases only: a text one of them matches went to the term linked more often
    ranked = []
    for slug, links in uses.items():
        if slug not in by_slug:
            continue
        counts = Counter(_bare(text) for text, _ in links)
        linking: dict[str, set[str]] = {}
        first: dict[str, int] = {}
        for text, source in links:
            linking.setdefault(_bare(text), set()).add(source)
            first.setdefault(_bare(text), len(first))
        ranked += [(-n, first[text], slug, text, len(linking[text])) for text, n in counts.items() if text]
    for minus_n, _, slug, text, files in sorted(ranked):
        n = -minus_n
        uses_said = f"{text!r} (linked {n} time{'s' if n != 1 else ''})"
        names = forms.named(text)
        if slug in names:
            continue  # a spelling of the term matches it already
        term = by_slug[slug]
        why = _left_out(text, term, names, files, n, taken, parts)
        if why is None and term.aliases + len(new[slug]) >= MAX_ALIASES:
            why = f"the term already has {MAX_ALIASES} aliases, the most an entry may have"
        if why:
            left[slug].append(f"{uses_said}: {why}")
            continue
        if text.endswith("s") and is_acronym(text[:-1]) and len(text) > 2:
            text = text[:-1]  # 'SFUs' -> 'SFU': the tooltips match its plural
        new[slug].append(text)
        forms.add(slug, text)
        taken.add(slug, text)
    return new, left


def _left_out(text: str, term: Named, names: set[str], files: int, links: int, taken: _Forms,
              parts: dict[str, set[str]]) -> str | None:
    """Why ``text`` is no alias of ``term`` (None where it is one)."""
    if _generic(text):
        return "a generic link text, not a name"
    if naming.words(text) > MAX_ALIAS_WORDS or len(text) > MAX_ABBREVIATION_CHARS or _BREAKS.search(text):
        return (f"longer than {MAX_ALIAS_WORDS} words (two CJK characters count as one) or "
                f"{MAX_ABBREVIATION_CHARS} characters, or holds a bracket or backslash")
    given = sorted(taken.named(text))
    if given:
        return f"it links more often to {given[0]}, whose alias it became"
    if names:
        return f"it is the name of another term ({sorted(names)[0]})"
    reason = naming.names(text, term.title, term.slug, files, links)
    abbreviation = reason == "an abbreviation of the title"
    if not abbreviation and naming.is_common_word(text):
        return "one common word, not a name: as an alias it would mark every use of the word"
    if naming.is_inflection(text, term.spellings):
        return "a verb form of the term's name; the term is named as the noun"
    if reason is None:
        return (f"it does not name the term (not its title, a variant of it or an abbreviation, and "
                f"linked from fewer than {naming.SEVERAL_FILES} files, fewer than {naming.SEVERAL_LINKS} times)")
    if not abbreviation:
        inside = [other for form in Term(term.slug, text, "", is_acronym(text)).forms
                  for other in sorted(parts.get(form.lower(), ())) if other != term.slug]
        if inside:
            return f"it is part of another term's name ({inside[0]}), so it would take that term's prose too"
    return None
