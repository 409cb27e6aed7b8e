"""Links of imported terms: which term a link names, and the body with its links rewritten.

A link to another term of the folder ('other.md', '../section/other.md', 'other', '/section/other/',
'./other.md', each with an optional '#anchor') becomes '<slug>.md#anchor', where the entries live
side by side.  A link to a term that is not in the folder becomes its text, and is noted.  External
links (http, https, mailto) and in-page anchors stay.  Images are handed to ``assets.Images``.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import unquote

from glossary.entries.scaffold import slugify
from glossary.importer import themed
from glossary.importer.assets import IMAGE_SUFFIXES, Images
from glossary.importer.markdown import (Link, label_key, link_text_is_code, plain_text, reference_definitions,
                                        rewrite_links, with_url)
from glossary.importer.report import FileReport

_KEPT_SCHEMES = ("http:", "https:", "mailto:")
_PAGE_SUFFIXES = (".md", ".markdown", ".html", ".htm")


class Targets:
    """The folder's terms by path (and the entries already there, by slug): resolves a link's
    destination to a term's slug."""

    def __init__(self, slugs_by_rel: dict[str, str], existing: set[str] | frozenset[str] = frozenset(),
                 landing: set[str] | frozenset[str] = frozenset(), merged: dict[str, str] | None = None) -> None:
        self.existing = set(existing)  # slugs of entries already in the entries folder
        self.landing = {_page_key(rel) for rel in landing}  # landing pages: not imported
        self.merged = dict(merged or {})  # imported slug -> the entry it was merged into (--merge-into)
        self.by_path = {_page_key(rel): slug for rel, slug in slugs_by_rel.items()}
        by_stem: dict[str, set[str]] = {}
        for rel, slug in slugs_by_rel.items():
            by_stem.setdefault(slugify(PurePosixPath(rel).stem), set()).add(slug)
        self.by_stem = {stem: next(iter(s)) for stem, s in by_stem.items() if len(s) == 1}
        self.slugs = set(slugs_by_rel.values())

    def resolve(self, dest: str, from_rel: str) -> tuple[str, str | None, str]:
        """(kind, slug, anchor) of a link destination written in the file ``from_rel``.

        kind is "external" (kept), "anchor" (a place on the same page, kept), "term" (``slug``),
        "missing" (no term of the folder: the link becomes text), "landing" (a landing page, not
        imported: the link becomes text) or "unsafe" (a scheme other than http, https and mailto:
        the link becomes text).  An absolute link under the old site's path ('/gpu-glossary/
        section/term') resolves with that path dropped."""
        kind, slug, anchor = self._resolve(dest, from_rel)
        return (kind, self.merged.get(slug, slug), anchor) if kind == "term" else (kind, slug, anchor)

    def _resolve(self, dest: str, from_rel: str) -> tuple[str, str | None, str]:
        dest = dest.strip()
        if dest.startswith("#") or not dest:
            return "anchor", None, dest[1:]
        if re.match(r"(?i)[a-z][a-z0-9+.-]*:", dest):
            return ("external" if dest.lower().startswith(_KEPT_SCHEMES) else "unsafe"), None, ""
        if dest.startswith("//"):
            return "external", None, ""
        path, _, anchor = dest.partition("#")
        path = unquote(path.partition("?")[0])
        base = "" if path.startswith("/") else posixpath.dirname(from_rel)
        joined = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
        if joined == ".." or joined.startswith("../"):
            return "missing", None, anchor
        slug = self.by_path.get(_page_key(joined))
        if _page_key(joined) in self.landing:
            return "landing", None, anchor
        segments = _page_key(joined).split("/")
        for drop in range(1, min(len(segments), 4)) if slug is None and path.startswith("/") else ():
            rest = "/".join(segments[drop:])
            if rest in self.landing:
                return "landing", None, anchor
            slug = self.by_path.get(rest)  # '/gpu-glossary/device-hardware/sm': the old site's base path
            if slug is not None:
                break
        if slug is None:
            slug = self.by_stem.get(slugify(PurePosixPath(_page_key(joined)).name))
        if slug is None and slugify(PurePosixPath(_page_key(joined)).name) in self.existing:
            slug = slugify(PurePosixPath(_page_key(joined)).name)  # imported earlier: section by section
        return ("term", slug, anchor) if slug else ("missing", None, anchor)


