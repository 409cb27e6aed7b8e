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

import re
from typing import Callable

import jinja2

from glossary.entries import images
from glossary.site import export, page, plots, tags
from glossary.figures.views import DeviceView
from glossary.site.page import PageModel
from measure.results import Result
from glossary.site.render import make_env
from glossary.site.strays import ASSETS

EXPORT_PATH = "glossary.json"
INDEX = "index.md"
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
