"""A small SVG plot writer: panels of lines, markers, bars and reference lines, side by side.

Dependency-free and deterministic: the same panels give the same bytes (coordinates are
rounded to two decimals, nothing depends on the clock or on a font installed here).
Text is measured by an estimate, not a font file, so labels get room by rule of thumb.
Every mark (bar, point, line, reference line) carries a ``<title>``: its hover text where
the SVG is shown as a document (opened, inlined or in an ``<object>``).
The background stays transparent; the site's CSS inverts the image in dark mode.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

INK = "#222222"
GRID = "#b8b8b8"
# Panels stack one above the other, PANEL_WIDTH wide: where a phone's text column (about 388 px
# at a 420 px viewport) scales the figure down, 12 px text still shows at 10.5 px or more.
FONT = 12.0  # ticks, legends, value labels
TITLE_FONT = 13.0
PANEL_WIDTH = 440.0
PLOT_HEIGHT = 190.0  # a panel's plot area, unless the panel sets its own height
TOP = 26.0  # title row
BOTTOM = 40.0  # tick labels and the axis label
DASHES = {"--": "5 3", ":": "1.5 2.5", "-": None}
LEGEND_CORNERS = ("upper right", "upper left", "lower right", "lower left")


def text_width(text: str, size: float = FONT) -> float:
    """An estimate of the width of ``text`` in a sans-serif font (digits and capitals are wide)."""
    # DejaVu Sans, the widest common sans-serif, so that labels fit in the others too
    wide = sum(1 for c in text if c.isupper() or c.isdigit() or c in "mw%")
    narrow = sum(1 for c in text if c in " .,:;'!|iljtf()[]/-")
    return size * (0.7 * wide + 0.34 * narrow + 0.62 * (len(text) - wide - narrow))


def plain_number(value: float) -> str:
    """A tick label without exponents: 6, 0.25, 12,000."""
    if value == 0:
        return "0"
    if abs(value) >= 1000 and float(value).is_integer():
        return f"{value:,.0f}"
    digits = max(0, 3 - int(math.floor(math.log10(abs(value)))) - 1)
    return f"{value:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:,.0f}"


@dataclass(frozen=True)
class Scale:
    """An axis scale: linear, or logarithmic in ``base`` (the base only picks the ticks)."""

    log: bool = False
    base: float = 10.0

    def f(self, value: float) -> float:
        return math.log(value) if self.log else value


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round ticks (1, 2, 2.5 or 5 times a power of ten) from ``lo`` to ``hi``."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, count - 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * 0.999)
    first = math.ceil(lo / step - 1e-9)
    return [round(k * step, 12) for k in range(first, int(math.floor(hi / step + 1e-9)) + 1)]


def log_ticks(lo: float, hi: float, base: float = 10.0) -> list[float]:
    """Powers of ten in [lo, hi]; with fewer than three, 1-2-5 steps; then every integer multiple;
    then round linear steps (``nice_ticks``).

    Base 2: powers of two, every k-th so that there are at most seven."""
    if base == 2:
        first, last = math.ceil(math.log2(lo) - 1e-9), math.floor(math.log2(hi) + 1e-9)
        step = max(1, math.ceil((last - first + 1) / 7))
        return [2.0 ** e for e in range(first, last + 1, step)]
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    for mults in ((1,), (1, 2, 5), tuple(range(1, 10))):
        ticks = [m * 10.0 ** d for d in decades for m in mults if lo * 0.9999 <= m * 10.0 ** d <= hi * 1.0001]
        if len(ticks) >= 3:
            return ticks
    # under a factor of about three (warp-divergence's 15 to 30.4 TFLOP/s): round linear steps,
    # not the axis's ends as ticks ('15', '30.4')
    ticks = [t for t in nice_ticks(lo, hi) if lo * 0.9999 <= t <= hi * 1.0001 and t > 0]
    return ticks if len(ticks) >= 2 else [lo, hi]


@dataclass(frozen=True)
class Series:
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    color: str
    label: str | None = None
    dash: str = "-"  # "-", "--", ":" or "none" (markers only)
    marker: str | None = None  # "o" or "s"
    marker_size: float = 4.0
    width: float = 1.6
    titles: tuple[str, ...] = ()  # hover text of each point, in order
    title: str | None = None  # hover text of the line (default: the label)


@dataclass(frozen=True)
class RefLine:
    """A line across the whole plot at one value: vertical (``at_x``) or horizontal."""

    value: float
    at_x: bool
    color: str
    dash: str = "--"
    width: float = 1.2
    opacity: float = 1.0
    label: str | None = None
    title: str | None = None  # hover text (default: the label)


@dataclass(frozen=True)
class Bar:
    """A horizontal bar from zero to ``value`` at category position ``y``."""

    y: float
    value: float
    color: str
    height: float = 0.6
    title: str | None = None  # hover text


@dataclass(frozen=True)
class Label:
    """Text at a data point: ``anchor`` start/end; ``dx``/``dy`` nudge it in pixels."""

    x: float
    y: float
    text: str
    anchor: str = "start"
    color: str = INK
    dx: float = 0.0
    dy: float = 0.0
    bold: bool = False
    avoid: bool = False  # a point's tag: moved to the first corner around it clear of earlier tags


@dataclass
class Panel:
    """One set of axes. Limits not given are taken from the data (reference lines included)."""

    width: float
    title: str
    height: float | None = None  # the plot area's height; None: the figure's
    xlabel: str = ""
    ylabel: str = ""
    xscale: Scale = Scale()
    yscale: Scale = Scale()
    xlim: tuple[float | None, float | None] = (None, None)
    ylim: tuple[float | None, float | None] = (None, None)
    xticks: tuple[tuple[float, str], ...] | None = None  # fixed ticks and their labels
    yticks: tuple[tuple[float, str], ...] | None = None
    grid: str = ""  # "", "y" or "xy"
    legend: tuple[str, ...] = LEGEND_CORNERS  # corners to try, in order of preference
    series: list[Series] = field(default_factory=list)
    refs: list[RefLine] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)

    def left_margin(self) -> float:
        ticks = self.yticks if self.yticks is not None else [(0, plain_number(v)) for v in self._auto_y()[2]]
        widest = max((text_width(t) for _, t in ticks), default=0.0)
        return widest + 8 + (FONT + 8 if self.ylabel else 0)

    def _auto_y(self) -> tuple[float, float, list[float]]:
        ys = [y for s in self.series for y in s.ys] + [r.value for r in self.refs if not r.at_x]
        ys += [b.y for b in self.bars]
        return _limits(ys, self.ylim, self.yscale, nice=True)

    def _auto_x(self) -> tuple[float, float, list[float]]:
        xs = [x for s in self.series for x in s.xs] + [r.value for r in self.refs if r.at_x]
        xs += [b.value for b in self.bars] + ([0.0] if self.bars else [])  # bars grow from zero
        if self.xticks is not None:
            xs += [v for v, _ in self.xticks]
        return _limits(xs, self.xlim, self.xscale, nice=False)


def has_data(panel: Panel) -> bool:
    """Whether ``panel`` has anything to draw: a bar, or a series point its axes can show.
    Reference lines and labels alone (a floor, the L2 size) are no data."""
    return bool(panel.bars) or any(
        (x > 0 or not panel.xscale.log) and (y > 0 or not panel.yscale.log)
        for s in panel.series for x, y in zip(s.xs, s.ys))


def stray_points(panel: Panel) -> list[tuple[str, float, float]]:
    """The data ``panel`` holds but its axes do not show: (what, x, y) of every series point
    outside the axis limits or not drawable on a log axis, and every bar past them.  A plot
    that hides its data misleads; a test holds this empty for every plot the site draws."""
    frame = _Frame(panel, 0.0, panel.height or PLOT_HEIGHT)
    stray = []
    for s in panel.series:
        for x, y in zip(s.xs, s.ys):
            drawable = (x > 0 or not panel.xscale.log) and (y > 0 or not panel.yscale.log)
            if not (drawable and frame.inside_x(x) and frame.inside_y(y)):
                stray.append((s.label or s.title or "series", x, y))
    for b in panel.bars:
        if not (frame.inside_x(b.value) and frame.inside_y(b.y)):
            stray.append((b.title or "bar", b.value, b.y))
    return stray


def _limits(values: list[float], given: tuple[float | None, float | None], scale: Scale,
            nice: bool) -> tuple[float, float, list[float]]:
    """Axis limits and automatic ticks: the data padded by 5 % (log: in log space), or given."""
    values = [v for v in values if v > 0] if scale.log else values
    lo = min(values, default=1.0)
    hi = max(values, default=lo * 10 if scale.log else lo + 1)
    if scale.log:
        if hi <= lo:
            lo, hi = lo / 2, hi * 2
        pad = (math.log(hi) - math.log(lo)) * 0.05
        lo, hi = math.exp(math.log(lo) - pad), math.exp(math.log(hi) + pad)
    else:
        if hi <= lo:
            lo, hi = lo - 1, hi + 1
        pad = (hi - lo) * 0.05
        lo, hi = lo - pad, hi + pad
    lo = given[0] if given[0] is not None else lo
    hi = given[1] if given[1] is not None else hi
    if scale.log:
        return lo, hi, log_ticks(lo, hi, scale.base)
    ticks = nice_ticks(lo, hi)
    if nice and given[1] is None and ticks and hi > ticks[-1]:
        # end the axis on a round tick, so the top gridline is labelled
        step = ticks[1] - ticks[0] if len(ticks) > 1 else hi - lo
        hi = ticks[-1] + step
        ticks.append(round(hi, 12))
    return lo, hi, ticks


class _Frame:
    """The pixel frame of one panel: maps data to pixels."""

    def __init__(self, panel: Panel, left: float, height: float):
        self.panel = panel
        margin = panel.left_margin()
        self.x0, self.x1 = left + margin, left + panel.width - 12
        self.y0, self.y1 = TOP, TOP + height
        self.xlo, self.xhi, self.xauto = panel._auto_x()
        self.ylo, self.yhi, self.yauto = panel._auto_y()

    def px(self, x: float) -> float:
        s = self.panel.xscale
        return self.x0 + (s.f(x) - s.f(self.xlo)) / (s.f(self.xhi) - s.f(self.xlo)) * (self.x1 - self.x0)

    def py(self, y: float) -> float:
        s = self.panel.yscale
        return self.y1 - (s.f(y) - s.f(self.ylo)) / (s.f(self.yhi) - s.f(self.ylo)) * (self.y1 - self.y0)

    def inside_x(self, x: float) -> bool:
        return self.xlo * (1 - 1e-9) <= x <= self.xhi * (1 + 1e-9) if x > 0 else self.xlo <= x <= self.xhi

    def inside_y(self, y: float) -> bool:
        return self.ylo * (1 - 1e-9) <= y <= self.yhi * (1 + 1e-9) if y > 0 else self.ylo <= y <= self.yhi


def _n(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# Characters XML 1.0 cannot hold (controls, lone surrogates): a label with one would make the file unreadable.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(x: float, y: float, text: str, size: float = FONT, anchor: str = "start", color: str = INK,
          extra: str = "") -> str:
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" fill="{color}"'
            f"{extra}>{escape(_NOT_XML.sub('', text))}</text>")


def _stroke(color: str, width: float, dash: str, opacity: float = 1.0) -> str:
    attrs = f'stroke={quoteattr(color)} stroke-width="{_n(width)}" fill="none"'
    if DASHES.get(dash):
        attrs += f' stroke-dasharray="{DASHES[dash]}"'
    if opacity != 1.0:
        attrs += f' stroke-opacity="{_n(opacity)}"'
    return attrs


def _title(text: str | None) -> str:
    return f"<title>{escape(_NOT_XML.sub('', text))}</title>" if text else ""


def _close(element: str, title: str | None) -> str:
    """``element`` (written as ``<tag ...``) closed, with a ``<title>`` child where there is hover text."""
    tag = element[1:element.index(" ")]
    return f"{element}>{_title(title)}</{tag}>" if title else element + "/>"


def _marker(x: float, y: float, kind: str, size: float, color: str, title: str | None = None) -> str:
    if kind == "s":
        h = size * 0.8
        return _close(f'<rect x="{_n(x - h)}" y="{_n(y - h)}" width="{_n(2 * h)}" height="{_n(2 * h)}" '
                      f'fill="{color}"', title)
    return _close(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(size * 0.75)}" fill="{color}"', title)


def _legend_items(panel: Panel) -> list[tuple[str, str, str, str | None, float]]:
    """(label, color, dash, marker, width) of everything labelled, in drawing order."""
    items = [(s.label, s.color, s.dash, s.marker, s.width) for s in panel.series if s.label]
    return items + [(r.label, r.color, r.dash, None, r.width) for r in panel.refs if r.label]


LEGEND_ROW = FONT + 4
SWATCH = 22.0


def _legend_size(items) -> tuple[float, float]:
    return SWATCH + 6 + max(text_width(i[0]) for i in items) + 8, LEGEND_ROW * len(items) + 6


def _occupied(frame: _Frame) -> list[tuple[float, float]]:
    """Pixel points the data covers: line vertices and points along segments, bars, labels."""
    points: list[tuple[float, float]] = []
    p = frame.panel
    for s in p.series:
        pts = _points(frame, s)
        points += pts
        if s.dash != "none":
            for (ax, ay), (bx, by) in zip(pts, pts[1:]):
                points += [(ax + (bx - ax) * k / 12, ay + (by - ay) * k / 12) for k in range(1, 12)]
    for r in p.refs:
        if r.at_x:
            points += [(frame.px(r.value), frame.y0 + (frame.y1 - frame.y0) * k / 24) for k in range(25)]
        else:
            points += [(frame.x0 + (frame.x1 - frame.x0) * k / 24, frame.py(r.value)) for k in range(25)]
    for b in p.bars:
        points += [(frame.px(b.value * k / 8), frame.py(b.y + d)) for k in range(9) for d in (-0.25, 0, 0.25)]
    for lab in p.labels:
        x, w = frame.px(lab.x) + lab.dx, text_width(lab.text)
        xs = (x - w, x) if lab.anchor == "end" else (x, x + w)
        points += [(xs[0] + (xs[1] - xs[0]) * k / 6, frame.py(lab.y) + lab.dy - FONT / 3) for k in range(7)]
    return points


def _place_legend(frame: _Frame, items) -> tuple[float, float] | None:
    """The top-left pixel of the first preferred corner where the legend covers no data, else None."""
    w, h = _legend_size(items)
    occupied = _occupied(frame)
    for corner in frame.panel.legend:
        x = frame.x1 - w - 4 if corner.endswith("right") else frame.x0 + 4
        y = frame.y0 + 2 if corner.startswith("upper") else frame.y1 - h - 2
        if x < frame.x0:
            continue
        if not any(x - 5 <= px <= x + w + 5 and y - 5 <= py <= y + h + 5 for px, py in occupied):
            return x, y
    return None


def _legend_rows(panel_left: float, panel_width: float, items) -> list[list[tuple[float, tuple]]]:
    """Legend items laid out in rows under the axes, wrapped at the panel's width; a label
    wider than the panel goes on rows of its own, broken between words."""
    rows: list[list[tuple[float, tuple]]] = [[]]
    x = panel_left + 8
    room = panel_width - 16 - SWATCH - 6
    for item in items:
        w = SWATCH + 6 + text_width(item[0]) + 14
        if text_width(item[0]) > room:
            first, *rest = wrap(item[0], room)
            if rows[-1]:
                rows.append([])
            rows[-1].append((panel_left + 8, (first, *item[1:])))
            rows += [[(panel_left + 8, (line, None, "none", None, 0.0))] for line in rest]
            rows.append([])
            x = panel_left + 8
            continue
        if rows[-1] and x + w > panel_left + panel_width:
            rows.append([])
            x = panel_left + 8
        rows[-1].append((x, item))
        x += w
    return [row for row in rows if row]


def wrap(text: str, width: float) -> list[str]:
    """``text`` broken between words into lines of at most ``width`` (a word wider stays whole)."""
    lines = [""]
    for word in text.split(" "):
        trial = f"{lines[-1]} {word}".strip()
        if lines[-1] and text_width(trial) > width:
            lines.append(word)
        else:
            lines[-1] = trial
    return lines


def _draw_legend_item(x: float, y: float, item) -> list[str]:
    """One legend row: a swatch of the line (and marker) with its label; ``y`` is the row's middle."""
    label, color, dash, marker, width = item
    out = []
    if color is None:  # the rest of a label too wide for one row
        return [_text(x + SWATCH + 6, y + FONT * 0.35, label)]
    if dash != "none":
        out.append(f'<path d="M{_n(x)} {_n(y)}H{_n(x + SWATCH)}" {_stroke(color, width, dash)}/>')
    if marker:
        out.append(_marker(x + SWATCH / 2, y, marker, 3.5, color))
    out.append(_text(x + SWATCH + 6, y + FONT * 0.35, label))
    return out


