"""Where the A-Z index files a term: the letter it starts with, romanised for Han (issue 31).

A Latin title is filed under its first letter without accents ("Éclair" under E).  A title in Han
characters is filed under the initial of its pinyin (线程束 xiànchéngshù under X), read with
pypinyin's phrase dictionary, so a character with several readings takes the one its word gives it
where the dictionary knows the word (重复 chóngfù under C, 重要 zhòngyào under Z).  Anything else, digits and kana included, is filed under "#".  Each letter's
heading has an explicit id (``anchor``), so the jump links work in every script.
"""

from __future__ import annotations

import unicodedata

from glossary.site import termmatch

OTHER = "#"


def letter(term: str) -> str:
    """The index letter of ``term``: A-Z, or "#"."""
    first = term.strip()[:1]
    if not first:
        return OTHER
    base = unicodedata.normalize("NFKD", first)[:1].upper()
    if "A" <= base <= "Z":
        return base
    if termmatch.is_unspaced(first) and unicodedata.name(first, "").startswith("CJK"):
        return _pinyin_initial(term.strip()) or OTHER
    return OTHER


def anchor(index_letter: str) -> str:
    """The id of a letter's heading: its letter in lower case, "other" for "#"."""
    return index_letter.lower() if index_letter != OTHER else "other"


def sort_key(term: str) -> tuple[str, str, str]:
    """Sorts the index: by letter ("#" first), then a Han term by its pinyin, a Latin one by itself."""
    first = letter(term)
    spoken = term.casefold()
    if first != OTHER and not ("A" <= unicodedata.normalize("NFKD", term.strip()[:1])[:1].upper() <= "Z"):
        from pypinyin import lazy_pinyin

        spoken = " ".join(lazy_pinyin(term.strip()[:30], errors="ignore")) or spoken
    return (first if first != OTHER else "", spoken, term)


def _pinyin_initial(term: str) -> str | None:
    from pypinyin import Style, lazy_pinyin  # imported only when a Han title is filed: its dictionary is large

    head = "".join(c for c in term[:8] if termmatch.is_unspaced(c))
    initials = lazy_pinyin(head, style=Style.FIRST_LETTER, errors="ignore") if head else []
    first = initials[0][:1].upper() if initials and initials[0] else ""
    return first if "A" <= first <= "Z" else None
