"""Every Measured table fits its column: the real entries' preview site in headless Chromium.

At 1280 px (Material's content column is about 720 px wide) no table on an entry page, in any
device tab, is wider than the container Material wraps it in; at 420 px a table may scroll inside
that container, but no numeric cell wraps inside a number.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ENTRY_PAGES = ("kernel-fusion", "memory-coalescing", "roofline", "launch-overhead")

try:
    import playwright.sync_api  # noqa: F401
except ImportError:  # pragma: no cover - depends on the machine
    pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)
if not CHROMIUM.exists() and not shutil.which("chromium"):  # pragma: no cover
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

# Each visible table beside the width of Material's scroll container (or its parent).
_WIDTHS = """() => [...document.querySelectorAll('article table')].filter(t => t.offsetParent).map(t => {
  const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
  return {head: t.querySelector('th') ? t.querySelector('th').innerText : '', table: t.scrollWidth,
          column: box.clientWidth};
})"""
# Right-aligned (numeric) cells whose text runs over more than one line.
_WRAPPED = """() => [...document.querySelectorAll('article td')].filter(td => td.offsetParent
    && getComputedStyle(td).textAlign === 'right').filter(td => {
  const range = document.createRange(); range.selectNodeContents(td);
  const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return lines.size > 1;
}).map(td => td.innerText)"""


from serving import fresh_tab  # noqa: E402

pytest_plugins = ["browser_fixtures"]  # its session fixtures: the served preview site and a tab to read it in


def _each_tab(page):
    """Show each device tab in turn (the first is shown already), yielding its name."""
    labels = page.locator("article .tabbed-labels label")
    yield "first tab"
    for i in range(1, labels.count()):
        labels.nth(i).click()
        yield labels.nth(i).inner_text()


@pytest.mark.parametrize("slug", ENTRY_PAGES)
def test_every_table_fits_its_column_at_1280(preview_url, preview_tab, slug):
    page = fresh_tab(preview_tab, preview_url, 1280)
    page.goto(f"{preview_url}{slug}/")
    checked = 0
    for tab in _each_tab(page):
        for t in page.evaluate(_WIDTHS):
            checked += 1
            assert t["table"] <= t["column"], f"{slug}, {tab}: table '{t['head']}' is {t['table']} px " \
                                              f"in a {t['column']} px column"
    assert checked, f"{slug}: no tables found"


@pytest.mark.parametrize("slug", ENTRY_PAGES)
def test_no_number_wraps_at_420(preview_url, preview_tab, slug):
    page = fresh_tab(preview_tab, preview_url, 420)
    page.goto(f"{preview_url}{slug}/")
    for tab in _each_tab(page):
        assert page.evaluate(_WRAPPED) == [], f"{slug}, {tab}: numeric cells wrap"


def test_a_wide_table_at_420_scrolls_with_a_cue(preview_url, preview_tab):
    """Where a table is wider than a phone's column, its container scrolls and draws edge shadows."""
    page = fresh_tab(preview_tab, preview_url, 420)
    page.goto(f"{preview_url}kernel-fusion/")
    wrap = page.locator("article .md-typeset__scrollwrap").first
    style = wrap.evaluate("w => [getComputedStyle(w).overflowX, getComputedStyle(w).backgroundImage]")
    assert style[0] == "auto" and "gradient" in style[1]
