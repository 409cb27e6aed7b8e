"""The post-build leak check: does the site carry any trace of an entry the gate refused?

The site is built from the shown entries alone (the render stage's allowlist, MkDocs' file list,
the tooltip, tag and ``glossary.json`` indexes), so a refused entry cannot reach it by
construction; this check confirms it by identity, never by resemblance:

- *paths*: a file is a refused entry's when it is that entry's page (``SLUG.html``) or under its
  folder (``SLUG/...``: page, kernels, results, plots), or an image only refused entries link;
- *links*: an ``href``/``src`` that resolves to such a path on this site;
- *records*: a sitemap ``<loc>``, a search record's location, a ``glossary.json`` item whose URL
  or slug is exactly a refused entry's (a tag page ``tags/SLUG/`` is not the entry ``SLUG``);
- *text*: a sentence or line of a refused entry (its summary, body, kernels) that occurs in no
  shown entry and in nothing the build rendered from shown entries.  A sentence that a refused
  entry shares with a shown one is the shown one's, wherever it stands.

Text is compared as units (sentences and lines, whitespace collapsed, markup dropped) looked up
in a set, so the cost per page is one pass over its text, however many entries were refused.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import urllib.parse
from pathlib import Path
from typing import Iterable, Iterator

from glossary.entries import images
from glossary.entries.model import Entry


def find(site_dir: Path, refused: list[Entry], shown: list[Entry], rendered: Iterable[str] = (),
         site_url: str | None = None) -> list[str]:
    """One line per file of ``site_dir`` that carries a trace of a ``refused`` entry.

    ``rendered`` is the text the build rendered from the shown entries (their pages, the home and
    tag pages, ``glossary.json``): a sentence found there is no refused entry's own.  ``site_url``
    (mkdocs.yml's) places the sitemap's absolute URLs; without it, the sitemap's own home URL does."""
    traces = Traces(refused, shown, rendered)
    found_in = []
    for path in sorted(site_dir.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(site_dir).as_posix()
        found = traces.in_path(rel)
        if found is None and path.suffix in TEXT_SUFFIXES:
            try:
                content = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found = traces.in_content(rel, content, site_url, site_dir)
        if found is not None:
            found_in.append(f"{rel}: {found}")
    return found_in


TEXT_SUFFIXES = (".html", ".json", ".xml", ".txt", ".md", ".js", ".cu", ".cuh", ".py", ".svg", ".css")
MIN_TRACE_CHARS = 24  # shorter text is too common to be an entry's own (a CJK character counts twice)
MAX_JSON_STRINGS = 1_000_000  # bounded work on a hostile search index
_HREF = re.compile(r"""(?<![\w-])(?:href|src|content|data)\s*=\s*["']([^"']*)["']""", re.I)
# Bounded, as every pattern here that could start many times over hostile text: an unclosed quote
# costs at most this much scanning, not the rest of the text.
_ATTRIBUTE_TEXT = re.compile(r"""\s(?:title|alt|aria-label|content|placeholder)\s*=\s*(?:"([^"]{0,4000})"|'([^']{0,4000})')""",
                             re.I)
_LOC = re.compile(r"<loc>([^<]*)</loc>")
_UNIT_KEYS = ("location", "url", "href", "path")  # where a search or export record names its page

# -- text as units ---------------------------------------------------------------------------------

_BLOCK = "\x00"  # between blocks (paragraphs, list items, cells): a sentence never spans one
_INLINE_TAG = re.compile(r"</?(?:a|abbr|b|bdi|bdo|cite|code|data|dfn|em|i|kbd|mark|q|s|samp|small|span|strong|"
                         r"sub|sup|time|u|var|wbr|del|ins)(?:\s[^<>]*)?/?>", re.I)
_ANY_TAG = re.compile(r"<[^<>]*>")  # a comment too, as far as its first ">"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
# Markdown that renders as no text: link targets, emphasis marks, backticks, line prefixes.
_MD_LINK = re.compile(r"!?\[([^\[\]\n]*)\](?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)|\[[^\[\]\n]*\])")
_MD_REFDEF = re.compile(r"^[ \t]{0,3}\*?\[[^\]\n]+\]:.*$", re.M)
_MD_PREFIX = re.compile(r"^[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)]|#{1,6}|!!!|\?\?\?\+?)(?:[ \t]+|$))+", re.M)
_MD_EMPHASIS = re.compile(r"(?<![\w*_\\])[*_]{1,3}(?=\S)|(?<=\S)(?<!\\)[*_]{1,3}(?![\w*_])")
_MD_ATTRS = re.compile(r"\{\s*[:#.][^{}\n]*\}")
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>])")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _weight(text: str) -> int:
    return len(text) if text.isascii() else len(text) + len(_CJK.findall(text))


