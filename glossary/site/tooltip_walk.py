"""The walk over a page's prose HTML that places its tooltips (``tooltip_html`` says what and where).

``Walk`` is the standard library's HTML parser (``html.parser``) told to keep character references
as they are, so that every token's place in the source is known (``getpos``): text is collected per
block with where it came from, matched there, and the tooltips are written in as edits of the source,
which is otherwise copied byte for byte.  Work is linear: each token is handled once, an end tag that
closes nothing is dropped without a search (``open_count``), each block is matched once.
"""

from __future__ import annotations

import bisect
import html
from html.parser import HTMLParser
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from glossary.site.tooltip_html import PageTerms

PROSE_OPEN, PROSE_CLOSE = "glossary:prose", "glossary:/prose"

_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# No tooltip inside these (nor inside any element that has a title of its own).
_SKIP = frozenset("a abbr acronym code pre kbd samp var tt script style textarea svg math button select option "
                  "label title template iframe object noscript summary".split()) | _HEADINGS
# Text does not run across these: a match never joins the end of one block to the start of the next.
_BLOCK = frozenset("p div li ul ol dl dt dd table thead tbody tfoot tr td th caption blockquote pre hr br "
                   "section article aside header footer nav details summary figure figcaption main form "
                   "fieldset legend address hgroup menu center img script style textarea svg math template "
                   "iframe object noscript select option button".split()) | _HEADINGS


def attribute(definition: str) -> str:
    """A definition as a title attribute's source text: Material shows a title as HTML, so the value
    a browser reads holds escaped text; the source is that escaped once more (``tooltips.title_text``:
    ``<`` is written ``&amp;lt;``), its quotes as ``&quot;``, as the abbr extension wrote it."""
    from glossary.site.tooltips import title_text

    return title_text(definition).replace('"', "&quot;")


def link_slug(href: str) -> str | None:
    """The entry a relative link points to: ``slug.md``, ``slug.html``, ``../slug/`` (with an
    anchor or ``index.html``); None for anything else (a tag page, another site, a file)."""
    path = href.split("#", 1)[0].split("?", 1)[0]
    if not path or ":" in path or path.startswith("/"):
        return None
    if path.startswith("./"):
        path = path[2:]
    if path.startswith("../"):
        path = path[3:]
        if path.endswith("/index.html"):
            path = path[:-len("index.html")]
        if not path.endswith("/"):
            return None
        path = path[:-1]
    elif path.endswith((".md", ".html")):
        path = path.rsplit(".", 1)[0]
    else:
        return None
    return path if path and "/" not in path and "." not in path else None


