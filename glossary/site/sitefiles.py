"""The site's files, by allowlist: what the build publishes from ``entries/`` and what it generates.

The site holds the home page, the shown entries' pages, the assets that
``mkdocs.yml`` names or a shown entry's body links, and files made here from
the shown entries only: each entry's declared files (its kernels and reference,
the bytes that were read, checked to lie in its folder and hashed into the
review), the images its body links and their dark partners (``glossary.entries.images``:
read with the entry and hashed into the review too), its results re-serialised from the validated data (never copied
raw), its plots, the tag pages and ``glossary.json``.  Every other file under
``entries/`` is left out, and ``stray_files`` names it so the build and
`glossary check` can say so.  Nothing here follows a symbolic link.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, Iterable, Iterator

import jinja2

from glossary.entries import images
from glossary.site import export, page, plots, tags
from glossary.verdicts import trust
from glossary.figures.views import DeviceView
from glossary.site.page import PageModel
from measure.results import Result
from glossary.site.render import make_env

EXPORT_PATH = "glossary.json"
INDEX = "index.md"
ASSETS = "assets"
# Every suffix MkDocs renders as a page (mkdocs.utils.markdown_extensions).
PAGE_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
# Left alone without a word: editor and tool droppings that MkDocs' own exclude_docs skips too.
_IGNORED_DIRS = ("__pycache__",)
_IGNORED_SUFFIXES = (".pyc",)
_ASSET_LINK = re.compile(r"""(?:\(|\]:\s*|src=["'])(?:\./)?(assets/[A-Za-z0-9._/-]+)""")


def generated(models: list[PageModel], templates, directory_urls: bool = True,
              plot: Callable[[DeviceView], bytes] = plots.device_svg,
              results: dict[str, dict[str, Result]] | None = None,
              result_text: Callable[[str, dict[str, Result]], dict[str, str]] | None = None,
              export_text: Callable[[list[PageModel], bool], str | Callable[[], str]] = export.export_json,
              ) -> dict[str, str | bytes]:
    """Docs-relative path -> content of every file the glossary generates.

    ``templates`` is the build's template environment (or the templates folder, for one of
    its own); ``plot`` draws one device's SVG; the build passes a ``plots.PlotCache``'s ``svg``.
    ``results`` (slug -> device key -> validated result data) adds each shown
    entry's result files (written by ``result_text``, default ``result_files``: mkdocs serve's memo
    hands its own); the entries' declared files and images always come along.  ``export_text`` writes
    ``glossary.json`` (default ``export.export_json``).
    """
    out: dict[str, str | bytes] = {}
    for model in models:
        out.update(declared_files(model.entry))
        # an author's SVG that could run script is refused at the gate and published in no mode
        out.update(images.safe_images(model.entry.image_files))
        out.update((result_text or result_files)(model.entry.slug, (results or {}).get(model.entry.slug, {})))
    for model in models:
        for view in model.devices:
            if plots.has_plot(view):
                out[page.plot_path(model.entry.slug, view.key)] = plot(view)  # after the entry's own files
    env = templates if isinstance(templates, jinja2.Environment) else make_env(templates)
    out.update(tags.pages(env, models))
    out[EXPORT_PATH] = export_text(models, directory_urls)
    return out


def plot_paths(models: list[PageModel]) -> set[str]:
    """Docs-relative paths of the plots ``generated`` draws: the only SVGs the pages may embed as
    ``<object>`` (``plots.embed_plots``), chosen by where they came from.  ``generated`` writes
    them after every entry's own files, so each path holds the drawn SVG, never an author's."""
    return {page.plot_path(m.entry.slug, view.key) for m in models for view in m.devices if plots.has_plot(view)}


def declared_files(entry) -> dict[str, bytes]:
    """Docs-relative path -> bytes of the files an entry declares (``measure.sources`` and
    ``measure.reference``), exactly as the entry model read them; never one a browser would open
    as a document that runs script (``images.is_active``: the gate refuses its entry)."""
    return {f"{entry.slug}/{name}": data for name, data in sorted(entry.kernel_files.items())
            if not images.is_active(name)}


def result_files(slug: str, recorded: dict[str, Result]) -> dict[str, str]:
    """Docs-relative path -> JSON text of each device's validated results (as read), written anew."""
    return {f"{slug}/results/{key}.json": export.dumps(result.plain()) for key, result in sorted(recorded.items())}


def published_sources(models: list[PageModel], named_assets: list[str]) -> set[str]:
    """Docs-relative paths of the files in ``entries/`` that the site publishes as they are.

    The home page, each shown entry's page, the assets ``mkdocs.yml`` names
    (``extra_css``, ``extra_javascript``), the assets a shown entry's body links and the assets its
    imported results cite as their source (``imported_from_url``).  Images are not among them:
    ``generated`` publishes the bytes each shown entry read and its review covers.
    """
    keep = {INDEX}
    keep.update(a for a in named_assets if a.startswith(f"{ASSETS}/"))
    for model in models:
        keep.add(f"{model.entry.slug}.md")
        # images come as the bytes the entry read and the review covers (generated), never from disk again
        keep.update(m.group(1) for m in _ASSET_LINK.finditer(model.entry.body)
                    if ".." not in m.group(1) and not images.is_image(m.group(1)))
        keep.update(url for _, url in model.import_sources if url.startswith(f"{ASSETS}/") and ".." not in url)
    return keep


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
