"""MkDocs hooks for the verified glossary: a thin adapter over ``glossary.build``.

Each MkDocs event is mapped onto one call of the build; the settings, the measuring policy and
every decision live in the installable ``glossary`` package, with their tests.  The one object
here is the adapter, which remembers the command (``serve`` shows drafts) and this build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable
from urllib.parse import urljoin

from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.utils import meta as front_matter

from glossary import heap, html_ahead
from glossary.build_measure import measurer
from glossary.build import GlossaryBuild
from glossary.memo import Memo, content_signature
from glossary.settings import GlossaryError, Settings
from glossary.site import bytecode, headings, plots, publish, render, sanitize, sitefiles, sitemap, tooltip_html, tooltips

log = get_plugin_logger("glossary")


class _Adapter:
    def __init__(self) -> None:
        self.serving = False
        self.dirty = False
        self.build: GlossaryBuild | None = None
        self.sitemap_locations: set[str] | None = None  # None: no site_url, so MkDocs writes no URLs
        self.plot_urls: set[str] = set()  # the site URLs of the plots this build drew
        self.rendered = False  # docs_dir is the render stage's folder (glossary.site.publish)
        self.memo: Memo | None = None  # mkdocs serve: per-entry work kept between rebuilds (glossary.memo)
        self.read_meta: dict[str, dict] = {}  # src_uri -> the front-matter the build parsed (on_page_read_source)
        self.html: html_ahead.HtmlAhead | None = None  # a plain build: the pages rendered on other cores

    def on_startup(self, command: str, dirty: bool) -> None:
        self.serving, self.dirty = command == "serve", dirty
        self.memo = Memo() if self.serving else None

    def on_config(self, config):
        heap.release()  # what an earlier build in this process kept
        try:
            settings = Settings.resolve(entries_dir=Path(config.docs_dir),
                                        config_dir=Path(config.config_file_path).parent,
                                        extra=dict(config.extra), serving=self.serving,
                                        site_name=config.site_name, docs_dir=Path(config.docs_dir))
            self.build = GlossaryBuild(settings=settings, log=log, memo=self.memo)
            self.build.load(measurer=measurer(settings, log))
            self.rendered = settings.render_dir is not None
            if self.rendered:  # the render stage writes what is published; MkDocs builds from that alone
                rendered = self.build.render(_named_assets(config), config.use_directory_urls)
                config["docs_dir"] = str(rendered.folder.resolve())
        except (GlossaryError, publish.RenderError) as err:
            raise PluginError(str(err)) from None
        self._keep_to_the_end()
        # Headings and the Related terms list get no abbreviation of the author's (tooltips.ScopeExtension);
        # the glossary's tooltips are placed over the HTML (tooltip_html), CJK headings get ids (headings).
        # mkdocs.yml lists the last two for other builders; a project's own mkdocs.yml may not.
        for module, extension in ((tooltips, tooltips.ScopeExtension), (tooltip_html, tooltip_html.TooltipExtension),
                                  (headings, headings.HeadingIdExtension)):
            if not any(isinstance(e, extension) or e == module.__name__ for e in config.markdown_extensions):
                config.markdown_extensions.append(extension())
        if self.memo is not None:  # serve: an unchanged page's search entries are kept (glossary.memo)
            self.memo.reuse_search(config)
        return config

    def on_files(self, files: Files, config) -> Files:
        if self.rendered:  # the docs folder holds exactly what the render stage published
            return self._after_files(files, config)
        # An allowlist: of the docs folder's files, only those the build publishes stay (theme files
        # come from elsewhere and stay); the glossary generates the rest (kernels, results, plots).
        keep = self.build.published_sources(_named_assets(config))
        # Rendered ahead, an entry's page is made by the worker that renders it (html_ahead), not beside it.
        self.build.pages_ahead = not self._renders_ahead(config, len(self.build.shown_models()))
        for file in list(files):
            if file.src_dir == config.docs_dir and file.generated_by is None and file.src_uri not in keep:
                files.remove(file)
        if files.get_file_from_path("index.md") is None:
            files.append(File.generated(config, "index.md", content="# Glossary\n"))
        for path, content in self.build.site_files(config.use_directory_urls, later=True).items():
            if (existing := files.get_file_from_path(path)) is not None:
                files.remove(existing)
            if self.memo is not None:  # serve: a file an edit left as it was is not written again
                files.append(_ServedFile.generated(config, path, content=content).kept_by(self.memo))
            else:
                files.append((_LaterFile if callable(content) else File).generated(config, path, content=content))
        return self._after_files(files, config)

    def _after_files(self, files: Files, config) -> Files:
        if self.memo is not None:  # serve: an unchanged page's render is kept (glossary.memo)
            self.memo.site_changed(config, files)
        elif not self.build.pages_ahead or (
                self.rendered and self._renders_ahead(config, len(files.documentation_pages()))):
            self.html = html_ahead.HtmlAhead(config, files, self._markdown_of, self.build.settings.workers)
        self.sitemap_locations = self._sitemap_locations(files, config)
        drawn = (files.get_file_from_path(p) for p in sitefiles.plot_paths(self.build.shown_models()))
        self.plot_urls = {f.url for f in drawn if f is not None}
        return files

    def _renders_ahead(self, config, pages: int) -> bool:
        return self.memo is None and not self.dirty and html_ahead.worth_it(config, pages, self.build.settings.workers)

    def _markdown_of(self, file: File) -> str | None:
        # In a worker of html_ahead: the Markdown MkDocs will render for the page (on_page_read_source and
        # on_page_markdown below), from the build or from the file less its front-matter.
        owned = None if self.rendered else self.build.render_page(file.src_uri)
        return owned if owned is not None else front_matter.get_data(file.content_string)[0]

    def _sitemap_locations(self, files: Files, config) -> set[str] | None:
        # The absolute URLs the sitemap may list, as MkDocs writes them (Page.canonical_url).
        if not config.site_url:
            return None
        base = config.site_url if config.site_url.endswith("/") else config.site_url + "/"
        listed = self.build.sitemap_pages()
        return {urljoin(base, f.url) for f in files.documentation_pages() if f.src_uri in listed}

    def on_page_read_source(self, page, config) -> str | None:
        # An entry page is rendered by the build (on_page_markdown), from the front-matter it parsed
        # already: MkDocs reads no source for it, so it does not parse the YAML again.
        meta = None if self.rendered or self.build is None else self.build.source_meta(page.file.src_uri)
        if meta is None:
            return None
        self.read_meta[page.file.src_uri] = meta
        return ""

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        meta = self.read_meta.pop(page.file.src_uri, None)
        page.meta = render.safe_meta(page.meta if meta is None else meta)  # the theme prints title and author unescaped
        if self.memo is not None:
            self.memo.reuse_render(page)
        made = self.html.take(page) if self.html is not None else None
        if self.rendered:  # rendered by the render stage already, as every builder reads it
            return markdown
        try:
            rendered = self.build.render_page(page.file.src_uri, made)
        except GlossaryError as err:
            raise PluginError(str(err)) from None
        return markdown if rendered is None else rendered

    def on_page_content(self, html: str, page, config, files) -> str:
        # The author's raw HTML and attributes run nothing (sanitize); then only the plots the build
        # drew become <object>s, by where their file came from.
        if self.html is not None:
            clean = self.html.clean(html, page)
        else:
            clean = sanitize.clean(html) if self.memo is None else self.memo.pure(sanitize.clean, html)
        return plots.embed_plots(clean, page.url, self.plot_urls)

    def on_env(self, env, config, files):
        self._rendered_all()  # every page is made: the pool ends before the plots' pool forks (html_ahead)
        # MkDocs makes the theme's environment anew for every build: Material's templates are compiled
        # once per `serve` (glossary.memo) and kept between builds in the user's cache (bytecode).
        if self.memo is not None:
            env.bytecode_cache = self.memo.theme_bytecode()
        elif self.build is not None and self.build.settings.cache_dir is not None:
            env.bytecode_cache = bytecode.cache_for("theme")
        return env

    def on_serve(self, server, config, builder):
        # The render folder is this build's output: watching it made every edit build twice.  The
        # entries, data, templates and trust folders are watched (mkdocs.yml's watch:).
        if self.rendered:
            try:
                server.unwatch(config.docs_dir)
            except KeyError:
                pass
        return server

    def on_build_error(self, error) -> None:
        self._rendered_all(wait=False)  # what the pool had begun is not waited for
        if self.build is not None:
            self.build.done(failed=True)  # the pages and plots worked out ahead are not waited for

    def on_post_build(self, config) -> None:
        self._rendered_all()
        self.build.done()
        # before the leak check: a --dirty build keeps the pages earlier builds wrote
        stale = self.build.prune_stale(Path(config.site_dir))
        if stale:
            raise PluginError("pages of entries this build does not show are still in the site:\n  "
                              + "\n  ".join(stale))
        leaks = self.build.leak_check(Path(config.site_dir), config.site_url)
        if leaks:
            raise PluginError("refused entries leaked into the site:\n  " + "\n  ".join(leaks))
        if self.sitemap_locations is not None:
            sitemap.rewrite(Path(config.site_dir), self.sitemap_locations)
        log.info("%s", self.build.summary())
        self._keep_to_the_end()

    def _rendered_all(self, wait: bool = True) -> None:
        if self.html is not None:
            log.debug("%d of %d pages rendered on other cores (glossary.html_ahead)", self.html.used, self.html.pages)
            self.html.close(wait)
            self.html = None

    def _keep_to_the_end(self) -> None:
        if not self.serving:  # serve's rebuilds leave garbage that must still be collected
            heap.keep_to_the_end()


class _LaterFile(File):
    """A generated file whose content is made when it is first read: a plot drawn on another core while
    MkDocs renders the pages (``GlossaryBuild.site_files``), read when MkDocs copies the site's files.
    ``generated(content=...)`` takes the function that makes it.  Every reader of a File's content (its
    bytes, its text, its copy, whether it changed) goes through ``_content``, so each gets the plot."""

    @property
    def _content(self) -> bytes:
        if callable(self._later):
            self._later = self._later()
        return self._later

    @_content.setter
    def _content(self, value: Callable[[], bytes] | bytes) -> None:
        self._later = value


class _ServedFile(File):
    """`mkdocs serve`: a generated file that counts as modified unless the last rebuild wrote these very
    bytes to its place, untouched since (``Memo.unchanged``): a `--dirty` rebuild then writes again only
    the plots, results and kernels an edit changed, where MkDocs writes every generated file each time.
    A page (``.md``) is never copied, so it is always modified: its HTML is made again."""

    def kept_by(self, memo: Memo) -> "_ServedFile":
        self._memo, self._digest = memo, content_signature(self._content)
        return self

    def is_modified(self) -> bool:
        return not self._memo.unchanged(self.abs_dest_path, self._digest)

    def copy_file(self, dirty: bool = False) -> None:
        super().copy_file(dirty)
        self._memo.wrote(self.abs_dest_path, self._digest)


def _named_assets(config) -> list[str]:
    """The files mkdocs.yml names itself (extra_css, extra_javascript): published as they are."""
    return [str(a) for a in config.extra_css] + [getattr(j, "path", str(j)) for j in config.extra_javascript]


_adapter = _Adapter()
on_startup = _adapter.on_startup
on_config = _adapter.on_config
on_files = _adapter.on_files
on_page_read_source = _adapter.on_page_read_source
on_page_markdown = _adapter.on_page_markdown
on_page_content = _adapter.on_page_content
on_env = _adapter.on_env
on_serve = _adapter.on_serve
on_build_error = _adapter.on_build_error
on_post_build = _adapter.on_post_build