def units(text: str) -> Iterator[str]:
    """The sentences and the lines of plain ``text`` (blocks split at ``_BLOCK``), whitespace
    collapsed, each at least ``MIN_TRACE_CHARS`` long."""
    for block in text.split(_BLOCK):
        if not block.strip():
            continue
        flat = _flat(block)
        if _weight(flat) >= MIN_TRACE_CHARS:
            yield flat
            for sentence in _SENTENCE.split(flat):
                if sentence != flat and _weight(sentence) >= MIN_TRACE_CHARS:
                    yield sentence
        if "\n" in block.strip():
            for line in block.split("\n"):
                line = _flat(line)
                if line != flat and _weight(line) >= MIN_TRACE_CHARS:
                    yield line


def html_text(content: str) -> str:
    """The text of an HTML (or SVG) document as ``units`` reads it: inline tags dropped, other tags
    end a block, the values of attributes a reader sees (title, alt, ...) blocks of their own."""
    shown = [a or b for a, b in _ATTRIBUTE_TEXT.findall(content)]
    text = _ANY_TAG.sub(_BLOCK, _INLINE_TAG.sub("", content))
    return html.unescape(_BLOCK.join([text, *shown]))


def markdown_text(markdown: str) -> str:
    """The text a page shows of ``markdown`` (and the HTML in it), as ``units`` reads it."""
    text = _MD_REFDEF.sub("", markdown)
    text = _MD_LINK.sub(lambda m: m.group(1), _MD_LINK.sub(lambda m: m.group(1), text))
    text = _MD_PREFIX.sub("", _MD_ATTRS.sub("", text))
    text = _MD_ESCAPE.sub(r"\1", _MD_EMPHASIS.sub("", text.replace("`", "")))
    text = _PARAGRAPH.sub(_BLOCK, text)
    text = "\n".join(line.replace("|", _BLOCK) if line.lstrip().startswith("|") else line
                     for line in text.split("\n"))
    return html_text(text)


def _json_nodes(data: object) -> Iterator[object]:
    """Every value in parsed JSON (dicts, lists, strings, ...), at most ``MAX_JSON_STRINGS`` of them."""
    todo, seen = [data], 0
    while todo and seen < MAX_JSON_STRINGS:
        item = todo.pop()
        seen += 1
        yield item
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


class Traces:
    """What belongs to the refused entries alone, and where to look for it."""

    def __init__(self, refused: list[Entry], shown: list[Entry], rendered: Iterable[str] = ()) -> None:
        self.slugs = {e.slug for e in refused}
        shared = {path for e in shown for path in _images_of(e)}
        self.images = {path: e.slug for e in refused for path in _images_of(e) if path not in shared}
        self.texts: dict[str, str] = {}  # a unit of a refused entry -> its slug; shown ones removed on a hit
        for entry in refused:
            for unit in _entry_units(entry):
                self.texts.setdefault(unit, entry.slug)
        self._shown_entries, self._rendered = shown, list(rendered)
        self._shown: tuple[set[str], str] | None = None  # built on the first hit only
        self._chrome: set[str] | None = None

    # -- identity ------------------------------------------------------------------------------

    def owner(self, path: str) -> str | None:
        """The refused entry whose own page or file the site path ``path`` is, if any."""
        path = urllib.parse.unquote(path).lstrip("/")
        head, _, rest = path.partition("/")
        if rest or path.endswith("/"):
            return head if head in self.slugs else None
        for suffix in (".html", ".md"):
            if head.endswith(suffix) and head[:-len(suffix)] in self.slugs:
                return head[:-len(suffix)]
        return head if head in self.slugs else None

    def in_path(self, rel: str) -> str | None:
        slug = self.owner(rel)
        if slug:
            return f"a file of refused entry '{slug}'"
        slug = self.images.get(rel)
        return f"an image only refused entry '{slug}' links" if slug else None

    def in_content(self, rel: str, content: str, site_url: str | None = None,
                   site_dir: Path | None = None) -> str | None:
        if rel.endswith((".html", ".svg")):
            found = self._in_links(rel, content, site_url)
            if found:
                return found
        if rel.endswith(".xml"):
            found = self._in_sitemap(content, site_url)
            if found:
                return found
        text = content
        if rel.endswith(".json"):
            try:
                data = json.loads(content)
            except ValueError:
                data = None
            if data is not None:
                found = self._in_json(data, site_url)
                if found:
                    return found
                text = _BLOCK.join(html_text(s) if "<" in s else s for s in _json_nodes(data) if isinstance(s, str))
        elif rel.endswith((".html", ".svg", ".xml")):
            text = html_text(content)
        return self._in_text(text, site_dir)

    def _in_links(self, rel: str, content: str, site_url: str | None) -> str | None:
        folder = posixpath.dirname(rel)
        base_path = urllib.parse.urlparse(site_url).path if site_url else "/"
        for href in _HREF.findall(content):
            path = _link_path(folder, html.unescape(href) if "&" in href else href, site_url, base_path)
            if path is not None:
                slug = self.owner(path)
                if slug:
                    return f"a link to refused entry '{slug}' ({href})"
        return None

    def _in_sitemap(self, content: str, site_url: str | None) -> str | None:
        locs = [html.unescape(loc.strip()) for loc in _LOC.findall(content)]
        home = site_url or _home(locs)
        for loc in locs:  # every <loc> is this site's: without a site_url, its host's root is the base
            base = home or urllib.parse.urlparse(loc)._replace(path="/", params="", query="", fragment="").geturl()
            slug = self.owner(_relative(loc, base) or "")
            if slug:
                return f"the sitemap lists refused entry '{slug}' ({loc})"
        return None

    def _in_json(self, data: object, site_url: str | None) -> str | None:
        for record in (n for n in _json_nodes(data) if isinstance(n, dict)):
            if isinstance(record.get("slug"), str) and record["slug"] in self.slugs:
                return f"an item for refused entry '{record['slug']}'"
            for key in _UNIT_KEYS:
                value = record.get(key)
                if isinstance(value, str) and value:
                    slug = self.owner(_relative(value, site_url) or "")
                    if slug:
                        return f"a record of refused entry '{slug}' ({key}: {value})"
        return None

    def _in_text(self, text: str, site_dir: Path | None) -> str | None:
        if not self.texts:
            return None
        for unit in units(text):
            slug = self.texts.get(unit)
            if slug is not None:
                if self._is_shown(unit) or self._is_chrome(unit, site_dir):
                    del self.texts[unit]  # shared with a shown entry, or the theme's: no refused entry's own
                    continue
                return f"text of refused entry '{slug}': {unit[:60]!r}"
        return None

    # -- what the shown entries have (computed on the first hit: most builds have none) --------------

    def _is_shown(self, unit: str) -> bool:
        if self._shown is None:
            found: set[str] = set()
            flat = []
            for entry in self._shown_entries:
                for unit_ in _entry_units(entry):
                    found.add(unit_)
                flat.append(_flat(markdown_text(entry.title)))
            for text in self._rendered:
                plain = markdown_text(text)
                found.update(units(plain))
                flat.append(_flat(plain.replace(_BLOCK, " ")))
            flat.extend(found)
            self._shown = (found, "\n".join(flat))
        found, flat = self._shown
        return unit in found or unit in flat

    def _is_chrome(self, unit: str, site_dir: Path | None) -> bool:
        """Whether the theme itself prints ``unit`` (its 404 page holds chrome and no entry)."""
        if self._chrome is None:
            self._chrome = set()
            page = site_dir / "404.html" if site_dir is not None else None
            if page is not None and page.is_file() and not page.is_symlink():
                self._chrome = set(units(html_text(page.read_text(encoding="utf-8", errors="replace"))))
        return unit in self._chrome


