"""glossary.memo (issue 34): what `mkdocs serve` keeps between rebuilds, at the function level."""

from __future__ import annotations

import logging

import pytest

from conftest import ROOT, write_project
from glossary.build import GlossaryBuild
from glossary.memo import Memo, tree_signature
from glossary.settings import GlossaryError, Settings

ENTRY = """\
---
title: {title}
summary: The {title} term, in one sentence.
related: [{related}]
author: pending
reviewer: pending
---
Prose about {title}.
"""


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def site(tmp_path):
    project = write_project(tmp_path, {"alpha": ENTRY.format(title="Alpha", related="beta"),
                                       "beta": ENTRY.format(title="Beta", related="alpha")})
    settings = Settings.resolve(entries_dir=project / "entries", config_dir=project,
                                extra={"glossary": {"measure": "never", "trust": "names",
                                                       "templates": str(ROOT / "templates")}},
                                serving=True, environ={})
    log = logging.getLogger(f"test-memo-{id(project)}")
    log.propagate = False
    log.setLevel(logging.INFO)
    lines = Lines()
    log.addHandler(lines)
    memo = Memo()

    def build() -> GlossaryBuild:
        lines.lines.clear()
        made = GlossaryBuild(settings=settings, log=log, memo=memo)
        made.load()
        return made

    return project, settings, build, memo, lines


def test_a_rebuild_reuses_unchanged_entries_and_logs_one_line(site):
    project, _, build, memo, lines = site
    first = build()
    assert sum("shown as a draft" in line for line in lines.lines) == 2
    page = first.render_page("alpha.md")
    (project / "entries" / "beta.md").write_text(ENTRY.format(title="Beta", related="alpha") + "More prose.\n")
    second = build()
    assert memo.reused == 1  # alpha; beta changed
    assert not any("shown as a draft" in line for line in lines.lines)  # said at the first build
    assert [line for line in lines.lines if line.startswith("rebuilt:")] == [
        "rebuilt: 1 of 2 entries changed; what the log said before holds for the rest"]
    assert second.entries["alpha"] is first.entries["alpha"]
    assert second.render_page("alpha.md") == page
    assert "More prose." in second.render_page("beta.md")


def test_a_front_matter_edit_renders_every_page_again(site):
    project, _, build, memo, _ = site
    first = build()
    before = first.render_page("alpha.md")
    (project / "entries" / "beta.md").write_text(ENTRY.format(title="Betamax", related="alpha"))
    after = build().render_page("alpha.md")  # alpha's related list names beta by its title
    assert "Betamax" in after and "Betamax" not in before


def test_an_entry_that_does_not_parse_shows_its_error_and_the_rest_builds(site, tmp_path):
    project, settings, build, _, lines = site
    build()
    (project / "entries" / "beta.md").write_text("---\ntitle: [unclosed\n---\nBody <script>x</script>\n")
    broken = build()
    assert set(broken.entries) == {"alpha"} and set(broken.broken) == {"beta"}
    assert any("beta.md" in line and "mkdocs serve shows this" in line for line in lines.lines)
    page = broken.render_page("beta.md")
    assert "does not parse" in page and "beta.md" in page
    assert all(line.startswith("        ") for line in page.split("\n\n")[-1].splitlines())  # as code, not markup
    assert "beta.md" in broken.published_sources()
    assert "Alpha" in broken.render_page("alpha.md")  # related to beta, which it no longer links
    site_dir = tmp_path / "served"
    (site_dir / "beta").mkdir(parents=True)
    (site_dir / "beta" / "index.html").write_text("the error page MkDocs wrote")
    assert broken.prune_stale(site_dir) == [] and (site_dir / "beta" / "index.html").exists()
    with pytest.raises(GlossaryError, match="beta.md"):  # a plain build stops on it, as before
        GlossaryBuild(settings=settings, log=logging.getLogger("t")).load()
    (project / "entries" / "beta.md").write_text(ENTRY.format(title="Beta", related="alpha"))
    fixed = build()
    assert fixed.broken == {} and set(fixed.entries) == {"alpha", "beta"}


def test_a_signature_names_each_file_by_size_and_date(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_text("one")
    first = tree_signature(tmp_path / "a")
    assert tree_signature(tmp_path / "a") == first
    (tmp_path / "a" / "x.txt").write_text("two!")
    assert tree_signature(tmp_path / "a") != first
    (tmp_path / "f.md").write_text("same size")
    by_content = tree_signature(tmp_path / "f.md")
    (tmp_path / "f.md").write_text("same SIZE")
    assert tree_signature(tmp_path / "f.md") != by_content


def test_the_themes_templates_are_compiled_once_per_serve_and_again_when_edited():
    """MkDocs makes the theme's Jinja environment anew for every rebuild; the memo's bytecode cache
    keeps each template's code while its source is the same (issue 34: a rebuild compiled all of
    Material's templates again)."""
    import jinja2

    memo = Memo()
    sources = {"main.html": "<p>{{ page }}</p>"}
    compiled = []

    class Counting(jinja2.Environment):
        def compile(self, *args, **kwargs):
            compiled.append(args[1] if len(args) > 1 else kwargs.get("name"))
            return super().compile(*args, **kwargs)

    def rebuild() -> str:
        env = Counting(loader=jinja2.DictLoader(sources), bytecode_cache=memo.theme_bytecode())
        return env.get_template("main.html").render(page="kernel fusion")

    assert rebuild() == rebuild() == "<p>kernel fusion</p>"
    assert compiled == ["main.html"]
    sources["main.html"] = "<h1>{{ page }}</h1>"
    assert rebuild() == "<h1>kernel fusion</h1>"
    assert compiled == ["main.html", "main.html"]


def test_results_are_read_again_only_when_a_results_file_changes(tmp_path, monkeypatch):
    import os
    import shutil

    from measure import store

    folder = tmp_path / "kernel-fusion"
    shutil.copytree(ROOT / "entries" / "kernel-fusion" / "results", folder / "results")
    reads = []
    load = store.load_results
    monkeypatch.setattr(store, "load_results", lambda f: reads.append(f) or load(f))
    memo = Memo()
    first = memo.results(folder)
    assert first and first == load(folder) and len(reads) == 1
    again = memo.results(folder)  # an edit to the entry's prose: its results as they were
    assert again == first and all(again[k] is first[k] for k in first) and len(reads) == 1
    again.clear()  # the caller's own dict
    assert memo.results(folder) == first
    path = sorted((folder / "results").glob("*.json"))[0]
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert memo.results(folder) == first and len(reads) == 2  # a results file touched: read again
