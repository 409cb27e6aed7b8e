"""Plots: pure DeviceView -> SVG bytes, deterministic, with the copy floor and the L2 size."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from glossary import plots
from glossary.pages import DeviceView, SizeView, VariantRow


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
    assert plots.alt_text(view(sizes=2, l2=1 << 20)).endswith("across the size sweep with the L2 size marked")


def test_failed_device_has_no_plot():
    failed = view(status="failed")
    assert not plots.has_plot(failed)
    with pytest.raises(ValueError, match="no successful measurement"):
        plots.device_svg(failed)
