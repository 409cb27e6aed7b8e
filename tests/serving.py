"""A built site served on localhost for the browser tests, and this repository's preview site
(their session fixtures are in browser_fixtures.py)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import threading
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, mkdocs

# Debian's headless Chromium, driven by Playwright (its own browser download is not used).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Any request off localhost (fonts and the like) fails fast instead of hanging.
OFF_LOCALHOST = re.compile(r"^https?://(?!127\.0\.0\.1)")
SEARCH_WORKER = "**/assets/javascripts/workers/search.*.min.js"


def playwright_or_skip():
    """Playwright's sync API, or the calling test module skipped with the reason (no Playwright, or
    no Chromium to drive)."""
    import shutil

    try:
        from playwright import sync_api
    except ImportError:  # pragma: no cover - depends on the machine
        pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)
    if not CHROMIUM.exists() and not shutil.which("chromium"):  # pragma: no cover
        pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)
    return sync_api


@contextlib.contextmanager
def chromium():
    """Headless Chromium, launched through Playwright."""
    import shutil

    api = playwright_or_skip()
    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    with api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` served on a free localhost port; yields its base URL (ending in /)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def build_preview(folder: Path) -> Path:
    """This repository's preview site (drafts included, nothing measured) built into ``folder``."""
    run = mkdocs(ROOT, "build", "-q", "-d", str(folder), env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    return folder


def shared_preview(tmp_path_factory) -> Path:
    """This repository's preview site, built once per test run: pytest-xdist's workers share the
    run's temporary folder (above each worker's own), and the first to take the lock builds it."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    site = base / "repository-preview"
    with open(base / "repository-preview.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not site.is_dir():
                partial = base / "repository-preview.partial"
                build_preview(partial)
                partial.rename(site)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return site


def fresh_tab(page, base_url: str, width: int, scheme: str = "light"):
    """``page`` made ready for its next page: ``width`` x 900 px, colour scheme ``scheme``, and the
    storage of a fresh context, so nothing is left in ``base_url``'s localStorage from an earlier page
    (Material keeps the linked tabs' choice there, which would change the tab a page opens on).  A tab
    kept for many pages costs about half the CPU of a new tab a page (issue 34)."""
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    page.set_default_timeout(10_000)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Storage.clearDataForOrigin", {"origin": base_url.rstrip("/"), "storageTypes": "local_storage"})
    cdp.detach()
    return page


# Scrolls an element to the middle of the viewport and gives the point a reader's pointer would rest
# on, its middle, where nothing else is drawn over it (Playwright's own check before a hover).
_POINTER = """(el) => {
  el.scrollIntoView({block: 'center', inline: 'center'});
  const box = el.getBoundingClientRect(), x = box.left + box.width / 2, y = box.top + box.height / 2;
  const top = box.width && box.height ? document.elementFromPoint(x, y) : null;
  return top && (top === el || el.contains(top)) && getComputedStyle(el).visibility !== 'hidden' ? {x, y} : null;
}"""


def hover(page, handle, timeout: float | None = None) -> None:
    """The pointer moved onto ``handle``'s middle, as Playwright's ``handle.hover()`` moves it, in
    two round trips to the browser instead of its half dozen (where a test hovers every element of a
    page, those were most of its CPU: issue 34).  Where the element does not show, or something is
    drawn over it, Playwright's hover does it: it waits for the element and says why it cannot."""
    point = handle.evaluate(_POINTER)
    if point is None:
        handle.hover(timeout=timeout)
    else:
        page.mouse.move(point["x"], point["y"])


def local_context(browser, **options):
    """A new browser context (``options`` as Playwright's ``new_context`` takes them) in which every request
    off localhost fails at once instead of hanging."""
    context = browser.new_context(**options)
    context.route(OFF_LOCALHOST, lambda route: route.abort())
    return context


def without_search(context):
    """``context`` with Material's search worker replaced by an empty script, for tests that never
    search: the worker builds the whole site's search index on every page load, a few tenths of a
    CPU-second a page of the repository's preview in Chromium, about a fifth of the page's cost (issue
    34).  The search box is still drawn; it never finishes starting."""
    context.route(SEARCH_WORKER, lambda route: route.fulfill(body="", content_type="text/javascript"))
    return context
