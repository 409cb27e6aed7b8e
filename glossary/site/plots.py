"""Plots: one device's results as an SVG, drawn at build time with ``glossary.site.svgplot``.

Pure: a ``DeviceView`` goes in, SVG bytes come out, the same bytes every time.
This module decides what each panel shows; ``svgplot`` only draws.  A variant is named as the
page's tables name it (its short label where the spec gives one, else its label), and every
number in a label or hover title is written by ``glossary.figures.fmt``, as everywhere else.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Collection
from urllib.parse import urljoin, urlsplit

from glossary.figures import fmt, quantity
from glossary.site import plot_axes, plot_roofline, svgplot
from glossary.site.plot_axes import (FLOOR_COLOR, PALETTE, display_name, draws_l2, marks_l2,  # noqa: F401
                                     size_panel, size_xs, x_is_bytes)
from glossary.site.plot_axes import line as _line
from glossary.figures.views import DeviceView, SizeView, VariantRow



def _figures(row: VariantRow, floor: float | None, floor_name: str = "copy floor") -> str:
    """A variant's time, its spread and its rate as the tables write them: '183.1 µs ±0.20% (26 runs),
    4,401 GB/s (103% of the copy floor)'.  The spread is in the title, not drawn: at a few tenths
    of a percent no error bar would be visible at a plot's scale."""
    spread = f" {row.spread} ({row.samples} runs)" if row.spread and row.samples else (
        f" {row.spread}" if row.spread else "")
    text = f"{fmt.duration(row.ms)}{spread}, {fmt.rate(row.gbps)}"
    if floor:
        text += f" ({fmt.percent(row.gbps / floor)} of the {floor_name})"
    return text


def _at(view: DeviceView, size: SizeView) -> str:
    """Where on the sweep a size is: its working set, or its element count."""
    if x_is_bytes(view):
        return f"{fmt.fmt_bytes(size.working_set_bytes)} working set"
    return size.label


def has_plot(view: DeviceView) -> bool:
    """Whether the device has figures to draw."""
    return view.status == "ok" and any(s.rows for s in view.sizes)


def alt_text(view: DeviceView) -> str:
    """What the plot shows, for the image's alt text."""
    rows = view.headline.rows if view.headline else ()
    # a list a screen reader can take in: every name up to six, else the count and the ends
    names = (", ".join(display_name(r) for r in rows) if len(rows) <= 6 else
             f"{len(rows)} versions, from {display_name(rows[0])} to {display_name(rows[-1])},")
    floor = view.headline.plot_floor[1] if view.headline else "copy floor"
    unit = view.lead_unit
    text = f"{unit} of {names} on {view.gpu}" + (f" against the {floor}" if view.quantity == "gbps" else "")
    swept = _sweep(view) and not (view.quantity == "time" and _launch_rows(view))
    across = ([unit] if swept else []) + (["speedup"] if _sweep(view) and any(s.ratios for s in view.sizes) else [])
    if across:
        text += f", and {' and '.join(across)} across the size sweep"
        if draws_l2(view):
            text += " with the L2 size marked"
    for t in _point_sweeps(view.headline):
        text += f"; GB/s across the {t.names[0]} sweep at {view.headline.label}"
    if view.headline and view.headline.roofline:
        text += "; the roofline (TFLOP/s against FLOP per byte, log-log) with the ridge point marked"
    if _launch_rows(view):
        text += "; host and GPU time per launch across the sweep"
    return text


def device_svg(view: DeviceView) -> bytes:
    """The plot of one device: GB/s per variant against the copy floor, plus the size sweep."""
    return svgplot.figure(device_panels(view))


def device_panels(view: DeviceView) -> list[svgplot.Panel]:
    """The panels ``device_svg`` draws, in order (those with no data are left out when drawn)."""
    if not has_plot(view):
        raise ValueError(f"{view.gpu}: no successful measurement to plot")
    panels = [_bars(view.headline, view.quantity)]
    panels += [_point_panel(view.headline, t) for t in _point_sweeps(view.headline)]
    # a time-per-launch panel draws the GPU's time per launch across the sweep already
    if _sweep(view):
        if not (view.quantity == "time" and _launch_rows(view)):
            panels.append(_sweep_panel(view))
        if any(s.ratios for s in view.sizes):
            panels.append(_ratios(view))
    # Panels beyond the GB/s ones (roofline, launches) go to the right, same height.
    if view.headline is not None and view.headline.roofline is not None:
        panels.append(plot_roofline.panel(view))
    if _launch_rows(view):
        panels.append(_launches(view))
    return panels


