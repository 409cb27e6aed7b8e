"""The publish gate: who may put an entry in front of readers.

An entry is published only with a named author and a different named
reviewer.  Names are compared after Unicode NFKC, case folding and whitespace
collapsing, so "Ada  Lovelace" and "ada lovelace" are one person, and then by
their confusable skeleton (Unicode TR39, "Unicode Security Mechanisms"), so a
Cyrillic "А" in "Аda Lovelace" does not make the author a second person.

A name is refused outright, with a reason a person can act on, when it holds
characters that change what a reader sees without being letters: bidi controls
(a right-to-left override shows "egabbaB selrahC" as "Charles Babbage"),
control characters, invisible and other format characters; or when its letters
come from more than one script (TR39 "highly restrictive" level: one script,
Common and Inherited characters aside, or Latin with the usual CJK mixes).

Unicode data comes from two libraries, never typed in here:

* ``confusable_homoglyphs`` ships Unicode's ``confusables.txt`` (as pairs) and
  ``Scripts.txt`` (as ranges);
* ``regex`` knows the character properties the standard library lacks
  (Bidi_Control, Default_Ignorable_Code_Point, Joining_Type, and the general
  categories of the current Unicode version).
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from dataclasses import dataclass

import regex
from confusable_homoglyphs import categories as _scripts

PLACEHOLDERS = frozenset({
    "", "pending", "tbd", "tba", "todo", "n/a", "na", "unknown", "anonymous", "none", "null",
    "nobody", "-", "?", "xxx", "tbc", "fixme",
})

_MARKUP = frozenset("<>[]{}`")

# Characters that are not part of any name.  Each class is a Unicode property (UCD), looked up
# through `regex`: Bidi_Control is exactly U+061C, U+200E/F, U+202A-202E and U+2066-2069.
_BIDI = regex.compile(r"\p{Bidi_Control}")
_CONTROL = regex.compile(r"\p{Cc}")
_LINE_BREAK = regex.compile(r"[\p{Zl}\p{Zp}]")
_INVISIBLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_FORMAT = regex.compile(r"\p{Cf}")
_PRIVATE = regex.compile(r"\p{Co}")
_SURROGATE = regex.compile(r"\p{Cs}")
_UNASSIGNED = regex.compile(r"\p{Cn}")
_SUSPECT = regex.compile(r"[\p{Bidi_Control}\p{Cc}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}"
                         r"\p{Cs}\p{Cn}]")
# Zero width (non-)joiners are how Persian, Malayalam, Sinhala and other scripts spell some names
# ("علی‌زاده"): they are allowed where IDNA allows them (RFC 5892, Appendix A.1 and A.2), after a
# virama, or a ZWNJ between letters that join, and refused anywhere else.
_JOINER_IN_CONTEXT = regex.compile(
    r"(?<=\p{ccc=Virama})[\u200c\u200d]"
    r"|(?<=[\p{Joining_Type=Left_Joining}\p{Joining_Type=Dual_Joining}]\p{Joining_Type=Transparent}*)\u200c"
    r"(?=\p{Joining_Type=Transparent}*[\p{Joining_Type=Right_Joining}\p{Joining_Type=Dual_Joining}])")

# TR39 section 5.2, "Highly Restrictive": a single script, or one of these mixes.
_NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})
_ALLOWED_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),  # Japanese
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),  # Chinese, with zhuyin
    frozenset({"LATIN", "HAN", "HANGUL"}),  # Korean
)

_PLACEHOLDER = "placeholder"  # a judge() wording: "no named author (author is 'TBD')"


def normalize_name(name: str | None) -> str:
    """NFKC, case-folded, invisible format characters dropped, whitespace collapsed."""
    if name is None:
        return ""
    # Format characters (zero-width space and joiners, soft hyphen, BOM) are invisible on the
    # page, so "Ada\u200bExample" must count as the same person as "AdaExample".  (A name holding
    # one is also refused, by name_problem, with the character named.)
    visible = "".join(ch for ch in unicodedata.normalize("NFKC", name) if unicodedata.category(ch) != "Cf")
    return " ".join(visible.casefold().split())


@functools.lru_cache(maxsize=8192)
def skeleton(name: str | None) -> str:
    """The TR39 confusable skeleton of the normalized name.

    ``skeleton(x) == skeleton(y)`` when x and y look alike: "Аda Lovelace" (Cyrillic А) and
    "Ada Lovelace", "ɑda" and "ada", "rn" and "m".  TR39's skeleton is NFD, each character
    replaced by its prototype from confusables.txt, NFD again; here it runs on
    :func:`normalize_name` (so it is case-blind) and also drops default-ignorable characters
    (variation selectors, Hangul fillers), which show nothing.
    """
    return _skeleton_of(normalize_name(name))


def same_person(a: str | None, b: str | None) -> bool:
    """Whether the two names look like one person's: the same skeleton, case-blind or as typed.

    The skeleton is taken after case folding, and also before it (then folded), because folding
    loses what capitals look like: all-Cyrillic "КАТЕ" reads as "KATE", but "кате" is not "kate".
    Either match is enough; neither one alone is an equivalence on its own ("Ian" looks like
    "lan", "ian" does not).
    """
    if normalize_name(a) == normalize_name(b):
        return True
    return skeleton(a) == skeleton(b) or _cased_skeleton(a) == _cased_skeleton(b)


def name_problem(name: str | None) -> str | None:
    """Why ``name`` is not an acceptable person's name (a phrase that follows "the name"), or None."""
    problem = _problem(name)
    return None if problem is None else problem[1]