def _entry_units(entry: Entry) -> Iterator[str]:
    """An entry's own units: its summary, its body's sentences and lines, its kernels' code lines."""
    yield from units(markdown_text(entry.meta.summary))
    yield from units(markdown_text(entry.body))
    for data in entry.kernel_files.values():
        for line in data.decode("utf-8", "replace").splitlines():
            line = _flat(line)
            if _weight(line) >= MIN_TRACE_CHARS and not line.startswith(("//", "#", "*", "/*")):
                yield line


def _home(locs: list[str]) -> str | None:
    """The sitemap's home URL: the shortest of several locations that every other one starts with."""
    if len(locs) < 2:
        return None
    home = min(locs, key=len)
    return home if all(loc.startswith(home) for loc in locs) else None


def _relative(url: str, base: str | None) -> str | None:
    """The site path of ``url`` from the site's root (``base``, the site's URL): a site-relative
    path as it is, an absolute one only on the site's host and under its path; None elsewhere."""
    parsed = urllib.parse.urlparse(url)
    root = urllib.parse.urlparse(base) if base else None
    base_path = (root.path or "/") if root else "/"
    if parsed.netloc or parsed.scheme:
        if root is None or (parsed.scheme, parsed.netloc) != (root.scheme, root.netloc):
            return None  # another host or scheme: never this site's page
    elif not parsed.path.startswith("/"):
        return parsed.path
    if not base_path.endswith("/"):
        base_path += "/"
    path = parsed.path if parsed.path.endswith("/") or parsed.path != base_path[:-1] else base_path
    return path[len(base_path):] if path.startswith(base_path) else None


def _link_path(folder: str, href: str, site_url: str | None, base_path: str) -> str | None:
    """The site path (from the site's root) a link on a page in ``folder`` points at; None for a link
    elsewhere (another host, another scheme, above the site's root)."""
    href = href.split("#", 1)[0].split("?", 1)[0].strip()
    if not href:
        return None
    if href.startswith("//") or ":" in href.split("/", 1)[0]:
        if site_url and href.startswith(site_url):
            return href[len(site_url):]
        return None
    if href.startswith("/"):
        return href[len(base_path):] if href.startswith(base_path) else None
    path = posixpath.normpath(posixpath.join(folder, href))
    return None if path == ".." or path.startswith("../") else path


def _images_of(entry: Entry) -> set[str]:
    """Docs-relative paths of the images an entry links and the dark partners it read (its published images)."""
    return set(images.asset_images(entry.body)) | set(entry.image_files)
