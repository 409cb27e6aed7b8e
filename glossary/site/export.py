"""Export: the shown entries, their definitions and their results as ``glossary.json``.

Pure: page models go in, plain data comes out.  Every number is the one the
pages show, derived by ``glossary.figures.views`` from the recorded results; nothing
belonging to an entry that is not shown is ever passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import json

from glossary.figures.views import DeviceView, SizeView
from glossary.site import counts

if TYPE_CHECKING:  # the page model imports this module; its type is for reading only
    from glossary.site.page import PageModel

EXPORT_FORMAT = 1
# Characters that could end a <script> or an HTML attribute the JSON is pasted into, or a line of
# JavaScript (U+2028/9), written as \uXXXX: the same data to a JSON reader, inert where inlined.
SCRIPT_SAFE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&'\u2028\u2029"}


def page_url(slug: str, directory_urls: bool = True) -> str:
    """The site-relative URL of an entry page."""
    return f"{slug}/" if directory_urls else f"{slug}.html"


def export(models: list[PageModel], directory_urls: bool = True) -> dict:
    """The whole glossary as plain data, entries in slug order."""
    return {
        "format": EXPORT_FORMAT,
        "entries": [_entry(m, directory_urls) for m in sorted(models, key=lambda m: m.entry.slug)],
    }


def export_json(models: list[PageModel], directory_urls: bool = True,
                entry_text: Callable[[PageModel, bool], str] | None = None) -> str:
    """``export`` as stable, indented JSON text: ``dumps`` of it, put together from each entry's
    ``entry_json`` (or ``entry_text``, which returns the same: `mkdocs serve` hands one that keeps an
    unchanged entry's text between rebuilds)."""
    texts = [(entry_text or entry_json)(m, directory_urls) for m in sorted(models, key=lambda m: m.entry.slug)]
    if not texts:
        return dumps(export([], directory_urls))
    return f'{{\n "format": {EXPORT_FORMAT},\n "entries": [\n  ' + ",\n  ".join(texts) + "\n ]\n}\n"


def entry_json(model: PageModel, directory_urls: bool = True) -> str:
    """One entry of ``export_json``, as ``dumps`` writes it there: two levels in.  A JSON text holds no
    raw line break (inside a string it is written \\n), so each of its lines is indented as a whole."""
    return dumps(_entry(model, directory_urls))[:-1].replace("\n", "\n  ")


def dumps(data: object) -> str:
    """Indented JSON, UTF-8 text kept, with <, >, &, ' and U+2028/9 escaped (``SCRIPT_SAFE``): the
    file can be inlined in a page.  They occur only inside strings, so escaping the text is exact."""
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False).translate(SCRIPT_SAFE) + "\n"


def _entry(model: PageModel, directory_urls: bool) -> dict:
    entry = model.entry
    meta = entry.meta
    return {
        "slug": entry.slug,
        "title": meta.title,
        "definition": " ".join(meta.summary.split()),
        "url": page_url(entry.slug, directory_urls),
        "status": "published" if model.verdict.publishable else "draft",
        "tags": list(meta.tags),
        "abbreviations": list(meta.abbreviations),
        "aliases": list(meta.aliases),
        "related": [r.slug for r in model.related],
        "author": meta.author if model.verdict.publishable else None,
        "reviewer": meta.reviewer if model.verdict.publishable else None,
        "reviewed_on": meta.reviewed_on.isoformat() if meta.reviewed_on else None,
        "sources": [{"title": s.title, "url": s.url, "checked": s.checked.isoformat(),
                     **({"id": s.id} if s.id else {}), "cited_figures": model.cited.count(s.url)}
                    for s in meta.sources],
        # glossary.site.counts: recorded measurements the page shows, and figures cited from its sources
        "figures": {"measured": sum(counts.measured_figures(d) for d in model.devices), "cited": len(model.cited)},
        "results": [_device(d) for d in model.devices],
    }


def _device(view: DeviceView) -> dict:
    return {
        "device": view.key,
        "gpu": view.gpu,
        "status": view.status,
        "provenance": view.provenance,
        "imported_from": view.imported_from,
        "stale": view.stale,
        "captured_on": view.captured_on or None,
        "statistic": view.method.statistic if view.method else None,
        "environment": view.environment.plain(),
        "error": view.error,
        "sizes": [_size(s) for s in view.sizes],
    }


def _size(size: SizeView) -> dict:
    return {
        "params": size.params,
        "elements": size.elements,
        "headline": size.headline,
        "working_set_bytes": size.working_set_bytes,
        "copy_floor_gbps": size.copy_floor_gbps,
        "variants": [{
            "name": r.name,
            "label": r.label,
            "ms": r.ms,
            "bytes_per_elem": r.bytes_per_elem,
            "gbps": round(r.gbps, 3),
            "gflops": round(r.gflops, 3) if r.gflops is not None else None,
            "counted_bytes_per_elem": r.counted_bytes_per_elem,
            "fraction_of_floor": round(r.fraction_of_floor, 4) if r.fraction_of_floor is not None else None,
            "samples": r.samples,
            # a launch-parameter sweep's point (only where the variant has one)
            **({"base": r.base, "point": dict(r.point)} if r.base is not None else {}),
        } for r in size.rows],
        "ratios": [{"num": q.num, "den": q.den, "time_ratio": round(q.time_ratio, 4),
                    "byte_ratio": round(q.byte_ratio, 4)} for q in size.ratios],
    }
