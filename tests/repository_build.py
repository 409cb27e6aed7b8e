"""This repository's own glossary, loaded once per test process for the tests that only read it
(issue 34): a load is about 2 CPU-s, and the first page asked of a build renders every entry's page,
and a dozen test modules each loaded it again to read a page or two."""

from __future__ import annotations

import functools
import logging

from conftest import ROOT

from glossary.build import GlossaryBuild
from glossary.settings import Settings


@functools.cache
def repository_build(preview: bool = True) -> GlossaryBuild:
    """This repository's glossary as `mkdocs serve` loads it (``preview``) or `mkdocs build` does,
    nothing measured.  Shared by every test of the process: read its pages and models, change nothing."""
    options = Settings.resolve(ROOT / "entries", ROOT, {}, serving=preview, environ={})
    build = GlossaryBuild(settings=options, log=logging.getLogger("test"))
    build.load()
    return build


def render(slug: str) -> str:
    """The entry's page Markdown as `mkdocs serve` renders it."""
    return repository_build().render_page(f"{slug}.md")
