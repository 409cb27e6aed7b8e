"""Finding terms in running text: the tooltips' matcher (issue 31), for Latin and CJK alike.

A text is read as tokens: a run of letters, digits and underscores of a script written with spaces
(Latin, Greek, Cyrillic, Hangul...), one character of a script written without them (Han, kana,
Thai...), or one other visible character (punctuation: "(", ")", "+", "/").  Whitespace is not a
token; it only marks that the next token follows a space.  A spelling is matched token by token,
so "SM" never matches inside "SMs" or "sm_90" (another token), while 线程束 matches inside
每个线程束包含 (one token per character) and "SM" inside 每个SM有 (the characters around it are Han).

Boundary rules, on the characters either side of a match:

* a match may not touch a letter, digit or underscore of a spaced script, whatever its own first or
  last character is: "CUDA C++" does not match in "CUDA C++17", ".NET" not in "ASP.NET";
  a spelling that begins or ends with a Han (kana, Thai...) character has no such rule on that side;
* a match may not be joined to a word by a hyphen: no "warp" in "warp-rank" or in "multi-warp";
* spaces between tokens must be where the spelling has them ("CUDA C/C++" is not "CUDA C / C++"),
  any run of whitespace counting as one space; beside a character of a script written without
  spaces a space is optional, as Chinese writes it either way ("L2 缓存" matches "L2缓存", and
  "CUDA核心" matches "CUDA 核心").

Tokens are compared in Unicode's compatibility form (NFKC), so the full-width forms of Chinese and
Japanese text are their ASCII letters and punctuation: "流式多处理器（SM）" matches "流式多处理器 (SM)",
and "ＳＭ" is "SM".

The longest spelling wins at each place (a trie walk, so a shorter one that the text continues past
is never taken first); acronyms ("SM", "TMA": every letter a capital) match as written, every other
spelling in any case.  Work is one tokenising pass over the text and, at each token that begins some
spelling, a walk no longer than the longest spelling (``MAX_TOKENS``), so it is linear in the text
and does not grow with the number of terms.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Callable, Generic, Iterable, Iterator, TypeVar

import regex

# Scripts written without spaces between words: a word boundary is no rule inside them.
UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\u30fc\u3005\u3006"
_TOKEN = regex.compile(rf"([{UNSPACED}])|(?:(?![{UNSPACED}])\w)+|[^\s\w]", regex.V0)  # group 1: unspaced
_UNSPACED = regex.compile(rf"[{UNSPACED}]")
_SPACED_WORD = regex.compile(rf"(?:(?![{UNSPACED}])\w)")
HYPHENS = "-\u2010\u2011"
MAX_TOKENS = 24  # the longest spelling matched, in tokens: a title is at most 120 characters

T = TypeVar("T")
_END = "\x00end"  # the trie key under which a node keeps the spellings that end there


def fold(token: str) -> str:
    """A token as it is compared: NFKC (full-width "（ＳＭ）" is "(SM)"); ASCII is left as it is."""
    return token if token.isascii() else unicodedata.normalize("NFKC", token)


def tokens(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, key, after_space) of each token of ``text``; ``key`` is the token folded
    (``fold``) and in lower case; ``after_space`` is false beside a character of an unspaced script,
    where a space is optional."""
    if text.isascii():  # no folding, no unspaced script: the common case, kept as cheap as it was
        return [(m.start(), m.end(), m.group().lower(), m.start() > 0 and text[m.start() - 1].isspace())
                for m in _TOKEN.finditer(text)]
    out = []
    unspaced = False  # the previous token's
    for m in _TOKEN.finditer(text):
        start, token = m.start(), m.group()
        space = start > 0 and text[start - 1].isspace() and not unspaced
        unspaced = m.lastindex == 1
        key = token if unspaced or token.isascii() else fold(token)  # a Han character is its own form
        out.append((start, m.end(), key.lower(), space and not unspaced))
    return out


def _edge(key: str, after_space: bool) -> str:
    return " " + key if after_space else key


def is_unspaced(char: str) -> bool:
    return bool(char) and _UNSPACED.match(char) is not None


def is_spaced_word(char: str) -> bool:
    return bool(char) and _SPACED_WORD.match(char) is not None


@dataclass(frozen=True)
class Found(Generic[T]):
    start: int
    end: int
    surface: str
    item: T


class TermMatcher(Generic[T]):
    """Longest-first matching of many spellings in one pass over a text (see the module's doc).

    ``add(spelling, item, exact)``: ``exact`` spellings match only as written, the others in any case.
    """

    def __init__(self) -> None:
        self.root: dict = {}
        self.checks = 0  # trie steps taken over every scan: what the linearity tests count
        self.passes = 0

    def add(self, spelling: str, item: T, exact: bool = False) -> bool:
        """Add a spelling; False (and nothing added) when it has no token or too many."""
        spelling = " ".join(spelling.split())
        toks = tokens(spelling)
        if not toks or len(toks) > MAX_TOKENS:
            return False
        node = self.root
        for i, (s, e, key, space) in enumerate(toks):
            node = node.setdefault(key if i == 0 else _edge(key, space), {})
        surface = tuple(fold(spelling[s:e]) for s, e, _, _ in toks) if exact else None
        node.setdefault(_END, []).append((surface, item))
        return True

    def first_keys(self) -> Iterable[str]:
        return (k for k in self.root if k != _END)

    def scan(self, text: str, allowed: Callable[[int, int], bool] | None = None) -> Iterator[Found[T]]:
        """Matches in ``text``, left to right, longest first, never overlapping.  ``allowed(start,
        end)`` may refuse a span (one that crosses markup, say): a shorter spelling is then tried."""
        self.passes += 1
        toks = tokens(text)
        n = len(toks)
        i = 0
        root = self.root
        while i < n:
            node = root.get(toks[i][2])
            if node is None or not _may_start(text, toks[i][0]):
                i += 1
                continue
            best = None
            j = i
            while True:
                self.checks += 1
                ends = node.get(_END)
                if ends is not None:
                    hit = self._accept(text, toks, i, j, ends, allowed)
                    if hit is not None:
                        best = (j, hit)
                j += 1
                if j >= n or j - i >= MAX_TOKENS:
                    break
                node = node.get(_edge(toks[j][2], toks[j][3]))
                if node is None:
                    break
            if best is None:
                i += 1
                continue
            j, item = best
            start, end = toks[i][0], toks[j][1]
            yield Found(start, end, text[start:end], item)
            i = j + 1

    @staticmethod
    def _accept(text, toks, i, j, ends, allowed):
        start, end = toks[i][0], toks[j][1]
        if not _may_end(text, end) or (allowed is not None and not allowed(start, end)):
            return None
        for surface, item in ends:
            if surface is None or tuple(fold(text[s:e]) for s, e, _, _ in toks[i:j + 1]) == surface:
                return item
        return None


def _may_start(text: str, start: int) -> bool:
    first = text[start]
    before = text[start - 1] if start else ""
    if before in HYPHENS and start > 1 and text[start - 2].isalnum():
        return False  # 'rank' of 'warp-rank'
    return is_unspaced(first) or not is_spaced_word(before)


def _may_end(text: str, end: int) -> bool:
    last = text[end - 1]
    after = text[end] if end < len(text) else ""
    if after in HYPHENS and end + 1 < len(text) and text[end + 1].isalnum():
        return False  # 'warp' of 'warp-rank'
    return is_unspaced(last) or not is_spaced_word(after)
