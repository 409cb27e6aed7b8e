"""The glossary build: what the MkDocs hook asks for at each event.

``GlossaryBuild`` holds one build's state: the parsed entries, their results,
the gate's verdicts and the rendering environment.  It knows nothing of MkDocs
beyond plain paths and strings, so it is tested without building a site; the
hook in ``hooks/`` maps MkDocs events onto it.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jinja2.sandbox import SandboxedEnvironment

from glossary import findings, gate, lint, pages, plots, render, review
from glossary import features, lessons, sitefiles, tooltips
from glossary.model import Entry, EntryError, display_path, load_entries
from measure import store

PREVIEW_ENV = "GLOSSARY_PREVIEW"
MEASURE_ENV = "GLOSSARY_MEASURE"
MEASURE_MODES = ("auto", "always", "never")
GPUS_ENV = "GLOSSARY_GPUS"
DEADLINE_ENV = "GLOSSARY_DEADLINE"
DEFAULT_CACHE = ".cache/glossary"  # beside mkdocs.yml, ignored by git


class GlossaryError(Exception):
    """A build-stopping problem, phrased for the person running the build."""


@dataclass
class Options:
    """How a build behaves: from the environment, `extra.glossary` and the command."""

    entries_dir: Path
    templates_dir: Path
    preview: bool = False
    measure: str = "auto"
    lessons_file: Path | None = None  # the lesson catalogue (glossary.lessons)
    gpus: str = "all"                 # which GPUs measure (glossary.pool.select_gpus)
    deadline_s: float = 1800.0        # per entry; a measurement past it is killed and recorded as failed
    cache_dir: Path | None = None  # plots kept between builds (glossary.plots.PlotCache); None: no cache

    @classmethod
    def resolve(cls, entries_dir: Path, config_dir: Path, extra: dict, serving: bool,
                environ: dict | None = None) -> "Options":
        environ = os.environ if environ is None else environ
        settings = dict(extra.get("glossary") or {})
        preview = serving or environ.get(PREVIEW_ENV, "").strip().lower() in ("1", "true", "yes")
        measure = (environ.get(MEASURE_ENV) or settings.get("measure") or "auto").strip().lower()
        if measure not in MEASURE_MODES:
            raise GlossaryError(f"{MEASURE_ENV} / extra.glossary.measure: expected one of "
                                f"{', '.join(MEASURE_MODES)}, found {measure!r}")
        templates = config_dir / settings.get("templates", "templates")
        lessons_file = config_dir / settings.get("lessons", lessons.DEFAULT_PATH)
        gpus = str(environ.get(GPUS_ENV) or settings.get("gpus") or "all")
        try:
            deadline_s = float(environ.get(DEADLINE_ENV) or settings.get("deadline_s") or cls.deadline_s)
        except ValueError:
            deadline_s = 0.0
        if not deadline_s > 0:
            raise GlossaryError(f"{DEADLINE_ENV} / extra.glossary.deadline_s: expected a number of seconds "
                                f"above 0, found {environ.get(DEADLINE_ENV) or settings.get('deadline_s')!r}")
        cache_dir = config_dir / settings.get("cache", DEFAULT_CACHE)
        return cls(entries_dir=entries_dir, templates_dir=templates, preview=preview, measure=measure,
                   lessons_file=lessons_file, gpus=gpus, deadline_s=deadline_s, cache_dir=cache_dir)


@dataclass
class GlossaryBuild:
    options: Options
    log: logging.Logger
    entries: dict[str, Entry] = field(default_factory=dict)
    results: dict[str, dict[str, dict]] = field(default_factory=dict)
    verdicts: dict[str, gate.Verdict] = field(default_factory=dict)
    models: dict[str, pages.PageModel] = field(default_factory=dict)
    lesson_catalog: dict[int, lessons.CatalogLesson] = field(default_factory=dict)
    lessons_by_day: dict[int, list[dict]] = field(default_factory=dict)  # day -> shown entries that list it
    terms: list[tooltips.Term] = field(default_factory=list)
    hidden: frozenset[str] = frozenset()  # slugs this build's site leaves out
    _env: SandboxedEnvironment | None = field(default=None, init=False, repr=False)

    # -- collect ---------------------------------------------------------------

    def load(self, measurer: Callable[[list[Entry]], None] | None = None) -> None:
        """Parse entries, measure stale ones where asked, load results, judge every entry."""
        try:
            self.entries = load_entries(self.options.entries_dir)
        except EntryError as err:
            raise GlossaryError(str(err)) from None
        if measurer is not None:
            measurer(list(self.entries.values()))
        for slug, entry in self.entries.items():
            try:
                self.results[slug] = store.load_results(entry.folder)
            except store.StoreError as err:
                raise GlossaryError(str(err)) from None
        for slug, entry in self.entries.items():
            signed = review.review_of(entry, self.results[slug])
            self.verdicts[slug] = gate.judge(entry.meta.author, entry.meta.reviewer, signed.refusals)
            if signed.warning and self.verdicts[slug].publishable:
                self.log.warning("%s: %s", display_path(entry.path), signed.warning)
        for slug, entry in self.entries.items():
            related = tuple(self.entries[s] for s in entry.meta.related if self.shown(s))
            measured = findings.collect(entry, self.results[slug])
            self.models[slug] = pages.PageModel(
                entry=entry, verdict=self.verdicts[slug], devices=measured.devices,
                related=related, preview=self.options.preview,
                body=measured.body, claims=measured.claims, figure_problems=measured.figure_problems)
        try:
            self.lesson_catalog = lessons.load_catalog(self.options.lessons_file) if self.options.lessons_file else {}
        except lessons.LessonsError as err:
            raise GlossaryError(str(err)) from None
        self.terms = tooltips.terms([m.entry for m in self.shown_models()])
        self.lessons_by_day = lessons.entries_by_day([m.entry for m in self.shown_models()])
        self.hidden = frozenset(s for s in self.entries if not self.shown(s))
        self._report()

    def shown_models(self) -> list[pages.PageModel]:
        """Page models of the entries this build's site shows."""
        return [m for s, m in self.models.items() if self.shown(s)]

    def shown(self, slug: str) -> bool:
        """Whether the entry appears in this build's site (published, or a draft in preview)."""
        return self.options.preview or self.verdicts[slug].publishable

    @property
    def refused(self) -> list[Entry]:
        return [e for s, e in self.entries.items() if not self.verdicts[s].publishable]

    def _report(self) -> None:
        for entry in self.refused:
            reasons = "; ".join(self.verdicts[entry.slug].reasons)
            if self.options.preview:
                self.log.info("%s: shown as a draft in this preview (%s)", display_path(entry.path), reasons)
            else:
                self.log.warning("%s: refused, left out of the site: %s", display_path(entry.path), reasons)
        for entry in self.entries.values():
            for finding in lint.unbound_figures(entry):
                self.log.warning("%s", finding)
        for slug, model in self.models.items():
            if not self.shown(slug):
                continue
            entry = model.entry
            for _, message in findings.measurement_findings(entry, model.devices, model.figure_problems,
                                                            model.claims):
                self.log.warning("%s: %s", display_path(entry.path), message)

    # -- files -----------------------------------------------------------------

    def excluded_paths(self) -> list[str]:
        """Docs-relative paths (POSIX) of everything that belongs to refused entries."""
        if self.options.preview:
            return []
        out = []
        for entry in self.refused:
            out.append(f"{entry.slug}.md")
            out.append(f"{entry.slug}/")
        return out

    def is_excluded(self, src_uri: str) -> bool:
        for path in self.excluded_paths():
            if src_uri == path or (path.endswith("/") and src_uri.startswith(path)):
                return True
        return False

    def site_files(self, directory_urls: bool = True) -> dict[str, str | bytes]:
        """Docs-relative path -> content of every file the glossary adds (plots from the cache where it can)."""
        cache = plots.PlotCache(self.options.cache_dir) if self.options.cache_dir else None
        made = sitefiles.generated(self.shown_models(), self.options.templates_dir, directory_urls,
                                   plot=cache.svg if cache else plots.device_svg)
        if cache is not None:
            self.log.info("plots: %d drawn, %d from the cache in %s", cache.drawn, cache.hits,
                          display_path(cache.folder))
        return made

    # -- render ----------------------------------------------------------------

    @property
    def env(self) -> SandboxedEnvironment:
        """One template environment per build: it compiles each template once, not once per page."""
        if self._env is None:
            self._env = render.make_env(self.options.templates_dir)
        return self._env

    def render_page(self, src_uri: str) -> str | None:
        """Markdown for a page this build owns (an entry or the index), else None."""
        env = self.env
        if src_uri == "index.md":
            return render.render_index(env, [m for s, m in self.models.items() if self.shown(s)])
        slug = src_uri[:-3] if src_uri.endswith(".md") and "/" not in src_uri else None
        if slug in self.models and self.shown(slug):
            model = self.models[slug]
            page = render.render_entry(env, model, hidden=self.hidden,
                                       extras=features.page_extras(model, self.lesson_catalog,
                                                                   self.lessons_by_day))
            return tooltips.append(page, self.terms, slug)
        return None

    # -- after the build -------------------------------------------------------

    def leak_check(self, site_dir: Path) -> list[str]:
        """Files in site_dir that carry a refused entry's text; empty when none leaked."""
        if self.options.preview:
            return []
        needles = {}
        for entry in self.refused:
            for text in _distinctive_texts(entry):
                needles[text] = entry.slug
        if not needles:  # nothing refused: no need to read the whole site back
            return []
        leaks = []
        for path in sorted(site_dir.rglob("*")):
            if not path.is_file() or path.suffix not in (".html", ".json", ".xml", ".txt", ".md", ".js", ".cu", ".py"):
                continue
            try:
                content = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            flat = " ".join(content.split())
            for text, slug in needles.items():
                if text in flat:
                    leaks.append(f"{path.relative_to(site_dir)} contains text of refused entry '{slug}': {text[:50]!r}")
                    break
        return leaks


_PLAIN_WORD = re.compile(r"^[A-Za-z][A-Za-z'-]*[,.;:]?$")


def _plain_window(text: str, size: int = 6) -> str | None:
    """The first run of ``size`` plain words: text that renders the same in HTML, JSON and XML."""
    run: list[str] = []
    for word in text.split():
        run = run + [word] if _PLAIN_WORD.match(word) and "'" not in word else []
        if len(run) == size:
            return " ".join(run)
    return None


def _distinctive_texts(entry: Entry) -> list[str]:
    """Pieces of an entry that should appear nowhere if the entry is refused."""
    pieces = [entry.meta.summary] + entry.body.split("\n\n")
    texts = [w for w in (_plain_window(p) for p in pieces) if w]
    texts += [f"/{entry.slug}/", f'"{entry.slug}/', f"{entry.slug}.md"]
    return texts
