"""Sanitize: a page's HTML with nothing in it that runs (nh3, Ammonia's Python binding).

An entry's body is the author's Markdown, and Markdown passes raw HTML and attr_list
attributes through: ``<img onerror=...>``, ``[a](...){ onmouseover="..." }``,
``<script>``, ``<iframe>``.  ``clean`` runs the page's HTML, as MkDocs rendered it, through
an allowlist that keeps exactly what the project's own markup needs: Material's classes,
tabbed blocks (radio inputs and their labels), admonitions and details, code highlighting
spans, abbreviations' tooltips, footnotes, headings' ids and permalinks, tables with their
alignment, images (with the ``#only-light`` / ``#only-dark`` fragments) and the cited-figure
marks.  Everything else goes: script and style elements with their content, event handlers,
``style`` other than a table cell's ``text-align``, ``<object>``, ``<embed>``, ``<iframe>``, forms,
and every URL whose scheme is not http, https or mailto (``javascript:``, ``data:``).

Material's tooltips (``content.tooltips``) put an element's ``title`` into the page as HTML, so
a ``<`` or ``>`` left in a title's value is escaped once more here: the tooltip shows it as text.

The page's own generated markup goes through the same allowlist and comes out the same
(``tests/test_sanitize.py`` and ``bench/compare_sites.py``); the plots become ``<object>`` only
afterwards, in ``glossary.site.plots.embed_plots``, and only for the files the build drew.
"""

from __future__ import annotations

import nh3

# The allowlist is the entries stage's (glossary.entries.allowlist), so the publish gate can refuse a
# body this sanitizer would have to change.
from glossary.entries.allowlist import ATTRIBUTE_VALUES, ATTRIBUTES, TAGS, URL_SCHEMES

_CLEAN_CONTENT = {"script", "style"}


def _attribute(element: str, attribute: str, value: str) -> str | None:
    # Material renders a title as HTML: a raw '<' there would become an element on hover.
    if attribute == "title":
        return value.replace("<", "&lt;").replace(">", "&gt;")
    return value


def clean(html: str) -> str:
    """``html`` with only the allowlisted elements, attributes and URL schemes left (pure; linear
    in its length: Ammonia parses with html5ever, bounded work on any input)."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        clean_content_tags=set(_CLEAN_CONTENT),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_attribute,
        strip_comments=True,
        link_rel=None,  # the page's own links carry no rel; adding one would change every page
        tag_attribute_values={tag: {k: set(v) for k, v in values.items()} for tag, values in ATTRIBUTE_VALUES.items()},
        url_schemes=set(URL_SCHEMES),
    )

