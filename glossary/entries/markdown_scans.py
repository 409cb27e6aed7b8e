"""What each of the build's scanners would read of an entry body, estimated without running it.

Python-Markdown's link parser and code-span regex, html.parser, and glossary.entries.lint's
template scan each read from an opener to its closer (or to the end of the text).  Each
estimate here adds that work up in a :class:`Cost`, in one linear pass (a stack or a
sorted-position look-up), and stops once the cost's limit is passed.  The limits, and what
is refused, are in ``glossary.entries.markdown_budget``.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_SQUARE = re.compile(r"[\[\]]")
_ROUND = re.compile(r"[()]")
_QUOTE = re.compile(r"[\"']")
_TICKS = re.compile(r"`+")
_EMPHASIS = re.compile(r"\*+|_+")
_HTML_OPEN = re.compile(r"<(?:[A-Za-z]|/|!|\?)")
_QUOTED_VALUE = re.compile(r"=\s*([\"'])")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# glossary.entries.lint blanks fenced code with this pattern before it scans for template code.
_LINT_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
_TEMPLATE_MARKS = (("{{", "}}"), ("{%", "%}"), ("{#", "#}"))


@dataclass
class Cost:
    """One scanner's estimated work: characters read so far, and the opener that costs most (the
    position the message names).  Estimating stops once ``limit`` is passed: the rest is not needed."""

    what: str
    limit: int
    advice: str
    copies: bool = False  # the paragraph-rebuilding estimate, not a scan from openers
    chars: int = 0
    worst: int = -1
    worst_chars: int = -1
    worst_closed: bool = True

    @property
    def over(self) -> bool:
        return self.chars > self.limit

    def add(self, pos: int, chars: int, closed: bool = True) -> None:
        self.chars += chars
        if chars > self.worst_chars:
            self.worst, self.worst_chars, self.worst_closed = pos, chars, closed

    def message(self) -> str:
        if self.copies:
            return (f"the paragraph starting on this line has so much inline markup for its length that the "
                    f"Markdown renderer would copy more than {self.limit:,} characters rebuilding it (a second "
                    f"or so of build): {self.advice}")
        reach = "to its closer" if self.worst_closed else "to the end of the text, never closed"
        return (f"{self.what} in the body would make the build's parsers read more than {self.limit:,} "
                f"characters (a second or so of build); the costliest starts on this line and reads "
                f"{self.worst_chars:,} characters {reach}: {self.advice}")


def link_cost(text: str, start: int, cost: Cost) -> None:
    """Python-Markdown's link parser: each '[' to its matching ']', each '](' to its ')'."""
    end = len(text)
    stack: list[int] = []
    for m in _SQUARE.finditer(text):
        if m.group() == "[":
            stack.append(m.start())
        elif stack:
            p = stack.pop()
            cost.add(start + p, m.start() - p)
            if cost.over:
                return
    _add_unclosed(cost, stack, start, end)
    if "](" not in text or cost.over:
        return
    quotes = [m.start() for m in _QUOTE.finditer(text)]
    stack = []
    for m in _ROUND.finditer(text):
        p = m.start()
        if m.group() == "(":
            stack.append(p)
        elif stack:
            q = stack.pop()
            if q and text[q - 1] == "]":
                # a quote inside makes the parser look for a title's closing quote, up to the end
                quoted = bisect.bisect_right(quotes, q) < bisect.bisect_left(quotes, p)
                cost.add(start + q, (end - q) if quoted else (p - q))
                if cost.over:
                    return
    _add_unclosed(cost, [q for q in stack if q and text[q - 1] == "]"], start, end)


def _add_unclosed(cost: Cost, opened: list[int], start: int, end: int) -> None:
    """Openers never closed: each reads to ``end``; the first of them reads farthest."""
    if opened:
        cost.chars += len(opened) * end - sum(opened)
        if end - opened[0] > cost.worst_chars:
            cost.worst, cost.worst_chars, cost.worst_closed = start + opened[0], end - opened[0], False


def tick_cost(text: str, start: int, cost: Cost) -> int:
    """The code-span regex: a backtick run is closed by the next run of the same length.
    Returns the code spans the text can hold (half its runs)."""
    runs = [(m.start(), m.end() - m.start()) for m in _TICKS.finditer(text)]
    if cost.over:
        return len(runs) // 2
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        following[i] = last.get(runs[i][1])
        last[runs[i][1]] = i
    i = 0
    while i < len(runs):
        j = following[i]
        if j is None:
            cost.add(start + runs[i][0], len(text) - runs[i][0], closed=False)
            i += 1
        else:
            cost.add(start + runs[i][0], runs[j][0] - runs[i][0])
            i = j + 1
        if cost.over:
            break
    return len(runs) // 2


