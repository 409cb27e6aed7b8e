"""The summary repeated as the body's first sentence (issue 21).

The page shows the summary as its lead; an entry whose body opens with the same sentence
prints it twice, and so do search snippets.  ``repeated_lead`` finds that sentence
(compared word by word, ignoring case, whitespace, punctuation and Markdown emphasis), and
``without_repeated_lead`` is the body with it left out; `glossary check` warns about it.

Only a body that opens with a plain paragraph is looked at (not a heading, list, quote,
table, code, admonition or HTML), and the match must end where a sentence ends
(``.``, ``!`` or ``?``, then a space or the paragraph's end): a body that goes on
with more words after the summary's repeats none of it.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")
# Closers that may sit around the sentence's end: emphasis, code, quotes, brackets.
_CLOSERS = "*_`'\")]\u2019\u201d"
_NOT_PROSE = re.compile(r"(?:#|```|~~~|!!!|\?\?\?|<|\||>|[-*+]\s|\d+[.)]\s|\{|:|    |\t|\[\^)")


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _first_paragraph(body: str) -> tuple[int, int] | None:
    """(start, end) offsets of the body's opening paragraph, or None where it opens otherwise."""
    match = re.match(r"(?:[ \t]*\n)*", body)
    start = match.end()
    if start >= len(body) or _NOT_PROSE.match(body, start):
        return None
    blank = re.compile(r"\n[ \t]*(?:\n|$)").search(body, start)
    return start, (blank.start() if blank else len(body))


def repeated_lead(summary: str, body: str) -> tuple[int, int] | None:
    """(start, end) of the body's first sentence where it repeats ``summary``; None where it does not.

    ``end`` takes in the sentence's closing punctuation and the spaces after it.
    """
    wanted = _words(summary)
    para = _first_paragraph(body)
    if not wanted or para is None:
        return None
    start, stop = para
    found = list(_WORD.finditer(body, start, stop))
    if len(found) < len(wanted) or [m.group(0).casefold() for m in found[:len(wanted)]] != wanted:
        return None
    end = found[len(wanted) - 1].end()
    while end < stop and body[end] in _CLOSERS:
        end += 1
    if end >= stop or body[end] not in ".!?":
        return None
    while end < stop and body[end] in ".!?\u2026" + _CLOSERS:
        end += 1
    if end < stop and not body[end].isspace():
        return None
    while end < stop and body[end].isspace():
        end += 1
    return start, end


def without_repeated_lead(summary: str, body: str) -> str:
    """``body`` without an opening sentence that repeats ``summary`` (and without its paragraph,
    where that sentence was all of it); otherwise ``body`` unchanged."""
    span = repeated_lead(summary, body)
    if span is None:
        return body
    start, end = span
    rest = body[end:]
    if _first_paragraph(body) == (start, end) or not rest[:1] or rest.startswith("\n"):
        rest = rest.lstrip("\n")  # the paragraph was only that sentence: drop it and its blank lines
    return body[:start] + rest


def lead_warning(path, summary: str, body: str) -> str | None:
    """The `glossary check` warning for an entry whose body opens by repeating its summary."""
    if repeated_lead(summary, body) is None:
        return None
    return (f"{path}: the body's first sentence repeats the summary, which the page already shows "
            f"as its lead; the page and its search snippet leave the repeated sentence out (delete it "
            f"from the body, or say something new there)")