def cache_key(view: DeviceView) -> str:
    """A hash of everything a plot is drawn from: the view's data and the code of this module,
    ``plot_axes`` and ``svgplot``."""
    h = hashlib.sha256()
    h.update(_SOURCE_HASH.encode())
    # repr, not json.dumps(asdict(...)): every field of the frozen view, floats exact, in an
    # eighth of the time (0.1 ms against 0.8 ms a plot); a dict in another order only misses
    h.update(repr(view).encode())
    return h.hexdigest()


_SOURCE_HASH = hashlib.sha256(b"".join(Path(m.__file__).read_bytes() for m in (svgplot, plot_axes, plot_roofline))
                              + Path(__file__).read_bytes()).hexdigest()


@dataclass
class PlotCache:
    """SVGs kept on disk by ``cache_key``, so a build draws only plots whose data changed.

    A rebuild with unchanged results reads every plot back.  Since plots are drawn by
    ``svgplot`` (about 1 ms each, against 0.55 s with matplotlib) a hit saves little: 0.3 to
    1 ms of hashing and reading against 0.35 to 1.4 ms of drawing (BENCHMARKS.md).
    A file that cannot be read or written is drawn again, never an error.
    """

    folder: Path
    hits: int = 0
    drawn: int = 0

    def svg(self, view: DeviceView) -> bytes:
        path = self.folder / f"{cache_key(view)}.svg"
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        if data:
            self.hits += 1
            return data
        data = device_svg(view)
        self.drawn += 1
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".plot-", suffix=".tmp", dir=self.folder)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)  # atomic: a concurrent build never reads half a file
        except OSError:
            pass  # a read-only checkout still builds; it just draws again next time
        return data


def drawn(folder: Path | None, view: DeviceView) -> tuple[bytes, bool]:
    """One plot, in a pool's worker: its SVG and whether it came from the cache in ``folder`` (None: none)."""
    if folder is None:
        return device_svg(view), False
    cache = PlotCache(folder)
    return cache.svg(view), bool(cache.hits)


def _sweep(view: DeviceView) -> bool:
    return len([s for s in view.sizes if s.rows]) > 1


def _bars(size: SizeView, lead: str = "gbps") -> svgplot.Panel:
    """The lead quantity per variant as horizontal bars (``glossary.figures.quantity``): GB/s with
    the copy floor (the link floor for copies across the host link: ``plot_floor``) as a dashed line
    with its value, TFLOP/s, or GPU µs per launch; only GB/s has a floor to draw.

    Names that would take more than a third of the panel go above their bars instead of
    beside them, so the bars keep the panel's width."""
    rows = list(size.rows)
    floor_gbps, floor_name = size.plot_floor if lead == "gbps" else (None, "")
    each, millis = quantity.per_launch(rows), quantity.in_ms(rows)
    values = [quantity.value(lead, r, each, millis) or 0.0 for r in rows]
    unit = quantity.unit(lead, rows, millis)
    n = len(rows)
    ys = list(range(n))[::-1]
    top = max(values + [floor_gbps or 0.0])
    names = [display_name(r) for r in rows]
    above = max(svgplot.text_width(t) for t in names) > svgplot.PANEL_WIDTH / 3
    row_px = 2 * svgplot.FONT + 12 if above else svgplot.FONT + 9  # a bar (and its name) per row
    height = max(svgplot.PLOT_HEIGHT if not above else 0.0, row_px * n + svgplot.FONT + 14)
    # room above the top bar for the floor's label: a fraction f of the plot's height
    f = (svgplot.FONT + 10) / height
    edge = n - 1 + (0.75 if above else 0.3)
    panel = svgplot.Panel(width=svgplot.PANEL_WIDTH, height=height,
                          title=quantity.title(lead, rows, f"at {size.label}"), xlabel=unit,
                          xlim=(0.0, top * 1.22), ylim=(-0.6, (edge + 0.6 * f) / (1 - f)),
                          yticks=() if above else tuple(zip(ys, names)))
    for i, (y, r, name, v) in enumerate(zip(ys, rows, names, values)):
        panel.bars.append(svgplot.Bar(y=y, value=v, color=PALETTE[i % len(PALETTE)],
                                      height=0.42 if above else 0.62,
                                      title=f"{r.display}: {_figures(r, floor_gbps, floor_name)}"))
        if above:
            panel.labels.append(svgplot.Label(x=0.0, y=y + 0.21, text=name, dx=1, dy=-4))
        # inside the bar's end where it fits, so the value never crosses the floor line
        inside = v > 0.3 * top
        panel.labels.append(svgplot.Label(
            x=v, y=y, text=fmt.significant(v), anchor="end" if inside else "start",
            color="white" if inside else svgplot.INK, dx=-4 if inside else 4, dy=svgplot.FONT * 0.35))
    if floor_gbps:
        floor = fmt.rate(floor_gbps)
        panel.refs.append(svgplot.RefLine(floor_gbps, at_x=True, color=FLOOR_COLOR, dash="--",
                                          title=f"{floor_name}: {floor}"))
        panel.labels.append(svgplot.Label(
            x=floor_gbps, y=edge, text=f"{floor_name} {floor}", anchor="end", color=FLOOR_COLOR,
            dx=-4, dy=-5))
    return panel


