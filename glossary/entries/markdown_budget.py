"""Bounded Markdown: an entry body's cost to render, estimated before anything renders it.

Python-Markdown, Jinja (the figure templates) and the glossary's own regexes take quadratic
time or recurse without bound on some bodies, and a body reaches the build and `glossary
check` before any person reads it.  ``markup_problem`` estimates, in one linear pass and
without rendering, the work each known scanner would do, and refuses a body past a budget;
the entry model (``glossary.entries.model.parse_entry``) calls it.  What each scanner would
read is estimated in ``glossary.entries.markdown_scans``; the limits and the rules are here.
"""

from __future__ import annotations

import re

from glossary.entries.markdown_scans import Cost, emphasis, html_cost, link_cost, template_cost, tick_cost

# ---------------------------------------------------------------------------------------------
# Bounded Markdown.  Python-Markdown, Jinja (the figure templates) and the glossary's own regexes
# take quadratic time or recurse without bound on some bodies, and a body reaches the build and
# `glossary check` before any person reads it.  ``markup_problem`` estimates, in one linear pass
# and without rendering, the work each known scanner would do, and refuses a body past a budget.
# The estimates count every line, fenced code included: a fence that Python-Markdown does not take
# as code (an unclosed or mismatched one) would otherwise let a pattern through, and ordinary code
# closes its brackets, so it costs next to nothing here.  The timings below are from full
# `mkdocs build`s of a one-entry project on the 2-core development machine; at every limit the
# build takes at most about 1.5 s more than for an empty body (tests/test_bounds.py).

# Characters Python-Markdown's link parser (getText/getLink, a Python loop) and its code-span
# regex (a lazy match with a back-reference) read: each '[' is scanned to its matching ']' or to
# the end of its paragraph, each '](' to its ')' (to the end where a quoted title opens inside),
# each backtick run to the next run of the same length.  They read ~1.5 million characters a
# second; 20 KB of '[' on one line is 200 million (over 30 s), where a paragraph of a thousand
# ordinary links is about 10,000.
MAX_INLINE_SCAN = 1_000_000
# Characters the raw-HTML block parser (html.parser, over the whole document) reads from each
# '<' that opens a tag, comment or declaration to its '>' (past quoted attribute values), plus
# what the glossary's link regexes read from each '[' to the next ']'.  A few million characters
# a second in a build; 20 KB of '<a ' is 70 million.
MAX_HTML_SCAN = 2_000_000
# Characters glossary.entries.lint's figure scan reads from each '{{', '{%' or '{#' outside fenced code to
# its '}}', '%}' or '#}' (a lazy regex, ~100 million characters a second): 250 KB of '{% ' ran
# for over two minutes; 500 PTX register lists '{%f2, %f3}' in code spans of a 15 KB body are 8
# million.
MAX_TEMPLATE_SCAN = 50_000_000
# Brackets ( [ { open inside one another, over the whole body: the figure templates' parser
# (Jinja, glossary.figures.bind) recurses per level and exhausts Python's stack at about 70 ("{{ ((((..."
# in 3 KB was a RecursionError); code and prose nest 5 deep or so.
MAX_BRACKET_NESTING = 32
# Container markers ('>', '-', '*', '+', '1.') that open a line, and the columns of a line's
# container prefix (indentation and markers): Python-Markdown nests a block per marker and per
# 4 columns, recursively; 400 levels exhaust Python's stack (a RecursionError), and a ladder of
# nested quotes costs depth x length.  Real entries nest 3 or 4 deep.
MAX_LINE_NESTING = 16
MAX_PREFIX_COLUMNS = 120
# Emphasis nested inside emphasis ('*a *b ... c* d*') in one paragraph: each level is a recursive
# call; about 900 exhaust Python's stack.  Prose nests 2 or 3 deep.
MAX_EMPHASIS_NESTING = 64
# Inline elements (links, code spans, emphasis pairs, tags, entities, escapes), estimated from the
# markup that makes one.  Each costs about 0.2 ms of build (rendering, tooltips, search index):
# 10,000 links, one per paragraph, add 2.4 s.  The heaviest ordinary page of the tests (500 links
# in a paragraph, a 300-row table of code, links and emphasis, CUDA and PTX listings) has 5,800.
MAX_INLINE_ELEMENTS = 8_000
# Inline elements of a paragraph times its length: Python-Markdown rebuilds the paragraph's text
# around a placeholder for every element it finds, at about 2,000 million characters a second;
# 40,000 links in one 280 KB paragraph take 6 s, 500 in a 30 KB one 0.01 s.
MAX_INLINE_COPY = 1_000_000_000
# Lines and headings of a body: each line is a block, list item or table row, each costing about
# 0.1 ms of build (60,000 list items take 4 s), and the table of contents numbers a repeated
# heading by counting up from 1 for each repeat (40,000 equal headings took 110 s).  Real entries
# have about 150 lines and 10 headings.
MAX_BODY_LINES = 5_000
MAX_BODY_HEADINGS = 300
# '*[term]: definition' lines in a body: the abbr extension's cost grows with their square
# (800 take a second, 1,600 five); the build adds its own tooltip lines beside these.
MAX_BODY_ABBREVIATIONS = 100

