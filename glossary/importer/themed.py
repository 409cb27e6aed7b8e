"""Themed images of a source glossary: 'themed-image://NAME' names a light and a dark file.

Sites built on other generators link one image for both colour schemes and keep two files, named
by a convention of their own.  The conventions met in the wild are tried in turn, by file name,
over the images of the imported folder: 'light-NAME' / 'dark-NAME', 'NAME-light' / 'NAME-dark',
'NAME.light' / 'NAME.dark', 'NAME_light' / 'NAME_dark', 'light/NAME' / 'dark/NAME', and NAME
itself as the light one.  The pair becomes this project's: NAME.EXT and NAME.dark.EXT side by
side (``glossary.entries.images``).  A file in the link's own folder is preferred.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

THEMED = re.compile(r"(?i)^themed-image://(?P<path>.+)$")


def _forms(stem: str, ext: str, mode: str) -> list[str]:
    """File names (lower case) of NAME's ``mode`` ('light' or 'dark') image, by each convention."""
    return [f"{mode}-{stem}{ext}", f"{stem}-{mode}{ext}", f"{stem}.{mode}{ext}", f"{stem}_{mode}{ext}",
            f"{mode}/{stem}{ext}"]


class ImageIndex:
    """The images of the imported folder by file name (lower case), and 'light/NAME', 'dark/NAME'
    for those in a folder of that name: built once, looked up per themed link."""

    def __init__(self, rels: list[str]) -> None:
        self.by_name: dict[str, list[str]] = {}
        for rel in rels:
            low = rel.lower()
            self.by_name.setdefault(posixpath.basename(low), []).append(rel)
            parent = posixpath.basename(posixpath.dirname(low))
            if parent in ("light", "dark"):
                self.by_name.setdefault(f"{parent}/{posixpath.basename(low)}", []).append(rel)
        self.exts = sorted({posixpath.splitext(r)[1].lower() for r in rels})


def pair(dest: str, index: ImageIndex, from_rel: str) -> tuple[str | None, str | None, str] | None:
    """(light file, dark file, the copy's name) for a themed image link, as paths relative to the
    imported folder (either may be None where only one is found); None where neither is."""
    match = THEMED.match(dest.strip())
    if match is None:
        return None
    path = unquote(match.group("path").split("#")[0].split("?")[0]).strip("/")
    folder, name = posixpath.split(path)
    stem, ext = posixpath.splitext(name)
    by_name = index.by_name
    exts = [ext.lower()] if ext else index.exts
    here = posixpath.dirname(from_rel).lower()

    def best(names: list[str]) -> str | None:
        found = [rel for n in names for rel in by_name.get(n, [])]
        if not found:
            return None
        near = [r for r in found if folder and posixpath.dirname(r).lower().endswith(folder.lower())]
        near = near or [r for r in found if posixpath.dirname(r).lower() == here]
        return (near or found)[0]

    low = stem.lower()
    for e in exts:
        light = best(_forms(low, e, "light"))
        dark = best(_forms(low, e, "dark"))
        if light is None:
            light = best([f"{low}{e}"])
        if light or dark:
            safe = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip(".-") or "image"
            return light, dark, f"{safe}{e}"
    return None
