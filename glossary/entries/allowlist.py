"""What an author's markup may hold: the allowlist the sanitizer keeps (``glossary.site.sanitize``),
and an audit that names what it would take out of a body, for the publish gate.

One allowlist serves both, so a body the gate passes is one the sanitizer leaves alone, and a page
that no sanitizer has passed over (a builder that runs none of the glossary's code) carries
nothing that runs either.
"""

from __future__ import annotations

import copy
import re
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
ATTRIBUTE_VALUES = {"input": {"type": {"radio"}}, "td": {"style": _ALIGN}, "th": {"style": _ALIGN}}


# A URL's scheme as a browser reads it (the WHATWG URL standard, which the sanitizer's URL parser follows):
# tabs and newlines dropped wherever they are and C0 controls and spaces around it, then a letter, more
# letters, digits, '+', '-' or '.', and a colon.  Anything else ("#fn:1", a footnote's link; "notes.md#a:b";
# "?q=a:b") is a URL relative to the page, which the sanitizer keeps.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
_C0_SPACE = "".join(map(chr, range(0x21)))


def _scheme(url: str) -> str | None:
    found = _SCHEME.match(url.translate(_TAB_NEWLINE).strip(_C0_SPACE))
    return found.group(1).lower() if found else None


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
        values = ATTRIBUTE_VALUES.get(tag, {})
        for name, value in attrs:
            value = value or ""
            if name in values:
                if value not in values[name]:
                    self._add(f"the attribute {name}=\"{value[:40]}\" on <{tag}>")
            elif name not in allowed:
                self._add(f"the attribute {name}= on <{tag}>")
            elif name in _URL_ATTRIBUTES and _scheme(value) not in (None, *URL_SCHEMES):
                self._add(f"the URL {value[:40]} in {name}= on <{tag}>")

    handle_startendtag = handle_starttag