def _axes(frame: _Frame) -> list[str]:
    """Grid, spines, ticks and tick labels, axis labels and the title."""
    p, out = frame.panel, []
    xticks = p.xticks if p.xticks is not None else tuple((v, plain_number(v)) for v in frame.xauto)
    yticks = p.yticks if p.yticks is not None else tuple((v, plain_number(v)) for v in frame.yauto)
    xticks = tuple(t for t in xticks if frame.inside_x(t[0]))
    yticks = tuple(t for t in yticks if frame.inside_y(t[0]))
    for v, _ in yticks if "y" in p.grid else ():
        out.append(f'<path d="M{_n(frame.x0)} {_n(frame.py(v))}H{_n(frame.x1)}" {_stroke(GRID, 0.6, "-")}/>')
    for v, _ in xticks if "x" in p.grid else ():
        out.append(f'<path d="M{_n(frame.px(v))} {_n(frame.y0)}V{_n(frame.y1)}" {_stroke(GRID, 0.6, "-")}/>')
    out.append(f'<path d="M{_n(frame.x0)} {_n(frame.y0)}V{_n(frame.y1)}H{_n(frame.x1)}" {_stroke(INK, 0.9, "-")}/>')
    shown = _thin([(frame.px(v), t) for v, t in xticks])
    for v, t in xticks:
        x = frame.px(v)
        out.append(f'<path d="M{_n(x)} {_n(frame.y1)}v4" {_stroke(INK, 0.9, "-")}/>')
        if (x, t) in shown:
            out.append(_text(x, frame.y1 + 6 + FONT, t, anchor="middle"))
    for v, t in yticks:
        y = frame.py(v)
        out.append(f'<path d="M{_n(frame.x0)} {_n(y)}h-4" {_stroke(INK, 0.9, "-")}/>')
        out.append(_text(frame.x0 - 6, y + FONT * 0.35, t, anchor="end"))
    if p.xlabel:
        out.append(_text((frame.x0 + frame.x1) / 2, frame.y1 + 8 + 2 * FONT + 4, p.xlabel, anchor="middle"))
    if p.ylabel:
        left = frame.x0 - p.left_margin() + FONT
        mid = (frame.y0 + frame.y1) / 2
        out.append(_text(left, mid, p.ylabel, anchor="middle",
                         extra=f' transform="rotate(-90 {_n(left)} {_n(mid)})"'))
    room = frame.x1 - (frame.x0 - p.left_margin()) + 6
    # shrunk to fit the panel, never below the text size
    size = max(FONT, min(TITLE_FONT, TITLE_FONT * room / max(1.0, text_width(p.title, TITLE_FONT))))
    out.append(_text(frame.x0 - p.left_margin() + 2, frame.y0 - 10, p.title, size=size,
                     extra=' class="title" font-weight="bold"'))
    return out


