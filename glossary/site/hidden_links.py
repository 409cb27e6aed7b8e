"""Links to entries the site does not show become their text, in every form Markdown writes them.

A shown page may link an entry the gate refused; the site then has no such page, so the link
would be dead and would point readers (and the leak check) at a refused entry.  Each link to a
hidden entry is replaced by its text: inline links (``[text](slug.md "title")``, ``./slug.md#x``,
``../slug/``), reference links (``[text][ref]``, ``[ref][]``, ``[ref]`` with ``[ref]: slug.md``,
whose definition goes too) and HTML anchors (``<a href="slug.md">text</a>``).  Code is left as
typed.  Every pattern excludes the brackets it is delimited by, and an anchor's end is looked for a
bounded distance, so each scan is linear.
"""

from __future__ import annotations

import re

from glossary.entries.masking import mask_code, unmask_code

# Where a link to an entry points, from an entry page: its source (slug.md, ./slug.md, with an
# anchor) or its served URL one folder up (../slug/, ../slug/index.html, ../slug.md).
_TARGET = r"(?:\./)?(?:\.\./)?(?P<slug>[a-z0-9][a-z0-9_-]{0,199})(?:\.md|/(?:index\.(?:md|html))?)(?:#[^\s()<>\"']*)?"
_TITLE = r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?"
_INLINE = re.compile(rf"(?<!!)\[(?P<text>[^\[\]\n]*)\]\([ \t]*<?{_TARGET}>?{_TITLE}[ \t]*\)")
_DEFINITION = re.compile(rf"^[ ]{{0,3}}\[(?P<label>[^\[\]\n]+)\]:[ \t]*<?{_TARGET}>?{_TITLE}[ \t]*(?:\n|$)", re.M)
_REFERENCE = re.compile(r"(?<!!)\[(?P<text>[^\[\]\n]+)\](?:\[(?P<label>[^\[\]\n]*)\])?(?![(:\[])")
_ANCHOR_OPEN = re.compile(rf"<a\s[^<>]*?href\s*=\s*[\"']{_TARGET}[\"'][^<>]*>", re.I)
_ANCHOR_CLOSE = "</a>"
MAX_ANCHOR_TEXT = 4000  # an anchor's text is looked for this far: an unclosed <a> costs no more


def _label(text: str) -> str:
    return " ".join(text.split()).casefold()


def unlink(markdown: str, hidden: set[str] | frozenset[str]) -> str:
    """``markdown`` with every link to an entry in ``hidden`` turned into its text."""
    if not hidden:
        return markdown
    text, codes = mask_code(markdown)
    labels = set()

    def definition(match: re.Match) -> str:
        if match.group("slug") not in hidden:
            return match.group(0)
        labels.add(_label(match.group("label")))
        return ""

    text = _DEFINITION.sub(definition, text)
    text = _INLINE.sub(lambda m: m.group("text") if m.group("slug") in hidden else m.group(0), text)
    if labels:
        def reference(match: re.Match) -> str:
            label = match.group("label")
            return match.group("text") if _label(label or match.group("text")) in labels else match.group(0)

        text = _REFERENCE.sub(reference, text)
    return unmask_code(_unlink_anchors(text, hidden), codes)


def _unlink_anchors(text: str, hidden: set[str] | frozenset[str]) -> str:
    out, at = [], 0
    for match in _ANCHOR_OPEN.finditer(text):
        if match.start() < at or match.group("slug") not in hidden:
            continue
        close = text.find(_ANCHOR_CLOSE, match.end(), match.end() + MAX_ANCHOR_TEXT)
        if close < 0:
            continue
        out += [text[at:match.start()], text[match.end():close]]
        at = close + len(_ANCHOR_CLOSE)
    return "".join(out) + text[at:]
