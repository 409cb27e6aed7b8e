"""Markdown of an imported term: its opening heading, its first sentence, plain text, and its links.

Code is never touched: fenced blocks and code spans are found by the figures' own rule
(``glossary.entries.masking.code_regions``), and every pass here reads only the prose between
them.  Every pattern is linear: character classes that cannot overlap, no nested repetition of
the same characters, and each runs on a body that ``markup_problem`` has already bounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from glossary.entries.masking import code_regions
from glossary.figures.bind import unevaluated

_H1 = re.compile(r"\A(?:[ \t]*\n)*[ \t]{0,3}#[ \t]+([^\n]*)(?:\n|\Z)")
# The text of a link: brackets may nest one level (an image inside a link, "[a [b] c]").
_TEXT = r"[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*"
# A destination: <anything but angle brackets> or a run without spaces, with balanced parentheses.
_DEST = r"<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*"
_TITLE = r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?"""
_LINKS = re.compile(
    rf"(?P<bang>!?)\[(?P<text>{_TEXT})\]\([ \t]*(?P<dest>{_DEST})(?P<title>{_TITLE})[ \t]*\)"
    rf"|(?P<rbang>!?)\[(?P<rtext>{_TEXT})\]\[(?P<label>[^\[\]\n]*)\]"
    r"|(?P<img><img\b[^<>]*>)"
    r"|(?P<anchor><a\b[^<>]*>)"
    r"|(?m:^(?P<defindent>[ ]{0,3})\[(?P<deflabel>[^\[\]\n]+)\]:[ \t]*(?P<defdest><[^<>\n]*>|\S+)(?P<defrest>[^\n]*)$)")
_SRC = re.compile(r"""(\bsrc[ \t]*=[ \t]*)("[^"]*"|'[^']*'|[^\s"'<>]+)""", re.I)
_HREF = re.compile(r"""(\bhref[ \t]*=[ \t]*)("[^"]*"|'[^']*'|[^\s"'<>]+)""", re.I)
_ALT = re.compile(r"""\balt[ \t]*=[ \t]*("[^"]*"|'[^']*'|[^\s"'<>]+)""", re.I)

# Words that end with '.' without ending a sentence (compared without dots, in lower case).
ABBREVIATIONS = frozenset("eg ie vs cf fig figs eq eqs approx no nos sec ch al ref refs resp incl esp viz "
                          "mr dr ms st vol pp ca".split())
_SENTENCE_END = re.compile(r"[.!?]+")
_SPACES = re.compile(r"\s*")
_CLOSERS = "*_`'\")]\u2019\u201d"
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\Z")
_NOT_PROSE = re.compile(r"(?:#|```|~~~|!!!|\?\?\?|<|\||>|[-*+][ \t]|\d+[.)][ \t]|\{|    |\t|\[\^|\*\[)")
_BLANK = re.compile(r"\n[ \t]*(?:\n|\Z)")


def leading_h1(body: str) -> tuple[str | None, str]:
    """(the text of an ATX '# heading' opening ``body``, the body without it); (None, body) without one."""
    match = _H1.match(body)
    if not match:
        return None, body
    text = match.group(1).strip()
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):  # '# Warp #': the closing hashes go
        text = closed.strip()
    return text, body[match.end():].lstrip("\n")


# -- plain text --------------------------------------------------------------------------------

_PLAIN = re.compile(
    r"!\[[^\[\]\n]*\]\([^()\n]*\)"  # images: gone
    r"|\[(?P<text>[^\[\]\n]*)\](?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)|\[[^\[\]\n]*\])"  # links: their text
    r"|(?P<ticks>`+)(?P<code>[^`]+?)(?P=ticks)"  # code spans: their text
    r"|<[^<>\n]*>"  # HTML tags: gone
    r"|\\(?P<escaped>[^\w\s])"  # backslash escapes
    r"|(?<!\w)[*_]+(?=\S)|(?<=\S)[*_]+(?!\w)")  # emphasis markers


def plain_text(markdown: str) -> str:
    """``markdown`` as plain text on one line: links become their text, code its content, emphasis,
    images and HTML tags go ('See [*warps*](warp.md)' -> 'See warps')."""
    codes: list[str] = []

    def one(m: re.Match) -> str:
        if m.group("code") is not None:  # kept aside: a second round must not read code as Markdown
            codes.append(m.group("code"))
            return f"\x00{len(codes) - 1}\x00"
        for group in ("text", "escaped"):
            if m.group(group) is not None:
                return m.group(group)
        return ""
    text = markdown.replace("\x00", "")
    for _ in range(2):  # a link whose text is a code span or emphasis: two rounds take both
        text = _PLAIN.sub(one, text)
    text = re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], text)
    return " ".join(text.split())


# -- the first sentence ------------------------------------------------------------------------


_HEADINGS = re.compile(r"(?:[ \t]*\n|[ \t]{0,3}#{1,6}[ \t][^\n]*(?:\n|\Z))*")


def first_paragraph(body: str) -> tuple[int, int] | None:
    """(start, end) of the first paragraph of ``body``, past any headings, where it is prose (not
    a list, quote, table, code, admonition, HTML or abbreviation line); None otherwise."""
    start = _HEADINGS.match(body).end()
    if start >= len(body) or _NOT_PROSE.match(body, start):
        return None
    blank = _BLANK.search(body, start)
    return start, (blank.start() if blank else len(body))