def _sweep_panel(view: DeviceView) -> svgplot.Panel:
    """The lead quantity across the size sweep, a line per variant (log y for times and FLOP rates,
    which span decades); GB/s with the floor."""
    sizes = [s for s in view.sizes if s.rows]
    xs = size_xs(view, sizes)
    lead = view.quantity
    each = quantity.per_launch(sizes[0].rows)
    millis = quantity.in_ms([r for s in sizes for r in s.rows])
    unit = quantity.unit(lead, sizes[0].rows, millis)
    panel = size_panel(view, xs, quantity.title(lead, sizes[0].rows, "across the size sweep"), ylabel=unit,
                       **({} if lead == "gbps" else {"yscale": svgplot.Scale(log=True)}))
    for i, first in enumerate(sizes[0].rows):
        name = display_name(first)
        found = [(x, s, r) for x, s in zip(xs, sizes) for r in s.rows if r.name == first.name
                 and quantity.value(lead, r, each, millis) is not None]
        panel.series.append(_line([(x, quantity.value(lead, r, each, millis)) for x, _, r in found],
                                  PALETTE[i % len(PALETTE)],
                                  name, marker="o",
                                  titles=[f"{r.display} at {_at(view, s)}: {_figures(r, *s.plot_floor)}"
                                          for x, s, r in found]))
    head = view.headline
    value, name = head.plot_floor if head is not None and lead == "gbps" else (None, "")
    if value:
        # The floor the page shows, once: a property of the card measured with large copies, drawn
        # only where the working set is past the L2 (DRAM's regime), never across the L2's sizes.
        text = f"{name} {fmt.rate(value)}"
        if marks_l2(view):
            past = [x for x in xs if x >= view.l2_bytes]
            if past:
                panel.series.append(_line([(max(view.l2_bytes, min(xs)), value), (max(xs), value)], FLOOR_COLOR,
                                          text + " (DRAM)", dash="--",
                                          title=f"{name}: {fmt.rate(value)}, measured with copies past the L2"))
        else:
            panel.refs.append(svgplot.RefLine(value, at_x=False, color=FLOOR_COLOR, dash="--", label=text,
                                              title=f"{name}: {fmt.rate(value)}"))
    return panel


def _point_sweeps(size: SizeView | None) -> list:
    """The launch-parameter sweeps a plot draws: those over one name with at least two values.
    (A sweep over several names is a grid of points; its table shows it.)"""
    if size is None or not size.swept:
        return []
    return [t for t in size.sweep_tables if len(t.names) == 1 and len(t.points) > 1]


def _point_panel(size: SizeView, table) -> svgplot.Panel:
    """GB/s against a launch parameter (log2 where every value is a power of two), a line per base
    variant, the copy floor dashed.  Working-set and L2 marks belong to sizes, not to this axis."""
    name = table.names[0]
    floor_gbps, floor_name = size.plot_floor
    values = [float(p[0][1]) for p in table.points]
    log = all(v > 0 and float(v).is_integer() and int(v) & (int(v) - 1) == 0 for v in values)
    # powers of two sit evenly on a log2 axis, each value its own tick; other values get the axis's own ticks
    ticks = tuple((v, fmt.fmt_int(int(v))) for v in values) if log else None
    panel = svgplot.Panel(width=svgplot.PANEL_WIDTH, title=f"GB/s across {name} at {size.label}",
                          xlabel=name, ylabel="GB/s", xscale=svgplot.Scale(log=log, base=2), xticks=ticks,
                          grid="y", ylim=(0.0, None))
    for i, (base, short) in enumerate(table.bases):
        found = [(v, r) for v, p in zip(values, table.points) if (r := table.cell(p, base)) is not None]
        panel.series.append(_line([(v, r.gbps) for v, r in found], PALETTE[i % len(PALETTE)], short, marker="o",
                                  titles=[f"{r.display}: {_figures(r, floor_gbps, floor_name)}" for _, r in found]))
    if floor_gbps:
        floor = fmt.rate(floor_gbps)
        panel.refs.append(svgplot.RefLine(floor_gbps, at_x=False, color=FLOOR_COLOR, dash="--",
                                          label=f"{floor_name} {floor}", title=f"{floor_name}: {floor}"))
    return panel


