"""The plots as a reader sees them: the preview site of this repository's entries in Chromium.

At a 420 px viewport (a phone) every plot's smallest text, as displayed on the page, is at
least 10 px; at 1280 px every roofline point carries a hover title naming its variant as the
page's roofline table names it.  A plot shown as an <img> is measured from its SVG file and
the scale the page draws it at; one shown as an <object> (or inlined) from its own text.
"""

from __future__ import annotations

import pytest

from serving import fresh_tab

pytestmark = pytest.mark.browser
pytest_plugins = ["browser_fixtures"]  # its session fixtures: the served preview site and a tab to read it in

ENTRIES = ("kernel-fusion", "memory-coalescing", "roofline", "launch-overhead")

# The smallest font of the plot's text, in CSS pixels as the page displays it, and the plot's
# width against its column's.  For an <img>, from its SVG file's font sizes and the scale the
# page draws it at; for an <object> or an inline <svg>, from the rendered text itself.
SMALLEST_TEXT = """async (el) => {
  let doc, scale;
  if (el.tagName === 'IMG') {
    const text = await (await fetch(el.currentSrc)).text();
    doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const box = doc.documentElement.getAttribute('viewBox').split(/[\\s,]+/).map(Number);
    scale = el.getBoundingClientRect().width / box[2];
  } else {
    doc = el.tagName === 'OBJECT' ? el.contentDocument : el.ownerDocument;
    const svg = el.tagName === 'OBJECT' ? doc.documentElement : el;
    scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  }
  const root = doc.documentElement;
  const sizes = [...(el.tagName === 'svg' ? el : doc).querySelectorAll('text')].map(t =>
    parseFloat(t.getAttribute('font-size') || root.getAttribute('font-size') || '16'));
  const column = el.closest('.md-typeset').getBoundingClientRect().width;
  return {px: Math.min(...sizes) * scale, count: sizes.length, width: el.getBoundingClientRect().width, column};
}"""

# The hover title of every point of the roofline panel (the marks inside the panel's clipped group).
ROOFLINE_TITLES = """async (el) => {
  let doc;
  if (el.tagName === 'IMG') {
    doc = new DOMParser().parseFromString(await (await fetch(el.currentSrc)).text(), 'image/svg+xml');
  } else {
    doc = el.tagName === 'OBJECT' ? el.contentDocument : el;
  }
  const panel = [...doc.querySelectorAll('text')].find(t => t.textContent.startsWith('Roofline at'));
  // a panel's title, then its data in one clipped group (every panel's own row of the figure)
  const group = panel.parentNode.querySelector('g[clip-path]');
  return [...group.querySelectorAll('circle')].map(c => { const t = c.querySelector('title'); return t ? t.textContent : null; });
}"""


def _plots(page):
    """Each device tab's plot, with the tab shown (a hidden tab's plot has no size)."""
    labels = page.locator(".tabbed-labels > label")
    for k in range(max(1, labels.count())):
        if labels.count():
            labels.nth(k).click()
        plot = page.locator(".tabbed-block").nth(k).locator(".glossary-plot").first
        if plot.count():
            plot.scroll_into_view_if_needed()
            page.wait_for_function("""el => el.tagName === 'IMG' ? el.complete && el.naturalWidth > 0
                                       : el.tagName !== 'OBJECT' || (el.contentDocument && el.contentDocument.querySelector('text'))""",
                                   arg=plot.element_handle())
            yield k, plot


def test_plot_text_is_at_least_10px_on_a_phone(preview_tab, preview_url):
    page = fresh_tab(preview_tab, preview_url, 420)
    seen = {}
    for slug in ENTRIES:
        page.goto(preview_url + slug + "/")
        for k, plot in _plots(page):
            seen[f"{slug} tab {k + 1}"] = m = plot.evaluate(SMALLEST_TEXT)
            assert m["count"] > 0
            assert m["width"] <= m["column"] + 0.5, f"{slug}: the plot is wider than its column"
    assert {s.split()[0] for s in seen} == set(ENTRIES)
    small = {where: round(m["px"], 2) for where, m in seen.items() if m["px"] < 10}
    assert not small, f"plot text under 10 px at a 420 px viewport: {small}"


def test_every_roofline_point_names_its_variant(preview_tab, preview_url):
    page = fresh_tab(preview_tab, preview_url, 1280)
    page.goto(preview_url + "roofline/")
    table = page.locator(".tabbed-block").first.locator("table", has=page.locator("th", has_text="FLOP/B")).first
    names = [t.strip() for t in table.locator("tbody tr td:first-child").all_inner_texts()]
    (_, plot), *_ = list(_plots(page))
    titles = plot.evaluate(ROOFLINE_TITLES)
    assert len(names) > 1 and len(titles) == len(names)
    assert all(t is not None for t in titles), "a roofline point without a hover title"
    # in the table's order, each point titled with the table's name and then its figures
    for name, title in zip(names, titles):
        assert title.startswith(f"{name}: ") and " TFLOP/s at " in title, (name, title)
