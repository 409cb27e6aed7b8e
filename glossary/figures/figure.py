"""A bound figure: a number with its unit and where it came from, rendered as an annotated span."""

from __future__ import annotations

import html
from dataclasses import dataclass

from glossary.figures.fmt import plain_text

# Inside a figure's title attribute: Markdown's inline patterns run before raw HTML is recognised.
_ATTRIBUTE_SAFE = {ord(c): f"&#{ord(c)};" for c in "`*_[]{}()\\~!#|"}


def title_attribute(text: str) -> str:
    """``text`` as the title attribute of a raw HTML span in the body: one line, escaped twice
    (Material shows a title as HTML), Markdown's inline characters as character references."""
    return html.escape(html.escape(" ".join(text.split()), quote=False), quote=True).translate(_ATTRIBUTE_SAFE)


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
        return f'<span class="glossary-figure" title="{title_attribute(self.where)}">{plain_text(self.text)}</span>'

    def __html__(self) -> str:
        return str(self)
