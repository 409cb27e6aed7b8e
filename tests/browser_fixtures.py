"""The browser tests' session fixtures, a pytest plugin: a test module names it in
``pytest_plugins``, so each fixture is set up once per test process whichever modules use it (a
fixture imported into a module instead is set up once per importing module)."""

from __future__ import annotations

import pytest

from serving import chromium, local_context, serve, shared_preview, without_search


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the test process (its start is about a CPU-second)."""
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def preview_url(tmp_path_factory):
    """This repository's preview site (drafts included), built once per test run and served."""
    with serve(shared_preview(tmp_path_factory)) as url:
        yield url


@pytest.fixture(scope="session")
def preview_context(browser, preview_url):
    """One browser context for every test that reads the preview's pages, none of which searches:
    its tabs share the HTTP and compiled-script caches, so a page after the first costs about half the
    CPU it costs in a new context."""
    context = without_search(local_context(browser))
    yield context
    context.close()


@pytest.fixture(scope="session")
def preview_tab(preview_context):
    """One tab of ``preview_context`` for every test that reads the preview's pages, one page after
    another: make it ready for each page with ``serving.fresh_tab``."""
    page = preview_context.new_page()
    yield page
    page.close()
