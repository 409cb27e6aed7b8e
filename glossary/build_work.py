"""What a build asks of every entry, as functions a pool's worker runs (``glossary.entries.parallel``):
each entry judged with its recorded results, and each shown entry's page and plots made (``Ahead``).  They
are module level so that a worker can import them by name; ``glossary.build`` hands them out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jinja2.sandbox import SandboxedEnvironment

from glossary.entries import lint, parallel
from glossary.entries.model import Entry, EntryError, parsed
from glossary.figures.views import DeviceView
from glossary.memo import Memo
from glossary.site import export, page, plots, render, tooltips
from glossary.verdicts import assess
from glossary.verdicts import trust as trust_mod
from measure import store



def judged(context: tuple[trust_mod.Trust, dict], entry: Entry, memo: Memo | None = None,
            context_key: str = "") -> tuple[assess.Assessment, list[lint.Finding]] | store.StoreError:
    """One entry judged with its recorded results, and the figures its body types by hand (lint):
    what ``load`` asks of every entry, on every core (``glossary.entries.parallel``).  A results file that
    cannot be used is returned, and the build stops on the first in the entries' order."""
    policy, catalog = context
    try:
        if memo is not None:
            judged = memo.keep("assessment", entry.slug, context_key,
                               lambda: assess.assess_recorded(entry, policy, catalog, load=memo.results))
        else:
            judged = assess.assess_recorded(entry, policy, catalog)
    except store.StoreError as err:
        return err
    if memo is not None:  # the lint reads the entry alone
        return judged, memo.keep("figure lint", entry.slug, "", lambda: lint.unbound_figures(entry))
    return judged, lint.unbound_figures(entry)


def parsed_and_judged(context: tuple[Path, tuple[trust_mod.Trust, dict]], path: Path
                      ) -> tuple[Entry | EntryError, tuple[assess.Assessment, list[lint.Finding]] | store.StoreError | None]:
    """An entry file parsed, and judged as ``judged`` judges it, in one go: what ``load`` asks of each file
    where nothing is measured between the two, so the entry crosses back from the pool's worker once,
    inside its judgement.  A file that does not parse is its EntryError, with no judgement."""
    entries_dir, judging = context
    entry = parsed((entries_dir, None, None), path)
    return entry, (None if isinstance(entry, EntryError) else judged(judging, entry))


@dataclass(frozen=True)
class PageInputs:
    """What an entry's page is rendered from besides its model: the site around it."""

    templates_dir: Path
    models: dict[str, page.PageModel]
    hidden: frozenset[str]
    catalog: dict
    by_day: dict
    terms: tooltips.Matcher | list[tooltips.Term]


# A pool worker's template environment, made once (inherited from the build where the pool forks).
_envs: dict[Path, SandboxedEnvironment] = {}


def share_env(templates_dir: Path, env: SandboxedEnvironment) -> None:
    """Hand the build's environment (its templates compiled) to the workers a pool forks next."""
    _envs[templates_dir] = env


def entry_page(context: PageInputs, slug: str, env: SandboxedEnvironment | None = None) -> str:
    """The Markdown of a shown entry's page, its tooltip table appended (in a worker: ``glossary.entries.parallel``)."""
    if env is None:
        env = _envs.get(context.templates_dir) or _envs.setdefault(
            context.templates_dir, render.make_env(context.templates_dir))
    markdown = render.render_entry(env, context.models[slug], hidden=context.hidden, catalog=context.catalog,
                                   by_day=context.by_day)
    return tooltips.append(markdown, context.terms, slug)


class Ahead:
    """A plain build's entry pages, plots and ``glossary.json``, worked out ahead (``parallel.Ahead``) on the
    cores MkDocs does not work on, while it turns the pages before into HTML.  The pages come first, in the
    order MkDocs asks for them; the plots and the export last, since MkDocs reads them only when it copies
    the site's files, after every page.  ``page`` and ``plot`` hand each out once.  Without
    ``directory_urls`` only the pages are worked out ahead (a caller that renders pages alone), so the pool
    ends with the last page: a forked worker left waiting would hold this process's pipes open."""

    def __init__(self, inputs: PageInputs, env: SandboxedEnvironment, slugs: list[str], views: list[DeviceView],
                 cache: plots.PlotCache | None, workers: int | None, directory_urls: bool | None = None) -> None:
        views = views if directory_urls is not None else []
        items = [*slugs, *views] + ([_Export(directory_urls)] if directory_urls is not None else [])
        if parallel.workers_for(len(items), workers) > 1:
            share_env(inputs.templates_dir, env)  # a forked worker starts with the templates compiled
        self.inputs, self.cache = inputs, cache
        self.later = False  # the plots are handed out as MkDocs copies them, after every page (build.site_files)
        self._pages = {slug: i for i, slug in enumerate(slugs)}
        self._plots = {id(view): len(slugs) + i for i, view in enumerate(views)}
        self._export: tuple[bool, str] | None = None
        self._export_at: int | None = len(items) - 1 if directory_urls is not None else None
        # Without pages (glossary.html_ahead makes them) the plots and the export are wanted only once every
        # page is made: the pool forks then, after html_ahead's has ended.
        self.work = parallel.Ahead(_page_or_plot, items, (inputs, cache.folder if cache else None), workers,
                                   start=bool(slugs))

    def page(self, slug: str) -> str | None:
        """The entry's page; None for one this build does not show, or one handed out already."""
        at = self._pages.pop(slug, None)
        return None if at is None else self.work.get(at)

    def plot(self, view: DeviceView) -> bytes:
        """The view's plot (drawn here where it was not drawn ahead), counted by the cache."""
        at = self._plots.pop(id(view), None)
        folder = self.cache.folder if self.cache else None
        data, hit = self.work.get(at) if at is not None else plots.drawn(folder, view)
        if self.cache is not None:
            self.cache.hits += hit
            self.cache.drawn += not hit
        return data

    def export(self, directory_urls: bool | None = None) -> str:
        """``glossary.json`` (``export.export_json`` of the shown entries) for ``directory_urls`` (None: as
        worked out ahead), as often as it is asked for."""
        if self._export_at is not None:
            at, self._export_at = self._export_at, None
            self._export = (self.work.items[at].directory_urls, self.work.get(at))
        if self._export is None or directory_urls not in (None, self._export[0]):
            urls = True if directory_urls is None else directory_urls
            self._export = (urls, export.export_json(_shown(self.inputs), urls))
        return self._export[1]


@dataclass(frozen=True)
class _Export:
    directory_urls: bool


def _shown(inputs: PageInputs) -> list[page.PageModel]:
    return [model for slug, model in inputs.models.items() if slug not in inputs.hidden]


def _page_or_plot(context: tuple[PageInputs, Path | None], item: str | DeviceView | _Export
                  ) -> str | tuple[bytes, bool]:
    inputs, plot_folder = context
    if isinstance(item, _Export):
        return export.export_json(_shown(inputs), item.directory_urls)
    return entry_page(inputs, item) if isinstance(item, str) else plots.drawn(plot_folder, item)
