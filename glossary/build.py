"""The glossary build: what the MkDocs hook asks for at each event.

``GlossaryBuild`` holds one build's state: the parsed entries, their results,
the gate's verdicts and the rendering environment.  It knows nothing of MkDocs
beyond plain paths and strings, so it is tested without building a site; the
hook in ``hooks/`` maps MkDocs events onto it.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jinja2.sandbox import SandboxedEnvironment

from glossary import build_work
from glossary.entries import parallel
from glossary.entries import lessons, lint
from glossary.entries.model import (Entry, EntryError, display_path, entry_paths, gathered, load_entries,
                                    parse_entry, read_entries)
from glossary.memo import Memo, data_signature, tree_signature
from glossary.settings import GlossaryError, Settings
from glossary.site import (bytecode, export, leaks, page, pagefiles, plots, render, sitefiles, sitemap, strays,
                           tooltips)
from glossary.verdicts import assess, gate
from glossary.verdicts import trust as trust_mod
from measure import store
from measure.results import Result


@dataclass
class GlossaryBuild:
    settings: Settings
    log: logging.Logger
    entries: dict[str, Entry] = field(default_factory=dict)
    results: dict[str, dict[str, Result]] = field(default_factory=dict)
    verdicts: dict[str, gate.Verdict] = field(default_factory=dict)
    assessments: dict[str, assess.Assessment] = field(default_factory=dict)
    models: dict[str, page.PageModel] = field(default_factory=dict)
    lesson_catalog: dict[int, lessons.CatalogLesson] = field(default_factory=dict)
    lessons_by_day: dict[int, list[dict]] = field(default_factory=dict)  # day -> shown entries that list it
    terms: list[tooltips.Term] = field(default_factory=list)
    matcher: tooltips.Matcher | None = None  # built once from ``terms``: every page is scanned with it
    hidden: frozenset[str] = frozenset()  # slugs this build's site leaves out
    policy: trust_mod.Trust | None = None
    # docs-relative path -> the text this build rendered from the shown entries (pages, tag pages, the
    # index, glossary.json): what the leak check counts as shown, so text shared with it is no leak
    rendered: dict[str, str] = field(default_factory=dict)
    # `mkdocs serve` only: per-entry work kept between rebuilds (glossary.memo); a plain build has none
    memo: Memo | None = None
    broken: dict[str, str] = field(default_factory=dict)  # serve only: slug -> why its file does not parse
    _env: SandboxedEnvironment | None = field(default=None, init=False, repr=False)
    _ahead: build_work.Ahead | None = field(default=None, init=False, repr=False)  # a plain build's pages and plots
    pages_ahead: bool = field(default=True, init=False, repr=False)  # False: pages are made with their HTML
    _figure_lint: dict[str, list[lint.Finding]] = field(default_factory=dict, init=False, repr=False)
    _page_context: str | None = field(default=None, init=False, repr=False)

    # -- collect ---------------------------------------------------------------

    def load(self, measurer: Callable[[list[Entry]], None] | None = None) -> None:
        """Parse entries, measure stale ones where asked, load results, judge every entry."""
        problems = []
        linked = [p for p in strays.symlinks(self.settings.entries_dir) if p.is_dir()]
        if linked:
            problems.append("symbolic links to folders under the docs folder: MkDocs would walk and publish "
                            "what they point at, so the build stops; remove them:\n  " + "\n  ".join(
                                f"{display_path(p)} -> {os.readlink(p)}" for p in linked))
        self.policy = self.settings.load_trust()
        self.lesson_catalog = self.settings.load_catalog()
        outcomes = None
        if self.memo is not None:
            self._load_serving(problems)
        elif measurer is None:  # nothing is measured between parsing and judging: one pass of the pool does both
            root = self.settings.entries_dir
            paths = entry_paths(root)
            both = parallel.each(build_work.parsed_and_judged, paths, (root, (self.policy, self.lesson_catalog)),
                                 self.settings.workers)
            self.entries, errors = gathered(root, paths, [entry for entry, _ in both])
            problems += [str(err) for err in errors]
            outcomes = [judged for _, judged in both if judged is not None]
        else:
            try:
                self.entries = load_entries(self.settings.entries_dir, workers=self.settings.workers)
            except EntryError as err:
                problems.append(str(err))
        if problems:  # every problem at once: one bad file does not hide the others
            raise GlossaryError("\n".join(problems))
        for line in self.settings.override_warnings():
            self._say(logging.WARNING, line)
        if measurer is not None:
            measurer(list(self.entries.values()))
        context = self._assess_context() if self.memo is not None else ""
        if self.memo is not None:
            outcomes = [build_work.judged((self.policy, self.lesson_catalog), entry, memo=self.memo, context_key=context)
                        for entry in self.entries.values()]
        elif outcomes is None:
            outcomes = parallel.each(build_work.judged, list(self.entries.values()), (self.policy, self.lesson_catalog),
                                     self.settings.workers)
        for slug, outcome in zip(list(self.entries), outcomes):
            if isinstance(outcome, store.StoreError):
                raise GlossaryError(str(outcome)) from None
            judged, self._figure_lint[slug] = outcome
            if self.memo is None:  # from a worker, the judged copy is the build's entry (one object)
                self.entries[slug] = judged.entry
            self.assessments[slug], self.results[slug], self.verdicts[slug] = judged, judged.results, judged.verdict
        for slug, entry in self.entries.items():
            related = tuple(self.entries[s] for s in entry.meta.related if self.shown(s))
            model = functools.partial(page.PageModel.of, self.assessments[slug], related, self.settings.preview)
            self.models[slug] = model() if self.memo is None else self.memo.keep(
                "model", slug, self.memo.context_with(related, context, self.settings.preview), model)
        self.terms = tooltips.terms([m.entry for m in self.shown_models()])
        self.matcher = tooltips.Matcher(self.terms)
        self.lessons_by_day = lessons.entries_by_day([m.entry for m in self.shown_models()])
        self.hidden = frozenset(s for s in self.entries if not self.shown(s))
        self._report()
        if self.memo is not None and (line := self.memo.rebuilt(len(self.entries) + len(self.broken))):
            self.log.info("%s", line)

    def _load_serving(self, problems: list[str]) -> None:
        """`mkdocs serve`: entries through the memo, and an entry whose file does not parse is shown as its
        error, on its own page, while every other page is served (a plain build stops instead)."""
        self.memo.start()
        self.entries, errors = read_entries(self.settings.entries_dir, parse=self.memo.parser(parse_entry))
        self.broken = {}
        for err in errors:
            slug = Path(err.path).stem
            self.broken[slug] = (self.broken[slug] + "\n" if slug in self.broken else "") + str(err)
            self.entries.pop(slug, None)
        for slug, why in self.broken.items():
            self._say(logging.WARNING, f"{why}\n(mkdocs serve shows this on the page of {slug!r} and serves the "
                                       f"others; a build stops here)")

    def _assess_context(self) -> str:
        """What every entry's assessment depends on besides the entry (for the memo): the trust files,
        the lesson catalogue, the date."""
        root = self.settings.trust_root or self.settings.entries_dir.parent
        trust_files = {(root / self.settings.trusted_nodes).parent, (root / self.settings.trusted_people).parent}
        catalog = [self.settings.lessons_file] if self.settings.lessons_file else []
        return tree_signature(*sorted(trust_files), *catalog) + self.settings.trust + str(dt.date.today())

    def _say(self, level: int, line: str) -> None:
        """Log ``line``, unless it is a note a `mkdocs serve` rebuild would say again (glossary.memo.Memo.fresh):
        a WARNING is logged by every build, so `--strict` counts it each time."""
        if self.memo is None or level >= logging.WARNING or self.memo.fresh(line):
            self.log.log(level, "%s", line)

    def shown_models(self) -> list[page.PageModel]:
        """Page models of the entries this build's site shows."""
        return [m for s, m in self.models.items() if self.shown(s)]

    def shown(self, slug: str) -> bool:
        """Whether the entry appears in this build's site (published, or a draft in preview)."""
        if slug not in self.verdicts:  # serve only: an entry whose file does not parse (self.broken)
            return False
        return self.settings.preview or self.verdicts[slug].publishable

    @property
    def refused(self) -> list[Entry]:
        return [e for s, e in self.entries.items() if not self.verdicts[s].publishable]

    def _report(self) -> None:
        for entry in self.refused:
            reasons = "; ".join(self.verdicts[entry.slug].reasons)
            if self.settings.preview:
                self._say(logging.INFO, f"{display_path(entry.path)}: shown as a draft in this preview ({reasons})")
            else:
                self._say(logging.WARNING, f"{display_path(entry.path)}: refused, left out of the site: {reasons}")
        for why in strays.stray_files(self.settings.entries_dir, self.entries):
            if not any(f"/{slug}/" in why for slug in self.broken):  # serve: a broken entry's own files
                self._say(logging.WARNING, why)
        for slug in self.entries:
            for finding in self._figure_lint.get(slug, ()):
                self._say(logging.WARNING, str(finding))
        for slug, judged in self.assessments.items():
            if self.shown(slug):
                for finding in judged.warnings:
                    self._say(logging.WARNING, f"{display_path(judged.entry.path)}: {finding.message}")

    # -- files -----------------------------------------------------------------

    def published_sources(self, named_assets: list[str] = ()) -> set[str]:
        """Docs-relative paths of the files under the docs folder that this site publishes as they are.

        ``named_assets`` are the files ``mkdocs.yml`` names (``extra_css``, ``extra_javascript``).
        Every other file of the docs folder is left out; the glossary generates the rest.
        """
        keep = sitefiles.published_sources(self.shown_models(), list(named_assets))
        keep |= {f"{slug}.md" for slug in self.broken}  # serve: the page that shows why it does not parse
        root = self.settings.entries_dir
        return {rel for rel in keep if not (root / rel).is_symlink()}

    def site_files(self, directory_urls: bool = True, later: bool = False) -> dict[str, str | bytes | Callable]:
        """Docs-relative path -> content of every file the glossary adds (plots from the cache where it can).
        ``later`` (a plain build): each plot is a function that hands it out, drawn meanwhile on a core MkDocs
        does not work on (``build_work.Ahead``); MkDocs reads plots when it copies files, after every page."""
        kept, json_of = None, {}
        if self.memo is None:  # a plain build draws every plot ahead, on every core where that is worth it
            ahead = self._work_ahead(directory_urls)
            cache, ahead.later = ahead.cache, later
            draw = (lambda view: functools.partial(ahead.plot, view)) if later else ahead.plot
            json_of = {"export_text": (lambda _, urls: functools.partial(ahead.export, urls)) if later else
                       (lambda _, urls: ahead.export(urls))}
        else:  # serve: through the cache; the result files and glossary.json's entries an edit left alone as before
            cache, later = plots.PlotCache(self.settings.cache_dir) if self.settings.cache_dir else None, False
            draw, kept = cache.svg if cache else plots.device_svg, self._kept_result_files
            json_of = {"export_text": functools.partial(export.export_json, entry_text=self._kept_entry_json)}
        made = sitefiles.generated(self.shown_models(), self.env, directory_urls, plot=draw,
                                   results={m.entry.slug: self.results[m.entry.slug] for m in self.shown_models()},
                                   result_text=kept, **json_of)
        if not later:
            self._say_plots(cache)
        self.rendered.update((path, text) for path, text in made.items()
                             if isinstance(text, str) and path.endswith((".md", ".json")))
        return made

    def _say_plots(self, cache: plots.PlotCache | None) -> None:
        if cache is not None:
            self.log.info("plots: %d drawn, %d from the cache in %s", cache.drawn, cache.hits,
                          display_path(cache.folder))

    def done(self, failed: bool = False) -> None:
        """MkDocs' build ended (or ``failed``): the work ahead stops, the plots handed out later are counted,
        and glossary.json as MkDocs copied it is what the leak check counts as rendered from shown entries."""
        if self._ahead is not None:
            if self._ahead.later and not failed:
                self.rendered[sitefiles.EXPORT_PATH] = self._ahead.export()
                self._say_plots(self._ahead.cache)
            self._ahead.work.close()
            self._ahead = None

    def _kept_result_files(self, slug: str, recorded: dict[str, Result]) -> dict[str, str]:
        key = tree_signature(store.results_dir(self.entries[slug].folder))  # a prose edit writes none again
        return self.memo.keyed("result files", slug, key, lambda: sitefiles.result_files(slug, recorded))

    def _kept_entry_json(self, model: page.PageModel, urls: bool) -> str:  # the memo hands out an unchanged
        key = f"{id(model)} {urls}"  # entry's model again, the same object: it is held, so its id is its own
        return self.memo.keyed("export", model.entry.slug, key, lambda: (model, export.entry_json(model, urls)))[1]

    def published_files(self, named_assets: list[str] = (), directory_urls: bool = True) -> dict[str, str | bytes]:
        """Docs-relative path -> content of everything this build publishes: each shown page rendered
        (its title as front-matter, for any builder), the allowlisted files of the entries folder,
        and what the glossary generates.  What ``glossary render`` writes into the docs folder."""
        out: dict[str, str | bytes] = {}
        root = self.settings.entries_dir
        if self.memo is None:
            self._work_ahead(directory_urls)  # the export worked out ahead is for these URLs
        for rel in sorted(self.published_sources(named_assets)):
            page_text = self.render_page(rel) if rel.endswith(".md") else None
            if page_text is not None:
                out[rel] = pagefiles.with_meta(page_text, self.page_meta(rel))
            elif (root / rel).is_file() and not (root / rel).is_symlink():
                out[rel] = (root / rel).read_bytes()
        if "index.md" not in out:
            out["index.md"] = self.render_page("index.md") or "# Glossary\n"
        out.update(self.site_files(directory_urls))
        return out

    def render(self, named_assets: list[str] = (), directory_urls: bool = True) -> "publish.Rendered":
        """Write what this build publishes into its render folder (``settings.render_dir``)."""
        from glossary.site import publish

        out = self.settings.render_dir
        if out is None:
            raise GlossaryError("this project's mkdocs.yml names no entries folder apart from docs_dir "
                                "(extra.glossary.entries), so there is nothing to render into")
        publish.check_folder(out, self.settings.entries_dir)
        mode = "preview" if self.settings.preview else "publish"
        done = publish.render_to(out, self.published_files(named_assets, directory_urls), self.render_sources(), mode)
        self.log.info("rendered the %s site into %s: %d file(s) written, %d unchanged, %d removed", mode,
                      display_path(out), done.written, done.kept, done.removed)
        return done

    def page_meta(self, src_uri: str) -> dict:
        """The front-matter a builder reads from a rendered page: the entry's title and tags, as
        MkDocs read them from the entry (the theme's <title>, the search index's tags)."""
        entry = self.entries.get(src_uri[:-3])
        if entry is None:
            return {}
        meta = {"title": " ".join(entry.title.split())}
        if entry.raw_meta.get("tags"):
            meta["tags"] = [str(t) for t in entry.raw_meta["tags"]]
        return meta

    def source_meta(self, src_uri: str) -> dict | None:
        """The front-matter of an entry page this build renders itself, as the build parsed it (None for any
        other page): MkDocs then need not parse the entry's YAML a second time (the hook's
        on_page_read_source), which it did with PyYAML's pure-Python loader."""
        slug = src_uri[:-3] if src_uri.endswith(".md") and "/" not in src_uri else None
        if slug in self.broken:
            return {}
        if slug in self.models and self.shown(slug):
            return dict(self.entries[slug].raw_meta)
        return None

    def render_sources(self) -> dict[str, str]:
        """What a render of this build is bound to (``glossary.site.publish.sources_of``)."""
        from glossary.site import publish

        return publish.sources_of(self.settings)

    def sitemap_pages(self) -> set[str]:
        """Docs-relative paths of the pages the sitemap lists: those a plain build publishes, so a
        preview's drafts (and tag pages only drafts carry) are never listed."""
        return sitemap.published_pages(list(self.models.values()))

    # -- render ----------------------------------------------------------------

    @property
    def env(self) -> SandboxedEnvironment:
        """One template environment per build: it compiles each template once, not once per page."""
        if self._env is None:
            kept = bytecode.cache_for("glossary") if self.settings.cache_dir is not None else None
            make = lambda: render.make_env(self.settings.templates_dir, kept)  # noqa: E731
            self._env = make() if self.memo is None else self.memo.env(self.settings.templates_dir, make)
        return self._env

    def render_page(self, src_uri: str, made: str | None = None) -> str | None:
        """Markdown for a page this build owns (an entry or the index), else None (``made``: html_ahead's)."""
        env = self.env
        if src_uri == "index.md":
            markdown = render.render_index(env, [m for s, m in self.models.items() if self.shown(s)],
                                           site_name=self.settings.site_name, preview=self.settings.preview,
                                           drafts=[m for s, m in self.models.items() if not self.shown(s)])
            self.rendered[src_uri] = markdown
            return markdown
        slug = src_uri[:-3] if src_uri.endswith(".md") and "/" not in src_uri else None
        if slug in self.broken:
            return pagefiles.broken_page(slug, self.broken[slug])
        if slug in self.models and self.shown(slug):
            context = self._page_inputs()
            page_of = functools.partial(build_work.entry_page, context, slug, env)
            if self.memo is not None:
                markdown = self.memo.keep("page", slug, self._pages_context(), page_of)
            else:
                markdown = made or self._work_ahead().page(slug) or page_of()
            self.rendered[src_uri] = markdown
            return markdown
        return None

    def _page_inputs(self) -> "build_work.PageInputs":
        return build_work.PageInputs(self.settings.templates_dir, self.models, self.hidden, self.lesson_catalog,
                           self.lessons_by_day, self.matcher or self.terms)

    def _work_ahead(self, directory_urls: bool | None = None) -> build_work.Ahead:
        """A plain build's entry pages, plots and glossary.json (pages alone without ``directory_urls``: the
        first page asked for before any file), worked out ahead (``build_work.Ahead``)."""
        if self._ahead is None:
            cache = plots.PlotCache(self.settings.cache_dir) if self.settings.cache_dir else None
            views = [view for m in self.shown_models() for view in m.devices if plots.has_plot(view)]
            slugs = [s for s in self.models if self.shown(s)] if self.pages_ahead else []
            self._ahead = build_work.Ahead(self._page_inputs(), self.env, slugs, views, cache, self.settings.workers,
                                           directory_urls)
        return self._ahead

    def _pages_context(self) -> str:
        """What an entry's page shows of the rest of the site (for the memo): every entry's front-matter
        and verdict (related lists, lessons, tooltips, drafts), the templates and the catalogue."""
        if self._page_context is None:
            index = [(slug, e.raw_meta, self.shown(slug), self.verdicts[slug].publishable,
                      list(self.verdicts[slug].reasons)) for slug, e in sorted(self.entries.items())]
            files = [self.settings.templates_dir] + ([self.settings.lessons_file] if self.settings.lessons_file else [])
            self._page_context = data_signature([index, self.settings.preview, sorted(self.broken)]) + \
                tree_signature(*files)
        return self._page_context

    # -- after the build -------------------------------------------------------

    def summary(self) -> str:
        """The build's last line: how many entries were published, and how to see the others."""
        total, held = len(self.entries), len(self.refused)
        line = f"{total - held} of {total} entr{'y' if total == 1 else 'ies'} published"
        if self.settings.preview:
            return (f"preview: {total - held} of {total} entr{'y' if total == 1 else 'ies'} would be published by "
                    f"a plain build; the other {held} {'is' if held == 1 else 'are'} shown here as drafts. "
                    f"Never deploy a preview build") if held else f"preview: {line}"
        if not held:
            return line
        return (f"{line}; {held} {'is a draft or refused' if held == 1 else 'are drafts or refused'} "
                f"(the WARNINGs above say why): GLOSSARY_PREVIEW=1 mkdocs build, or mkdocs serve, "
                f"shows {'it' if held == 1 else 'them'} as drafts")

    def prune_stale(self, site_dir: Path) -> list[str]:
        """Remove from ``site_dir`` what an earlier build wrote of entries this one does not show (MkDocs'
        `--dirty` keeps old files: a page whose review went stale would stay); what could not be removed."""
        shown = {m.entry.slug for m in self.shown_models()} | set(self.broken)
        return pagefiles.prune(site_dir, shown, set(self.entries), self.log)

    def leak_check(self, site_dir: Path, site_url: str | None = None) -> list[str]:
        """Where site_dir carries a refused entry's own traces (``glossary.site.leaks``, by identity:
        its paths, links and records to it, text no shown entry has); empty when none leaked."""
        if self.settings.preview or not self.refused:
            return []
        return leaks.find(site_dir, self.refused, [m.entry for m in self.shown_models()],
                          self.rendered.values(), site_url)

