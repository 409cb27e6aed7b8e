"""Code in an entry's Markdown: where fenced blocks and code spans are, and the text with them masked.

Code is shown as typed, so the bound figures (``glossary.figures.bind``), the prose checks
(``glossary.verdicts.assess``) and the image links (``glossary.entries.images``) read the body
with its code replaced by placeholders.  It lives with the entries, the lowest stage, so each
stage above can use it (the hand-typed-figure lint, ``glossary.entries.lint``, too).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)")


def code_regions(text: str) -> list[tuple[int, int]]:
    """(start, end) character ranges of fenced code blocks and inline code spans in Markdown.

    Code is shown as typed: nothing in it is a figure, a scaffold marker or template code.
    An unclosed fence runs to the end, as Markdown renders it.
    """
    regions: list[tuple[int, int]] = []
    fence: tuple[str, int] | None = None
    prose_from = 0
    for match in _FENCE.finditer(text):
        marker = match.group(1)
        if fence is None:
            regions += _spans(text, prose_from, match.start())
            fence = (marker, match.start())
        elif marker[0] == fence[0][0] and len(marker) >= len(fence[0]):
            end = text.find("\n", match.end())
            end = len(text) if end < 0 else end
            regions.append((fence[1], end))
            fence, prose_from = None, end
    if fence is not None:
        regions.append((fence[1], len(text)))
    else:
        regions += _spans(text, prose_from, len(text))
    return regions


def _spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _CODE_SPAN.finditer(text, start, end)]


def mask_code(text: str) -> tuple[str, list[str]]:
    """``text`` with each code region replaced by a placeholder of the same line count, and the regions."""
    out, codes, at = [], [], 0
    for start, end in code_regions(text):
        out.append(text[at:start])
        codes.append(text[start:end])
        out.append(f"\x00{len(codes) - 1}\x00" + "\n" * text.count("\n", start, end))
        at = end
    out.append(text[at:])
    return "".join(out), codes


def unmask_code(text: str, codes: list[str]) -> str:
    """``text`` from ``mask_code`` with each placeholder replaced by its code region again."""
    for i, code in enumerate(codes):
        text = text.replace(f"\x00{i}\x00" + "\n" * code.count("\n"), code, 1)
    return text
