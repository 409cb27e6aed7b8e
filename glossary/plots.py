"""Plots: one device's results as an SVG, drawn with matplotlib at build time.

Pure: a ``DeviceView`` goes in, SVG bytes come out.  No pyplot (so no global
backend or figure registry); the SVG canvas is used directly.  Output is
deterministic: a fixed hash salt for element ids, no date in the metadata, and
matplotlib's default style regardless of the local matplotlibrc.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import math
import os
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from glossary import figures
from glossary.pages import DeviceView, SizeView

HASH_SALT = "verified-cuda-glossary"
FLOOR_COLOR = "#5f6368"
L2_COLOR = "#b0006d"
PALETTE = ("#1f6fb4", "#e07b00", "#2a9d3f", "#c62828", "#7b52ab", "#8c564b")


def has_plot(view: DeviceView) -> bool:
    """Whether the device has figures to draw."""
    return view.status == "ok" and any(s.rows for s in view.sizes)


def alt_text(view: DeviceView) -> str:
    """What the plot shows, for the image's alt text."""
    names = ", ".join(r.name for r in view.headline.rows) if view.headline else ""
    text = f"GB/s of {names} on {view.gpu} against the copy floor"
    if _sweep(view):
        text += ", and GB/s" + (" and speedup" if any(s.ratios for s in view.sizes) else "")
        text += " across the size sweep"
        if view.l2_bytes and _x_is_bytes(view):
            text += " with the L2 size marked"
    if view.headline and view.headline.roofline:
        text += "; the measured roofline (GFLOP/s against FLOP per byte, log-log) with the ridge point marked"
    if view.host_timed:
        text += "; host and GPU time per launch across the sweep"
    return text


def device_svg(view: DeviceView) -> bytes:
    """The plot of one device: GB/s per variant against the copy floor, plus the size sweep."""
    if not has_plot(view):
        raise ValueError(f"{view.gpu}: no successful measurement to plot")
    # matplotlib is imported here, not at the top: it is a second of start-up that a build
    # whose plots all come from the cache never needs
    import matplotlib.style
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    sweep = _sweep(view)
    with matplotlib.style.context("default"), matplotlib.rc_context({
        "svg.hashsalt": HASH_SALT, "svg.fonttype": "path", "font.size": 10,
        "axes.spines.top": False, "axes.spines.right": False,
    }):
        ratios = sweep and any(s.ratios for s in view.sizes)
        extra = _extra_panels(view)
        size = (11.5, 3.2) if ratios else (8.0, 3.0) if sweep else (5.6, 2.8)
        fig = Figure(figsize=(size[0] + 4.6 * len(extra), size[1]), layout="constrained")
        FigureCanvasSVG(fig)
        fig.patch.set_alpha(0.0)
        host = fig
        if extra:
            # Panels beyond the GB/s ones (roofline, launches) go to the right, same height.
            host, side = fig.subfigures(1, 2, width_ratios=(size[0], 4.6 * len(extra)))
            for ax, draw in zip(side.subplots(1, len(extra), squeeze=False)[0], extra):
                draw(ax, view)
        if ratios:
            bars_ax, sweep_ax, ratio_ax = host.subplots(1, 3, width_ratios=(1, 1.2, 1.1))
            _draw_sweep(sweep_ax, view)
            _draw_ratios(ratio_ax, view)
        elif sweep:
            bars_ax, sweep_ax = host.subplots(1, 2, width_ratios=(1, 1.25))
            _draw_sweep(sweep_ax, view)
        else:
            bars_ax = host.subplots()
        _draw_bars(bars_ax, view.headline)
        out = io.BytesIO()
        fig.savefig(out, format="svg", metadata={"Date": None}, transparent=True)
    return out.getvalue()


def _extra_panels(view: DeviceView) -> list:
    """Panels a spec's shape asks for: the measured roofline, host against GPU time per launch."""
    panels = []
    if view.headline is not None and view.headline.roofline is not None:
        panels.append(_draw_roofline)
    if view.host_timed:
        panels.append(_draw_launches)
    return panels


