"""A built site served on localhost for the browser tests, and this repository's preview site."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

from conftest import ROOT, mkdocs

# Debian's headless Chromium, driven by Playwright (its own browser download is not used).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def playwright_or_skip():
    """Playwright's sync API, or the calling test module skipped with the reason (no Playwright, or
    no Chromium to drive)."""
    import shutil

    import pytest

    try:
        from playwright import sync_api
    except ImportError:  # pragma: no cover - depends on the machine
        pytest.skip("playwright is not installed (pip install -e '.[test]')", allow_module_level=True)
    if not CHROMIUM.exists() and not shutil.which("chromium"):  # pragma: no cover
        pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)
    return sync_api


@contextlib.contextmanager
def chromium():
    """Headless Chromium, launched through Playwright for one test module."""
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
