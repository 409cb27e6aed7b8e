"""`glossary render`: the render stage on its own, so any builder (Zensical too) can build the site."""

from __future__ import annotations

import logging
import os

import click

from glossary.cli.common import Problems, cli, console, entries_dir_of


@cli.command("render")
@click.option("--preview", is_flag=True, help="Render drafts too, with their banner, into the preview folder "
                                               "(extra.glossary.preview_docs, build/preview): never the "
                                               "published one.")
@click.pass_context
def render_(ctx: click.Context, preview: bool) -> None:
    """Write the published site's sources into mkdocs.yml's docs_dir (build/docs).

    Gated pages with their figures, Measured sections and tooltips rendered, the home and tag
    pages, and exactly the files the published entries declare: what `mkdocs build` builds from,
    and what `zensical build` builds from after it. Measures nothing (that is `glossary measure`,
    or `mkdocs build` on the verification node). Exits 1 when an entry is refused, as
    `mkdocs build --strict` would.
    """
    from rich.logging import RichHandler

    from glossary.build import GlossaryBuild
    from glossary.settings import PREVIEW_ENV, GlossaryError, Settings, read_config
    from glossary.site import publish

    entries_dir = entries_dir_of(ctx)
    log = logging.getLogger("glossary.render")
    log.propagate = False
    if not log.handlers:
        log.addHandler(RichHandler(console=console(), show_path=False, show_time=False))
    log.setLevel(logging.INFO)
    warned = _Counter()
    log.addHandler(warned)
    environ = dict(os.environ, **({PREVIEW_ENV: "1"} if preview else {}))
    try:
        settings = Settings.for_project(entries_dir, environ=environ)
        if settings.render_dir is None:
            raise Problems(f"{settings.trust_root / 'mkdocs.yml'}: extra.glossary.entries is not set, so docs_dir is "
                           f"the entries folder itself and there is no separate folder to render into")
        build = GlossaryBuild(settings=settings, log=log)
        build.load()
        config = read_config(settings.trust_root / "mkdocs.yml")
        named = [str(a) for a in (config.get("extra_css") or []) + (config.get("extra_javascript") or [])
                 if isinstance(a, str)]
        directory_urls = config.get("use_directory_urls")
        build.render(named, directory_urls is not False)
    except (GlossaryError, publish.RenderError) as err:
        raise Problems(str(err)) from None
    console().print(build.summary())
    if warned.count and not preview:
        ctx.exit(1)


class _Counter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
