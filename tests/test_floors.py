"""Issue 32, item 4: each floor shown once, with the copy size it was measured at; where the floors
measured beside the sweep's sizes differ, the page says why a claim may quote another."""

from __future__ import annotations

from types import SimpleNamespace

from glossary.figures.floors import floor_note
from glossary.site import plots

import real_glossary

ENTRIES = real_glossary.entries()


def _size(copy, moved=None, link=None):
    return SimpleNamespace(copy_floor_gbps=copy, copy_floor_bytes=moved, link_floor=link)


def test_one_floor_everywhere_needs_no_note():
    assert floor_note([_size(4000.0, 1 << 29), _size(4000.0, 1 << 29)]) == ""


def test_floors_that_differ_are_spanned_and_explained():
    note = floor_note([_size(4266.0, 480 << 20), _size(4304.0, 2 << 30)])
    assert "the copy floor spans 4,266 to 4,304 GB/s" in note and "480 MiB to 2 GiB each" in note
    assert "a claim at a size is judged against the floor measured beside it" in note
    link = [_size(None, link=SimpleNamespace(h2d_gbps=h, d2h_gbps=55.1)) for h in (55.01, 55.34)]
    assert "link floor host to device spans 55.01 to 55.34 GB/s" in floor_note(link, copy_floor=False)
    assert "device to host" not in floor_note(link, copy_floor=False)  # one value: nothing to explain
    assert floor_note([_size(4266.0), _size(4304.0)], copy_floor=False) == ""  # the page shows no copy floor


def test_the_page_shows_each_floor_once_with_its_copies():
    from repository_build import render

    page = render("kernel-fusion")
    assert "copy floor GB/s" not in page  # no per-size floor column
    assert "Copy floor, measured in the same run with copies moving 512 MiB each (read plus write): " in page
    assert "Each floor is measured again beside every size of the sweep" in page


def test_the_sweep_plot_draws_the_floor_past_the_l2_only():
    view = real_glossary.view("kernel-fusion")
    panel = next(p for p in plots.device_panels(view) if p.title == "GB/s across the size sweep")
    (floor,) = [s for s in panel.series if s.label and s.label.startswith("copy floor")]
    assert floor.xs[0] == view.l2_bytes and len(set(floor.ys)) == 1  # one value, from the L2 on
    assert floor.ys[0] == view.headline.copy_floor_gbps
