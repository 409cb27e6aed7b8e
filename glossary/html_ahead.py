"""A plain build's pages turned into HTML on the cores MkDocs does not work on (issue 34).

MkDocs turns each page's Markdown into HTML (``Page.render``) on its one thread; in a plain build of a
large glossary that was half of that thread's time (1,000 entries: 27 of 58 profiled seconds).  Once the
site's files are known (the hook's ``on_files``), ``HtmlAhead`` hands the pages, in the order MkDocs builds
them, to a pool (``glossary.entries.parallel.Ahead``): a worker renders each one as ``Page.render`` does,
from the Markdown the build will give it, and sanitizes the HTML as the hook will.

A page takes the worker's render only where its final Markdown (after every plugin's ``on_page_markdown``)
and the render context (the Markdown settings and every file's place: ``memo.render_context``) are the ones
the worker had; its sanitized HTML only where its HTML is the one the worker sanitized.  Otherwise, and for a
page the pool had not begun when MkDocs reached it, MkDocs renders and the hook sanitizes, as always.  What a
worker's render logged is logged when the page takes the render, where MkDocs would have logged it.

Only in a plain, whole build (``serve`` keeps renders in its memo; a ``--dirty`` build renders few pages),
where a pool is worth its start and forks (a worker inherits MkDocs' configuration and files, never
pickled), and where every Markdown extension is known to read nothing but the page (``memo.PURE_EXTENSIONS``).
The build's other pool (its plots, ``build_work.Ahead``) forks only once this one has ended (the hook's
``on_env``, when every page is made), so no pool forks while another's threads run; a worker that dies
leaves its pages to MkDocs.
"""

from __future__ import annotations

import logging
from concurrent.futures import BrokenExecutor, CancelledError
from typing import Callable

from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from glossary.entries import parallel
from glossary.memo import Rendered, render_context
from glossary.site import sanitize

# What a worker hands back for a page: the Markdown it rendered, the render, and the render's HTML sanitized.
Made = tuple[str, Rendered, str]


def worth_it(config, pages: int, workers: int | None) -> bool:
    """Whether a plain build of about ``pages`` pages renders them ahead (see the module's doc)."""
    return (parallel.workers_for(pages, workers) > 1 and parallel.forks()
            and render_context(config, []) is not None)


class HtmlAhead:
    """The pages of ``files`` rendered ahead; ``markdown_of(file)`` is the Markdown the build gives a page
    (None: the worker leaves it to MkDocs).  ``take`` each page as MkDocs reaches it, ``clean`` its HTML."""

    def __init__(self, config, files: Files, markdown_of: Callable[[File], str | None],
                 workers: int | None = None) -> None:
        self.context = render_context(config, files)
        pages = [f.src_uri for f in files.documentation_pages()]
        self._at = {src: i for i, src in enumerate(pages)}
        self._clean: dict[str, tuple[str, str]] = {}  # src_uri -> (the rendered HTML, sanitized)
        self._same: bool | None = None  # whether MkDocs renders in the context the workers had
        self.pages, self.used = len(pages), 0  # pages in all, and those that took a worker's render
        self.work = parallel.Ahead(_render, pages, (config, files, markdown_of), workers, here=_not_here,
                                   backwards=True)

    def take(self, page) -> str | None:
        """The Markdown a worker rendered ``page`` from, its render made the page's own where it may be
        (``page.render`` checks, when MkDocs calls it); None where no worker rendered the page."""
        at = self._at.pop(page.file.src_uri, None)
        try:
            made = None if at is None else self.work.get(at)
        except (BrokenExecutor, CancelledError):  # a worker killed (out of memory, say): MkDocs renders the rest
            made = None
        if made is None:
            return None
        markdown, rendered, clean = made
        original = page.render

        def render(config, files) -> None:
            if page.markdown != markdown or not self._as_the_workers(config, files):
                original(config, files)
                return
            rendered.restore(page, files)
            self._clean[page.file.src_uri] = (rendered.content, clean)
            self.used += 1

        page.render = render
        return markdown

    def _as_the_workers(self, config, files) -> bool:
        if self._same is None:  # once: MkDocs' settings and files do not change while it renders pages
            self._same = render_context(config, files) == self.context
        return self._same

    def clean(self, html: str, page) -> str:
        """``sanitize.clean(html)``, as the worker that rendered ``page`` made it where this is its HTML."""
        held = self._clean.pop(page.file.src_uri, None)
        return held[1] if held is not None and held[0] == html else sanitize.clean(html)

    def close(self, wait: bool = True) -> None:
        """The pool ended (``wait``: its processes and threads too, so the next pool forks from one thread)."""
        self.work.close(wait)


def _not_here(context, src_uri: str) -> None:
    return None  # a page the pool did not begin: MkDocs renders it, as it renders any page


def _render(context, src_uri: str) -> Made | None:
    """In a worker: the page rendered as MkDocs' ``Page.render`` renders it, on a page object of its own."""
    config, files, markdown_of = context
    file = files.get_file_from_path(src_uri)
    try:
        markdown = markdown_of(file)
        if markdown is None:
            return None
        page = Page(None, file, config)  # it names itself the file's page, in this worker only
        page.markdown = markdown
        with _Caught() as caught:
            page.render(config, files)
        return markdown, Rendered.of(page, caught.records), sanitize.clean(page.content)
    except Exception:  # noqa: BLE001 - MkDocs renders the page itself, and says what is wrong with it
        return None


class _Caught(logging.Handler):
    """Every record logged in this worker while it renders a page, kept to be logged by MkDocs' process
    when the page takes the render, and said by no handler here."""

    LOGGERS = ("", "mkdocs")  # the root, and MkDocs' own (which does not pass its records on to the root)

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self._kept: list = []

    def emit(self, record: logging.LogRecord) -> None:
        if not any(r is record for r in self.records):
            record.msg, record.args, record.exc_info = record.getMessage(), None, None  # it crosses as text
            self.records.append(record)

    def __enter__(self) -> "_Caught":
        for name in self.LOGGERS:
            logger = logging.getLogger(name)
            self._kept.append((logger, logger.handlers))
            logger.handlers = [self]
        return self

    def __exit__(self, *exc: object) -> None:
        for logger, handlers in self._kept:
            logger.handlers = handlers
