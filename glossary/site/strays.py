"""The files under ``entries/`` that no entry declares (the site leaves them out, and `glossary check`
names them) and the symbolic links there (never followed): read from the folder alone and the parsed
entries, with none of the site's templates, so a check of one entry does not load them (issue 34)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, Iterator

from glossary.entries import images
from glossary.verdicts import trust

ASSETS = "assets"
# Every suffix MkDocs renders as a page (mkdocs.utils.markdown_extensions).
PAGE_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
# Left alone without a word: editor and tool droppings that MkDocs' own exclude_docs skips too.
_IGNORED_DIRS = ("__pycache__",)
_IGNORED_SUFFIXES = (".pyc",)


def symlinks(entries_dir: Path) -> list[Path]:
    """Every symbolic link under ``entries_dir`` (never followed): MkDocs would walk a linked folder."""
    return sorted(Path(item.path) for _, item in _walk(Path(entries_dir)) if item.is_symlink())


def _walk(root: Path, skip: Callable[[str], bool] = lambda name: False,
          only: Iterable[str] | None = None) -> Iterator[tuple[str, os.DirEntry]]:
    """(path relative to ``root``, its directory entry) of every file and folder under ``root``, in name
    order, links never followed, leaving out the folders ``skip`` names (and what they hold); with
    ``only``, the top-level items of those names alone (and what they hold).  A directory entry knows
    whether it is a link or a folder without another system call: a 1,000-entry tree is walked in a
    tenth of the time ``os.walk`` and a ``stat`` per file took."""
    names = None if only is None else set(only)
    stack = [("", str(root))]
    while stack:
        rel, folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                items = sorted((item for item in listing if rel or names is None or item.name in names),
                               key=lambda item: item.name)
        except OSError:
            continue
        below = []
        for item in items:
            path = f"{rel}/{item.name}" if rel else item.name
            if item.is_dir(follow_symlinks=False):
                if skip(item.name):
                    continue
                below.append((path, item.path))
            yield path, item
        stack.extend(reversed(below))


def stray_files(entries_dir: Path, entries: dict, only: Iterable[str] | None = None) -> list[str]:
    """A sentence for every file under ``entries_dir`` that no entry declares, so the site leaves it out.

    ``entries`` maps slugs to parsed entries.  Entry files (``entries/*.md``), the
    home page, dotfiles, ``__pycache__`` and the ``assets/`` folder's non-page files
    are not stray, except an image in ``assets/images/`` that no entry links (nor is
    the dark partner of one that is linked); every other page, and every file in an
    entry's folder other than its declared files and its results, is.  Links are
    reported, never followed.  ``only``: these entries' own folders alone (a check of
    some entries reads no other entry; ``entries`` need hold only them).
    """
    out = []
    root = Path(entries_dir)
    linked = None  # the images the entries link: read where the folder holds an image at all
    for rel, item in _walk(root, skip=lambda name: name.startswith(".") or name in _IGNORED_DIRS, only=only):
        name = item.name
        if item.is_dir(follow_symlinks=False) or name.startswith(".") or name.endswith(_IGNORED_SUFFIXES):
            continue
        why = _stray_reason(rel, root, entries, item.is_symlink())
        if why is None and rel.startswith(f"{images.IMAGES_DIR}/") and images.is_image(rel):
            if linked is None:
                linked = {path for entry in entries.values()
                          for path in [*getattr(entry, "image_files", {}), *images.asset_images(entry.body)]}
            if rel not in linked:
                why = ("is an image no entry links; it is not published: link it from an entry's body as "
                       f"![...]({rel}), or remove it")
        if why:
            out.append(f"{root / rel}: {why}")
    return out


def _stray_reason(rel: str, root: Path, entries: dict, link: bool) -> str | None:
    parts = rel.split("/")
    if link:
        return "is a symbolic link; links under entries/ are never followed or published: remove it"
    if len(parts) == 1:
        if rel.endswith(".md"):
            return None  # an entry (or the home page); a malformed one is reported as such
        if rel.lower().endswith(PAGE_SUFFIXES):
            return "is a page outside the publish gate (entries are entries/<slug>.md); it is not published"
        return "is not an entry or an asset; it is not published"
    if parts[0] == ASSETS:
        if rel.lower().endswith(PAGE_SUFFIXES):
            return "is a page outside the publish gate; assets/ holds styles and images, it is not published"
        return None
    entry = entries.get(parts[0])
    if entry is None and (root / f"{parts[0]}.md").is_file():
        return None  # the folder of an entry that did not parse: that entry's error is the one to fix
    if entry is None:
        return "is in no entry's folder (entries/<slug>/ for an entry entries/<slug>.md); it is not published"
    inside = "/".join(parts[1:])
    # the signed review (glossary.verdicts.trust) is read by the build, never published
    if inside in entry.kernel_files or inside in (trust.REVIEW_FILE, trust.AUTHOR_FILE):
        return None
    if len(parts) == 3 and parts[1] in ("results", "reproductions") and parts[2].endswith(".json"):
        return None  # reproductions (glossary.verdicts.reproductions) are read by the build, shown on the page
    return (f"is not a file the entry {parts[0]!r} declares (measure.sources, measure.reference) or one of its "
            f"results; it is not published: remove it, or declare it in the spec")
