"""The home page is headed with the site's name (mkdocs.yml's site_name), and a preview's pages
never call drafts published (issue 21). Fixture entries in a project of their own."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from conftest import ROOT, mkdocs
from gate_fixture import COPY, make_project
from glossary.build import GlossaryBuild
from glossary.settings import Settings

TAGGED = COPY.replace("author: Ada Lovelace", "tags: [memory]\nauthor: Ada Lovelace")


def _project(tmp_path: Path, site_name: str = "Fixture glossary") -> Path:
    project = make_project(tmp_path, TAGGED, extra_entries={"draft": _draft()})
    config = project / "mkdocs.yml"
    config.write_text(re.sub(r"(?m)^site_name: .*$", f"site_name: {site_name}", config.read_text()))
    return project


def _draft() -> str:
    head, body = TAGGED.split("\n---\n", 1)
    head = re.sub(r"(?ms)^measure:.*", "", head).replace("title: Copy kernel", "title: Draft copy")
    head = head.replace("tags: [memory]", "tags: [memory, drafty]")
    return head + "---\nA draft that nobody has reviewed yet, kept off the published site.\n"


def _build(project: Path, preview: bool) -> GlossaryBuild:
    options = Settings.for_project(project / "entries", environ={"GLOSSARY_PREVIEW": "1"} if preview else {})
    built = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-wording"))
    built.load()
    return built


def test_the_home_heading_is_the_site_name(tmp_path):
    project = _project(tmp_path, "Team Kernel Notes")
    for preview in (False, True):
        home = _build(project, preview).render_page("index.md")
        assert home.splitlines()[0] == "# Team Kernel Notes"
        assert "CUDA performance glossary" not in home


def test_the_site_name_is_escaped_as_text(tmp_path):
    project = _project(tmp_path, "'*Bold* <b>x</b>'")
    home = _build(project, False).render_page("index.md")
    assert "<b>" not in home.splitlines()[0] and "\\*Bold\\*" in home.splitlines()[0]


def test_a_preview_never_calls_its_drafts_published_or_signed(tmp_path):
    project = _project(tmp_path)
    plain, preview = _build(project, False), _build(project, True)
    assert plain.verdicts["copy"].publishable and not plain.verdicts["draft"].publishable
    files = preview.site_files(True)
    for path, text in files.items():
        if path.startswith("tags/") and path.endswith(".md"):
            assert "Published entries" not in text, path
    assert "in this preview" in files["tags/memory.md"] and "(draft)" in files["tags/memory.md"]
    home = preview.render_page("index.md")
    assert "every entry was signed" not in home and "**(draft)**" in home
    assert "names only, not signed" in home and "marked (draft) is not published" in home
    published = plain.site_files(True)
    assert "Published entries tagged *memory*" in published["tags/memory.md"]
    home = plain.render_page("index.md")  # trust: names: nobody signed, and the home page says so
    assert "1 entry, names only, not signed" in home and "signed by its author" not in home


def test_mkdocs_passes_its_site_name_to_the_home_page(tmp_path):
    project = _project(tmp_path, "Fixture glossary of kernels")
    run = mkdocs(project, "build")
    assert run.returncode == 0, run.stderr
    html = (project / "site" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<h1[^>]*>Fixture glossary of kernels", html)
    assert "CUDA performance glossary" not in html