def _ratios(view: DeviceView) -> svgplot.Panel:
    """Each time ratio across the sweep, its byte ratio as a dashed line, the L2 marked."""
    sizes = [s for s in view.sizes if s.ratios]
    xs = size_xs(view, sizes)
    names = {r.name: display_name(r) for s in sizes for r in s.rows}
    # A byte ratio of 1 (the same bytes, as for launch counts) says nothing: no dashed line then.
    bytes_differ = any(q.byte_ratio != 1 for q in sizes[0].ratios)
    panel = size_panel(view, xs, "Speedup across the size sweep",
                        ylabel="time ratio (dashed: byte ratio)" if bytes_differ else "time ratio")
    for i, first in enumerate(sizes[0].ratios):
        color = PALETTE[i % len(PALETTE)]
        label = f"{names.get(first.num, first.num)} / {names.get(first.den, first.den)}"
        found = [(x, s, q) for x, s in zip(xs, sizes) for q in s.ratios if (q.num, q.den) == (first.num, first.den)]
        panel.series.append(_line([(x, q.time_ratio) for x, _, q in found], color, label, marker="o",
                                  titles=[f"{label} at {_at(view, s)}: time {fmt.ratio(q.time_ratio)}"
                                          + (f", bytes {fmt.ratio(q.byte_ratio)}" if q.byte_ratio != 1 else "")
                                          for x, s, q in found]))
        if first.byte_ratio != 1:
            panel.refs.append(svgplot.RefLine(first.byte_ratio, at_x=False, color=color, dash="--", width=0.9,
                                              opacity=0.7, title=f"{label}: byte ratio {fmt.ratio(first.byte_ratio)}"))
    return panel


def _launch_rows(view: DeviceView) -> list[VariantRow]:
    """The variants the time-per-launch panel draws: host-timed, with several launches.  None (a
    single copy or kernel per variant: its time is the tables' time) means no such panel."""
    sizes = [s for s in view.sizes if s.rows]
    if not view.host_timed or not sizes:
        return []
    return [r for r in sizes[0].rows if r.host_ms is not None and (r.launches or 1) > 1]


def _launches(view: DeviceView) -> svgplot.Panel:
    """Host and GPU microseconds per launch across the sweep, per variant with several launches."""
    sizes = [s for s in view.sizes if s.rows]
    xs = size_xs(view, sizes)
    panel = size_panel(view, xs, "Time per launch across the sweep", ylabel="µs per launch",
                        yscale=svgplot.Scale(log=True), legend=("upper left", "lower right", "upper right"))
    for i, first in enumerate(_launch_rows(view)):
        color, name = PALETTE[i % len(PALETTE)], display_name(first)
        found = [(x, s, r) for x, s in zip(xs, sizes) for r in s.rows
                 if r.name == first.name and r.host_us_per_launch is not None]
        for clock, marker, dash, us in (("host", "o", "-", lambda r: r.host_us_per_launch),
                                        ("GPU", "s", "--", lambda r: r.gpu_us_per_launch)):
            panel.series.append(_line(
                [(x, us(r)) for x, _, r in found], color, f"{name}: {clock}", marker=marker, dash=dash,
                titles=[f"{r.display}, {clock} time at {_at(view, s)}: {fmt.duration(us(r) / 1000)} per launch"
                        for x, s, r in found]))
    return panel


# An <img> as glossary.site.sanitize writes it: every attribute double-quoted, its value escaped.
_IMG = re.compile(r"<img\b[^<>]*>")
_ATTR = re.compile(r'([a-z-]+)="([^"]*)"')


def embed_plots(html: str, page_url: str, drawn: Collection[str]) -> str:
    """Each <img> of a plot the build drew wrapped in an <object> of the same SVG, so a reader's
    pointer reaches the marks' hover titles; the <img> stays inside as the fallback (pure).

    Chosen by where the file came from, never by a class an author can type: only an <img> whose
    ``src``, resolved against ``page_url``, is in ``drawn`` (the ``File.url`` of each SVG this
    build drew, ``glossary.site.sitefiles.plot_paths``).  ``html`` is the page's sanitized HTML
    (``glossary.site.sanitize.clean``), so it holds for any ``use_directory_urls``."""
    if not drawn:
        return html
    base = urljoin("http://site.invalid/", page_url)

    def wrap(match: re.Match) -> str:
        attrs = dict(_ATTR.findall(match.group(0)))
        src = attrs.get("src", "")
        target = urlsplit(urljoin(base, unescape(src)))
        if target.netloc != "site.invalid" or target.query or target.fragment or target.path.lstrip("/") not in drawn:
            return match.group(0)
        return (f'<object class="glossary-plot" type="image/svg+xml" data="{src}" '
                f'aria-label="{attrs.get("alt", "")}">{match.group(0)}</object>')

    return _IMG.sub(wrap, html)