def _thin(ticks: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """Every k-th x tick label, with k the least that keeps labels from touching."""
    for k in range(1, len(ticks) + 1):
        kept = ticks[::k]
        if all(b[0] - a[0] > (text_width(a[1]) + text_width(b[1])) / 2 + 6 for a, b in zip(kept, kept[1:])):
            return kept
    return ticks[:1]


def _points(frame: _Frame, s: Series) -> list[tuple[float, float]]:
    """A series in pixels, less any point a log axis cannot show (zero or negative)."""
    return [(frame.px(x), frame.py(y)) for x, y in zip(s.xs, s.ys)
            if (x > 0 or not frame.panel.xscale.log) and (y > 0 or not frame.panel.yscale.log)]


def _shown_titles(frame: _Frame, s: Series) -> list[str | None]:
    """The hover text of each point ``_points`` keeps: its own, else the series' label."""
    titles = list(s.titles) + [None] * (len(s.xs) - len(s.titles))
    return [t or s.title or s.label for x, y, t in zip(s.xs, s.ys, titles)
            if (x > 0 or not frame.panel.xscale.log) and (y > 0 or not frame.panel.yscale.log)]


def _data(frame: _Frame) -> list[str]:
    p, out = frame.panel, []
    for b in p.bars:
        x0, x1 = frame.px(0.0), frame.px(b.value)
        top = frame.py(b.y + b.height / 2)
        out.append(_close(f'<rect x="{_n(x0)}" y="{_n(top)}" width="{_n(max(0.0, x1 - x0))}" '
                          f'height="{_n(frame.py(b.y - b.height / 2) - top)}" fill="{b.color}"', b.title))
    for r in p.refs:
        if r.at_x and frame.inside_x(r.value):
            d = f"M{_n(frame.px(r.value))} {_n(frame.y0)}V{_n(frame.y1)}"
        elif not r.at_x and frame.inside_y(r.value):
            d = f"M{_n(frame.x0)} {_n(frame.py(r.value))}H{_n(frame.x1)}"
        else:
            continue
        out.append(_close(f'<path d="{d}" {_stroke(r.color, r.width, r.dash, r.opacity)}', r.title or r.label))
    for s in p.series:
        pts = _points(frame, s)
        if s.dash != "none" and len(pts) > 1:
            d = "M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in pts)
            out.append(_close(f'<path d="{d}" {_stroke(s.color, s.width, s.dash)} stroke-linejoin="round"',
                              s.title or s.label))
        if s.marker:
            titles = _shown_titles(frame, s)
            out += [_marker(x, y, s.marker, s.marker_size, s.color, t) for (x, y), t in zip(pts, titles)]
    placed: list[tuple[float, float, float, float]] = []
    for lab in p.labels:
        x, y, anchor = frame.px(lab.x) + lab.dx, frame.py(lab.y) + lab.dy, lab.anchor
        if lab.avoid:
            x, y, anchor = _clear_spot(frame.px(lab.x), frame.py(lab.y), lab, placed)
        out.append(_text(x, y, lab.text, anchor=anchor, color=lab.color,
                         extra=' font-weight="bold"' if lab.bold else ""))
    return out


def _clear_spot(px: float, py: float, lab: Label, placed: list) -> tuple[float, float, str]:
    """Where a point's tag goes: on its own side (``lab.anchor``: right for start, left for end)
    above, then below, then the other side above and below, the first clear of the tags placed
    before it (else the first); the spot taken is added to ``placed``."""
    w = text_width(lab.text) * (1.1 if lab.bold else 1.0)
    # a tag anchored at its end sits left of the point: dx away from it on that side, whatever
    # the sign given (a start anchor with a negative dx drew the tag across its own point)
    own, other = ("end", "start") if lab.anchor == "end" else ("start", "end")
    step = abs(lab.dx)
    near = -step if own == "end" else step
    spots = []
    for dx, dy, anchor in ((near, lab.dy, own), (near, -lab.dy + FONT * 0.7, own),
                           (-near, lab.dy, other), (-near, -lab.dy + FONT * 0.7, other)):
        left = px + dx - (w if anchor == "end" else 0.0)
        spots.append((px + dx, py + dy, anchor, (left, py + dy - FONT * 0.8, left + w, py + dy + 1)))
    for spot in spots:
        a = spot[3]
        if not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3] for b in placed):
            break
    else:
        spot = spots[0]
    placed.append(spot[3])
    return spot[:3]