def _draw_roofline(ax, view: DeviceView) -> None:
    """Log-log: the roof min(bandwidth x intensity, compute ceiling), each variant's point, the ridge."""
    size = view.headline
    roof = size.roofline
    rows = [r for r in size.rows if r.intensity is not None and r.gflops is not None]
    xs = [r.intensity for r in rows]
    lo, hi = min(xs + [roof.ridge]) / 2, max(xs + [roof.ridge]) * 2
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ax.plot(grid, [roof.roof(x) for x in grid], color=FLOOR_COLOR, linewidth=1.4, label="measured roof")
    for i, r in enumerate(rows):
        ax.plot([r.intensity], [r.gflops], marker="o", markersize=5, linestyle="none",
                color=PALETTE[i % len(PALETTE)])
    # Points only: variants at the same intensity (scalar and 16-byte, one chain and several)
    # would make a line through them in spec order zigzag.
    ax.plot([], [], marker="o", markersize=5, linestyle="none", color=PALETTE[0], label="variants")
    ax.axvline(roof.ridge, color=L2_COLOR, linestyle=":", linewidth=1.4,
               label=f"ridge {figures.fmt_fixed(roof.ridge, 1)} FLOP/B")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("GFLOP/s")
    ax.grid(True, which="major", linewidth=0.5, alpha=0.5)
    ax.legend(fontsize=9, frameon=False, loc="lower right")
    ax.set_title(f"Measured roofline at {figures.fmt_int(size.elements)} elements", fontsize=10, loc="left")


def _draw_launches(ax, view: DeviceView) -> None:
    """Host and GPU microseconds per launch across the sweep, per variant with several launches."""
    sizes = [s for s in view.sizes if s.rows]
    by_bytes = _x_is_bytes(view)
    xs = [float(s.working_set_bytes if by_bytes else s.elements) for s in sizes]
    names = [r.name for r in sizes[0].rows if r.host_ms is not None and (r.launches or 1) > 1]
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        points = [(x, r.host_us_per_launch, r.gpu_us_per_launch) for x, s in zip(xs, sizes) for r in s.rows
                  if r.name == name and r.host_us_per_launch is not None]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=4, color=color,
                label=f"{name}: host")
        ax.plot([p[0] for p in points], [p[2] for p in points], marker="s", markersize=4, color=color,
                linestyle="--", label=f"{name}: GPU")
    _size_axis(ax, view, xs, by_bytes)
    ax.set_yscale("log", base=10)
    # Plain numbers: a span of one decade or so otherwise gets labels like 6×10^0.
    for axis_formatter in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
        axis_formatter(_func_formatter())
    ax.set_ylabel("µs per launch")
    ax.grid(True, axis="y", linewidth=0.5, alpha=0.5)
    ax.legend(fontsize=9, frameon=False, loc="upper left")
    ax.set_title("Time per launch across the sweep", fontsize=10, loc="left")


def cache_key(view: DeviceView) -> str:
    """A hash of everything a plot is drawn from: the view's data, this module's code, matplotlib's version."""
    h = hashlib.sha256()
    h.update(f"matplotlib {_matplotlib_version()}\n".encode())
    h.update(_SOURCE_HASH.encode())
    h.update(json.dumps(dataclasses.asdict(view), sort_keys=True, default=str).encode())
    return h.hexdigest()


@functools.cache
def _matplotlib_version() -> str:
    # once per process: importlib.metadata reads the package's metadata files on every call
    # (5 s of a 1,000-plot rebuild before this cache)
    return version("matplotlib")


_SOURCE_HASH = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