def is_real_name(name: str | None) -> bool:
    """False for empty, whitespace, placeholders ('pending', 'TBD', '<pending>', 'рending' in
    Cyrillic), and for names :func:`name_problem` refuses (hidden characters, mixed scripts)."""
    return _problem(name) is None


@dataclass(frozen=True)
class Verdict:
    """The gate's answer for one entry."""

    publishable: bool
    reasons: tuple[str, ...]
    missing: tuple[str, ...]  # what a draft banner lists: short phrases

    def __bool__(self) -> bool:
        return self.publishable


def judge(author: str | None, reviewer: str | None, extra_reasons: tuple[str, ...] = ()) -> Verdict:
    """Decide whether an entry with this byline may be published.

    ``extra_reasons`` are refusals found elsewhere (a stale review, say).
    """
    reasons = []
    missing = []
    problems = {"author": _problem(author), "reviewer": _problem(reviewer)}
    for role, name in (("author", author), ("reviewer", reviewer)):
        problem = problems[role]
        if problem is None:
            continue
        kind, why = problem
        if kind == _PLACEHOLDER:
            detail = f", which {why}" if why.startswith("reads as") else ""
            reasons.append(f"no named {role} ({role} is {_shown(name)}{detail})")
            missing.append(f"a named {role}")
        else:
            reasons.append(f"the {role}'s name {why}")
            missing.append(f"{'an' if role == 'author' else 'a'} {role}'s name {_MISSING[kind]}")
    named = all(p is None or p[0] != _PLACEHOLDER for p in problems.values())
    if named and same_person(author, reviewer):
        if normalize_name(author) == normalize_name(reviewer):
            reasons.append(f"the reviewer ({reviewer!r}) is the author; a different person must review")
        else:
            reasons.append(f"the reviewer ({reviewer!r}) looks the same as the author ({author!r}); "
                           f"a different person must review")
        missing.append("a reviewer who is not the author")
    reasons.extend(extra_reasons)
    missing.extend(extra_reasons)
    return Verdict(publishable=not reasons, reasons=tuple(reasons), missing=tuple(missing))


_MISSING = {"characters": "without hidden or control characters", "script": "written in one script"}


def _shown(name: str | None) -> str:
    return "missing" if name is None else repr(name)


# -- the checks --------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _problem(name: str | None) -> tuple[str, str] | None:
    """(kind, phrase) for a name that is not acceptable; kind is placeholder, characters or script."""
    if name is None:
        return _PLACEHOLDER, "is missing"
    norm = normalize_name(name)
    if any(ch in _MARKUP for ch in norm) or "://" in norm:
        return _PLACEHOLDER, "holds markup or a link, not a person's name"
    forms = {_bare(norm), norm.strip(" .")}
    if forms & PLACEHOLDERS:
        return _PLACEHOLDER, "is empty" if not norm else "is a placeholder, not a person's name"
    if not any(ch.isalpha() for ch in norm):
        return _PLACEHOLDER, "has no letters"
    hidden = _hidden_characters(name)
    if hidden:
        return "characters", hidden
    lookalike = _placeholder_skeletons()
    for skel in (skeleton(name), _cased_skeleton(name)):
        for form in (_bare(skel), skel.strip(" .")):
            if form in lookalike:
                return _PLACEHOLDER, f"reads as the placeholder {lookalike[form]!r}"
    mixed = _mixed_scripts(name)
    if mixed:
        return "script", mixed
    return None


def _bare(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum() or ch in " /").strip()


def _hidden_characters(name: str) -> str | None:
    """'contains a right-to-left override (U+202E); delete it', or None."""
    suspects = list(_SUSPECT.finditer(name))
    if not suspects:
        return None
    allowed = {m.start() for m in _JOINER_IN_CONTEXT.finditer(name)}
    found: dict[str, str] = {}
    line_break = False
    for m in suspects:
        ch = m.group()
        if m.start() in allowed or ch in found:
            continue
        what, breaks = _describe(ch)
        found[ch] = what
        line_break = line_break or breaks
    if not found:
        return None
    described = list(found.values())
    if len(described) > 4:
        described = described[:4] + [f"{len(found) - 4} more"]
    listed = described[0] if len(described) == 1 else ", ".join(described[:-1]) + " and " + described[-1]
    if line_break:
        fix = "write the name on one line, with ordinary spaces"
    else:
        fix = "delete it" if len(found) == 1 else "delete them"
    return f"contains {listed}; {fix}"


