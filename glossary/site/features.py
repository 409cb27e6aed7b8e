"""Reader-facing extras of an entry page: tags, plots, kernel sources, resolved lessons.

``page_extras`` adds plain values to the entry template's ``page`` context;
the files these values point at (plots, tag pages) are made by
``glossary.sitefiles`` from the same functions, so a link and its target agree.
"""

from __future__ import annotations

import re

from glossary.entries import lessons
from glossary.site import plots, tags
from glossary.entries.model import sha256
from glossary.figures.views import PageModel


def plot_path(slug: str, device_key: str) -> str:
    """Docs-relative path of a device's plot."""
    return f"{slug}/plots/{device_key}.svg"


def kernel_sources(model: PageModel) -> list[dict]:
    """The measured CUDA sources: name, docs-relative path, sha256, code and a safe fence."""
    spec = model.entry.meta.measure
    if spec is None:
        return []
    out = []
    for name in spec.sources:
        data = model.entry.kernel_files.get(name)
        if data is None:
            continue
        code = data.decode("utf-8", errors="replace").rstrip("\n")
        longest = max((len(m) for m in re.findall(r"`{3,}|~{3,}", code)), default=0)
        out.append({
            "name": name,
            "path": f"{model.entry.slug}/{name}",
            "sha256": sha256(data),
            "code": code,
            "fence": "`" * max(3, longest + 1),
            "lang": "cuda" if name.endswith((".cu", ".cuh")) else "cpp",
        })
    return out


def page_extras(model: PageModel, catalog: dict[int, lessons.CatalogLesson],
                by_day: dict[int, list[dict]] | None = None) -> dict:
    """Values the entry template uses beside ``render.entry_context``'s."""
    slug = model.entry.slug
    return {
        "slug": slug,
        "tags": [{"name": t, "path": tags.tag_path(t)} for t in model.entry.meta.tags],
        "plots": {d.key: {"path": plot_path(slug, d.key), "alt": plots.alt_text(d)}
                  for d in model.devices if plots.has_plot(d)},
        "kernels": kernel_sources(model),
        "lessons": lessons.resolve(list(model.entry.meta.lessons), catalog, by_day, slug),
    }
