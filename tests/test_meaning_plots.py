"""Issue 32, items 1 and 9: every plot panel draws data, and all of it inside its axes; no L2 mark
on plots of copies across the host link; plots sized to the text column.  On the CPU, over the
repository's own entries and results as well as small literal panels."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from glossary.figures.views import device_views
from glossary.site import plots, svgplot

import real_glossary

SVG_NS = "{http://www.w3.org/2000/svg}"


def _views():
    """Every device view of every entry of this repository that has a plot."""
    for slug, entry in sorted(real_glossary.entries().items()):
        recorded = real_glossary.recorded(slug)
        for view in device_views(entry, recorded) if recorded else ():
            if plots.has_plot(view):
                yield f"{slug}/{view.key}", view


VIEWS = dict(_views())


def _titles(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)
    return [t.text for t in root.iter(SVG_NS + "text") if t.get("class") == "title"]


def test_an_empty_panel_is_not_drawn():
    full = svgplot.Panel(width=300, title="has data", series=[svgplot.Series(xs=(1.0, 2.0), ys=(3.0, 4.0), color="#000")])
    empty = svgplot.Panel(width=300, title="only a marker", yscale=svgplot.Scale(log=True),
                          refs=[svgplot.RefLine(2.0, at_x=True, color="#000", label="L2")],
                          series=[svgplot.Series(xs=(), ys=(), color="#000", label="no points")])
    zeros = svgplot.Panel(width=300, title="zeros on a log axis", yscale=svgplot.Scale(log=True),
                          series=[svgplot.Series(xs=(1.0,), ys=(0.0,), color="#000")])
    assert svgplot.has_data(full) and not svgplot.has_data(empty) and not svgplot.has_data(zeros)
    assert _titles(svgplot.figure([full, empty, zeros])) == ["has data"]


def test_data_outside_the_axes_is_found():
    inside = svgplot.Panel(width=300, title="t", series=[svgplot.Series(xs=(1.0, 2.0), ys=(3.0, 4.0), color="#000")])
    assert svgplot.stray_points(inside) == []
    clipped = svgplot.Panel(width=300, title="t", ylim=(1.0, 10.0), yscale=svgplot.Scale(log=True),
                            series=[svgplot.Series(xs=(1.0, 2.0), ys=(9.0, 194_000.0), color="#000", label="host")])
    assert svgplot.stray_points(clipped) == [("host", 2.0, 194_000.0)]
    bar = svgplot.Panel(width=300, title="t", xlim=(0.0, 5.0), bars=[svgplot.Bar(y=0.0, value=9.0, color="#000", title="b")])
    assert svgplot.stray_points(bar) == [("b", 9.0, 0.0)]


@pytest.mark.parametrize("key", sorted(VIEWS))
def test_every_panel_of_every_entry_shows_all_its_data(key):
    view = VIEWS[key]
    for panel in plots.device_panels(view):
        assert svgplot.has_data(panel), f"{key}: panel {panel.title!r} has nothing to draw"
        assert svgplot.stray_points(panel) == [], f"{key}: panel {panel.title!r} hides data outside its axes"


def test_pinned_memory_draws_no_empty_time_per_launch_panel():
    view = VIEWS["pinned-memory/nvidia-h200"]
    svg = plots.device_svg(view)
    assert "Time per launch across the sweep" not in _titles(svg)
    assert "time per launch" not in plots.alt_text(view)


@pytest.mark.parametrize("key", sorted(VIEWS))
def test_l2_is_marked_only_where_bytes_do_not_cross_the_host_link(key):
    view = VIEWS[key]
    texts = {t.text for t in ET.fromstring(plots.device_svg(view)).iter(SVG_NS + "text")}
    over_link = all(s.plot_floor[1] == "link floor" for s in view.sizes if s.rows)
    marked = any(t and t.startswith("L2 ") for t in texts)
    if over_link:
        assert not marked, f"{key}: copies across the host link do not care what the L2 holds"
        assert "L2" not in plots.alt_text(view)
    elif view.l2_bytes and all(s.working_set_bytes for s in view.sizes) and len([s for s in view.sizes if s.rows]) > 1:
        # a sweep wholly past the L2 leaves the line out (look32): it would only stretch the axis
        spans = any(s.working_set_bytes <= view.l2_bytes for s in view.sizes if s.rows)
        assert marked == spans, f"{key}: a sweep over the working set marks the L2 where it reaches it"


def test_pinned_memory_has_no_l2_mark():
    texts = {t.text for t in ET.fromstring(plots.device_svg(VIEWS["pinned-memory/nvidia-h200"])).iter(SVG_NS + "text")}
    assert not any(t and t.startswith("L2 ") for t in texts)


def test_plots_size_to_the_column_with_legible_text_at_desktop_and_phone_widths():
    svg = plots.device_svg(VIEWS["kernel-fusion/nvidia-h200"])
    root = ET.fromstring(svg)
    assert root.get("width") == "100%" and root.get("height") is None
    view_width = float(root.get("viewBox").split()[2])
    style = root.find(SVG_NS + "style").text
    # the text size the reader sees at a column width: the drawing's size (a media query's, where
    # one applies at that width) times the scale the column draws the image at
    def shown(column: float) -> float:
        size = svgplot.FONT
        for width, text, _title in svgplot._WIDE:
            if column >= width:
                size = text
                assert f"@media (min-width: {width}px) {{ text {{ font-size: {text:g}px }}" in style
        return size * column / view_width
    for column in (388, 450, 500, 560, 600, 688):  # a phone's column (420 px viewport) to a desktop's
        assert 10.0 <= shown(column) <= 16.0, column
