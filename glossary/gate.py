"""The publish gate: who may put an entry in front of readers.

An entry is published only with a named author and a different named
reviewer.  Names are compared after Unicode NFKC, case folding and whitespace
collapsing, so "Ada  Lovelace" and "ada lovelace" are one person.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

PLACEHOLDERS = frozenset({
    "", "pending", "tbd", "tba", "todo", "n/a", "na", "unknown", "anonymous", "none", "null",
    "nobody", "-", "?", "xxx", "tbc", "fixme",
})

_MARKUP = frozenset("<>[]{}`")


def normalize_name(name: str | None) -> str:
    """NFKC, case-folded, invisible format characters dropped, whitespace collapsed."""
    if name is None:
        return ""
    # Format characters (zero-width space and joiners, soft hyphen, BOM) are invisible on the
    # page, so "Ada\u200bExample" must count as the same person as "AdaExample".
    visible = "".join(ch for ch in unicodedata.normalize("NFKC", name) if unicodedata.category(ch) != "Cf")
    return " ".join(visible.casefold().split())


def is_real_name(name: str | None) -> bool:
    """False for empty, whitespace and placeholders such as 'pending', 'TBD' or '<pending>'."""
    norm = normalize_name(name)
    bare = "".join(ch for ch in norm if ch.isalnum() or ch in " /")
    if any(ch in _MARKUP for ch in norm) or "://" in norm:
        return False  # markup or a link is not a person's name, whatever letters it holds
    return bare.strip() not in PLACEHOLDERS and norm.strip(" .") not in PLACEHOLDERS \
        and any(ch.isalpha() for ch in norm)


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
    if not is_real_name(author):
        reasons.append(f"no named author (author is {_shown(author)})")
        missing.append("a named author")
    if not is_real_name(reviewer):
        reasons.append(f"no named reviewer (reviewer is {_shown(reviewer)})")
        missing.append("a named reviewer")
    elif is_real_name(author) and normalize_name(author) == normalize_name(reviewer):
        reasons.append(f"the reviewer ({reviewer!r}) is the author; a different person must review")
        missing.append("a reviewer who is not the author")
    reasons.extend(extra_reasons)
    missing.extend(extra_reasons)
    return Verdict(publishable=not reasons, reasons=tuple(reasons), missing=tuple(missing))


def _shown(name: str | None) -> str:
    return "missing" if name is None else repr(name)
