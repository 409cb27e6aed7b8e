"""Site details (issue 20): the sitemap, fonts, `mkdocs serve`'s watch list, the nav INFO lines,
the preview's tag pages, imported results' sources and the build's summary line.

One small project (a published entry, a refused one, a shared tag and a tag only the refused
one carries) is built twice with the repository's own site settings, plain and preview; the
rest are function-level tests.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import logging
import re
import textwrap
from pathlib import Path

import pytest
import yaml
from mkdocs.config import load_config

from conftest import ROOT, mkdocs, write_project
from glossary.build import GlossaryBuild
from glossary.site import sitemap
from glossary.site.render import cite_imports
from measure import results
from repository_build import repository_build

SITE_URL = "https://example.org/cuda-glossary/"

WARP = """\
---
title: Warp
summary: Thirty-two threads that a multiprocessor schedules and issues as one unit.
tags: [scheduling]
author: Ada Lovelace
written_on: 2026-10-01
reviewer: Charles Babbage
reviewed_on: 2026-10-02
---
A warp executes one instruction at a time for all of its threads.
"""

COALESCING = """\
---
title: Coalescing
summary: Loads from neighbouring threads merging into few memory transactions.
tags: [scheduling, draft-only-tag]
author: Grace Hopper
reviewer: pending
---
Neighbouring loads merge.
"""


def _repo_config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """The project built plain and as a preview: mode -> (site folder, the build's log)."""
    project = write_project(tmp_path_factory.mktemp("details"), {"warp": WARP, "coalescing": COALESCING})
    config = yaml.safe_load((project / "mkdocs.yml").read_text(encoding="utf-8"))
    repo = _repo_config()
    config["site_url"] = repo["site_url"]
    config["theme"]["font"] = repo["theme"]["font"]
    config["validation"] = repo["validation"]
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    out = {}
    for mode, env in (("plain", {}), ("preview", {"GLOSSARY_PREVIEW": "1"})):
        site = project / f"site-{mode}"
        run = mkdocs(project, "build", "-d", str(site), env=env)
        assert run.returncode == 0, run.stderr
        out[mode] = (site, run.stderr)
    return out


def _locations(site: Path) -> list[str]:
    return re.findall(r"<loc>(.*?)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))


# -- mkdocs.yml ----------------------------------------------------------------


def test_the_repository_config_validates_with_the_site_settings():
    config = load_config(str(ROOT / "mkdocs.yml"))
    assert config.site_url == SITE_URL  # a placeholder; mkdocs.yml says the deployer sets it
    assert config.theme["font"] is False
    watched = {Path(p).resolve() for p in config.watch}
    assert {ROOT / "data", ROOT / "templates"} <= watched
    assert config.validation.nav.omitted_files == logging.DEBUG  # "ignore": MkDocs logs it at DEBUG


# -- the sitemap -----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["plain", "preview"])
def test_the_sitemap_lists_exactly_the_published_pages(builds, mode):
    site, _ = builds[mode]
    expected = {SITE_URL, f"{SITE_URL}warp/", f"{SITE_URL}tags/", f"{SITE_URL}tags/scheduling/"}
    assert sorted(_locations(site)) == sorted(expected)
    with gzip.open(site / "sitemap.xml.gz") as packed:
        assert packed.read().decode("utf-8") == (site / "sitemap.xml").read_text(encoding="utf-8")


def test_a_preview_shows_the_drafts_the_sitemap_leaves_out(builds):
    site, _ = builds["preview"]
    assert (site / "coalescing" / "index.html").is_file()
    assert (site / "tags" / "draft-only-tag" / "index.html").is_file()


def test_keep_only_drops_the_other_records_and_reads_escaped_locations():
    xml = textwrap.dedent("""\
        <?xml version="1.0" encoding="UTF-8"?>
        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url>
                 <loc>https://example.org/a/?x=1&amp;y=2</loc>
            </url>
            <url>
                 <loc>https://example.org/draft/</loc>
                 <lastmod>2026-12-01</lastmod>
            </url>
        </urlset>
        """)
    kept, dropped = sitemap.keep_only(xml, {"https://example.org/a/?x=1&y=2"})
    assert dropped == 1 and "draft" not in kept and "a/?x=1&amp;y=2" in kept
    assert kept.rstrip().endswith("</urlset>")


# -- fonts and log lines --------------------------------------------------------------


@pytest.mark.parametrize("mode", ["plain", "preview"])
def test_no_page_loads_fonts_from_google(builds, mode):
    site, _ = builds[mode]
    pages = list(site.rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, page


@pytest.mark.parametrize("mode", ["plain", "preview"])
def test_no_nav_info_lines_and_one_summary_line(builds, mode):
    _, log = builds[mode]
    assert "not included in the" not in log
    summaries = [line for line in log.splitlines() if "entries published" in line or "would be published" in line]
    assert len(summaries) == 1, log
    if mode == "plain":
        assert "1 of 2 entries published; 1 is a draft or refused" in summaries[0]
        assert "GLOSSARY_PREVIEW=1 mkdocs build" in summaries[0]
    else:
        assert "1 of 2 entries would be published" in summaries[0] and "Never deploy" in summaries[0]


# -- tag pages ----------------------------------------------------------------------


def _article(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    return re.sub(r"<[^>]+>", "", re.search(r"<article.*?</article>", text, re.S).group(0))


def test_tag_pages_say_published_only_where_every_entry_is(builds):
    plain, _ = builds["plain"]
    preview, _ = builds["preview"]
    assert "Published entries tagged scheduling" in _article(plain / "tags" / "scheduling" / "index.html")
    assert "Every tag of the published entries" in _article(plain / "tags" / "index.html")
    shown = _article(preview / "tags" / "scheduling" / "index.html")
    assert "Published entries" not in shown
    assert "Entries tagged scheduling in this preview; those marked (draft) are not published" in shown
    assert "Coalescing" in shown and "(draft)" in shown
    assert "published and drafts" in _article(preview / "tags" / "index.html")


# -- imported results cite a source readers can open --------------------------------------


def _kernel_fusion(preview: bool) -> GlossaryBuild:
    return repository_build(preview)


def test_the_t4_tab_links_the_lesson_text_the_site_publishes():
    build = _kernel_fusion(preview=True)
    link = "assets/imported/kernel-fusion-day-48.txt"
    assert (ROOT / "entries" / link).is_file()
    assert link in build.published_sources()
    markdown = build.render_page("kernel-fusion.md")
    assert f"([read the source]({link}))" in markdown
    assert "shared/seed" not in markdown
    note = results.parse(_t4_data())
    assert note.imported_from_url == link and "shared/" not in note.imported_from


def test_a_refused_entrys_cited_source_is_not_published():
    build = _kernel_fusion(preview=False)
    if build.shown("kernel-fusion"):
        pytest.skip("kernel-fusion is published now")
    assert not any(p.startswith("assets/imported/") for p in build.published_sources())


def test_the_source_note_is_escaped_and_the_link_made_safe():
    [model] = [m for m in _kernel_fusion(preview=True).shown_models() if m.entry.slug == "kernel-fusion"]
    [t4] = [d for d in model.devices if d.key == "tesla-t4"]
    hostile = dataclasses.replace(t4, imported_from="[click](javascript:alert(1)) <b>bold</b>")
    [cited] = cite_imports([hostile], {"tesla-t4": "javascript:alert(1)"})
    assert cited.imported_from.startswith("\\[click\\](javascript:")  # brackets escaped: no link
    assert "<b>" not in cited.imported_from
    assert cited.imported_from.endswith("([read the source](#))")
    [measured] = [d for d in model.devices if d.provenance == "measured"][:1]
    assert cite_imports([measured], {measured.key: "https://example.org/"}) == [measured]


@pytest.mark.parametrize("url, ok", [
    ("assets/imported/x.txt", True), ("https://example.org/day-48/", True),
    ("../secrets.txt", False), ("assets/../../x", False), ("javascript:alert(1)", False), ("shared/seed/x", False),
])
def test_imported_from_url_is_an_http_url_or_an_asset(url, ok):
    data = _t4_data()
    data["imported_from_url"] = url
    if ok:
        assert results.parse(data).imported_from_url == url
    else:
        with pytest.raises(Exception, match="imported_from_url"):
            results.parse(data)


def test_only_imported_results_cite_a_source_url():
    data = _t4_data()
    data.update(provenance="measured", fingerprint="f" * 64, imported_from_url="https://example.org/")
    data.pop("imported_from")
    with pytest.raises(Exception, match="imported_from_url"):
        results.parse(data)


def _t4_data() -> dict:
    return json.loads((ROOT / "entries" / "kernel-fusion" / "results" / "tesla-t4.json").read_text(encoding="utf-8"))
