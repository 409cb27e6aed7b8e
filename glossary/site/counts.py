"""What the site's figures are: how many were measured, on which GPUs, and how many are cited.

The home page's claim about its figures is generated from these counts, so it says what the
site actually holds ("312 figures measured on 2 GPUs; 41 cited from 9 sources") and never more.

A *measured figure* is one recorded measurement a page shows: a variant's time at one size on
one device (its GB/s and GFLOP/s are derived from that time, not counted again), each counter
reading of it (DRAM bytes with the caches flushed and as timed, each declared metric), its host
time where recorded, and each floor timed in the same run (the copy floor, the link floor's two
directions).  A *cited figure* is one ``cite`` in a body or one numeric cell of a
``cite_table`` (``glossary.figures.cite``); its source is counted once per URL over the site.
"""

from __future__ import annotations

from dataclasses import dataclass

from glossary.figures.views import DeviceView


def measured_figures(view: DeviceView) -> int:
    """The recorded measurements one device's results give its tab."""
    if view.status != "ok":
        return 0
    total = 0
    for size in view.sizes:
        total += (size.copy_floor_gbps is not None) + (2 if size.link_floor is not None else 0)
        for row in size.rows:
            total += 1 + (row.counted_bytes_per_elem is not None) + (row.dram_as_timed is not None)
            total += len(row.metrics) + (row.host_ms is not None)
    return total


@dataclass(frozen=True)
class FigureCounts:
    """The figures of a set of pages (``of``), and the sentence the home page says about them."""

    measured: int
    gpus: tuple[str, ...]
    imported: int  # of ``measured``, those from imported results (labelled as such on their pages)
    cited: int
    sources: int

    @classmethod
    def of(cls, models) -> "FigureCounts":
        """The counts over page models (``glossary.site.page.PageModel``)."""
        measured = imported = 0
        gpus: dict[str, None] = {}
        urls: dict[str, None] = {}
        for model in models:
            for view in model.devices:
                n = measured_figures(view)
                measured += n
                imported += n if view.provenance == "imported" else 0
                if n:
                    gpus.setdefault(view.gpu)
            urls.update(dict.fromkeys(model.cited))
        cited = sum(len(model.cited) for model in models)
        return cls(measured=measured, gpus=tuple(sorted(gpus)), imported=imported, cited=cited, sources=len(urls))

    def sentence(self) -> str:
        """'312 figures on these pages were measured on 2 GPUs, ...; 41 are cited from 9 sources ...'
        (empty when the pages hold no figure)."""
        parts = []
        if self.measured:
            gpus = _plural(len(self.gpus), "GPU")
            made = f"{_plural(self.measured, 'figure')} on these pages {'was' if self.measured == 1 else 'were'} " \
                   f"measured on {gpus} ({', '.join(self.gpus)}), each recorded with its environment"
            if self.imported:
                made += f"; {self.imported:,} of them {'is' if self.imported == 1 else 'are'} imported from " \
                        f"measurements made elsewhere, and labelled so"
            parts.append(made)
        if self.cited:
            verb = "is" if self.cited == 1 else "are"
            lead = f"{self.cited:,} {verb}" if self.measured else \
                f"No figure on these pages was measured here; {_plural(self.cited, 'figure')} {verb}"
            parts.append(f"{lead} cited from {_plural(self.sources, 'source')}, marked \u201ccited\u201d and linked to "
                         f"{'it' if self.sources == 1 else 'them'}")
        return "; ".join(parts) + "." if parts else ""


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
