"""The sitemap lists the published pages only, in every build.

MkDocs writes ``sitemap.xml`` from every page of the site.  A plain build's pages are the
published ones already (the publish gate removed the rest), but a preview build also shows
drafts, and the tag pages that only drafts carry; a sitemap names what search engines may
index, so it never lists those.  ``published_pages`` says which pages a plain build of the
same entries would publish, ``keep_only`` drops every other page's ``<url>`` from the XML.
"""

from __future__ import annotations

import gzip
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

from glossary.site import tags

if TYPE_CHECKING:
    from glossary.site.page import PageModel

INDEX = "index.md"
# One <url> record of MkDocs' sitemap template; its <loc> is HTML-escaped.
_URL = re.compile(r"[ \t]*<url>.*?</url>\n?", re.S)
_LOC = re.compile(r"<loc>(.*?)</loc>", re.S)


def published_pages(models: list[PageModel]) -> set[str]:
    """Docs-relative paths of the pages a plain build publishes: the home page, each entry the
    gate publishes, and the tag pages (and the tag list) of those entries alone."""
    published = [m for m in models if m.verdict.publishable]
    tag_pages = {tags.tag_path(tag) for tag in tags.by_tag(published)}
    if tag_pages:
        tag_pages.add(f"{tags.TAGS_DIR}/index.md")
    return {INDEX} | {f"{m.entry.slug}.md" for m in published} | tag_pages


def keep_only(xml: str, locations: set[str]) -> tuple[str, int]:
    """The sitemap ``xml`` without the ``<url>`` records whose ``<loc>`` is not in ``locations``
    (absolute URLs); returns the new XML and how many records it dropped."""
    dropped = 0

    def keep(match: re.Match) -> str:
        nonlocal dropped
        loc = _LOC.search(match.group(0))
        if loc is not None and html.unescape(loc.group(1).strip()) in locations:
            return match.group(0)
        dropped += 1
        return ""

    return _URL.sub(keep, xml), dropped


def rewrite(site_dir: Path, locations: set[str]) -> int:
    """Keep only ``locations`` in ``site_dir``'s sitemap.xml and its .gz twin (as MkDocs wrote
    them); returns how many records were dropped.  A site without a sitemap is left alone."""
    path = site_dir / "sitemap.xml"
    if not path.is_file():
        return 0
    xml, dropped = keep_only(path.read_text(encoding="utf-8"), locations)
    if dropped:
        path.write_text(xml, encoding="utf-8")
        packed = path.with_name("sitemap.xml.gz")
        mtime = 0
        if packed.is_file():
            with gzip.open(packed) as old:
                old.read()
                mtime = old.mtime or 0
        with open(packed, "wb") as raw, gzip.GzipFile(fileobj=raw, filename=str(packed), mode="wb", mtime=mtime) as out:
            out.write(xml.encode("utf-8"))
    return dropped