class Walk(HTMLParser):
    """One pass over a page's prose HTML, recording the edits that place its tooltips."""

    def __init__(self, source: str, terms: PageTerms) -> None:
        super().__init__(convert_charrefs=False)
        self.src = source
        self.terms = terms
        self.lines = [0]
        at = source.find("\n")
        while at != -1:
            self.lines.append(at + 1)
            at = source.find("\n", at + 1)
        self.stack: list[tuple[str, bool]] = []  # (tag, skips)
        self.open_count: dict[str, int] = {}
        self.skipping = 0
        self.prose = False
        self.shown: set[str] = set()  # terms with a tooltip in this section
        self.block: list[list] = []  # [raw_start, raw_end or None, text, matchable, run]
        self.links: list[tuple[int, str]] = []  # (raw start, slug) of the block's term links
        self.run = 0
        self.pending: list | None = None  # the piece whose end is the next token's start
        self.edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in order

    # -- positions ---------------------------------------------------------------------------

    def _here(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def _token(self) -> int:
        here = self._here()
        if self.pending is not None:
            self.pending[1] = here
            self.pending = None
        return here

    # -- text ----------------------------------------------------------------------------------

    def _text(self, text: str, raw_len: int | None) -> None:
        start = self._token()
        piece = [start, None if raw_len is None else start + raw_len, text,
                 self.prose and not self.skipping, self.run]
        self.block.append(piece)
        if raw_len is None:
            self.pending = piece

    def handle_data(self, data: str) -> None:
        self._text(data, len(data))

    def handle_entityref(self, name: str) -> None:
        self._text(html.unescape(f"&{name};"), None)

    def handle_charref(self, name: str) -> None:
        self._text(html.unescape(f"&#{name};"), None)

    # -- markup --------------------------------------------------------------------------------

    def _markup(self) -> int:
        self.run += 1
        return self._token()

    def handle_comment(self, data: str) -> None:
        start = self._markup()
        marker = data.strip()
        if marker in (PROSE_OPEN, PROSE_CLOSE):
            self._flush()
            self.prose = marker == PROSE_OPEN
            piece = [start, None, "", False, self.run]
            self.pending = piece
            self.edits.append(piece)  # filled in when the next token starts: the marker is removed

    def handle_decl(self, decl: str) -> None:
        self._markup()

    def handle_pi(self, data: str) -> None:
        self._markup()

    def unknown_decl(self, data: str) -> None:
        self._markup()

    def handle_startendtag(self, tag: str, attrs) -> None:
        self._markup()
        if tag in _BLOCK or tag in _VOID:
            self._flush()

    def handle_starttag(self, tag: str, attrs) -> None:
        start = self._markup()
        if tag in _BLOCK:
            self._flush()
        if tag in _HEADINGS:
            self.shown = set()
        if tag in _VOID:
            return
        attributes = dict(attrs)
        skips = tag in _SKIP or "title" in attributes
        if tag == "a" and self.prose and not self.skipping and "title" not in attributes:
            self._title_link(start, attributes.get("href") or "")
        self.stack.append((tag, skips))
        self.open_count[tag] = self.open_count.get(tag, 0) + 1
        self.skipping += skips

    def handle_endtag(self, tag: str) -> None:
        self._markup()
        if tag in _BLOCK:
            self._flush()
        if not self.open_count.get(tag):
            return  # a stray end tag closes nothing
        while self.stack:
            name, skips = self.stack.pop()
            self.open_count[name] -= 1
            self.skipping -= skips
            if name == tag:
                break

    def _title_link(self, start: int, href: str) -> None:
        slug = link_slug(href)
        if slug is None or slug == self.terms.own or slug not in self.terms.definitions:
            return
        raw = self.get_starttag_text() or ""
        end = start + len(raw) - (2 if raw.endswith("/>") else 1)
        self.edits.append([end, end, f' title="{attribute(self.terms.definitions[slug])}"'])
        self.links.append((start, slug))  # it counts as the term's use where it stands (``_match``)

    # -- matching ------------------------------------------------------------------------------

    def _flush(self) -> None:
        # called at a markup token (or the end), so every piece's raw end is known by now
        block, self.block = self.block, []
        links, self.links = self.links, []
        if any(piece[3] for piece in block):
            self._match(block, links)
        else:
            self.shown.update(slug for _, slug in links)

    def _match(self, block: list[list], links: list[tuple[int, str]]) -> None:
        text = "".join(piece[2] for piece in block)
        starts, at = [], 0
        for piece in block:
            starts.append(at)
            at += len(piece[2])

        def piece_at(offset: int) -> int:
            return bisect.bisect_right(starts, offset) - 1

        def raw(offset: int, closing: bool) -> int | None:
            """The raw position of a text offset at a piece's edge or inside a data piece."""
            index = piece_at(offset - 1) if closing else piece_at(offset)
            piece, into = block[index], offset - starts[index]
            if piece[1] is not None and piece[1] - piece[0] == len(piece[2]):  # data: raw is text
                return piece[0] + into
            return piece[0] if into == 0 else piece[1] if into == len(piece[2]) else None

        def allowed(start: int, end: int) -> bool:
            first, last = piece_at(start), piece_at(end - 1)
            run = block[first][4]
            return all(block[i][3] and block[i][4] == run for i in range(first, last + 1)) \
                and raw(start, False) is not None and raw(end, True) is not None

        links = links[::-1]
        for found in self.terms.matcher.scan(text, allowed):
            start, end = raw(found.start, False), raw(found.end, True)
            while links and links[-1][0] < start:  # a term link before this text: that term is used
                self.shown.add(links.pop()[1])
            slug = found.item
            if slug == self.terms.own or slug in self.shown:
                continue
            self.shown.add(slug)
            title = attribute(self.terms.definitions[slug])
            self.edits.append([start, start, f'<abbr title="{title}">'])
            self.edits.append([end, end, "</abbr>"])
        self.shown.update(slug for _, slug in links)

    def close(self) -> None:
        super().close()
        if self.pending is not None:
            self.pending[1] = len(self.src)
            self.pending = None
        self._flush()

    def result(self) -> str:
        out, at = [], 0
        for start, end, text in sorted(((e[0], e[1], e[2]) for e in self.edits), key=lambda e: (e[0], e[0] != e[1])):
            if start < at:
                continue
            out.append(self.src[at:start])
            out.append(text)
            at = end if end is not None else start
        out.append(self.src[at:])
        return "".join(out)


