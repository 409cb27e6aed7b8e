"""`mkdocs serve` keeps MkDocs' own per-page work between rebuilds (glossary.memo, issue 34): an
unchanged page is neither rendered from Markdown nor parsed for the search index again, and the site
a rebuild writes is byte for byte the site a first build of the same files writes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from material.plugins.search import plugin as search_plugin
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.structure import pages

from conftest import write_project
from site_fixture import build_fixture_site
from test_memo import ENTRY as MEMO_ENTRY
from glossary.site import sanitize

# the memo tests' entry, with a section an anchor link can name
ENTRY = MEMO_ENTRY + """
## A section {{: #{slug}-section }}

More about [{other}]({other_slug}.md#{other_slug}-section).
"""

ENTRIES = {
    "alpha": dict(title="Alpha", related="beta", other="Beta", slug="alpha", other_slug="beta"),
    "beta": dict(title="Beta", related="alpha", other="Gamma", slug="beta", other_slug="gamma"),
    "gamma": dict(title="Gamma", related="alpha", other="Alpha", slug="gamma", other_slug="alpha"),
}


@pytest.fixture
def project(tmp_path):
    made = write_project(tmp_path, {slug: ENTRY.format(**fields) for slug, fields in ENTRIES.items()})
    # a link to no page: MkDocs warns of it while it renders beta's Markdown
    beta = made / "entries" / "beta.md"
    beta.write_text(beta.read_text() + "\nSee [the missing page](missing.md).\n")
    return made


@pytest.fixture
def counted(monkeypatch):
    """The pages MkDocs rendered from Markdown, Material's search parsed and the hook sanitized."""
    seen = {"render": [], "search": [], "clean": []}
    render, add, clean = pages.Page.render, search_plugin.SearchIndex.add_entry_from_context, sanitize.clean

    def counting_render(self, config, files):
        seen["render"].append(self.file.src_uri)
        return render(self, config, files)

    def counting_add(self, page):
        seen["search"].append(page.file.src_uri)
        return add(self, page)

    def counting_clean(html):
        seen["clean"].append(html)
        return clean(html)

    monkeypatch.setattr(pages.Page, "render", counting_render)
    monkeypatch.setattr(sanitize, "clean", counting_clean)
    monkeypatch.setattr(search_plugin.SearchIndex, "add_entry_from_context", counting_add)
    return seen


def serve_build(project: Path, first: bool, site: str = "site") -> None:
    """One build as `mkdocs serve` makes it: the first starts the serve (a new memo), the others rebuild."""
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / site))
    if first:
        config.plugins.on_startup(command="serve", dirty=False)
    build(config, serve_url="http://127.0.0.1:8000/")


def site_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def edit_prose(project: Path, slug: str, word: str) -> None:
    path = project / "entries" / f"{slug}.md"
    path.write_text(path.read_text().replace("Prose about", f"{word}. Prose about", 1))


def test_a_prose_edit_renders_and_indexes_only_its_page_and_the_site_is_the_same(project, counted, caplog):
    caplog.set_level(logging.WARNING, logger="mkdocs")

    def missing_link_warnings() -> int:
        return sum("missing.md" in r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)

    serve_build(project, first=True)
    assert {"alpha.md", "beta.md", "gamma.md"} <= set(counted["render"])
    assert missing_link_warnings() == 1
    for seen in counted.values():
        seen.clear()
    caplog.clear()
    edit_prose(project, "alpha", "Quokka")
    serve_build(project, first=False)
    assert counted["render"] == ["alpha.md"]
    assert counted["search"] == ["alpha.md"]
    assert len(counted["clean"]) == 1 and "Quokka" in counted["clean"][0]
    assert missing_link_warnings() == 1  # beta's, said again: `mkdocs serve --strict` still counts it
    rebuilt = site_files(project / "site")
    assert b"Quokka" in rebuilt["alpha/index.html"]

    serve_build(project, first=True, site="fresh")  # a new serve of the same files: every page made anew
    assert site_files(project / "fresh") == rebuilt


def test_a_new_page_renders_every_page_again(project, counted):
    serve_build(project, first=True)
    counted["render"].clear()
    (project / "entries" / "delta.md").write_text(ENTRY.format(title="Delta", related="alpha", other="Alpha",
                                                               slug="delta", other_slug="alpha"))
    serve_build(project, first=False)  # a link to delta.md now resolves: every page's links may change
    assert {"alpha.md", "beta.md", "gamma.md", "delta.md"} <= set(counted["render"])


def test_an_extension_that_reads_files_turns_the_reuse_off(project, counted):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("markdown_extensions:\n", "markdown_extensions:\n  - pymdownx.snippets\n"))
    serve_build(project, first=True)
    counted["render"].clear()
    edit_prose(project, "alpha", "Quokka")
    serve_build(project, first=False)  # a snippet may have changed: nothing tells
    assert {"alpha.md", "beta.md", "gamma.md"} <= set(counted["render"])


