"""Plots: pure DeviceView -> SVG bytes, deterministic, with the copy floor and the L2 size."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from glossary.site import plots
from glossary.figures.views import DeviceView, SizeView, VariantRow


def _row(name: str, gbps: float, floor: float) -> VariantRow:
    return VariantRow(name=name, label=name, ms=1.0, bytes_per_elem=12, gbps=gbps, gflops=None,
                      counted_bytes_per_elem=None, fraction_of_floor=gbps / floor, samples=5, spread=None)


def view(sizes: int = 1, l2: int | None = None, status: str = "ok") -> DeviceView:
    points = []
    for i in range(sizes):
        n = 1 << (20 + 2 * i)
        floor = 3000.0 + 100 * i
        points.append(SizeView(params={"n": n}, elements=n, working_set_bytes=12 * n, copy_floor_gbps=floor,
                               rows=(_row("staged", 0.9 * floor, floor), _row("fused", 0.95 * floor, floor)),
                               ratios=(), headline=i == sizes - 1))
    return DeviceView(key="fixture-gpu", gpu="Fixture GPU", status=status, provenance="imported",
                      imported_from="test fixture", stale=False, environment={}, method={"statistic": "mean"},
                      sizes=tuple(points), error=None, last_failure=None, l2_bytes=l2)


def test_svg_is_valid_and_deterministic():
    first = plots.device_svg(view(sizes=3, l2=50 << 20))
    assert first == plots.device_svg(view(sizes=3, l2=50 << 20))
    root = ET.fromstring(first)
    assert root.tag.endswith("svg")
    assert b"<dc:date>" not in first


def test_sweep_and_l2_change_the_drawing():
    single = plots.device_svg(view(sizes=1))
    sweep = plots.device_svg(view(sizes=3))
    with_l2 = plots.device_svg(view(sizes=3, l2=50 << 20))
    assert len({single, sweep, with_l2}) == 3
    assert len(sweep) > len(single)


def test_alt_text_says_what_is_drawn():
    assert plots.alt_text(view()) == "GB/s of staged, fused on Fixture GPU against the copy floor"
    assert plots.alt_text(view(sizes=2, l2=16 << 20)).endswith("across the size sweep with the L2 size marked")
    # a sweep wholly past the L2 leaves the line out, and says nothing of it (look32)
    assert "L2" not in plots.alt_text(view(sizes=2, l2=1 << 20))


def test_failed_device_has_no_plot():
    failed = view(status="failed")
    assert not plots.has_plot(failed)
    with pytest.raises(ValueError, match="no successful measurement"):
        plots.device_svg(failed)


# -- the SVG writer ----------------------------------------------------------------------------------

from glossary.site import svgplot  # noqa: E402


def _texts(svg: bytes) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


def test_nice_and_log_ticks_and_plain_labels():
    assert svgplot.nice_ticks(0, 4400) == [0, 2000, 4000]
    assert svgplot.nice_ticks(0, 3.3) == [0, 1, 2, 3]
    assert svgplot.log_ticks(500, 70000) == [500, 1000, 2000, 5000, 10000, 20000, 50000]
    assert svgplot.log_ticks(1.8, 14) == [2, 5, 10]
    assert svgplot.log_ticks(0.1, 1000, base=2) == [0.125, 0.5, 2, 8, 32, 128, 512]
    assert [svgplot.plain_number(v) for v in (6, 0.25, 12000, 2.5, 50000.0)] == ["6", "0.25", "12,000", "2.5", "50,000"]


def test_plot_scales_transparent_and_escapes_text():
    device = view(sizes=3, l2=50 << 20)
    svg = plots.device_svg(dataclasses.replace(device, sizes=tuple(
        dataclasses.replace(s, rows=(_row("a<b & c", 2000.0, 3000.0),) + s.rows) for s in device.sizes)))
    root = ET.fromstring(svg)  # parses: "<" and "&" in a variant name are escaped
    # as wide as the page's column; the viewBox gives its shape
    assert root.get("width") == "100%" and root.get("height") is None
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    assert root.get("font-family") == "sans-serif" and b"<image" not in svg and b"@font-face" not in svg
    assert 0 < width < 800 and 0 < height < 800
    assert b'fill="white"' not in svg.split(b">", 2)[1]  # no background rectangle: transparent
    assert "a<b & c" in _texts(svg)


def test_every_panel_is_drawn_with_its_marks():
    texts = _texts(plots.device_svg(view(sizes=3, l2=50 << 20)))
    assert "GB/s at 16,777,216 elements" in texts and "Speedup across the size sweep" not in texts
    assert "GB/s across the size sweep" in texts and "L2 50 MiB" in texts
    assert any(t.startswith("copy floor 3,200 GB/s") for t in texts)  # fmt.rate, as the tables
    assert {"8 MiB", "32 MiB", "128 MiB"} <= set(texts)  # x ticks: powers of two of the working set


def test_legend_goes_where_it_covers_no_data():
    panel = svgplot.Panel(width=360, title="t", series=[
        svgplot.Series(xs=(1, 2, 3), ys=(10, 10, 10), color="#000", label="flat high")])
    panel.ylim = (0.0, 11.0)
    frame = svgplot._Frame(panel, 0.0, svgplot.PLOT_HEIGHT)
    spot = svgplot._place_legend(frame, svgplot._legend_items(panel))
    assert spot is not None and spot[1] > frame.y0 + svgplot.PLOT_HEIGHT / 2  # below the line, not on it
    crowded = svgplot.Panel(width=200, title="t", series=[svgplot.Series(
        xs=tuple(range(20)), ys=tuple(float(i % 2) for i in range(20)), color="#000", label="zigzag")])
    assert svgplot._place_legend(svgplot._Frame(crowded, 0.0, 60.0), svgplot._legend_items(crowded)) is None
    assert b"zigzag" in svgplot.figure([crowded], plot_height=60.0)  # drawn under the axes instead


def test_drawing_is_cheap():
    import time

    device = view(sizes=6, l2=50 << 20)
    start = time.perf_counter()
    for _ in range(20):
        plots.device_svg(device)
    assert (time.perf_counter() - start) / 20 < 0.05  # target 5 ms; generous for a loaded CI machine


def test_log_axes_leave_out_points_they_cannot_show():
    panel = svgplot.Panel(width=300, title="t", yscale=svgplot.Scale(log=True), series=[
        svgplot.Series(xs=(1, 2, 3), ys=(0.0, 10.0, 100.0), color="#000", label="from zero", marker="o")])
    svg = svgplot.figure([panel])
    assert svg.count(b"<circle") == 2 + 1  # two points and the legend's marker


# -- labelled marks (issue 20) ---------------------------------------------------------------------

SVG_NS = "{http://www.w3.org/2000/svg}"


def _marks(svg: bytes):
    """Every bar, point and line of the data (the legend's swatches are outside the clipped groups)."""
    root = ET.fromstring(svg)
    for group in root.iter(SVG_NS + "g"):
        if group.get("clip-path"):
            yield from (e for e in group if e.tag in (SVG_NS + "rect", SVG_NS + "circle", SVG_NS + "path"))


def test_every_mark_has_a_hover_title_in_the_site_number_style():
    device = view(sizes=3, l2=50 << 20)
    marks = list(_marks(plots.device_svg(device)))
    assert marks and all(m.find(SVG_NS + "title") is not None for m in marks)
    titles = [m.find(SVG_NS + "title").text for m in marks]
    # the bar of the headline size: the name, time and rate as fmt writes them everywhere
    assert "staged: 1.000 ms, 2,880 GB/s (90% of the copy floor)" in titles
    assert any(t.startswith("fused at 48 MiB working set: 1.000 ms, 2,945 GB/s") for t in titles)


def test_plots_name_variants_by_their_display_name():
    rows = tuple(dataclasses.replace(_row(n, g, 3000.0), label=f"{n} label") for n, g in (("a", 2000), ("b", 2500)))
    size = SizeView(params={"n": 1 << 20}, elements=1 << 20, working_set_bytes=12 << 20, copy_floor_gbps=3000.0,
                    rows=rows, ratios=(), headline=True)
    device = dataclasses.replace(view(), sizes=(size,))
    texts = _texts(plots.device_svg(device))
    assert "a label" in texts and "a" not in texts
    assert plots.alt_text(device).startswith("GB/s of a label, b label")

    class Short:  # a spec's short label, where the author gives one, wins over the label
        short, label = "A", "a label"
    assert plots.display_name(Short()) == "A"


def test_roofline_points_are_numbered_and_named_in_the_legend():
    from glossary.figures.views import roofline

    from measure.spec.model import Roof

    rows = tuple(dataclasses.replace(_row(f"k{k}", 1000.0 + k, 3000.0), label=f"{k} FMAs", flops_per_elem=2.0 * k,
                                     gflops=float(min(3000 * 2 * k / 12, 20000)), ms=0.5 + k / 100)
                 for k in (1, 2, 4, 8, 16, 32, 64, 128))
    size = SizeView(params={"n": 1 << 20}, elements=1 << 20, working_set_bytes=12 << 20, copy_floor_gbps=3000.0,
                    rows=rows, ratios=(), headline=True, roofline=roofline(rows, 3000.0, Roof(peer="k128")))
    svg = plots.device_svg(dataclasses.replace(view(), sizes=(size,)))
    texts = _texts(svg)
    assert all(f"{i + 1}: {r.label}" in texts and str(i + 1) in texts for i, r in enumerate(rows))
    points = [m for m in _marks(svg) if m.tag == SVG_NS + "circle"]
    assert len(points) == len(rows)
    assert points[0].find(SVG_NS + "title").text == (
        "1 FMAs: 510.0 µs, 0.5000 TFLOP/s at 0.167 FLOP/B (100% of the roof)")


def test_text_is_never_below_the_font_size_and_figures_stack():
    root = ET.fromstring(plots.device_svg(view(sizes=3, l2=50 << 20)))
    sizes = {float(t.get("font-size")) for t in root.iter(SVG_NS + "text")}
    assert min(sizes) >= svgplot.FONT
    assert float(root.get("viewBox").split()[2]) == svgplot.PANEL_WIDTH  # one column: a phone scales it down least


def test_a_legend_label_wider_than_the_panel_wraps_between_words():
    long = "threads down a column, neighbouring warps on neighbouring columns / threads along a row"
    items = [("short", "#000", "-", "o", 1.6), (long, "#111", "-", "o", 1.6), ("after", "#222", "-", None, 1.6)]
    rows = svgplot._legend_rows(0.0, svgplot.PANEL_WIDTH, items)
    lines = [item[0] for row in rows for _, item in row]
    assert lines[0] == "short" and lines[-1] == "after" and " ".join(lines[1:-1]) == long
    assert all(svgplot.text_width(t) <= svgplot.PANEL_WIDTH - 16 for t in lines)
    assert [len(row) for row in rows][1:-1] == [1] * (len(lines) - 2)  # one line per row


def test_alt_text_of_many_variants_gives_their_count():
    floor = 3000.0
    rows = tuple(dataclasses.replace(_row(f"k{k}", 1000.0, floor), label=f"{k} FMAs") for k in range(1, 9))
    size = SizeView(params={"n": 1 << 20}, elements=1 << 20, working_set_bytes=12 << 20, copy_floor_gbps=floor,
                    rows=rows, ratios=(), headline=True)
    alt = plots.alt_text(dataclasses.replace(view(), sizes=(size,)))
    assert alt.startswith("GB/s of 8 versions, from 1 FMAs to 8 FMAs, on Fixture GPU")


def test_a_byte_ratio_of_one_draws_no_dashed_line():
    from glossary.entries.model import load_entries
    from glossary.verdicts import findings
    from measure import store

    from pathlib import Path

    entries = load_entries(Path(__file__).resolve().parent.parent / "entries")
    for slug, has_line in (("launch-overhead", False), ("kernel-fusion", True)):
        entry = entries[slug]
        view = findings.collect(entry, store.load_results(entry.folder)).devices[0]
        svg = plots.device_svg(view).decode()
        assert ("byte ratio" in svg) is has_line, slug