_BLOCK = re.compile(r"(?m)(?:^[ \t]*[^ \t\n][^\n]*(?:\n|\Z))+")  # Python-Markdown's blank line: spaces only
_PREFIX = re.compile(r"(?m)^(?=[ \t>*+\-\d.)]{16})[ \t]*(?:(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*)*")
_MARKER = re.compile(r">|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t])")
_ABBREVIATION = re.compile(r"(?m)^[*]\[[^\]\n]*\][ ]?:")
# What makes an inline element (code spans are counted as backtick runs / 2, emphasis by emphasis()):
# a link's '](' or '][', a tag's '<', an entity, a backslash escape of a character Markdown escapes.
_ELEMENT = re.compile(r"\]\(|\]\[|<[A-Za-z/!?]|&(?:#\d+|#[xX][\da-fA-F]+|[A-Za-z][A-Za-z\d]*);"
                      r"|\\[\\`*_{}\[\]()>#+\-.!]")
_HEADING = re.compile(r"(?m)^[ \t>]*(?:#{1,6}(?=[ \t]|$)|(?:=+|-+)[ \t]*$)")
_BRACKET = re.compile(r"[\[\](){}]")


def markup_problem(body: str) -> tuple[int, str] | None:
    """(line of ``body``, counting from 0, and what is wrong) for a body whose markup would make the
    Markdown renderer take more than a few seconds or exhaust Python's stack; None for any other.

    Linear in the body's length: every estimate is a stack or a sorted-position look-up."""
    problem = _size_problem(body) or _nesting_problem(body) or _abbreviation_problem(body)
    if problem:
        return problem
    links = Cost("The '[' and '](' of links", MAX_INLINE_SCAN,
                 "close each '[' with ']' and each '](' with ')' in the same paragraph, or write a "
                 "literal bracket as \\[")
    ticks = Cost("The backtick runs of code spans", MAX_INLINE_SCAN,
                 "close each code span with a run of as many backticks as opened it")
    copies = Cost("The inline markup of a long paragraph", MAX_INLINE_COPY,
                  "split the paragraph with blank lines, or use less inline markup in it", copies=True)
    elements = 0
    for block in _BLOCK.finditer(body):
        text, start = block.group(), block.start()
        if "[" in text and not links.over:
            link_cost(text, start, links)
        found = sum(1 for _ in _ELEMENT.finditer(text))
        if "`" in text:
            found += tick_cost(text, start, ticks)
        if "*" in text or "_" in text:
            pairs, deep = emphasis(text, MAX_EMPHASIS_NESTING)
            if deep is not None:
                return (body.count("\n", 0, start + deep),
                        f"emphasis is nested more than {MAX_EMPHASIS_NESTING} deep in one paragraph (from this "
                        f"line); each level is a recursive call of the Markdown renderer: close the emphasis "
                        f"sooner, or write a literal '*' or '_' as \\* or \\_")
            found += pairs
        elements += found
        if elements > MAX_INLINE_ELEMENTS:
            return (body.count("\n", 0, start),
                    f"the body has more than {MAX_INLINE_ELEMENTS:,} inline elements (links, code spans, "
                    f"emphasis, tags, entities, escapes) by this paragraph; each costs the build about 0.2 ms: "
                    f"an entry is a page, so move tables of data into the entry's results and long "
                    f"listings into kernel files")
        copies.add(start, found * len(text))
        for cost in (links, ticks, copies):
            if cost.over:
                return body.count("\n", 0, cost.worst), cost.message()
    html = Cost("The '<' of tags and the '[' of links", MAX_HTML_SCAN,
                "close each '<' tag with '>' (and each quoted attribute value) and each '[' with ']', or "
                "write a literal '<' as &lt; and '[' as \\[")
    html_cost(body, html)
    if html.over:
        return body.count("\n", 0, html.worst), html.message()
    if "{" in body:
        templates = Cost("The '{{', '{%' and '{#' of template code", MAX_TEMPLATE_SCAN,
                         "close each with '}}', '%}' or '#}', or put the text in a fenced code block")
        template_cost(body, templates)
        if templates.over:
            return body.count("\n", 0, templates.worst), templates.message()
    return _bracket_problem(body)


