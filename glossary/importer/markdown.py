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
from glossary.importer.naming import CJK

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
_SENTENCE_END = re.compile(r"[.!?]+|[\u3002\uff01\uff1f]+")  # and the CJK full stop, "！" and "？"
_CJK_END = "\u3002\uff01\uff1f"
_CJK_CLOSERS = "\u300d\u300f\uff09\u3011\u201d\u2019"
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


_CJK_BREAK = re.compile(rf"(?<={CJK.pattern}|[\u3000-\u303f\uff00-\uffef])[ \t]*\n[ \t]*(?={CJK.pattern})")


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
    text = _CJK_BREAK.sub("", text)  # a line break inside CJK text is no space: it has none between words
    return " ".join(text.split())


# -- the first sentence ------------------------------------------------------------------------


_HEADINGS = re.compile(r"(?:[ \t]*\n|[ \t]{0,3}#{1,6}[ \t][^\n]*(?:\n|\Z))*")


# A paragraph that opens with an image (Markdown, HTML, a linked badge) or a <figure> is a figure,
# and a paragraph right after one that is all emphasis, or a <figcaption>, is its caption.
_FIGURE = re.compile(r"[ \t]{0,3}(?:!\[|\[!\[|<img\b|<figure\b|<picture\b|<p\b[^<>\n]*>\s*<img\b)", re.I)
_FIGURE_END = re.compile(r"</figure>|</picture>", re.I)
_CAPTION = re.compile(r"[ \t]{0,3}(?:<figcaption\b|\*[^\s*]|_[^\s_])", re.I)
MAX_FIGURES = 8  # figures skipped before the first paragraph of prose


def _paragraph_end(body: str, start: int) -> int:
    blank = _BLANK.search(body, start)
    return blank.start() if blank else len(body)


def figures_before_prose(body: str) -> int:
    """The offset in ``body`` (past its headings) where prose starts after the figures the body
    opens with, with their captions; the offset past the headings where it opens with none."""
    at = _HEADINGS.match(body).end()
    for _ in range(MAX_FIGURES):
        if at >= len(body) or not _FIGURE.match(body, at):
            return at
        end = _paragraph_end(body, at)
        if re.match(r"[ \t]{0,3}<(?:figure|picture)\b", body[at:at + 12], re.I):
            close = _FIGURE_END.search(body, at)
            end = _paragraph_end(body, close.end()) if close else end
        at = _HEADINGS.match(body, end).end()
        if at < len(body) and _CAPTION.match(body, at):
            stop = _paragraph_end(body, at)
            para = body[at:stop].strip()
            if para.lower().startswith("<figcaption") or para[0] == para[-1] or para[-2:] in ("*.", "_."):
                at = _HEADINGS.match(body, stop).end()
    return at


def opens_with_figure(body: str) -> bool:
    """Whether ``body`` (past its headings) opens with a figure."""
    return bool(_FIGURE.match(body, _HEADINGS.match(body).end()))


def first_paragraph(body: str) -> tuple[int, int] | None:
    """(start, end) of the first paragraph of ``body``, past any headings and the figures it opens
    with (``figures_before_prose``), where it is prose (not a list, quote, table, code, admonition,
    HTML or abbreviation line); None otherwise."""
    start = figures_before_prose(body)
    if start >= len(body) or _NOT_PROSE.match(body, start):
        return None
    return start, _paragraph_end(body, start)


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
    the paragraph's end, or by a space and a capital, a digit or an opening mark; and at the CJK
    '。', '！' and '？', whatever follows.  Not at
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
        if text[pos] in _CJK_END:  # CJK needs no space after a sentence, nor a capital
            while end < len(text) and text[end] in _CLOSERS + _CJK_CLOSERS:
                end += 1
            return _SPACES.match(text, end).end()
        while end < len(text) and text[end] in _CLOSERS:
            end += 1
        if end < len(text) and pos and CJK.match(text[pos - 1]) and CJK.match(text[end]):
            return end  # an ASCII '?' or '!' between two CJK characters: Chinese typed with a Latin keyboard
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


class _Original:
    """A match found in the masked text (``rewrite_links``), read back from the original text."""

    def __init__(self, m: re.Match, text: str) -> None:
        self.m, self.text = m, text

    def group(self, name: str | int = 0) -> str | None:
        start, end = self.m.span(name)
        return None if start < 0 else self.text[start:end]


def rewrite_links(markdown: str, visit: Visitor) -> str:
    """``markdown`` with each link and image outside code replaced by what ``visit`` returns for it.

    Code is masked first (each character but a newline as U+0001, so offsets stay), then links are
    found in the masked text: a code span inside a link's text ("[`nvcc`](nvcc.md)") is part of
    the link, while a link inside code, or one whose destination holds code, is never changed."""
    regions = code_regions(markdown)
    if not regions:
        return _LINKS.sub(lambda m: _one(m, visit), markdown)
    masked, at = [], 0
    for start, end in regions:
        masked.append(markdown[at:start])
        masked.append(re.sub(r"[^\n]", "\x01", markdown[start:end]))
        at = end
    masked.append(markdown[at:])
    out, at, first = [], 0, 0
    for m in _LINKS.finditer("".join(masked)):
        while first < len(regions) and regions[first][1] <= m.start():
            first += 1
        text = m.span("text") if m.group("text") is not None else m.span("rtext")
        inside, i = True, first
        while i < len(regions) and regions[i][0] < m.end():  # the code regions within the match
            inside = inside and text[0] <= regions[i][0] and regions[i][1] <= text[1]
            i += 1
        if not inside:
            continue  # code that is not inside the link's text: kept as typed
        out.append(markdown[at:m.start()])
        out.append(_one(_Original(m, markdown), visit))
        at = m.end()
    out.append(markdown[at:])
    return "".join(out)


def link_text_is_code(text: str) -> bool:
    """Whether a link's text is one code span ("[`nvcc`](nvcc.md)"): it names an identifier, not a term."""
    text = text.strip()
    return len(text) > 1 and text[0] == "`" and text[-1] == "`" and bool(code_regions(text))


def _one(m: re.Match | _Original, visit: Visitor) -> str:
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
