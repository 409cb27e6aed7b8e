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

import copy
from html.parser import HTMLParser

import nh3

URL_SCHEMES = frozenset({"http", "https", "mailto"})

TAGS = frozenset(nh3.ALLOWED_TAGS | {"input", "label"})

_ATTRIBUTES: dict[str, set[str]] = copy.deepcopy(nh3.ALLOWED_ATTRIBUTES)
for _tag, _names in {
    "*": {"class", "id", "title"},
    "a": {"title"},
    "img": {"title", "loading"},
    "input": {"checked", "name"},  # pymdownx.tabbed: one radio per tab
    "label": {"for"},
    "div": {"data-tabs"},  # pymdownx.tabbed's alternate style
}.items():
    _ATTRIBUTES.setdefault(_tag, set()).update(_names)
ATTRIBUTES = {tag: frozenset(names) for tag, names in _ATTRIBUTES.items()}

# An <input> is only ever a tab's radio button; a style only a table cell's alignment, exactly as
# Python-Markdown's tables write it (any other style, or this one written otherwise, is dropped).
_ALIGN = {f"text-align: {side};" for side in ("left", "right", "center")}
_ATTRIBUTE_VALUES = {"input": {"type": {"radio"}}, "td": {"style": _ALIGN}, "th": {"style": _ALIGN}}
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
        tag_attribute_values={tag: {k: set(v) for k, v in values.items()} for tag, values in _ATTRIBUTE_VALUES.items()},
        url_schemes=set(URL_SCHEMES),
    )


_URL_ATTRIBUTES = frozenset({"href", "src", "cite", "action", "formaction", "poster", "srcset", "data", "xlink:href"})
# What a body is rendered with to be audited: the extensions that decide which of its text is HTML
# (raw HTML blocks and spans, attr_list attributes) and which is code (escaped, never HTML).
AUDIT_EXTENSIONS = ("attr_list", "md_in_html", "tables", "footnotes", "abbr", "admonition", "pymdownx.superfences",
                    "pymdownx.details", "pymdownx.inlinehilite")


def removed(html: str, limit: int = 20) -> list[str]:
    """What ``clean`` would take out of ``html``, in words ("the element <script>", "the attribute
    onclick= on <a>", "the URL javascript:... in href= on <a>"), at most ``limit`` of them (pure)."""
    audit = _Audit(limit)
    audit.feed(html)
    audit.close()
    return audit.found


def body_problems(markdown_text: str) -> list[str]:
    """What the sanitizer would take out of an author's body, rendered as MkDocs renders it: the
    publish gate refuses such an entry, so a page no sanitizer has passed over (a builder that runs
    none of the glossary's code) carries nothing that runs either."""
    import markdown

    try:
        html = markdown.markdown(markdown_text, extensions=list(AUDIT_EXTENSIONS))
    except Exception as err:  # noqa: BLE001 -- a body Python-Markdown cannot render is refused, not a crash
        return [f"the body cannot be rendered to be checked ({type(err).__name__})"]
    return removed(html)


class _Audit(HTMLParser):
    def __init__(self, limit: int) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.limit = limit

    def _add(self, what: str) -> None:
        if len(self.found) < self.limit and what not in self.found:
            self.found.append(what)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in TAGS:
            self._add(f"the element <{tag}>")
            return
        allowed = ATTRIBUTES.get(tag, frozenset()) | ATTRIBUTES.get("*", frozenset())
        values = _ATTRIBUTE_VALUES.get(tag, {})
        for name, value in attrs:
            value = value or ""
            if name in values:
                if value not in values[name]:
                    self._add(f"the attribute {name}=\"{value[:40]}\" on <{tag}>")
            elif name not in allowed:
                self._add(f"the attribute {name}= on <{tag}>")
            elif name in _URL_ATTRIBUTES and ":" in value.split("/", 1)[0] and \
                    value.split(":", 1)[0].strip().lower() not in URL_SCHEMES:
                self._add(f"the URL {value[:40]} in {name}= on <{tag}>")

    handle_startendtag = handle_starttag
