"""MkDocs hooks for the verified glossary: a thin adapter over ``glossary.build``.

Each MkDocs event is mapped onto one call; the logic, and its tests, live in
the installable ``glossary`` package.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files

from glossary.site import render
from glossary.build import GlossaryBuild, GlossaryError, Options

log = get_plugin_logger("glossary")

_state: dict = {"serving": False, "build": None}


def on_startup(command: str, dirty: bool) -> None:
    _state["serving"] = command == "serve"


def on_config(config):
    try:
        options = Options.resolve(
            entries_dir=Path(config.docs_dir), config_dir=Path(config.config_file_path).parent,
            extra=dict(config.extra), serving=_state["serving"])
        build = GlossaryBuild(options=options, log=log)
        build.load(measurer=build.measurer())
    except GlossaryError as err:
        raise PluginError(str(err)) from None
    _state["build"] = build
    return config


def on_files(files: Files, config) -> Files:
    build: GlossaryBuild = _state["build"]
    # An allowlist: of the docs folder's files, only those the build publishes stay (theme files
    # come from elsewhere and stay); the glossary generates the rest (kernels, results, plots).
    named = [str(a) for a in config.extra_css] + [getattr(j, "path", str(j)) for j in config.extra_javascript]
    keep = build.published_sources(named)
    for file in list(files):
        if file.src_dir == config.docs_dir and file.generated_by is None and file.src_uri not in keep:
            files.remove(file)
    if files.get_file_from_path("index.md") is None:
        files.append(File.generated(config, "index.md", content="# Glossary\n"))
    made = build.site_files(config.use_directory_urls)
    for path, content in made.items():
        if (existing := files.get_file_from_path(path)) is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    build: GlossaryBuild = _state["build"]
    page.meta = render.safe_meta(page.meta)  # the theme prints title and author unescaped
    try:
        rendered = build.render_page(page.file.src_uri)
    except GlossaryError as err:
        raise PluginError(str(err)) from None
    return markdown if rendered is None else rendered


def on_post_build(config) -> None:
    build: GlossaryBuild = _state["build"]
    leaks = build.leak_check(Path(config.site_dir))
    if leaks:
        raise PluginError("refused entries leaked into the site:\n  " + "\n  ".join(leaks))
