"""Cited figures: numbers an entry takes from a source (a datasheet's peak, a published latency),
not from a measurement on this site.

    {{ cite("3.35 TB/s", "h100-datasheet") }}    one figure; the second argument names one of the
                                                 entry's ``sources`` by its ``id`` (or by its
                                                 number, 1 for the first)
    {% call cite_table("h100-datasheet") %}      a Markdown table of figures from one source: each
    | GPU | Memory bandwidth (TB/s) |            cell holding a number is a cited figure
    |:--|--:|
    | H100 SXM | 3.35 |
    {% endcall %}
    {{ nofig("100 ms") }}                        a number that is no figure at all (a hypothetical,
                                                 an order of magnitude): shown as typed, not linted

A cited figure renders with a visible "cited" mark that links to its source in the page's Sources
list, and a tooltip naming the source and the day it was checked.  Cited figures are counted
apart from measured ones (the home page says how many of each the site holds).  A citation that
names no source of the entry is a problem the publish gate refuses, as a figure without data is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from glossary.entries.lint import TABLE_CELL, TABLE_SEPARATOR
from glossary.entries.model import Source
from glossary.figures.figure import title_attribute
from glossary.figures.fmt import plain_text

# A table cell that is a figure: a number, perhaps approximate, with a short unit after it.
_NUMERIC_CELL = re.compile(r"^[~≈<>≤≥]?\s*[-+]?\d[\d,]*(?:\.\d+)?\s*[A-Za-z%/µ×x·]{0,12}\*{0,2}$")
TABLE_CITES_MAX_ROWS = 200  # a datasheet table; a longer one is data for a file, not a page


def source_anchor(source: Source, number: int) -> str:
    """The id of a source's item in the page's Sources list (``number`` counts from 1)."""
    return f"source-{source.id or number}"


@dataclass
class Citations:
    """The body's ``cite``, ``cite_table`` and ``nofig``, over the entry's sources.

    ``cited`` collects the URL of the source of every cited figure rendered, ``problems`` every
    citation that names no source."""

    sources: tuple[Source, ...]
    problems: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)

    def _source(self, ref) -> tuple[Source, int] | None:
        if isinstance(ref, int) and not isinstance(ref, bool):
            if 1 <= ref <= len(self.sources):
                return self.sources[ref - 1], ref
        elif isinstance(ref, str):
            for number, source in enumerate(self.sources, 1):
                if source.id == ref:
                    return source, number
            if ref.isdigit():
                return self._source(int(ref))
        ids = ", ".join(repr(s.id) for s in self.sources if s.id) or "none has an id"
        self.problems.append(f"a cited figure names the source {ref!r}, which is not one of the entry's sources "
                             f"(their ids: {ids}; or use a source's number, 1 to {len(self.sources)}); "
                             f"add it to sources with an id" if self.sources else
                             f"a cited figure names the source {ref!r}, but the entry lists no sources: add the "
                             f"source to sources, with an id")
        return None

    def _mark(self, source: Source, number: int) -> str:
        return f'<sup class="glossary-cited-mark">[cited](#{source_anchor(source, number)})</sup>'

    def _span(self, text: str, source: Source) -> str:
        where = f"Cited from {source.title}, checked {source.checked.isoformat()}; not measured on this site"
        return f'<span class="glossary-cited" title="{title_attribute(where)}">{plain_text(text)}</span>'

    def cite(self, text, source) -> str:
        """One cited figure: ``text`` as typed, marked, with its source in the tooltip."""
        found = self._source(source)
        if found is None:
            return f"**[no source: {plain_text(str(source))}]** {plain_text(str(text))}"
        self.cited.append(found[0].url)
        return self._span(str(text), found[0]) + self._mark(*found)

    def cite_table(self, source, caller=None) -> str:
        """A Markdown table of cited figures: every numeric cell marked, a caption naming the source."""
        table = caller() if caller is not None else ""
        found = self._source(source)
        if found is None:
            return f"{table}\n\n**[no source: {plain_text(str(source))}]**\n"
        src, number = found
        lines = str(table).strip("\n").split("\n")
        body_from = next((i + 1 for i, line in enumerate(lines) if TABLE_SEPARATOR.match(line)), None)
        if body_from is None:
            self.problems.append(f"cite_table({source!r}) holds no Markdown table (a header row, then a row "
                                 f"such as |:--|--:|)")
            return str(table)
        if len(lines) - body_from > TABLE_CITES_MAX_ROWS:
            self.problems.append(f"cite_table({source!r}) has {len(lines) - body_from} rows; a cited table may "
                                 f"have at most {TABLE_CITES_MAX_ROWS}")
            return str(table)
        out = lines[:body_from]
        for line in lines[body_from:]:
            out.append(self._marked_row(line, src) if "|" in line else line)
        caption = (f"Cited from [{plain_text(src.title)}](#{source_anchor(src, number)}), checked "
                   f"{src.checked.isoformat()}: these figures were not measured on this site.\n"
                   f"{{: .glossary-cited-caption }}")
        return "\n".join(out) + "\n\n" + caption + "\n"

    def _marked_row(self, line: str, source: Source) -> str:
        cells = TABLE_CELL.split(line)
        for i, cell in enumerate(cells):
            value = cell.strip()
            if value and _NUMERIC_CELL.match(value):
                self.cited.append(source.url)
                cells[i] = cell.replace(value, self._span(value, source), 1)
        return "|".join(cells)

    @staticmethod
    def nofig(text) -> str:
        """A number that is not a figure (a hypothetical, an order of magnitude), shown as typed."""
        return plain_text(str(text))


CITATION_NAMES = ("cite", "nofig")  # the body's calls of Citations, beside fig
CITATION_BLOCKS = ("cite_table",)  # its {% call %} blocks