# Text sized for a phone's column (PANEL_WIDTH drawn about 388 px wide) would be half as large
# again on a desktop's 688 px column.  Where the image is drawn wide, its own media queries (they
# see the image's width) make the text smaller in the drawing, so it shows at about the page's
# text size; the layout was made for the larger text, so everything still fits.
_WIDE = ((500, 10.5, 11.5), (600, 9.0, 10.0))  # from this image width: text and title sizes
_STYLE = "<style>" + "".join(
    f"@media (min-width: {w}px) {{ text {{ font-size: {_n(t)}px }} text.title {{ font-size: {_n(h)}px }} }}"
    for w, t, h in _WIDE) + "</style>"


def figure(panels: list[Panel], plot_height: float = PLOT_HEIGHT, columns: int = 1, gap: float = 14.0) -> bytes:
    """Panels in one SVG, ``columns`` to a row, their plot areas ``plot_height`` high unless they set
    their own height.

    One column keeps the text legible where the page scales the image to a phone's text column.
    Legends go inside the axes at the first preferred corner where they cover no data,
    else in rows under the axes.  A panel with no data to draw (``has_data``) is left out:
    empty axes with only a reference line read as a measurement that shows nothing."""
    panels = [p for p in panels if has_data(p)]
    parts: list[str] = []
    width, top = 0.0, 0.0
    for first in range(0, len(panels), columns):
        row, bottom = [], BOTTOM
        left = 0.0
        chunk = panels[first:first + columns]
        height = max(p.height or plot_height for p in chunk)
        for i, panel in enumerate(chunk, start=first):
            part, needed = _panel(panel, i, left, height)
            row += part
            bottom = max(bottom, needed)
            left += panel.width + gap
        parts += [f'<g transform="translate(0 {_n(top)})">', *row, "</g>"]
        width, top = max(width, left - gap), top + TOP + height + bottom + 6
    # width 100%: the page sizes the plot to its text column, the viewBox keeps its shape
    head = ('<?xml version="1.0" encoding="utf-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" '
            f'viewBox="0 0 {_n(width)} {_n(top)}" font-family="sans-serif">\n{_STYLE}\n')
    return (head + "\n".join(parts) + "\n</svg>\n").encode()


