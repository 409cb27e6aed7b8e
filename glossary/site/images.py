"""Light and dark images: an image with a dark partner shows the light one in light mode, the dark one in dark.

Where the body links ``assets/images/NAME.EXT`` and the entry has ``NAME.dark.EXT`` beside it
(``glossary.entries.images``), the page gets both images with Material for MkDocs' URL
fragments, same alt text, title and attributes::

    ![alt](assets/images/NAME.EXT#only-light)![alt](assets/images/NAME.dark.EXT#only-dark)

Material's stylesheet hides ``#only-dark`` images under the light scheme and ``#only-light``
ones under the dark (slate) scheme.  A raw HTML ``<img src="...">`` is paired the same way, as two
tags.  Code is shown as typed, and an image whose target already has a fragment (an author who
wrote ``#only-light`` themselves) is left alone.
"""

from __future__ import annotations

import re
from typing import Collection

from glossary.entries import images
from glossary.entries.masking import mask_code, unmask_code

LIGHT, DARK = "#only-light", "#only-dark"

_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))"""
_ATTRS = r"(?:\{[^{}\n]*\})"  # attr_list's { width=300 } after the image
_INLINE = re.compile(rf"!\[(?P<alt>[^\[\]\n]*)\]\(\s*<?(?P<target>[^\s()<>]+)>?(?P<title>{_TITLE}?)\s*\)"
                     rf"(?P<attrs>{_ATTRS}?)")
_HTML = re.compile(r"""<img\b(?P<before>[^<>\n]*?\bsrc\s*=\s*)(?P<q>["'])(?P<target>[^"'<>\n]+)(?P=q)(?P<after>[^<>\n]*)>""",
                   re.I)
_REFERENCE = re.compile(rf"!\[(?P<alt>[^\[\]\n]*)\](?:\[(?P<ref>[^\[\]\n]*)\])?(?![(\[:])(?P<attrs>{_ATTRS}?)")


def pair(markdown: str, available: Collection[str]) -> str:
    """``markdown`` with every image that has a dark partner in ``available`` (docs-relative paths of
    the entry's image files) written as a light and a dark image; everything else as it was."""
    if not any(images.DARK in path for path in available):
        return markdown
    masked, codes = mask_code(markdown)
    defined = images.definitions(masked)

    def inline(match: re.Match) -> str:
        return _both(match, match.group("target"), match.group("title"), available)

    def reference(match: re.Match) -> str:
        target = defined.get(images.label(match.group("ref") or match.group("alt")))
        return match.group(0) if target is None else _both(match, target, "", available)

    def html(match: re.Match) -> str:
        target = match.group("target")
        dark = _partner(target, available)
        if dark is None:
            return match.group(0)
        tag = "<img{before}{q}{src}{q}{after}>"
        parts = {k: match.group(k) for k in ("before", "q", "after")}
        return tag.format(src=target + LIGHT, **parts) + tag.format(src=dark + DARK, **parts)

    masked = _INLINE.sub(inline, masked)
    masked = _REFERENCE.sub(reference, masked)
    masked = _HTML.sub(html, masked)
    return unmask_code(masked, codes)


def _partner(target: str, available: Collection[str]) -> str | None:
    """The dark partner's link for ``target`` (as the author wrote it, a leading ./ kept), or None
    where it has none or the author gave the link a fragment or query of their own."""
    if "#" in target or "?" in target:
        return None
    path = images.ImageLink(target, 0).published_path
    partner = images.dark_partner(path) if path else None
    if partner is None or partner not in available:
        return None
    return target[: len(target) - len(path)] + partner


def _both(match: re.Match, target: str, title: str, available: Collection[str]) -> str:
    """The light and the dark image for ``target``, or the match as it was when it has no partner."""
    dark = _partner(target, available)
    if dark is None:
        return match.group(0)
    alt, attrs = match.group("alt"), match.group("attrs")
    return f"![{alt}]({target}{LIGHT}{title}){attrs}![{alt}]({dark}{DARK}{title}){attrs}"
