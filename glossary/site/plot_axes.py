"""What the panels of ``glossary.site.plots`` share: the colours, a variant's name in a plot, a
line series, and the size axis of the sweep panels: a log2 axis of working set or elements, its
ticks, and the L2 size marked where it bears on the figures (pure)."""

from __future__ import annotations

import math

from glossary.figures import fmt
from glossary.figures.views import DeviceView, SizeView, VariantRow
from glossary.site import svgplot
from measure import units

L2_COLOR = "#b0006d"
FLOOR_COLOR = "#5f6368"
PALETTE = ("#1f6fb4", "#e07b00", "#2a9d3f", "#c62828", "#7b52ab", "#8c564b", "#00838f", "#827717")


def display_name(row: VariantRow) -> str:
    """The variant's name in a plot's visible text (bar names, legends, point keys), where room is
    tight: the spec's short label where it has one, else its label.  Hover titles have room and
    take the full name (``row.display``), as the headline table does."""
    return getattr(row, "short", None) or row.label


def line(points, color: str, label: str | None, marker: str | None = None, dash: str = "-",
          marker_size: float = 4.0, titles=(), title: str | None = None) -> svgplot.Series:
    return svgplot.Series(xs=tuple(p[0] for p in points), ys=tuple(p[1] for p in points), color=color, label=label,
                          dash=dash, marker=marker, marker_size=marker_size, titles=tuple(titles), title=title)


def x_is_bytes(view: DeviceView) -> bool:
    return all(s.working_set_bytes for s in view.sizes)


def size_xs(view: DeviceView, sizes: list[SizeView]) -> list[float]:
    by_bytes = x_is_bytes(view)
    return [float(s.working_set_bytes if by_bytes else s.elements) for s in sizes]


def size_panel(view: DeviceView, xs: list[float], title: str, ylabel: str,
               yscale: svgplot.Scale = svgplot.Scale(),
               legend: tuple[str, ...] = ("lower right", "upper right", "lower left", "upper left")) -> svgplot.Panel:
    """A panel over a log2 size axis (working set or elements), with the L2 size marked where it
    bears on the figures (``marks_l2``)."""
    by_bytes = x_is_bytes(view)
    marked = draws_l2(view)
    spanned = xs + [float(view.l2_bytes)] if marked else xs
    ticks = tuple((t, fmt.fmt_bytes(t) if by_bytes else count_tick(t)) for t in size_ticks(spanned))
    panel = svgplot.Panel(width=svgplot.PANEL_WIDTH, title=title, xlabel="working set" if by_bytes else "elements", ylabel=ylabel,
                          xscale=svgplot.Scale(log=True, base=2), yscale=yscale, xticks=ticks, grid="y",
                          ylim=(None, None) if yscale.log else (0.0, None), legend=legend)
    if marked:
        panel.refs.append(svgplot.RefLine(view.l2_bytes, at_x=True, color=L2_COLOR, dash=":", width=1.4,
                                          label=f"L2 {fmt.fmt_bytes(view.l2_bytes)}"))
    return panel


def marks_l2(view: DeviceView) -> bool:
    """Whether size plots mark the L2: where the x axis is the working set and the L2 size is
    known, unless every variant's bytes cross the host link (the plot's floor is the link floor).
    A copy between host and device runs at the link's rate whatever the L2 holds."""
    return bool(view.l2_bytes) and x_is_bytes(view) and not view.over_link


def draws_l2(view: DeviceView) -> bool:
    """Whether size plots draw the L2 line: where it is marked (``marks_l2``) and some size of the
    sweep is at or under it.  A sweep wholly past the L2 would only stretch its axis leftwards to
    reach the line, a third of the plot empty (look32); its caption names the L2 size instead."""
    return marks_l2(view) and any(s.working_set_bytes <= view.l2_bytes for s in view.sizes if s.rows)


def size_ticks(xs: list[float]) -> list[float]:
    """Powers of two spanning the data, at most six of them."""
    lo, hi = math.floor(math.log2(min(xs))), math.ceil(math.log2(max(xs)))
    step = max(1, math.ceil((hi - lo + 1) / 6))
    return [2.0 ** e for e in range(lo, hi + 1, step)]


def count_tick(value: float) -> str:
    """An axis tick for a count, in binary prefixes: 64K, 1.5M."""
    return units.binary(value, unit="", sep="")
