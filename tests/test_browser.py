"""The built site in a real browser: headless Chromium driven by Playwright.

Skipped, with the reason, only where Chromium or Playwright is missing; CI
installs both (.ci/run), so there these tests run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving import fresh_tab, local_context, playwright_or_skip, serve
from site_fixture import REFUSED_WORDS, build_fixture_site

pytestmark = pytest.mark.browser
pytest_plugins = ["browser_fixtures"]  # its session fixture: one Chromium


_api = playwright_or_skip()
expect = _api.expect


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """The fixture site, built once and served on localhost."""
    with serve(build_fixture_site(tmp_path_factory.mktemp("browser"))) as url:
        yield url


@pytest.fixture(scope="module")
def reader_tab(browser):
    """One tab for the tests that read the fixture site, one after another: a page in a new tab costs
    Chromium about three times what the next page costs in a kept one (a renderer process starts:
    bench/browser_load_cost.py, issue 34)."""
    context = local_context(browser)
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture
def page(reader_tab, base_url):
    """``reader_tab`` ready for the next test: 1280 px wide, light, its storage cleared, the pointer off
    every element (the hover of an earlier test shows nothing)."""
    reader_tab.mouse.move(0, 0)
    return fresh_tab(reader_tab, base_url, 1280)


@pytest.fixture
def fresh_page(browser):
    """A tab in a context of its own, for the hostile pages: nothing they could leave behind reaches
    another test."""
    context = local_context(browser, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def _search(page, base_url: str, query: str):
    page.goto(base_url)
    box = page.locator("input.md-search__input")
    box.click()
    meta = page.locator(".md-search-result__meta")
    expect(meta).not_to_have_text(re.compile(r"Initializing", re.I))
    box.press_sequentially(query, delay=30)
    expect(meta).not_to_have_text(re.compile(r"Initializing|Type to start", re.I))
    return meta


def test_entry_page_renders_table_and_plot(page, base_url):
    page.goto(base_url + "stream-triad/")
    tab = page.locator(".tabbed-block").first
    table = tab.locator("table").first
    expect(table).to_be_visible()
    expect(table.locator("th").last).to_have_text("GB/s")
    expect(table).to_contain_text("plain copy")
    number = table.locator("tbody tr").first.locator("td").nth(1)
    assert number.evaluate("e => getComputedStyle(e).textAlign") == "right"
    plot = tab.locator("object.glossary-plot")  # the SVG itself, so its hover titles reach the reader
    plot.scroll_into_view_if_needed()
    expect(plot).to_be_visible()
    assert plot.get_attribute("data").endswith("plots/fixture-gpu-a.svg")
    assert "copy floor" in plot.get_attribute("aria-label")
    fallback = plot.locator("img.glossary-plot")
    assert fallback.get_attribute("src").endswith("plots/fixture-gpu-a.svg") and "copy floor" in fallback.get_attribute("alt")
    sweep = tab.locator("table").nth(1)
    expect(sweep.locator("th").first).to_have_text("elements")
    expect(sweep.locator("tbody tr")).to_have_count(2)


def test_tabs_switch_between_devices(page, base_url):
    page.goto(base_url + "stream-triad/")
    labels = page.locator(".tabbed-labels > label")
    expect(labels).to_have_count(2)
    blocks = page.locator(".tabbed-block")
    expect(blocks.nth(0)).to_be_visible()
    expect(blocks.nth(1)).to_be_hidden()
    labels.nth(1).click()
    expect(blocks.nth(1)).to_be_visible()
    expect(blocks.nth(1)).to_contain_text("Fixture GPU B")
    expect(blocks.nth(0)).to_be_hidden()
    plot = blocks.nth(1).locator("object.glossary-plot")
    plot.scroll_into_view_if_needed()
    expect(plot).to_be_visible()
    page.wait_for_function("o => o.contentDocument && o.contentDocument.querySelector('svg')",
                           arg=plot.element_handle())


def test_search_finds_a_published_term(page, base_url):
    meta = _search(page, base_url, "occupancy")
    expect(meta).to_contain_text(re.compile(r"\d+ matching document", re.I))
    results = page.locator(".md-search-result__item")
    expect(results.first).to_contain_text("Occupancy")


def test_refused_entry_is_found_nowhere(page, base_url):
    meta = _search(page, base_url, "zeppelins")
    expect(meta).to_have_text(re.compile(r"No matching documents", re.I))
    expect(page.locator(".md-search-result__item")).to_have_count(0)
    assert page.request.get(base_url + "bank-conflict/").status == 404
    for path in ("search/search_index.json", "glossary.json", "sitemap.xml"):
        body = page.request.get(base_url + path).text()
        assert "bank-conflict" not in body and "zeppelin" not in body.lower(), path
    index = page.request.get(base_url + "search/search_index.json").json()
    locations = sorted({doc["location"].split("#")[0] for doc in index["docs"]})
    assert "occupancy/" in locations and "stream-triad/" in locations and "tags/" in locations
    for location in locations:
        page.goto(base_url + location)
        text = page.locator("body").inner_text()
        html = page.content()
        assert REFUSED_WORDS not in text and "zeppelin" not in html.lower(), location
        assert "bank-conflict" not in html and "refused-only-tag" not in html, location


def test_tooltip_shows_definition_on_hover(page, base_url):
    page.goto(base_url + "occupancy/")
    term = page.locator("article abbr", has_text="stream triad").first
    term.hover()
    tooltip = page.locator(".md-tooltip2--active")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("the usual yardstick of memory bandwidth")
    assert page.locator("article abbr", has_text=re.compile("bank conflict", re.I)).count() == 0


# -- markup in every string of an entry and its results runs nowhere (tests/test_escape.py) ----------

# What a payload would leave in the live DOM: an event-handler attribute, a javascript: link, a script.
_LIVE_DOM = """() => {
  const found = [];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      if (a.name.startsWith("on")) found.push(`<${el.tagName} ${a.name}>`);
      if (["href", "src", "action", "formaction"].includes(a.name) && /^\\s*(javascript|data|vbscript):/i.test(a.value))
        found.push(`<${el.tagName} ${a.name}=${a.value}>`);
    }
    if (el.tagName === "SCRIPT" && /__xss/.test(el.textContent)) found.push("<script> " + el.textContent.slice(0, 60));
  }
  return found;
}"""


@pytest.fixture(scope="module", params=["preview", "published"])
def hostile_site(request, tmp_path_factory):
    """The hostile fixture site of test_escape.py (a preview and a published build), served on localhost."""
    from test_escape import build_hostile_site

    site = build_hostile_site(tmp_path_factory.mktemp(f"hostile-{request.param}"),
                              published=request.param == "published")
    with serve(site) as url:
        yield site, url


def _assert_nothing_ran(page, where: str, dialogs: list[str]) -> None:
    page.wait_for_timeout(50)  # an <img onerror> fires once the image has failed
    assert page.evaluate("typeof window.__xss") == "undefined", where
    assert dialogs == [], where
    assert page.evaluate(_LIVE_DOM) == [], where


def test_no_payload_runs_in_any_page(fresh_page, hostile_site):
    page = fresh_page
    site, base = hostile_site
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    locations = sorted(p.relative_to(site).as_posix().removesuffix("index.html") for p in site.rglob("*.html"))
    assert "hostile/" in locations and len(locations) > 5
    tooltips = 0
    for location in locations:
        page.goto(base + location, wait_until="load")
        _assert_nothing_ran(page, location, dialogs)
        # What the theme builds from the page's text once a reader touches it: tooltips, tabs, details.
        for handle in page.locator("article abbr, .tabbed-labels > label, details > summary").element_handles()[:20]:
            handle.scroll_into_view_if_needed()
            handle.hover()
            if page.evaluate("e => e.tagName !== 'ABBR'", handle):
                handle.click()
        tooltips += page.locator(".md-tooltip2").count()
        _assert_nothing_ran(page, location + " (after hovering and opening)", dialogs)
    assert tooltips, "no tooltip was drawn: the hostile summary's tooltip went untested"
    page.goto(base + "hostile/", wait_until="load")
    # Search results are drawn from the index's HTML: search for a payload's words.
    box = page.locator("input.md-search__input")
    box.click()
    meta = page.locator(".md-search-result__meta")
    expect(meta).not_to_have_text(re.compile(r"Initializing", re.I))
    box.press_sequentially("window xss script", delay=20)
    expect(meta).to_contain_text(re.compile(r"\d+ matching document", re.I))
    expect(page.locator(".md-search-result__item").first).to_be_visible()
    _assert_nothing_ran(page, "search results", dialogs)
