"""The render stage (issue 30): raw entries are never in a builder's docs_dir, so the promise holds on
any builder that reads mkdocs.yml, not only while the hook runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import forked
from conftest import ROOT, mkdocs
from site_fixture import REFUSED_WORDS, build_fixture_site

ZENSICAL = shutil.which("zensical") or (Path(sys.executable).parent / "zensical")
needs_zensical = pytest.mark.skipif(not Path(ZENSICAL).is_file(), reason="zensical is not installed "
                                                                          "(pip install -e '.[test]')")


def glossary(project: Path, *args: str) -> subprocess.CompletedProcess:
    return forked.run([sys.executable, "-m", "glossary.cli", "--entries", str(project / "entries"), *args],
                      cwd=project, timeout=300)


def render_mode(project: Path, hook: bool = True) -> Path:
    """The fixture project as the repository is laid out: docs_dir the render stage's folder."""
    config = yaml.safe_load((project / "mkdocs.yml").read_text())
    config["docs_dir"] = "build/docs"
    config["extra"]["glossary"]["entries"] = "entries"
    if not hook:
        config.pop("hooks", None)  # a builder that runs none of the glossary's code
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (project / "build" / "docs").mkdir(parents=True, exist_ok=True)
    return project


def copied(project: Path, where: Path, hook: bool = True) -> Path:
    """A clean copy of the fixture project (nothing built or rendered), in render mode."""
    shutil.copytree(project, where, ignore=shutil.ignore_patterns("site", "build"))
    return render_mode(where, hook=hook)


def zensical(project: Path) -> None:
    run = subprocess.run([str(ZENSICAL), "build"], cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    site = build_fixture_site(tmp_path_factory.mktemp("render"))  # built as before: docs_dir is entries/
    return site.parent, site


def published(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


def no_trace_of_the_refused_entry(site: Path) -> None:
    assert not (site / "bank-conflict").exists()
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".json", ".xml", ".md", ".cu", ".txt"):
            assert REFUSED_WORDS not in path.read_text(errors="replace"), path


def test_the_rendered_site_is_the_site_the_hook_built(fixture, tmp_path):
    project, before = fixture
    render_mode(project)
    run = mkdocs(project, "build", "-d", str(tmp_path / "after"))
    assert run.returncode == 0, run.stderr
    compare = subprocess.run([sys.executable, str(ROOT / "bench" / "compare_sites.py"), "--sites", str(before),
                              str(tmp_path / "after")], capture_output=True, text=True)
    assert compare.stdout.strip().endswith("0 difference(s) between " + f"{before} and {tmp_path / 'after'}"), \
        compare.stdout
    docs = project / "build" / "docs"
    assert (docs / "stream-triad.md").is_file() and not (docs / "bank-conflict.md").exists()
    assert not (docs / "bank-conflict").exists()
    assert "{{" not in (docs / "stream-triad.md").read_text()  # figures rendered, no template code left
    no_trace_of_the_refused_entry(tmp_path / "after")


def test_a_builder_that_runs_no_glossary_code_publishes_only_the_last_gated_render(fixture, tmp_path):
    project, _ = fixture
    clean = copied(project, tmp_path / "clean", hook=False)
    empty = mkdocs(clean, "build")  # a fresh clone: nothing rendered yet, so nothing to publish
    assert empty.returncode == 0, empty.stderr
    assert not any(p.name.endswith(".md") or "stream-triad" in str(p) for p in (clean / "site").rglob("*"))
    rendered = glossary(clean, "render")
    assert rendered.returncode == 1 and "bank-conflict" in rendered.stderr + rendered.stdout  # refused, named
    plain = mkdocs(clean, "build")
    assert plain.returncode == 0, plain.stderr
    assert (clean / "site" / "stream-triad" / "index.html").is_file()
    no_trace_of_the_refused_entry(clean / "site")


def test_a_preview_render_never_reaches_the_publish_folder(fixture, tmp_path):
    project, _ = fixture
    copy = copied(project, tmp_path / "p")
    assert glossary(copy, "render").returncode == 1
    assert glossary(copy, "render", "--preview").returncode == 0
    assert (copy / "build" / "preview" / "bank-conflict.md").is_file()
    assert not (copy / "build" / "docs" / "bank-conflict.md").exists()
    preview = mkdocs(copy, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert preview.returncode == 0, preview.stderr
    assert not (copy / "build" / "docs" / "bank-conflict.md").exists()
    manifest = json.loads((copy / "build" / "docs" / ".glossary-render.json").read_text())
    assert manifest["mode"] == "publish" and "bank-conflict.md" not in manifest["files"]


def test_a_render_older_than_its_sources_is_reported(fixture, tmp_path):
    project, _ = fixture
    copy = copied(project, tmp_path / "s")
    glossary(copy, "render")
    fresh = json.loads(glossary(copy, "check", "--json").stdout)
    assert not [p for p in fresh["general"] if p["check"] == "render"]
    entry = copy / "entries" / "occupancy.md"
    entry.write_text(entry.read_text() + "\nA late edit.\n")
    stale = json.loads(glossary(copy, "check", "--json").stdout)
    said = [p["message"] for p in stale["general"] if p["check"] == "render"]
    assert said and "entries/occupancy.md" in said[0] and "glossary render" in said[0]


def test_the_render_folder_may_not_be_the_entries(fixture, tmp_path):
    project, _ = fixture
    copy = copied(project, tmp_path / "o")
    config = yaml.safe_load((copy / "mkdocs.yml").read_text())
    config["docs_dir"] = "entries"
    (copy / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    run = mkdocs(copy, "build")
    assert run.returncode != 0 and "overlap" in run.stderr


@needs_zensical
def test_zensical_on_a_clean_clone_publishes_no_refused_entry(fixture, tmp_path):
    project, _ = fixture
    clean = copied(project, tmp_path / "z")
    zensical(clean)
    assert not list((clean / "site").rglob("stream-triad*"))
    no_trace_of_the_refused_entry(clean / "site")


@needs_zensical
def test_after_glossary_render_zensical_publishes_what_mkdocs_publishes(fixture, tmp_path):
    project, _ = fixture
    copy = copied(project, tmp_path / "zm")
    assert mkdocs(copy, "build", "-d", str(tmp_path / "mk")).returncode == 0
    zensical(copy)
    no_trace_of_the_refused_entry(copy / "site")

    def content(site: Path) -> set[str]:  # the glossary's pages and files; theme chrome may differ
        return {p for p in published(site) if not p.startswith(("assets/javascripts", "assets/stylesheets",
                                                                "assets/images/favicon", "search/", "404"))
                and p not in ("search.json", "sitemap.xml.gz", "objects.inv") and not p.startswith(".")}

    assert content(copy / "site") == content(tmp_path / "mk")
