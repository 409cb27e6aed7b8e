"""Tooltips placed over a page's rendered HTML (issue 31): the project's own matcher, not abbr's.

The render stage (``tooltips.append``) ends each entry page's Markdown with a table of what its
tooltips may use, one HTML comment (``carrier``), and marks its prose with a pair of comments
around the summary and around the body (``templates/entry.md.j2``).  This module's Python-Markdown
extension (``TooltipExtension``, listed in mkdocs.yml and added by the hook, so every builder that
reads mkdocs.yml runs it) takes the table out before parsing and, once the page is HTML, walks it
with the standard library's HTML parser (``html.parser``, the one Python-Markdown itself uses for
raw HTML): no regular expression reads the markup.

Where a tooltip goes: in the prose only (not the Measured section, its tables, the kernel source,
the Related list, lessons, sources or byline, which the glossary generates) and there never inside
a heading, a link, code or pre, an existing abbr or any element with a title, a button or a
summary.  Text is matched (``termmatch``) one block at a time (a paragraph, a list item, a cell),
never across markup ("<em>shared</em> memory" is no match), with the boundary rules of termmatch.

How many: the first use of a term in each section (from one heading to the next) gets its tooltip,
later ones in that section do not.  A reader who comes in at a heading, from the table of contents
or a search hit, finds the term explained in the section she reads, and a paragraph that says
"warp" eight times is not underlined eight times (issue 31 counted 191 tooltips on one page).
A link to another entry (``[text](slug.md)``) is given that entry's definition as its title, so
hovering any term link shows the target's own definition whatever its text says; it counts as the
term's use in its section.  The page's own term gets none.
"""

from __future__ import annotations

import bisect
import html
import json
from html.parser import HTMLParser

from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from glossary.site import termmatch

CARRIER = "<!-- glossary-tooltips "
PROSE_OPEN, PROSE_CLOSE = "glossary:prose", "glossary:/prose"
MAX_PAGE_CHARS = 8 << 20  # a page's HTML past this is left as it is (the Markdown budget stops far sooner)

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


def carrier(table: dict) -> str:
    """The table as one HTML comment: JSON with every '<', '>', '&' and '-' escaped, so the
    comment can neither end early nor hold markup."""
    text = json.dumps(table, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    for char in "<>&-":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return f"{CARRIER}{text} -->"


def read_carrier(line: str) -> dict | None:
    if not (line.startswith(CARRIER) and line.endswith(" -->")):
        return None
    try:
        table = json.loads(line[len(CARRIER):-4])
    except ValueError:
        return None
    return table if isinstance(table, dict) else None


def prose_marker(closing: bool = False) -> str:
    return f"<!-- {PROSE_CLOSE if closing else PROSE_OPEN} -->"


class PageTerms:
    """One page's matcher, built from its table: every spelling in the trie (own term's too)."""

    def __init__(self, table: dict) -> None:
        from glossary.site.tooltips import Term, is_acronym

        self.own = table.get("own")
        self.definitions: dict[str, str] = {str(k): str(v) for k, v in (table.get("definitions") or {}).items()}
        self.matcher: termmatch.TermMatcher = termmatch.TermMatcher()
        for pair in table.get("spellings") or []:
            if not (isinstance(pair, list) and len(pair) == 2):
                continue
            slug, spelling = str(pair[0]), str(pair[1])
            if slug != self.own and slug not in self.definitions:
                continue
            term = Term(slug, spelling, self.definitions.get(slug, ""), is_acronym(spelling))
            for form in term.forms:
                self.matcher.add(form, slug, term.exact)


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


def place(page_html: str, terms: PageTerms) -> str:
    """``page_html`` with its tooltips (see the module's doc) and without the prose markers."""
    first = page_html.find(prose_marker())
    if len(page_html) > MAX_PAGE_CHARS or first == -1:
        return page_html
    # only from the first marker to the last: both stand between top-level blocks, and what lies
    # outside (the Measured section, highlighted kernel source) is most of a page's markup
    last = page_html.rfind(prose_marker(closing=True))
    end = last + len(prose_marker(closing=True)) if last > first else len(page_html)
    walk = _Walk(page_html[first:end], terms)
    walk.feed(page_html[first:end])
    walk.close()
    return page_html[:first] + walk.result() + page_html[end:]


def prose_parts(text: str) -> list[str]:
    """The parts of a page's Markdown (or HTML) between the prose markers; all of it without any."""
    opening, closing = prose_marker(), prose_marker(closing=True)
    at = text.find(opening)
    if at == -1:
        return [text]
    parts = []
    while at != -1:
        stop = text.find(closing, at)
        parts.append(text[at:stop if stop != -1 else len(text)])
        at = text.find(opening, stop) if stop != -1 else -1
    return parts


class _Walk(HTMLParser):
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


# -- the Python-Markdown extension -----------------------------------------------------------------


class _TablePreprocessor(Preprocessor):
    """Takes the page's tooltip table (its last line) out of the Markdown before it is parsed."""

    def __init__(self, md, extension: "TooltipExtension") -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        end = len(lines)
        while end and not lines[end - 1].strip():
            end -= 1
        table = read_carrier(lines[end - 1].strip()) if end else None
        if table is None:
            return lines
        self.extension.table = table
        return lines[:end - 1] + lines[end:]


class _PlacePostprocessor(Postprocessor):
    def __init__(self, md, extension: "TooltipExtension") -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, text: str) -> str:
        table = self.extension.table
        if table is None:
            return text
        if self.extension.terms is None:
            self.extension.terms = PageTerms(table)
        return place(text, self.extension.terms)


class TooltipExtension(Extension):
    """Tooltips over the rendered page (see the module's doc)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: dict | None = None
        self.terms: PageTerms | None = None

    def extendMarkdown(self, md) -> None:
        md.registerExtension(self)
        md.preprocessors.register(_TablePreprocessor(md, self), "glossary-tooltip-table", 27)
        # after raw HTML is put back (30) and '&' restored (20): the whole page as a reader gets it
        md.postprocessors.register(_PlacePostprocessor(md, self), "glossary-tooltips", 10)

    def reset(self) -> None:
        self.table = None
        self.terms = None


def makeExtension(**kwargs) -> TooltipExtension:  # noqa: N802 (Python-Markdown's name)
    return TooltipExtension(**kwargs)
