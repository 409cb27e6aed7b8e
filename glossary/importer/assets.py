"""Images of imported terms: copied into entries/assets/images/, never from or to outside.

An image path is read relative to the term's file ('/' at the start: relative to the imported
folder) and must resolve, symbolic links included, to a regular file inside that folder (a link
that loops, a FIFO or a device is reported, never opened; see ``files``); the copy's
name is the image's own file name (characters other than letters, digits, '.', '_' and '-'
become '-'), so it can only land in the images folder.  Two different files with one name: the
later one is prefixed with its term's slug.  ``NAME.dark.EXT`` beside an image is its dark-mode
partner and is copied beside it, named to match.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

from glossary.importer import files, themed
from glossary.importer.report import FileReport
from measure.store import write_bytes_atomic

IMAGES = "assets/images"  # under the entries folder; pages link to it as written here
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif")
# Files the theme itself puts in assets/images/ (Material's favicon): an image of that name is prefixed.
THEME_IMAGES = ("favicon.png",)
# A figure is tens of kilobytes; a photograph a few megabytes.
MAX_IMAGE_BYTES = 10 * 1024 * 1024


def is_external(dest: str) -> bool:
    return bool(re.match(r"(?i)(?:[a-z][a-z0-9+.-]*:|//)", dest))


def dark_partner(path: Path) -> Path:
    """'warp.svg' -> 'warp.dark.svg', beside it."""
    return path.with_name(f"{path.stem}.dark{path.suffix}")


class Images:
    """Places images into ``entries_dir/assets/images`` (or, under ``dry_run``, only says where)."""

    def __init__(self, src: Path, entries_dir: Path, dry_run: bool) -> None:
        self.root = Path(os.path.realpath(src))
        self.folder = entries_dir / IMAGES
        self.dry_run = dry_run
        self.placed: dict[str, bytes] = {}  # name in the images folder -> its bytes, this import
        self.by_source: dict[Path, str] = {}  # resolved source file -> its name there
        # A link (or a FIFO) where the images folder should be: writing there would land elsewhere.
        self.blocked = files.real_folder(self.folder, entries_dir)
        self._index: themed.ImageIndex | None = None

    def index(self) -> themed.ImageIndex:
        """Every image file of the folder, walked once on first use (themed images)."""
        if self._index is None:
            self._index = themed.ImageIndex([rel for _, rel in files.walk(self.root, IMAGE_SUFFIXES).files])
        return self._index

    def place_themed(self, light: str, dark: str | None, name: str, from_rel: str, slug: str,
                     report: FileReport, copy: bool = True) -> str | None:
        """A themed image's pair (paths relative to the folder): ``light`` copied as ``name`` (or
        '<slug>-name'), ``dark`` beside it as its dark partner."""
        link = self.place("/" + light, from_rel, slug, report, copy=copy, as_name=name)
        if link is None or dark is None or not copy or self.blocked:
            return link
        try:
            dark_source = files.inside(self.root / dark, self.root)
        except files.Unreadable as err:
            report.note("images", f"{dark} (the dark image of {name}) {err.message}; not copied")
            return link
        self._copy_partner(dark_source, link.rsplit("/", 1)[-1], dark, report)
        return link

    def place(self, dest: str, from_rel: str, slug: str, report: FileReport, copy: bool = True,
              as_name: str | None = None) -> str | None:
        """The link to the copy of image ``dest`` of the term at ``from_rel``; None (noted) where the
        image is missing, outside the folder, not a regular file, not an image or too large.
        ``copy=False``: checked and named only (the term's entry will not be written, so its images
        are not copied)."""
        path = unquote(re.split(r"[?#]", dest, maxsplit=1)[0], errors="surrogateescape")
        base = self.root if path.startswith("/") else (self.root / from_rel).parent
        wanted = base / path.lstrip("/")
        try:
            source = files.inside(wanted, self.root)
        except files.Outside:
            report.note("images", f"{dest} is outside the imported folder; not copied")
            return None
        except files.Missing as err:
            rel = os.path.relpath(os.path.normpath(wanted), self.root)
            why = f"no file {Path(rel).as_posix()}" if err.message == "is missing" else f"its path {err.message}"
            report.note("images", f"{dest} is missing ({why}); the image is left out, its alt text kept")
            return None
        except files.Unreadable as err:
            report.note("images", f"{dest} {err.message}; not copied")
            return None
        if source.suffix.lower() not in IMAGE_SUFFIXES:
            report.note("images", f"{dest} is not an image ({', '.join(IMAGE_SUFFIXES)}); not copied")
            return None
        if source in self.by_source:
            return f"{IMAGES}/{self.by_source[source]}"
        data = self._read(source, dest, report)
        if data is None:
            return None
        name = self._name(as_name or source.name, data, slug)
        if not copy:
            return f"{IMAGES}/{name}"
        if self.blocked:
            report.note("images", f"{dest} was not copied: {self.blocked}, so a copy would land elsewhere; "
                                  f"make it a folder and import again")
            return None
        if not self._write(name, data, report):
            return None
        self.by_source[source] = name
        self._place_dark(source, name, dest, report)
        return f"{IMAGES}/{name}"

    def _place_dark(self, source: Path, name: str, dest: str, report: FileReport) -> None:
        """Copy ``source``'s dark-mode partner, where it has one, beside its copy ``name``."""
        if source.stem.endswith(".dark"):
            return
        dark = dark_partner(source)
        try:
            dark_source = files.inside(dark, self.root)
        except (files.Missing, files.Outside):
            return
        except files.Unreadable as err:
            report.note("images", f"{dark.name} (the dark partner of {dest}) {err.message}; not copied")
            return
        self._copy_partner(dark_source, name, dest, report)

    def _copy_partner(self, dark_source: Path, name: str, dest: str, report: FileReport) -> None:
        """Copy ``dark_source`` beside the copy ``name`` as its dark partner, NAME.dark.EXT."""
        dark = dark_source
        dark_data = self._read(dark_source, dark.name, report)
        dark_name = dark_partner(Path(name)).name
        if dark_data is not None and self._holds(dark_name, dark_data) is False:
            report.note("images", f"{dark.name} (the dark partner of {dest}) was not copied: another file "
                                  f"already has the name {dark_name}")
        elif dark_data is not None:
            self._write(dark_name, dark_data, report)

    def _read(self, source: Path, dest: str, report: FileReport) -> bytes | None:
        try:
            return files.read_regular(source, MAX_IMAGE_BYTES)
        except files.TooLarge as err:
            report.note("images", f"{dest} is {err.size / 1e6:,.1f} MB; images of at most "
                                  f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB are copied")
        except files.Unreadable as err:
            report.note("images", f"{dest} {err.message}; not copied")
        return None

    def _name(self, name: str, data: bytes, slug: str) -> str:
        """The image's own (safe) name, or '<slug>-name' where another file already has that name."""
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).lstrip(".-") or "image"
        candidates = [name, f"{slug}-{name}"] + [f"{slug}-{i}-{name}" for i in range(2, 1000)]
        for candidate in candidates:
            if candidate.lower() not in THEME_IMAGES and self._holds(candidate, data) is not False:
                return candidate
        return f"{slug}-{len(self.placed)}-{name}"

    def _holds(self, name: str, data: bytes) -> bool | None:
        """True where ``name`` already holds ``data``, None where it is free, False where it holds
        other bytes or is not a regular file (a link or a FIFO there is never written through)."""
        if name in self.placed:
            return self.placed[name] == data
        target = self.folder / name
        if files.lkind(target) is None:
            return None
        try:
            return files.read_regular(target, len(data)) == data
        except files.Unreadable:  # a link, a FIFO, a folder, a larger file: another name is taken
            return False

    def _write(self, name: str, data: bytes, report: FileReport) -> bool:
        """Copy ``data`` to ``name`` in the images folder (noted where it cannot be written)."""
        same = self._holds(name, data)
        if same:
            self.placed[name] = data
            return True  # already there, byte for byte (an earlier import, or another term's link)
        if not self.dry_run:
            try:
                write_bytes_atomic(self.folder / name, data)
            except OSError as err:
                report.note("images", f"{self.folder / name} could not be written ({err.strerror or err}); "
                                      f"the image is left out")
                return False
        self.placed[name] = data
        report.images_copied += 1
        return True
