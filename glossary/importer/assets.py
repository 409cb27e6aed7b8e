"""Images of imported terms: copied into entries/assets/images/, never from or to outside.

An image path is read relative to the term's file ('/' at the start: relative to the imported
folder) and must resolve, symbolic links included, to a file inside that folder; the copy's
name is the image's own file name (characters other than letters, digits, '.', '_' and '-'
become '-'), so it can only land in the images folder.  Two different files with one name: the
later one is prefixed with its term's slug.  ``NAME.dark.EXT`` beside an image is its dark-mode
partner and is copied beside it, named to match.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

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
        self.root = src.resolve()
        self.folder = entries_dir / IMAGES
        self.dry_run = dry_run
        self.placed: dict[str, bytes] = {}  # name in the images folder -> its bytes, this import
        self.by_source: dict[Path, str] = {}  # resolved source file -> its name there

    def place(self, dest: str, from_rel: str, slug: str, report: FileReport, copy: bool = True) -> str | None:
        """The link to the copy of image ``dest`` of the term at ``from_rel``; None (noted) where the
        image is missing, outside the folder, not an image or too large.  ``copy=False``: checked and
        named only (the term's entry will not be written, so its images are not copied)."""
        path = unquote(re.split(r"[?#]", dest, maxsplit=1)[0])
        base = self.root if path.startswith("/") else (self.root / from_rel).parent
        source = (base / path.lstrip("/")).resolve()
        if self.root not in source.parents:
            report.note("images", f"{dest} is outside the imported folder; not copied")
            return None
        if not source.is_file():
            report.note("images", f"{dest} is missing (no file {source.relative_to(self.root).as_posix()}); "
                                  f"the image is left out, its alt text kept")
            return None
        if source.suffix.lower() not in IMAGE_SUFFIXES:
            report.note("images", f"{dest} is not an image ({', '.join(IMAGE_SUFFIXES)}); not copied")
            return None
        if source in self.by_source:
            return f"{IMAGES}/{self.by_source[source]}"
        data = self._read(source, dest, report)
        if data is None:
            return None
        name = self._name(source.name, data, slug)
        if not copy:
            return f"{IMAGES}/{name}"
        self._write(name, data, report)
        self.by_source[source] = name
        dark = dark_partner(source)
        if not source.stem.endswith(".dark") and dark.is_file() and self.root in dark.resolve().parents:
            dark_data = self._read(dark.resolve(), dark.name, report)
            dark_name = dark_partner(Path(name)).name
            if dark_data is not None and self._holds(dark_name, dark_data) is False:
                report.note("images", f"{dark.name} (the dark partner of {dest}) was not copied: another file "
                                      f"already has the name {dark_name}")
            elif dark_data is not None:
                self._write(dark_name, dark_data, report)
        return f"{IMAGES}/{name}"

    def _read(self, source: Path, dest: str, report: FileReport) -> bytes | None:
        try:
            size = source.stat().st_size
            if size > MAX_IMAGE_BYTES:
                report.note("images", f"{dest} is {size / 1e6:,.1f} MB; images of at most "
                                      f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB are copied")
                return None
            return source.read_bytes()
        except OSError as err:
            report.note("images", f"{dest} cannot be read: {err.strerror or err}")
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
        """True where ``name`` already holds ``data``, None where it is free, False where it holds other bytes."""
        if name in self.placed:
            return self.placed[name] == data
        target = self.folder / name
        if target.is_symlink() or (target.exists() and not target.is_file()):
            return False
        if target.is_file():
            try:
                return target.read_bytes() == data
            except OSError:
                return False
        return None

    def _write(self, name: str, data: bytes, report: FileReport) -> None:
        same = self._holds(name, data)
        self.placed[name] = data
        if same:
            return  # already there, byte for byte (an earlier import, or another term's link)
        report.images_copied += 1
        if not self.dry_run:
            write_bytes_atomic(self.folder / name, data)