@dataclass
class PlotCache:
    """SVGs kept on disk by ``cache_key``, so a build draws only plots whose data changed.

    Drawing is the costly part of a build (about half a second per plot with
    matplotlib); a rebuild with unchanged results reads every plot back.
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


def _sweep(view: DeviceView) -> bool:
    return len([s for s in view.sizes if s.rows]) > 1


def _x_is_bytes(view: DeviceView) -> bool:
    return all(s.working_set_bytes for s in view.sizes)


def _draw_bars(ax, size: SizeView) -> None:
    rows = list(size.rows)
    ys = list(range(len(rows)))[::-1]
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(rows))]
    ax.barh(ys, [r.gbps for r in rows], color=colors, height=0.6)
    top = max([r.gbps for r in rows] + [size.copy_floor_gbps or 0.0])
    for y, r in zip(ys, rows):
        # inside the bar's end where it fits, so the value never crosses the floor line
        inside = r.gbps > 0.3 * top
        ax.text(r.gbps, y, f" {figures.fmt_fixed(r.gbps, 1)} " if inside else f" {figures.fmt_fixed(r.gbps, 1)}",
                va="center", ha="right" if inside else "left", fontsize=9,
                color="white" if inside else "black")
    if size.copy_floor_gbps:
        ax.axvline(size.copy_floor_gbps, color=FLOOR_COLOR, linestyle="--", linewidth=1.2)
        ax.text(size.copy_floor_gbps, len(rows) - 0.45,
                f"copy floor {figures.fmt_fixed(size.copy_floor_gbps, 1)} GB/s ",
                ha="right", va="bottom", fontsize=9, color=FLOOR_COLOR)
    ax.set_yticks(ys, [r.name for r in rows])
    ax.set_xlim(0, top * 1.22)
    ax.set_ylim(-0.6, len(rows) - 0.05)
    ax.set_xlabel("GB/s")
    ax.set_title(f"GB/s at {figures.fmt_int(size.elements)} elements", fontsize=10, loc="left")


def _draw_sweep(ax, view: DeviceView) -> None:
    sizes = [s for s in view.sizes if s.rows]
    by_bytes = _x_is_bytes(view)
    xs = [float(s.working_set_bytes if by_bytes else s.elements) for s in sizes]
    names = [r.name for r in sizes[0].rows]
    for i, name in enumerate(names):
        points = [(x, r.gbps) for x, s in zip(xs, sizes) for r in s.rows if r.name == name]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=4,
                color=PALETTE[i % len(PALETTE)], label=name)
    floor = [(x, s.copy_floor_gbps) for x, s in zip(xs, sizes) if s.copy_floor_gbps]
    if floor:
        ax.plot([p[0] for p in floor], [p[1] for p in floor], linestyle="--", marker="s", markersize=3,
                color=FLOOR_COLOR, label="copy floor")
    _size_axis(ax, view, xs, by_bytes)
    ax.set_ylabel("GB/s")
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", linewidth=0.5, alpha=0.5)
    ax.legend(fontsize=9, frameon=False, loc="lower right")
    ax.set_title("GB/s across the size sweep", fontsize=10, loc="left")


def _draw_ratios(ax, view: DeviceView) -> None:
    """Each time ratio across the sweep, its byte ratio as a dashed line, the L2 marked."""
    sizes = [s for s in view.sizes if s.ratios]
    by_bytes = _x_is_bytes(view)
    xs = [float(s.working_set_bytes if by_bytes else s.elements) for s in sizes]
    labels = [f"{q.num} / {q.den}" for q in sizes[0].ratios]
    for i, label in enumerate(labels):
        color = PALETTE[i % len(PALETTE)]
        points = [(x, q.time_ratio, q.byte_ratio) for x, s in zip(xs, sizes) for q in s.ratios
                  if f"{q.num} / {q.den}" == label]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=4, color=color, label=label)
        ax.axhline(points[0][2], color=color, linestyle="--", linewidth=0.9, alpha=0.7)
    _size_axis(ax, view, xs, by_bytes)
    ax.set_ylabel("time ratio (dashed: byte ratio)")
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", linewidth=0.5, alpha=0.5)
    ax.legend(fontsize=9, frameon=False, loc="lower right")
    ax.set_title("Speedup across the size sweep", fontsize=10, loc="left")


def _size_axis(ax, view: DeviceView, xs: list[float], by_bytes: bool) -> None:
    """A log2 size axis (working set or elements), with the L2 size marked where known."""
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.set_xscale("log", base=2)
    if by_bytes and view.l2_bytes:
        ax.axvline(view.l2_bytes, color=L2_COLOR, linestyle=":", linewidth=1.4,
                   label=f"L2 {figures.fmt_bytes(view.l2_bytes)}")
    ticks = _ticks(xs)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(ticks, [figures.fmt_bytes(t) if by_bytes else _count(t) for t in ticks])
    ax.set_xlabel("working set" if by_bytes else "elements")


def _ticks(xs: list[float]) -> list[float]:
    """Powers of two spanning the data, at most six of them."""
    lo, hi = math.floor(math.log2(min(xs))), math.ceil(math.log2(max(xs)))
    step = max(1, math.ceil((hi - lo + 1) / 6))
    return [2.0 ** e for e in range(lo, hi + 1, step)]


def _count(value: float) -> str:
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if value >= scale:
            shown = value / scale
            return f"{shown:.0f}{unit}" if shown == int(shown) else f"{shown:.1f}{unit}"
    return f"{value:.0f}"


def _func_formatter():
    """Plain tick labels (6, not 6x10^0), from matplotlib, imported only when a plot is drawn."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda value, _pos: f"{value:g}")
