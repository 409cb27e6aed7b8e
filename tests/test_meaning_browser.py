"""Issue 32, items 6 and 9, as a reader sees them: this repository's preview in Chromium at a
desktop's 1280 px and a phone's 420 px, light and dark.  Plots are as wide as the text column with
text near the page's size, a plot's background is the page's own in dark mode, and no identifier
in a table breaks across lines."""

from __future__ import annotations

import struct
import zlib

import pytest

from serving import fresh_tab

pytestmark = pytest.mark.browser
pytest_plugins = ["browser_fixtures"]  # its session fixtures: the served preview site and a tab to read it in

ENTRIES = ("kernel-fusion", "pinned-memory", "cuda-graphs", "tensor-cores")

# The plot's width, its column's, and the smallest and largest text as displayed (CSS px): the
# computed font size in the plot's own document (its media queries applied) times its scale.
TEXT_PX = """(el) => {
  const doc = el.contentDocument, svg = doc.documentElement;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const px = [...doc.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
  return {min: Math.min(...px), max: Math.max(...px), width: el.getBoundingClientRect().width,
          column: el.closest('.md-typeset').getBoundingClientRect().width};
}"""

BROKEN_CODE = """() => [...document.querySelectorAll('td code, th code')]
  .filter(c => c.offsetParent !== null && c.getClientRects().length > 1).map(c => c.textContent)"""


def _rgb(png: bytes) -> set[tuple[int, int, int]]:
    """The colours of a small 8-bit RGB(A) PNG, such as Chromium's screenshots (pure Python)."""
    width, height, depth, kind = struct.unpack(">IIBB", png[16:26])
    assert depth == 8 and kind in (2, 6)
    pos, data = 8, b""
    while pos < len(png):
        size, tag = struct.unpack(">I4s", png[pos:pos + 8])
        if tag == b"IDAT":
            data += png[pos + 8:pos + 8 + size]
        pos += 12 + size
    raw, bpp = zlib.decompress(data), 4 if kind == 6 else 3
    stride, rows, prev = width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
            line[i] = (line[i] + pred) & 0xFF
        rows.append(line)
        prev = line
    return {tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)}


def _open(tab, base_url: str, slug: str, width: int, scheme: str):
    page = fresh_tab(tab, base_url, width, scheme)
    page.goto(base_url + slug + "/")
    page.evaluate("document.querySelector('header').style.visibility = 'hidden'")
    return page


def _first_plot(page):
    plot = page.locator(".tabbed-block").first.locator("object.glossary-plot").first
    plot.scroll_into_view_if_needed()
    page.wait_for_function("el => el.contentDocument && el.contentDocument.querySelector('text')",
                           arg=plot.element_handle())
    return plot


def _as_a_reader_sets(page, width: int, scheme: str) -> None:
    """The open page at ``width`` px in ``scheme``, as a reader gets there without loading it again: the window
    resized, the system's scheme changed and the palette toggled (the theme reads the system's scheme only
    when a page loads).  One load serves every setting: a page load is most of a browser test's CPU (issue 34)."""
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    palette = "slate" if scheme == "dark" else "default"
    page.evaluate("""(scheme) => {
      const input = document.querySelector(`input[name="__palette"][data-md-color-scheme="${scheme}"]`);
      if (input && !input.checked) input.click();
    }""", palette)
    page.wait_for_function("(scheme) => document.body.getAttribute('data-md-color-scheme') === scheme", arg=palette)


def test_plots_fill_the_column_with_legible_text(preview_tab, preview_url):
    for slug in ENTRIES:
        page = _open(preview_tab, preview_url, slug, 1280, "light")
        for width in (1280, 420):
            _as_a_reader_sets(page, width, "light")
            m = _first_plot(page).evaluate(TEXT_PX)
            assert abs(m["width"] - m["column"]) <= 1, f"{slug} at {width} px: plot {m['width']} px in a {m['column']} px column"
            assert 10 <= m["min"] and m["max"] <= 17, f"{slug} at {width} px: plot text from {m['min']:.1f} to {m['max']:.1f} px"


@pytest.mark.parametrize("width", [1280, 420])
def test_a_plot_has_the_page_background_in_dark_mode(preview_tab, preview_url, width):
    page = _open(preview_tab, preview_url, "pinned-memory", width, "dark")
    plot = _first_plot(page)
    plot.evaluate("el => { el.scrollIntoView({block: 'start'}); window.scrollBy(0, -40); }")
    box = plot.bounding_box()
    # a blank strip at the plot's top right (right of the first title) and one just outside it
    inside = _rgb(page.screenshot(clip={"x": box["x"] + box["width"] - 12, "y": box["y"] + 2, "width": 8, "height": 6}))
    outside = _rgb(page.screenshot(clip={"x": box["x"] + box["width"] - 12, "y": box["y"] - 10, "width": 8, "height": 6}))
    assert len(outside) == 1 and inside == outside, f"plot background {inside} against the page's {outside}"


@pytest.mark.parametrize("slug", ENTRIES)
def test_no_identifier_in_a_table_breaks_across_lines(preview_tab, preview_url, slug):
    broken = {}
    page = _open(preview_tab, preview_url, slug, 1280, "light")
    labels = page.locator(".tabbed-labels > label")
    count = labels.count()
    for k in range(max(1, count)):
        if count:
            _as_a_reader_sets(page, 1280, "light")
            labels.nth(k).click()
        for width in (1280, 420):
            for scheme in ("light", "dark"):
                _as_a_reader_sets(page, width, scheme)
                broken.update({f"tab {k + 1} at {width} px, {scheme}: {name}": True for name in page.evaluate(BROKEN_CODE)})
    assert not broken, f"{slug}: identifiers broken across lines: {sorted(broken)}"
