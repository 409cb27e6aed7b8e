"""Issue 20: the same variant's time reads identically in the headline table and the plot's hover
title, on every device of every entry (CPU: the views, the rendered Markdown and the SVG the site
ships); the prose's ``fig.ms`` against the table is in test_measured_section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from glossary.figures import fmt
from glossary.site import page as page_mod, plots, render
from glossary.verdicts.gate import judge
from glossary.verdicts import findings

import real_glossary

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = real_glossary.entries()


@pytest.mark.parametrize("slug", sorted(s for s, e in ENTRIES.items() if e.meta.measure is not None))
def test_a_variant_reads_the_same_in_table_prose_and_plot(slug):
    entry = ENTRIES[slug]
    measured = findings.collect(entry, real_glossary.recorded(slug))
    model = page_mod.PageModel(entry=entry, verdict=judge(entry.meta.author, entry.meta.reviewer, ()),
                               devices=measured.devices, related=(), preview=True, body=measured.body,
                               claims=measured.claims, figure_problems=measured.figure_problems)
    markdown = render.render_entry(render.make_env(ROOT / "templates"), model)
    for view in measured.devices:
        if view.status != "ok" or not plots.has_plot(view):
            continue
        titles = re.findall(r"<title>([^<]*)</title>", plots.device_svg(view).decode())
        head = view.headline
        for row in head.rows:
            time = fmt.duration(row.ms)
            name = row.display  # hover titles have room for the table's name
            bar = [t for t in titles if t.startswith(f"{name}: ")]
            assert bar, f"{slug} on {view.key}: no hover title for {name} among {titles[:4]}"
            assert time in bar[0], f"{slug} on {view.key}: plot says {bar[0]!r}, the table {time}"
            assert f"| {time} |" in markdown, f"{slug} on {view.key}: the table does not show {time}"
