"""The post-build leak check: does the site carry any trace of an entry the gate refused?

Traces are what only that entry has: a file under its folder or its page, an image it
links (or that image's dark partner) that no shown entry links, a link to its page, a
search record, sitemap line or ``glossary.json`` item for it, its summary, a whole
paragraph of its body, and lines of its kernels.  Text that a shown entry also has never
counts, so prose shared across entries cannot make a false report.
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from pathlib import Path

from glossary.entries import images
from glossary.entries.model import Entry


def find(site_dir: Path, refused: list[Entry], shown: list[Entry]) -> list[str]:
    """One line per file of ``site_dir`` that carries a trace of a ``refused`` entry."""
    traces = _Traces(refused, shown)
    found_in = []
    for path in sorted(site_dir.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(site_dir).as_posix()
        found = traces.in_path(rel)
        if found is None and path.suffix in _TEXT_SUFFIXES:
            try:
                content = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found = traces.in_content(rel, content)
        if found is not None:
            found_in.append(f"{rel}: {found}")
    return found_in


_TEXT_SUFFIXES = (".html", ".json", ".xml", ".txt", ".md", ".js", ".cu", ".cuh", ".py", ".svg", ".css")
_HREF = re.compile(r"""(?:href|src|content)\s*=\s*["']([^"']*)["']""")
_LOC = re.compile(r"<loc>([^<]*)</loc>")
_SITE = "https://site.invalid/"
MIN_TRACE_CHARS = 24  # shorter text is too common to be an entry's own


class _Traces:
    """What belongs to the refused entries alone, and where to look for it."""

    def __init__(self, refused: list[Entry], shown: list[Entry]) -> None:
        self.slugs = {e.slug for e in refused}
        shared = {path for e in shown for path in _images_of(e)}
        self.images = {path: e.slug for e in refused for path in _images_of(e) if path not in shared}
        common = " ".join(_flat(t) for e in shown for t in (e.meta.summary, e.body, e.title))
        common += " " + " ".join(_flat(d.decode("utf-8", "replace")) for e in shown
                                 for d in e.kernel_files.values())
        self.texts: dict[str, str] = {}
        for entry in refused:
            pieces = [entry.meta.summary] + entry.body.split("\n\n")
            pieces += [line for data in entry.kernel_files.values()
                       for line in data.decode("utf-8", "replace").splitlines()]
            for piece in pieces:
                text = _flat(piece)
                if len(text) >= MIN_TRACE_CHARS and text not in common and not text.startswith(("//", "#", "*")):
                    self.texts.setdefault(text, entry.slug)

    def _slug_of_path(self, path: str) -> str | None:
        path = urllib.parse.unquote(path).lstrip("/")
        head = path.split("/", 1)[0]
        if head.endswith(".html"):
            head = head[:-5]
        elif head.endswith(".md"):
            head = head[:-3]
        return head if head in self.slugs else None

    def in_path(self, rel: str) -> str | None:
        slug = self._slug_of_path(rel)
        if slug:
            return f"a file of refused entry '{slug}'"
        slug = self.images.get(rel)
        return f"an image only refused entry '{slug}' links" if slug else None

    def in_content(self, rel: str, content: str) -> str | None:
        if rel.endswith(".html") or rel.endswith(".svg"):
            base = _SITE + rel
            for href in _HREF.findall(content):
                url = urllib.parse.urlparse(urllib.parse.urljoin(base, html.unescape(href)))
                if url.scheme in ("http", "https") and url.netloc == "site.invalid":
                    slug = self._slug_of_path(url.path)
                    if slug:
                        return f"a link to refused entry '{slug}' ({href})"
        if rel.endswith(".xml"):
            for loc in _LOC.findall(content):
                parts = urllib.parse.urlparse(html.unescape(loc)).path.strip("/").split("/")
                for slug in self.slugs & set(p[:-5] if p.endswith(".html") else p for p in parts):
                    return f"the sitemap lists refused entry '{slug}'"
        if rel.endswith(".json"):
            found = self._in_json(content)
            if found:
                return found
        flat = _flat(html.unescape(content))
        for text, slug in self.texts.items():
            if text in flat:
                return f"text of refused entry '{slug}': {text[:60]!r}"
        return None

    def _in_json(self, content: str) -> str | None:
        try:
            data = json.loads(content)
        except ValueError:
            return None
        docs = data.get("docs") if isinstance(data, dict) else None
        for doc in docs if isinstance(docs, list) else []:
            location = doc.get("location", "") if isinstance(doc, dict) else ""
            slug = self._slug_of_path(str(location))
            if slug:
                return f"a search record of refused entry '{slug}' ({location})"
        items = data.get("entries") if isinstance(data, dict) else None
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("slug") in self.slugs:
                return f"an item for refused entry '{item['slug']}'"
        return None


def _images_of(entry: Entry) -> set[str]:
    """Docs-relative paths of the images an entry links and the dark partners it read (its published images)."""
    return set(images.asset_images(entry.body)) | set(entry.image_files)


def _flat(text: str) -> str:
    return " ".join(str(text).split())
