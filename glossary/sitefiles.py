"""Files the build adds to the site: plots, tag pages and ``glossary.json``.

Everything here is made from the shown entries only, so a refused entry
contributes no file.  Returns docs-relative paths and contents; the hook wraps
them as MkDocs generated files.
"""

from __future__ import annotations

from typing import Callable

from glossary import export, features, plots, tags
from glossary.pages import DeviceView, PageModel
from glossary.render import make_env

EXPORT_PATH = "glossary.json"


def generated(models: list[PageModel], templates_dir, directory_urls: bool = True,
              plot: Callable[[DeviceView], bytes] = plots.device_svg) -> dict[str, str | bytes]:
    """Docs-relative path -> content of every file the glossary generates.

    ``plot`` draws one device's SVG; the build passes a ``plots.PlotCache``'s ``svg``.
    """
    out: dict[str, str | bytes] = {}
    for model in models:
        for view in model.devices:
            if plots.has_plot(view):
                out[features.plot_path(model.entry.slug, view.key)] = plot(view)
    out.update(tags.pages(make_env(templates_dir), models))
    out[EXPORT_PATH] = export.export_json(models, directory_urls)
    return out