def _generated(folder: Path) -> dict[str, tuple[bytes, int]]:
    """The site's files the glossary generates besides pages (kernels, results, plots, glossary.json):
    bytes and modification time."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix != ".html" and (p.name == "glossary.json" or p.parent != folder)
            and not str(p.relative_to(folder)).startswith(("assets/", "search/"))}


@pytest.fixture
def dirty_serve(tmp_path):
    """The fixture project, and a function that builds it as `mkdocs serve --dirty` (or ``dirty=False``)
    does: the first build starts the serve.  Material's search plugin lives as long as the process and
    keeps a --dirty serve's last index, which it passes to every later build, a plain one too (where the
    leak check would stop a forked build of another test): forgotten when the test ends, as a serve's
    process ends."""
    project = build_fixture_site(tmp_path).parent
    configs = []

    def serve_build(first: bool, site: str = "served", dirty: bool = True) -> Path:
        config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / site))
        configs.append(config)
        if first:
            config.plugins.on_startup(command="serve", dirty=dirty)
        build(config, serve_url="http://127.0.0.1:8000/", dirty=dirty)
        return project / site

    yield project, serve_build
    for config in configs:
        for plugin in config.plugins.values():
            if hasattr(plugin, "search_index_prev"):
                plugin.search_index_prev = None


def test_a_dirty_rebuild_writes_again_only_the_generated_files_an_edit_changed(dirty_serve):
    # Issue 34: `mkdocs serve --dirty` wrote every plot, results file and kernel of every entry on every
    # rebuild (MkDocs counts a generated file as modified); now only those whose bytes changed.
    project, dirty_build = dirty_serve

    dirty_build(first=True)
    before = _generated(project / "served")
    assert {"stream-triad/triad.cu", "stream-triad/results/fixture-gpu-a.json", "glossary.json"} <= set(before)
    assert any(path.startswith("stream-triad/plots/") for path in before)
    occupancy = project / "entries" / "occupancy.md"
    occupancy.write_text(occupancy.read_text().replace("\n---\n", "\n---\nA new first line, quokka.\n\n", 1))
    (project / "served" / "stream-triad" / "triad.cu").unlink()  # gone from the site: written again
    dirty_build(first=False)
    after = _generated(project / "served")
    assert set(after) == set(before)
    rewritten = {path for path in after if after[path][1] != before[path][1]}
    changed = {path for path in after if after[path][0] != before[path][0]}
    assert rewritten == changed | {"stream-triad/triad.cu"}
    assert "quokka" in (project / "served" / "occupancy" / "index.html").read_text()
    # what stayed is what a new serve of the same files writes
    dirty_build(first=True, site="fresh")
    assert {p: data for p, (data, _) in after.items()} == {p: data for p, (data, _) in _generated(project / "fresh").items()}


def test_a_dirty_rebuild_s_search_index_lists_every_page_once(dirty_serve):
    # Material keeps a --dirty serve's last search index and drops from it the first page rebuilt
    # alone; the glossary rebuilds its home and tag pages too, which were then listed once more each
    # rebuild (and a rebuild that began with the home page, whose location '' begins every other,
    # dropped every other page).  Now the index is what a build of the same files indexes.
    project, serve_build = dirty_serve

    def search_docs(first: bool, site: str, dirty: bool = True) -> list[tuple]:
        index = json.loads((serve_build(first, site, dirty) / "search" / "search_index.json").read_text())
        return sorted((d["location"], d["title"], d["text"]) for d in index["docs"])

    search_docs(first=True, site="served")
    occupancy = project / "entries" / "occupancy.md"
    for word in ("quokka", "wombat"):
        occupancy.write_text(occupancy.read_text().replace("\n---\n", f"\n---\nA new first line, {word}.\n\n", 1))
        served = search_docs(first=False, site="served")
    assert any("wombat" in text for _, _, text in served)
    assert served == search_docs(first=True, site="fresh", dirty=False)


def test_a_dirty_rebuild_keeps_the_records_of_a_home_page_it_did_not_build_again(tmp_path):
    # The repository's home page comes from the render stage and is not built again when another
    # entry changes; its records are at location '' while its file's URL is './'.  The first try
    # compared the two and dropped the home page from the index (seen in a served --dirty clone).
    from types import SimpleNamespace

    from mkdocs.structure.files import File, Files

    from glossary.memo import Memo, page_urls

    files = Files([File(name, str(tmp_path), str(tmp_path / "site"), use_directory_urls=True)
                   for name in ("index.md", "alpha.md", "tags/index.md")])
    assert page_urls(files) == {"", "alpha/", "tags/"}
    memo = Memo(builds=2, page_urls=page_urls(files))
    prev = SimpleNamespace(entries=[{"location": loc} for loc in ("", "#a", "alpha/", "alpha/#x", "tags/", "gone/")])
    index = SimpleNamespace(entries=[{"location": "alpha/"}])
    memo._merged_search(index, lambda _: index.entries, {"alpha/"}, prev)
    assert [e["location"] for e in index.entries] == ["", "#a", "tags/", "alpha/"]
