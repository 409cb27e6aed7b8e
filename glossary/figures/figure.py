"""A bound figure: a number with its unit and where it came from, rendered as an annotated span."""

from __future__ import annotations

import html
from dataclasses import dataclass

from glossary.figures.fmt import plain_text

# Inside a figure's title attribute: Markdown's inline patterns run before raw HTML is recognised.
_ATTRIBUTE_SAFE = {ord(c): f"&#{ord(c)};" for c in "`*_[]{}()\\~!#|"}


class NoResult(Exception):
    """A bound figure with nothing recorded to bind to."""


@dataclass(frozen=True)
class Figure:
    """A number with its unit and provenance; renders as an annotated span."""

    text: str
    where: str

    def __str__(self) -> str:
        # Material's tooltips show a title as HTML, so the attribute holds escaped text: escaped twice here.
        # One line: a line break inside the tag would end it as raw HTML and leave its text to Markdown.
        # Markdown's inline patterns (code spans, emphasis, links) run before raw HTML is recognised,
        # so their characters are character references inside the tag.
        where = html.escape(html.escape(" ".join(self.where.split()), quote=False), quote=True)
        where = where.translate(_ATTRIBUTE_SAFE)
        return f'<span class="glossary-figure" title="{where}">{plain_text(self.text)}</span>'

    def __html__(self) -> str:
        return str(self)
