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

import json

from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from glossary.site import termmatch
from glossary.site.tooltip_walk import PROSE_CLOSE, PROSE_OPEN, Walk, attribute, link_slug  # noqa: F401

CARRIER = "<!-- glossary-tooltips "
MAX_PAGE_CHARS = 8 << 20  # a page's HTML past this is left as it is (the Markdown budget stops far sooner)

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


def place(page_html: str, terms: PageTerms) -> str:
    """``page_html`` with its tooltips (see the module's doc) and without the prose markers."""
    first = page_html.find(prose_marker())
    if len(page_html) > MAX_PAGE_CHARS or first == -1:
        return page_html
    # only from the first marker to the last: both stand between top-level blocks, and what lies
    # outside (the Measured section, highlighted kernel source) is most of a page's markup
    last = page_html.rfind(prose_marker(closing=True))
    end = last + len(prose_marker(closing=True)) if last > first else len(page_html)
    walk = Walk(page_html[first:end], terms)
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
        if table is None:  # a page that uses no term: only the markers go (they are our own comments)
            return text.replace(prose_marker(), "").replace(prose_marker(closing=True), "")
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
