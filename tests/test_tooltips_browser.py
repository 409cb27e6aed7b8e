"""Issue 31 in a real browser: a term link shows its target's definition on hover, as an abbr does,
and a tooltip inside running Chinese text shows its definition (headless Chromium, Playwright)."""

from __future__ import annotations

import pytest

from conftest import mkdocs, write_project
from serving import playwright_or_skip, serve

pytestmark = pytest.mark.browser
pytest_plugins = ["browser_fixtures"]  # its session fixture: one Chromium
expect = playwright_or_skip().expect

ENTRIES = {
    "warp": "---\ntitle: Warp\nsummary: Thirty-two threads that issue together.\n---\n"
            "A warp runs on a [streaming multiprocessor](sm.md) and is made of threads.\n",
    "thread": "---\ntitle: Thread\nsummary: One lane of a warp.\n---\nA thread.\n",
    "sm": "---\ntitle: Streaming Multiprocessor (SM)\nsummary: The unit that runs warps.\n---\nIt runs warps.\n",
    "warp-zh": "---\ntitle: 线程束\nsummary: 三十二个线程组成的一组。\n---\n每个线程束包含32个线程。\n",
    "thread-zh": "---\ntitle: 线程\nsummary: 线程束里的一条通道。\n---\n一个线程。\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser):
    project = write_project(tmp_path_factory.mktemp("tips"), ENTRIES)
    built = mkdocs(project, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert built.returncode == 0, built.stderr
    with serve(project / "site") as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(10_000)
        yield url, page
        page.close()


@pytest.mark.parametrize("where, locate, shows", [
    ("warp/", lambda p: p.locator("article a[title]", has_text="streaming multiprocessor"),
     "The unit that runs warps."),
    ("warp/", lambda p: p.locator("article abbr", has_text="threads"), "One lane of a warp."),
    ("warp-zh/", lambda p: p.locator("article abbr", has_text="线程"), "线程束里的一条通道。"),
])
def test_hover_shows_the_definition(site, where, locate, shows):
    url, page = site
    page.goto(url + where)
    target = locate(page).first
    target.hover()
    tooltip = page.locator(".md-tooltip2--active")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text(shows)