def _panel(panel: Panel, i: int, left: float, plot_height: float) -> tuple[list[str], float]:
    """One panel's SVG elements, and the room it needs under its plot area."""
    frame = _Frame(panel, left, plot_height)
    clip = f"clip{i}"
    # a marker's width beyond the axes, so points at the limits show whole
    parts = [f'<clipPath id="{clip}"><rect x="{_n(frame.x0 - 6)}" y="{_n(frame.y0 - 6)}" '
             f'width="{_n(frame.x1 - frame.x0 + 12)}" height="{_n(frame.y1 - frame.y0 + 12)}"/></clipPath>']
    parts += _axes(frame)
    parts += [f'<g clip-path="url(#{clip})">', *_data(frame), "</g>"]
    items = _legend_items(panel)
    spot = _place_legend(frame, items) if items else None
    if spot is not None:
        for k, item in enumerate(items):
            parts += _draw_legend_item(spot[0], spot[1] + 3 + LEGEND_ROW * (k + 0.5), item)
    if not items or spot is not None:
        return parts, BOTTOM
    rows = _legend_rows(left, panel.width, items)
    for k, row in enumerate(rows):
        for x, item in row:
            parts += _draw_legend_item(x, frame.y1 + BOTTOM + 2 + LEGEND_ROW * (k + 0.5), item)
    return parts, BOTTOM + 4 + LEGEND_ROW * len(rows)