def _describe(ch: str) -> tuple[str, bool]:
    """(how a reason names the character, whether it breaks the line)."""
    code = f"U+{ord(ch):04X}"
    label = unicodedata.name(ch, "").lower()
    if _BIDI.match(ch):
        # "a right-to-left override (U+202E), which reorders the letters on the page"
        return f"{_article(label)} {label} ({code}), which changes the order the name is shown in", False
    if _CONTROL.match(ch):
        return f"a control character ({code})", True
    if _LINE_BREAK.match(ch):
        return f"{_article(label)} {label} ({code})", True
    if _INVISIBLE.match(ch):
        return f"an invisible {label or 'character'} ({code})", False
    if _FORMAT.match(ch):
        return f"a format character ({label}, {code})" if label else f"a format character ({code})", False
    if _PRIVATE.match(ch):
        return f"a private-use character ({code}), which every font draws differently", False
    if _SURROGATE.match(ch):
        return f"a lone surrogate ({code})", False
    return f"an unassigned code point ({code})", False


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _mixed_scripts(name: str) -> str | None:
    """'mixes Latin and Cyrillic letters (Cyrillic: 'А' U+0410); ...', or None (TR39 5.2)."""
    letters: dict[str, list[str]] = {}
    for ch in unicodedata.normalize("NFKC", name):
        script = _scripts.alias(ch)
        if script not in _NEUTRAL_SCRIPTS:
            letters.setdefault(script, []).append(ch)
    used = frozenset(letters)
    if len(used) <= 1 or any(used <= mix for mix in _ALLOWED_MIXES):
        return None
    counts = Counter({script: len(chars) for script, chars in letters.items()})
    ranked = [script for script, _ in counts.most_common()]  # most letters first, then first seen
    shown = [_script_name(s) for s in ranked]
    scripts = ", ".join(shown[:-1]) + " and " + shown[-1]
    odd = []  # the letters of the scripts with fewer letters, which are likely the odd ones
    for script in ranked[1:]:
        chars = [f"{ch!r} U+{ord(ch):04X}" for ch in dict.fromkeys(letters[script])]
        if len(chars) > 3:
            chars = chars[:3] + [f"{len(chars) - 3} more"]
        odd.append(f"{_script_name(script)}: {', '.join(chars)}")
    return f"mixes {scripts} letters ({'; '.join(odd)}); write the whole name in one script"


def _script_name(alias: str) -> str:
    return "unknown-script" if alias == "Unknown" else alias.replace("_", " ").title()


# -- skeletons ---------------------------------------------------------------------


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype (a string), from Unicode's confusables.txt.

    confusable_homoglyphs keeps the file's lines ``source ; prototype`` as pairs in both
    directions, with right-to-left characters wrapped in U+200E as the file's comments show them.
    The file is transitively closed, so the pairs form stars: a prototype is linked to all its
    sources, a source to its prototype only.  Where a pair stands alone, the prototype is the one
    of several characters (sources are single characters), else the second of the line.
    """
    from confusable_homoglyphs import confusables  # loads a 900 kB table: only when a name is compared

    def clean(text: str) -> str:
        return text.replace("\u200e", "").replace("\u200f", "")

    links: dict[str, set[str]] = {}
    for source, targets in confusables.confusables_data.items():
        links.setdefault(clean(source), set()).update(clean(t["c"]) for t in targets)
    order = {key: i for i, key in enumerate(links)}  # the table's keys come in the file's line order
    mapping: dict[str, str] = {}
    for key, peers in links.items():
        if len(key) != 1 or len(peers) != 1 or not key:
            continue  # a prototype (several sources, or several characters)
        (peer,) = peers
        if len(links.get(peer, ())) > 1 or len(peer) > 1 or order.get(peer, -1) > order[key]:
            mapping[key] = peer
    # A prototype maps to itself; make that so even where a lone pair was read the other way round.
    return {key: "".join(mapping.get(ch, ch) for ch in proto) for key, proto in mapping.items()}


def _skeleton_of(text: str) -> str:
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", _INVISIBLE.sub("", text))
    mapped = unicodedata.normalize("NFD", "".join(prototypes.get(ch, ch) for ch in decomposed))
    return " ".join(mapped.split())


@functools.lru_cache(maxsize=8192)
def _cased_skeleton(name: str | None) -> str:
    """The skeleton taken before case folding, then folded: "КАТЕ" (Cyrillic) -> "kate"."""
    if name is None:
        return ""
    visible = "".join(ch for ch in unicodedata.normalize("NFKC", name) if unicodedata.category(ch) != "Cf")
    folded = unicodedata.normalize("NFKC", _skeleton_of(visible)).casefold()
    return _skeleton_of(folded)


@functools.cache
def _placeholder_skeletons() -> dict[str, str]:
    """Skeleton -> placeholder, for the placeholders that hold a letter ('рending' reads as 'pending')."""
    return {_skeleton_of(p): p for p in sorted(PLACEHOLDERS) if any(ch.isalpha() for ch in p)}
