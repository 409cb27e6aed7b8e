"""The theme's compiled templates kept between builds in the user's cache (glossary.site.bytecode, issue 34)."""

from __future__ import annotations

import jinja2

from conftest import mkdocs, write_project
from glossary.site import bytecode

ENTRY = "---\ntitle: Alpha\nsummary: The alpha term.\nauthor: pending\nreviewer: pending\n---\nProse.\n"


def test_the_cache_is_the_users_and_named_by_kind_and_jinja_release(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache = bytecode.cache_for("theme")
    assert isinstance(cache, jinja2.FileSystemBytecodeCache)
    assert (tmp_path / "cache" / "glossary" / "templates" / f"theme-jinja-{jinja2.__version__}").is_dir()


def test_no_cache_where_the_users_cache_cannot_be_made(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert bytecode.cache_for("theme") is None


def test_a_build_keeps_the_themes_code_outside_the_project_and_a_second_build_reads_it(tmp_path):
    project = write_project(tmp_path, {"alpha": ENTRY})
    env = {"XDG_CACHE_HOME": str(tmp_path / "user-cache")}
    first = mkdocs(project, "build", env=env)
    assert first.returncode == 0, first.stderr
    kept = sorted((tmp_path / "user-cache").rglob("*.cache"))
    assert len(kept) >= 10  # Material's main, base and partials
    assert any(p.parent.name.startswith("glossary-jinja-") for p in kept)  # the entry page's own templates
    assert not [p for p in project.rglob("*.cache") if p.is_file()]
    page = (project / "site" / "index.html").read_text()
    second = mkdocs(project, "build", env=env)
    assert second.returncode == 0, second.stderr
    assert (project / "site" / "index.html").read_text() == page
    assert sorted((tmp_path / "user-cache").rglob("*.cache")) == kept