def _page_key(rel: str) -> str:
    """'core/warp.md', 'core/warp', 'core/warp/', 'core/warp/index.md', 'core/warp.html' -> 'core/warp'."""
    key = rel.strip("/")
    for suffix in _PAGE_SUFFIXES:
        if key.lower().endswith(suffix):
            key = key[:-len(suffix)]
            break
    if key.lower().endswith("/index") or key.lower().endswith("/_index"):
        key = key.rsplit("/", 1)[0]
    return key.lower()


@dataclass
class TermLinks:
    """The link pass over one term: rewrites, records the terms it links to, notes what it could not map."""

    rel: str
    slug: str
    targets: Targets
    images: Images
    report: FileReport
    uses: list[tuple[str, str]] = field(default_factory=list)  # (plain link text, slug) of links to a whole term
    related: list[str] = field(default_factory=list)  # every term linked to, anchored or not, in link order
    defs: dict[str, str] = field(default_factory=dict)
    counting: bool = True  # False on a pass whose output is dropped (the sentence that became the summary)
    copying: bool = True  # False for a term whose entry will not be written: its images are not copied
    source_body: str = ""  # the body as read, and the file line it starts on: notes name their line
    body_line: int = 1
    _at: int = 0  # links are visited in the order of the body: each is looked for from the last one
    _newlines: list[int] | None = None
    _where: str = ""  # 'line N: ' of the image being visited

    def line(self, raw: str) -> str:
        """'line N: ' for the next place ``raw`` occurs in the source file ('' where it is not found).
        The search goes on from the last link found, so a whole body costs one pass."""
        at = self.source_body.find(raw, self._at)
        if at < 0:
            return ""
        self._at = at + len(raw)
        if self._newlines is None:
            self._newlines = [i for i, c in enumerate(self.source_body) if c == "\n"]
        return f"line {self.body_line + bisect.bisect_left(self._newlines, at)}: "

    def run(self, markdown: str, counting: bool = True) -> str:
        self.counting = counting
        self.defs.update(reference_definitions(markdown))
        return rewrite_links(markdown, self.visit)

    def visit(self, link: Link) -> str:
        if link.kind == "image":
            return self._image(link)
        if link.kind == "img":
            return self._html_img(link)
        if link.kind == "def":
            return self._definition(link)
        if link.kind == "a":
            return self._html_link(link)
        dest = link.dest if link.kind == "link" else self.defs.get(label_key(link.dest))
        if dest is None:
            return link.raw  # '[text][label]' without a definition: text in brackets, as Markdown shows it
        kind, slug, anchor = self.targets.resolve(dest, self.rel)
        if kind in ("external", "anchor"):
            return link.raw
        if kind == "term":
            self.related.append(slug)
            if not anchor and not link_text_is_code(link.text):
                # a link to a part of the term names the part, and code names an identifier: no alias
                self.uses.append((plain_text(link.text), slug))
            if link.kind == "ref":
                return link.raw  # its definition line is rewritten
            self._count()
            return _replace_dest(link.raw, link.dest, f"{slug}.md" + (f"#{anchor}" if anchor else ""))
        if self.counting:
            why = {"missing": "not a term of the imported folder",
                   "landing": "a section's landing page, which is not imported"}.get(kind, "a link this tool does not keep")
            self.report.note("links", f"{self.line(link.raw)}[{plain_text(link.text)}]({dest}): {why}; the link "
                                      f"became its text")
        return link.text

    def _count(self) -> None:
        if self.counting:
            self.report.links_rewritten += 1

    def _definition(self, link: Link) -> str:
        if PurePosixPath(link.dest.partition("?")[0]).suffix.lower() in IMAGE_SUFFIXES:
            new = self._place(link.dest)
            return link.raw if new is None else _replace_dest(link.raw, link.dest, new)
        kind, slug, anchor = self.targets.resolve(link.dest, self.rel)
        if kind == "term":
            self._count()
            return _replace_dest(link.raw, link.dest, f"{slug}.md" + (f"#{anchor}" if anchor else ""))
        if kind in ("external", "anchor"):
            return link.raw
        if self.counting:
            self.report.note("links", f"{self.line(link.raw)}[{link.text}]: {link.dest} is not a term of the "
                                      f"imported folder; the definition was removed and the links using it "
                                      f"became their text")
        return ""

    def _html_link(self, link: Link) -> str:
        kind, slug, anchor = self.targets.resolve(link.dest, self.rel)
        if kind == "term":
            self.related.append(slug)
            self._count()
            return with_url(link.raw, f"{slug}.md" + (f"#{anchor}" if anchor else ""))
        if kind not in ("external", "anchor") and self.counting:
            self.report.note("links", f"{self.line(link.raw)}<a href=\"{link.dest}\">: not a term of the imported "
                                      f"folder; the HTML link is kept as written: check it")
        return link.raw

    def _place(self, dest: str) -> str | None:
        if not self.counting:
            return None
        return self.images.place(dest, self.rel, self.slug, self.report, copy=self.copying)

    def _image(self, link: Link) -> str:
        self._where = self.line(link.raw) if self.counting else ""
        link = self._plain_alt(link)
        if not link.dest or re.match(r"(?i)(?:https?:)?//", link.dest):
            return link.raw  # a reference image or an external one: kept as written
        if themed.THEMED.match(link.dest):
            new = self._themed(link)
            return link.text if new is None else _replace_dest(link.raw, link.dest, new)
        if re.match(r"(?i)[a-z][a-z0-9+.-]*:", link.dest):
            if self.counting:
                self.report.note("images", f"{self._where}{link.dest[:60]}: not a file or an http(s) "
                                           f"image; left out")
            return link.text
        new = self._place(link.dest)
        return link.text if new is None else _replace_dest(link.raw, link.dest, new)

    def _plain_alt(self, link: Link) -> Link:
        """An image whose alt text holds links ('![An [SM](sm.md)](sm.svg)', a caption on the old
        site) keeps their text only: alt text is plain, and its links would break here."""
        if "](" not in link.text and "][" not in link.text:
            return link
        alt = plain_text(link.text)
        if self.counting:
            self.report.note("links", f"{self._where}the alt text of image {link.dest[:60]} holds links; "
                                      f"they became their text ({alt[:60]!r})")
        at = link.raw.index("[") + 1
        return Link(link.kind, alt, link.dest, link.raw[:at] + alt + link.raw[at + len(link.text):])

    def _themed(self, link: Link) -> str | None:
        """A themed image ('themed-image://sm.svg': a light and a dark file) as the project's pair:
        the light file as NAME.EXT, the dark one beside it as NAME.dark.EXT."""
        if not self.counting:
            return None
        found = themed.pair(link.dest, self.images.index(), self.rel)
        where = self._where
        if found is None:
            self.report.note("images", f"{where}{link.dest[:60]}: no light or dark image of that name in the "
                                       f"folder; the image is left out, its alt text kept")
            return None
        light, dark, name = found
        if dark is None or light is None:
            self.report.note("images", f"{where}{link.dest[:60]}: only a {'dark' if light is None else 'light'} "
                                       f"image was found ({dark or light}); it is shown in both modes")
        return self.images.place_themed(light or dark, dark if light else None, name, self.rel, self.slug,
                                        self.report, copy=self.copying)

    def _html_img(self, link: Link) -> str:
        if not link.dest or re.match(r"(?i)(?:https?:)?//", link.dest):
            return link.raw
        new = self._place(link.dest) if not re.match(r"(?i)[a-z][a-z0-9+.-]*:", link.dest) else None
        return link.text if new is None else with_url(link.raw, new)


def _replace_dest(raw: str, dest: str, new: str) -> str:
    """``raw`` (a link, image or definition) with its destination ``dest`` replaced by ``new``."""
    at = raw.rfind("](") + 2 if "](" in raw else raw.find("]:") + 2
    return raw[:at] + raw[at:].replace(dest, new, 1)