def _protected(text: str) -> list[tuple[int, int]]:
    """Ranges of ``text`` where a '.' never ends a sentence: code, links and images, HTML tags."""
    ranges = list(code_regions(text))
    ranges += [(m.start(), m.end()) for m in _LINKS.finditer(text)]
    ranges += [(m.start(), m.end()) for m in re.finditer(r"<[^<>\n]*>", text)]
    return sorted(ranges)


def sentence_end(text: str) -> int | None:
    """The index just past the first sentence of ``text`` (a paragraph) and the spaces after it;
    None where no sentence ends before the paragraph does.

    A sentence ends at '.', '!' or '?' (with closing quotes, brackets or emphasis) followed by
    the paragraph's end, or by a space and a capital, a digit or an opening mark.  Not at
    "e.g.", "i.e.", "vs.", "Fig. 2" (ABBREVIATIONS), nor inside a decimal (3.35), code, a link
    or an HTML tag."""
    protected = _protected(text)
    at = 0  # the protected range to compare with: candidates come left to right
    for match in _SENTENCE_END.finditer(text):
        pos = match.start()
        while at < len(protected) and protected[at][1] <= pos:
            at += 1
        if at < len(protected) and protected[at][0] <= pos < protected[at][1]:
            continue
        end = match.end()
        while end < len(text) and text[end] in _CLOSERS:
            end += 1
        if end < len(text) and not text[end].isspace():
            continue
        after = _SPACES.match(text, end).end()
        nxt = text[after:after + 1]
        if nxt and not (nxt.isupper() or nxt.isdigit() or nxt in "[`*_\"'(<\u2018\u201c!"):
            continue
        word = _WORD_BEFORE.search(text, max(0, pos - 24), pos) if text[pos] == "." else None
        if word and word.group(1).replace(".", "").lower() in ABBREVIATIONS and nxt:
            continue
        return after
    return None


# -- links ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """A link or image found in prose, as the visitor sees it."""

    kind: str  # "link", "image", "ref" ([text][label]), "def" ([label]: url), "img" (<img>), "a" (<a href>)
    text: str  # the link text or alt text, as written; the label for "def"
    dest: str  # the destination with any <> removed; for "ref" the label
    raw: str  # the whole match, to keep as it was


Visitor = Callable[[Link], str]


def rewrite_links(markdown: str, visit: Visitor) -> str:
    """``markdown`` with each link and image outside code replaced by what ``visit`` returns for it."""
    out, at = [], 0
    for start, end in code_regions(markdown) + [(len(markdown), len(markdown))]:
        out.append(_LINKS.sub(lambda m: _one(m, visit), markdown[at:start]))
        out.append(markdown[start:end])
        at = end
    return "".join(out)


def _one(m: re.Match, visit: Visitor) -> str:
    if m.group("dest") is not None:
        dest = m.group("dest")
        dest = dest[1:-1] if dest.startswith("<") else dest
        text = m.group("text")
        if m.group("bang"):
            return visit(Link("image", text, dest, m.group()))
        # an image inside the link's text (a badge) is visited on its own
        inner = rewrite_links(text, visit) if "![" in text else text
        replaced = visit(Link("link", inner, dest, m.group().replace(text, inner, 1)))
        return replaced
    if m.group("label") is not None:
        if m.group("rbang"):
            return visit(Link("image", m.group("rtext"), "", m.group()))  # reference images: kept as written
        return visit(Link("ref", m.group("rtext"), m.group("label") or m.group("rtext"), m.group()))
    if m.group("img") is not None:
        return visit(Link("img", alt_of(m.group()), src_of(m.group()) or "", m.group()))
    if m.group("anchor") is not None:
        href = _HREF.search(m.group())
        return m.group() if href is None else visit(Link("a", "", href.group(2).strip("\"'"), m.group()))
    dest = m.group("defdest")
    dest = dest[1:-1] if dest.startswith("<") else dest
    return visit(Link("def", m.group("deflabel"), dest, m.group()))


def reference_definitions(markdown: str) -> dict[str, str]:
    """Reference-link labels (lower case, spaces collapsed) to their destinations, outside code."""
    defs: dict[str, str] = {}

    def keep(link: Link) -> str:
        if link.kind == "def":
            defs.setdefault(label_key(link.text), link.dest)
        return link.raw
    rewrite_links(markdown, keep)
    return defs


def label_key(label: str) -> str:
    return " ".join(label.split()).casefold()


def src_of(tag: str) -> str | None:
    match = _SRC.search(tag)
    return None if match is None else match.group(2).strip("\"'")


def alt_of(tag: str) -> str:
    match = _ALT.search(tag)
    return "" if match is None else match.group(1).strip("\"'")


def with_url(tag: str, src: str) -> str:
    """An <img> tag with its src replaced (an <a> tag: its href)."""
    pattern = _HREF if tag[:2].lower() == "<a" else _SRC
    return pattern.sub(lambda m: f'{m.group(1)}"{src}"', tag, count=1)


def template_syntax(markdown: str) -> bool:
    """Whether prose (outside code) holds '{{', '{%' or '{#' that the build would not evaluate:
    anything but bound figures and citations (``glossary.figures.bind.unevaluated``)."""
    return bool(unevaluated(markdown))