def emphasis(text: str, limit: int) -> tuple[int, int | None]:
    """The emphasis pairs of a paragraph, and the position in ``text`` where they first nest deeper
    than ``limit`` (each level is a recursive call of the renderer), or None."""
    stacks: dict[str, list[int]] = {"*": [], "_": []}
    events: list[tuple[int, int]] = []
    runs = 0  # runs that can delimit emphasis, intraword '*' included ('a*b*c' is emphasis)
    for m in _EMPHASIS.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if before.isspace() and after.isspace() or m.group()[0] == "_" and before.isalnum() and after.isalnum():
            continue
        runs += 1
        opens = not after.isspace() and (before.isspace() or before in _PUNCT)
        closes = not before.isspace() and (after.isspace() or after in _PUNCT)
        if opens and not closes:
            stacks[m.group()[0]].append(m.start())
        elif closes and not opens and stacks[m.group()[0]]:
            events.append((stacks[m.group()[0]].pop(), 1))
            events.append((m.start(), -1))
    pairs = runs // 2
    if len(events) // 2 <= limit:
        return pairs, None
    depth = 0
    for pos, step in sorted(events):
        depth += step
        if depth > limit:
            return pairs, pos
    return pairs, None


def template_cost(body: str, cost: Cost) -> None:
    """glossary.entries.lint's lazy scan from each '{{', '{%' or '{#' outside fenced code to its closer."""
    fenced = [(m.start(), m.end()) for m in _LINT_FENCE.finditer(body)]
    starts = [a for a, _ in fenced]
    n = len(body)
    for opener, closer in _TEMPLATE_MARKS:
        if opener not in body:
            continue
        ends = [m.start() for m in re.finditer(re.escape(closer), body)]
        for m in re.finditer(f"(?={re.escape(opener)})", body):
            p = m.start()
            k = bisect.bisect_right(starts, p) - 1
            if k >= 0 and p < fenced[k][1]:
                continue  # inside fenced code, which the scan never sees
            j = bisect.bisect_left(ends, p + 2)
            end = ends[j] if j < len(ends) else n
            cost.add(p, end - p, closed=j < len(ends))
            if cost.over:
                return


def html_cost(body: str, cost: Cost) -> None:
    """html.parser's scan from each '<' that opens markup to its end (quote-aware for start tags,
    whose quoted attribute values may hold '>'), and the link regexes' from each '[' to the next ']'."""
    n = len(body)
    if "[" in body:
        closers = [m.start() for m in re.finditer(r"\]", body)]
        for m in re.finditer(r"\[", body):
            k = bisect.bisect_right(closers, m.start())
            cost.add(m.start(), (closers[k] if k < len(closers) else n) - m.start(), closed=k < len(closers))
            if cost.over:
                return
    if "<" not in body:
        return
    gts = [m.start() for m in re.finditer(">", body)]
    comment_ends = [m.start() for m in re.finditer("-->", body)]
    section_ends = [m.start() for m in re.finditer(r"\]\]>", body)]
    quoted = [(m.start(), m.end(), m.group(1)) for m in _QUOTED_VALUE.finditer(body)]
    quoted_starts = [q[0] for q in quoted]
    quote_at = {'"': [m.start() for m in re.finditer('"', body)], "'": [m.start() for m in re.finditer("'", body)]}
    memo: dict[int, int] = {}

    def following(positions: list[int], pos: int) -> int:
        k = bisect.bisect_left(positions, pos)
        return positions[k] if k < len(positions) else n

    def tag_end(pos: int) -> int:
        chain = []
        while True:
            gt = following(gts, pos)
            k = bisect.bisect_left(quoted_starts, pos)
            if k >= len(quoted) or quoted[k][0] > gt:
                result = gt
                break
            if k in memo:
                result = memo[k]
                break
            chain.append(k)
            close = following(quote_at[quoted[k][2]], quoted[k][1])
            if close >= n:
                result = n
                break
            pos = close + 1
        for k in chain:
            memo[k] = result
        return result

    for m in _HTML_OPEN.finditer(body):
        p = m.start()
        if body.startswith("<!--", p):
            end = following(comment_ends, p + 4)
        elif body.startswith("<![", p):
            end = following(section_ends, p + 3)
        elif body[p + 1] in "/!?":
            end = following(gts, p + 2)
        else:
            end = tag_end(p + 2)
        cost.add(p, end - p, closed=end < n)
        if cost.over:
            break