def _size_problem(body: str) -> tuple[int, str] | None:
    lines = body.count("\n")
    if lines > MAX_BODY_LINES:
        return (MAX_BODY_LINES, f"the body has {lines:,} lines; at most {MAX_BODY_LINES:,} are read (each is a "
                                f"block, list item or table row of the page): an entry is a page, so move "
                                f"tables of data into the entry's results and long listings into kernel files")
    past = _line_past_limit(_HEADING, body, MAX_BODY_HEADINGS)
    if past is not None:
        return (past, f"the body has more than {MAX_BODY_HEADINGS} headings (this is the first past the limit); "
                      f"each is a table-of-contents entry and anchor: use fewer sections")
    return None


def _line_past_limit(pattern: re.Pattern, body: str, limit: int) -> int | None:
    """The body line of ``pattern``'s first match past ``limit`` matches, or None (counting stops there)."""
    for found, m in enumerate(pattern.finditer(body), 1):
        if found > limit:
            return body.count("\n", 0, m.start())
    return None


def _nesting_problem(body: str) -> tuple[int, str] | None:
    """A line opening more than MAX_LINE_NESTING containers, or a container prefix past
    MAX_PREFIX_COLUMNS; only lines whose first 16 characters could be a prefix are looked at."""
    for m in _PREFIX.finditer(body):
        prefix = m.group()
        columns = len(prefix.expandtabs(4))
        markers = len(_MARKER.findall(prefix))
        if markers > MAX_LINE_NESTING or columns > MAX_PREFIX_COLUMNS:
            return (body.count("\n", 0, m.start()),
                    f"the line opens with {markers:,} quote or list markers in a prefix of {columns:,} "
                    f"columns (at most {MAX_LINE_NESTING} markers and {MAX_PREFIX_COLUMNS} columns); the "
                    f"Markdown renderer nests a block per level, recursively: flatten the structure")
    return None


def _abbreviation_problem(body: str) -> tuple[int, str] | None:
    past = _line_past_limit(_ABBREVIATION, body, MAX_BODY_ABBREVIATIONS)
    if past is None:
        return None
    return (past, f"the body defines more than {MAX_BODY_ABBREVIATIONS} abbreviations ('*[term]: ...' lines); "
                  f"their cost grows with their square: keep the ones this page needs (other entries' terms "
                  f"get their tooltips from those entries)")


def _bracket_problem(body: str) -> tuple[int, str] | None:
    """Brackets nested deeper than MAX_BRACKET_NESTING anywhere in the body."""
    depth = 0
    for m in _BRACKET.finditer(body):
        if m.group() in "([{":
            depth += 1
            if depth > MAX_BRACKET_NESTING:
                return (body.count("\n", 0, m.start()),
                        f"brackets ( [ {{ open more than {MAX_BRACKET_NESTING} deep inside one another by this "
                        f"line; the figure templates' parser recurses per level: close them sooner, or put "
                        f"the text in a fenced code block")
        elif depth:
            depth -= 1
    return None
