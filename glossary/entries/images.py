"""The images an entry's body shows: where they are linked, which files they are, their dark partners.

An entry's images live in ``entries/assets/images/`` and the body links them as
``assets/images/NAME.EXT``.  ``NAME.dark.EXT`` beside an image is its dark-mode partner
(``glossary.site.images`` shows it in dark mode).  The bytes of every linked image under
``assets/`` and of its partner are read once, here, with the entry: the review fingerprint
covers exactly those bytes and the site publishes exactly them.  Code (fenced blocks, code
spans) links nothing.

An SVG is a document that can run script: opened directly (or embedded as an ``<object>``) its
``<script>`` and ``onload`` run with the site's origin, and a reviewer sees it only as a picture.
``svg_problem`` refuses one holding script, event handlers, ``<foreignObject>``, external
references or a DOCTYPE; the gate refuses its entry and the site publishes it in no mode.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from glossary.entries.masking import mask_code

ASSETS = "assets"
IMAGES_DIR = "assets/images"
IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".webp", ".gif")
DARK = ".dark"  # NAME.dark.EXT is NAME.EXT's dark-mode partner
# Files the theme (Material for MkDocs) itself keeps under assets/images/: an entry's image there would
# replace it on every page.
THEME_FILES = ("assets/images/favicon.png",)
# An image is part of a page, not a download: a file this large is a mistake (a 39-diagram glossary's
# largest is well under 1 MB), and its bytes are read and hashed on every build.
MAX_IMAGE_BYTES = 8 * 1024 * 1024

# A link target as the site publishes it: a relative path under assets/ (the page is entries/<slug>.md).
_ASSET_TARGET = re.compile(r"""(?:\(\s*<?|\]:[ \t]*<?|src\s*=\s*["'])(?:\./)?(assets/[A-Za-z0-9._/-]+)""")
# Alt text and labels hold no bracket, so each scan is linear (see glossary.site.render._LINK).
_INLINE = re.compile(r"""!\[[^\[\]\n]*\]\(\s*<?([^\s()<>]+)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)""")
_REFERENCE = re.compile(r"!\[([^\[\]\n]*)\](?:\[([^\[\]\n]*)\])?(?![(\[:])")
_DEFINITION = re.compile(r"^[ ]{0,3}\[([^\[\]\n]+)\]:[ \t]*<?([^\s<>]+)>?", re.M)
_HTML_SRC = re.compile(r"""<img\b[^<>\n]*?\bsrc\s*=\s*["']([^"'\n]+)["']""", re.I)
_LINK = re.compile(r"""(?<!!)\[[^\[\]\n]*\]\(\s*<?([^\s()<>]+)>?""")
_REMOTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//|#)")


@dataclass(frozen=True)
class ImageLink:
    """An image the body links: the target as written (fragment and query cut off) and its body line."""

    target: str
    line: int

    @property
    def published_path(self) -> str | None:
        """The docs-relative path the site publishes it at, or None where it lies outside ``assets/``."""
        path = self.target[2:] if self.target.startswith("./") else self.target
        return path if path.startswith(f"{ASSETS}/") and ".." not in path.split("/") else None


def is_image(path: str) -> bool:
    """Whether a path names an image file (by its suffix, in any case)."""
    return path.lower().endswith(IMAGE_SUFFIXES)


def dark_partner(path: str) -> str | None:
    """``NAME.dark.EXT`` for an image ``NAME.EXT`` (None for a dark image itself, or a non-image)."""
    stem, dot, suffix = path.rpartition(".")
    if not dot or not is_image(path) or stem.endswith(DARK):
        return None
    return f"{stem}{DARK}.{suffix}"


def definitions(markdown: str) -> dict[str, str]:
    """Reference-style link definitions (``[ref]: target``), by label as Markdown matches it."""
    out: dict[str, str] = {}
    for match in _DEFINITION.finditer(markdown):
        out.setdefault(label(match.group(1)), match.group(2))
    return out


def label(text: str) -> str:
    """A reference label as Markdown compares it: case-folded, whitespace collapsed."""
    return " ".join(text.split()).casefold()


def links(body: str) -> list[ImageLink]:
    """Every local image the body links, outside code: ``![alt](target)``, ``![alt][ref]`` with its
    definition, ``<img src=...>`` and a plain link to an image file; remote URLs are left out."""
    masked, _ = mask_code(body)
    defined = definitions(masked)
    found: list[tuple[int, str]] = []
    found += [(m.start(), m.group(1)) for m in _INLINE.finditer(masked)]
    found += [(m.start(), m.group(1)) for m in _HTML_SRC.finditer(masked)]
    for match in _REFERENCE.finditer(masked):
        target = defined.get(label(match.group(2) or match.group(1)))
        if target is not None:
            found.append((match.start(), target))
    found += [(m.start(), m.group(1)) for m in _LINK.finditer(masked) if is_image(_bare(m.group(1)))]
    found += [(m.start(), m.group(2)) for m in _DEFINITION.finditer(masked) if is_image(_bare(m.group(2)))]
    out, seen = [], set()
    line, counted = 1, 0  # line numbers counted on from the last link: linear in the body
    for at, target in sorted(found):
        target = _bare(target)
        if not target or _REMOTE.match(target) or (at, target) in seen:
            continue
        seen.add((at, target))
        line, counted = line + masked.count("\n", counted, at), at
        out.append(ImageLink(target, line))
    return out


def asset_images(body: str) -> list[str]:
    """Docs-relative paths of the images under ``assets/`` that the body links outside code, each once."""
    masked, _ = mask_code(body)
    paths = {m.group(1) for m in _ASSET_TARGET.finditer(masked)}
    paths.update(p for p in (link.published_path for link in links(body)) if p)
    return sorted(p for p in paths if is_image(p) and ".." not in p.split("/"))


def read_images(body: str, entries_dir: Path) -> dict[str, bytes]:
    """Docs-relative path -> bytes of each image under ``assets/`` the body links, and of each one's
    dark partner, where the file is there: a regular file (never a symbolic link) inside
    ``entries_dir/assets`` of at most MAX_IMAGE_BYTES.  Missing ones are `glossary check`'s to report."""
    root = (Path(entries_dir) / ASSETS).resolve()
    out: dict[str, bytes] = {}
    for path in asset_images(body):
        for rel in (path, dark_partner(path)):
            data = _read(Path(entries_dir), root, rel) if rel and rel not in out else None
            if data is not None:
                out[rel] = data
    return out


def _read(entries_dir: Path, root: Path, rel: str) -> bytes | None:
    path = entries_dir / rel
    try:
        if path.is_symlink() or not path.is_file() or root not in path.resolve().parents:
            return None
        if path.stat().st_size > MAX_IMAGE_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _bare(target: str) -> str:
    """A link target without its fragment or query (``x.png#only-dark`` is the file ``x.png``)."""
    return re.split(r"[#?]", target.strip().strip("<>"), maxsplit=1)[0]


# -- SVG: a picture, never a program -------------------------------------------------------------

# Elements that run script, hold HTML, or pull in another document (by local name, any namespace).
_SVG_ELEMENTS = {"script": "a <script> element", "foreignobject": "a <foreignObject> element (HTML inside SVG)",
                 "handler": "a <handler> element (script)", "listener": "a <listener> element (script)",
                 "iframe": "an <iframe> element", "embed": "an <embed> element", "object": "an <object> element"}
_ANIMATIONS = {"set", "animate", "animatemotion", "animatetransform", "discard"}
_LOCAL_URL = re.compile(r"url\(\s*(?!['\"]?\s*#)", re.I)  # url(...) to anything but #id
_SCHEME_VALUE = re.compile(r"^\s*(?:javascript|vbscript|data)\s*:", re.I)


class _Refused(Exception):
    pass


def svg_problem(data: bytes) -> str | None:
    """Why an SVG file could run script or reach outside itself, as a clause naming the element or
    attribute and its line ("holds the event handler onload= on <svg> (line 3)"); None for a plain
    picture.  Parsed with expat and no DTD: a DOCTYPE (and with it every entity,
    a billion-laughs file included) is refused before anything is expanded, so the work is linear
    in the file's size."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    depth = [0]
    style: list[list[str]] = []  # the text of each open <style>, checked whole at its end

    def refuse(why: str, verb: str = "holds"):
        raise _Refused(f"{verb} {why} (line {parser.CurrentLineNumber})")

    def doctype(*_args):
        refuse("a DOCTYPE (entities, external DTDs)")

    def instruction(target, _data):
        refuse(f"a <?{target} ...?> processing instruction")

    def start(name: str, attrs: dict):
        local = name.rsplit(" ", 1)[-1]
        depth[0] += 1
        if depth[0] == 1 and local != "svg":
            refuse(f"the root element <{local}>, not <svg>", verb="has")
        if local.lower() in _SVG_ELEMENTS:
            refuse(_SVG_ELEMENTS[local.lower()])
        if local == "style":
            style.append([])
        for key, value in attrs.items():
            attr = key.rsplit(" ", 1)[-1]
            low = attr.lower()
            if low.startswith("on"):
                refuse(f"the event handler {attr}= on <{local}>")
            if low == "href" and not value.strip().startswith("#"):
                refuse(f"the external reference {attr}={value[:80]!r} on <{local}> (only #id links stay inside the file)")
            if _SCHEME_VALUE.match(value):
                refuse(f"the URL {value[:80]!r} in {attr}= on <{local}>")
            if _style_problem(value):
                refuse(f"{_style_problem(value)} in {attr}= on <{local}>")
            if local.lower() in _ANIMATIONS and low == "attributename" and (
                    value.strip().lower().rsplit(":", 1)[-1] == "href" or value.strip().lower().startswith("on")):
                refuse(f"<{local} attributeName={value!r}> (an animation that rewrites a link or a handler)")

    def end(name: str):
        depth[0] -= 1
        if name.rsplit(" ", 1)[-1] == "style" and style:
            why = _style_problem("".join(style.pop()))
            if why:
                refuse(f"{why} in a <style> element")

    def text(data: str):
        if style:
            style[-1].append(data)

    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    parser.ProcessingInstructionHandler = instruction
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.ExternalEntityRefHandler = lambda *_args: refuse("an external entity")
    try:
        parser.Parse(data, True)
    except _Refused as err:
        return str(err)
    except xml.parsers.expat.ExpatError as err:
        return f"is not well-formed XML ({xml.parsers.expat.errors.messages.get(err.code, err)}, line {err.lineno})"
    if depth[0] != 0:
        return "is not a complete SVG document"
    return None


def _style_problem(css: str) -> str | None:
    low = css.lower()
    if "@import" in low:
        return "a CSS @import"
    if _LOCAL_URL.search(css):
        return "a CSS url() to another file (only url(#id) stays inside the file)"
    if "expression(" in low or "javascript:" in low:
        return "script in CSS"
    return None


# Suffixes a browser opens as a document that can run script (served as HTML, XHTML, SVG or XML):
# an entry's declared file (measure.sources, measure.reference) published under one of them would
# run with the site's origin when opened.  Kernels are .cu and .cuh, references .py.
ACTIVE_SUFFIXES = (".html", ".htm", ".xhtml", ".xht", ".shtml", ".svg", ".svgz", ".xml", ".xsl", ".xslt",
                   ".mht", ".mhtml", ".js", ".mjs")


def is_active(path: str) -> bool:
    """Whether a browser would open a file of this name as a document that can run script."""
    return path.lower().endswith(ACTIVE_SUFFIXES)


def is_svg(path: str) -> bool:
    return path.lower().endswith(".svg")


def svg_problems(image_files: Mapping[str, bytes]) -> dict[str, str]:
    """Docs-relative path -> why, for each SVG among an entry's images that ``svg_problem`` refuses."""
    out = {}
    for path, data in sorted(image_files.items()):
        why = svg_problem(data) if is_svg(path) else None
        if why:
            out[path] = why
    return out


def safe_images(image_files: Mapping[str, bytes]) -> dict[str, bytes]:
    """An entry's images without the SVGs ``svg_problem`` refuses: what the site may publish."""
    refused = svg_problems(image_files)
    return {path: data for path, data in image_files.items() if path not in refused}
