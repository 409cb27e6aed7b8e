"""Tooltips, lesson catalogue, tag pages and kernel sources: pure functions and one render."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from glossary.entries import lessons
from glossary.site import tags, tooltips
from glossary.build import GlossaryBuild
from glossary.settings import GlossaryError, Settings
from glossary.entries.model import Lesson, parse_entry
from repository_build import render

ROOT = Path(__file__).resolve().parent.parent


def _entry(tmp_path: Path, slug: str, title: str, summary: str, extra: str = ""):
    path = tmp_path / f"{slug}.md"
    path.write_text(f"---\ntitle: {title}\nsummary: {summary}\n{extra}---\nBody.\n")
    return parse_entry(path, tmp_path)


def test_tooltip_lines_for_other_entries_used_in_the_page(tmp_path):
    fusion = _entry(tmp_path, "kernel-fusion", "Kernel fusion", "Merging kernels.")
    graph = _entry(tmp_path, "cuda-graph", "CUDA graph", "A recorded launch sequence.",
                   "abbreviations: [graphs]\n")
    terms = tooltips.terms([fusion, graph])
    text = "Unlike kernel fusion, a CUDA graph keeps kernels; see kernel-fusions and graphs."
    def found(own):
        return [(surface, term.definition) for surface, term in tooltips.mentions(text, terms, own_slug=own)]

    assert found(None) == [("kernel fusion", "Merging kernels."), ("CUDA graph", "A recorded launch sequence."),
                           ("graphs", "A recorded launch sequence.")]  # 'kernel-fusions' is no use of it
    assert found("kernel-fusion") == [("CUDA graph", "A recorded launch sequence."),
                                      ("graphs", "A recorded launch sequence.")]
    assert tooltips.append("No terms here.\n", terms, None) == "No terms here.\n"


def test_lesson_catalogue_resolves_days_and_falls_back(tmp_path):
    path = tmp_path / "lessons.yml"
    path.write_text('48: {title: Kernel fusion, url: "https://example.org/48/"}\n30: {title: Bytes first}\n')
    catalog = lessons.load_catalog(path)
    resolved = lessons.resolve([Lesson(48, "Own title"), Lesson(30, "Mindset", "note"), Lesson(7, "Day seven")],
                               catalog)
    assert resolved == [
        {"day": 48, "title": "Kernel fusion", "url": "https://example.org/48/", "note": "", "entries": [], "more_entries": 0},
        {"day": 30, "title": "Bytes first", "url": None, "note": "note", "entries": [], "more_entries": 0},
        {"day": 7, "title": "Day seven", "url": None, "note": "", "entries": [], "more_entries": 0},
    ]
    assert lessons.load_catalog(tmp_path / "missing.yml") == {}


@pytest.mark.parametrize("text, words", [
    ("48: {title: X, url: ftp://nope}\n", "day 48, key 'url'"),
    ("48: {title: X, link: y}\n", "unknown key(s) link"),
    ("forty: {title: X}\n", "expected a day number"),
])
def test_bad_lesson_catalogue_names_file_and_day(tmp_path, text, words):
    path = tmp_path / "lessons.yml"
    path.write_text(text)
    with pytest.raises(lessons.LessonsError) as err:
        lessons.load_catalog(path)
    assert str(path) in str(err.value) and words in str(err.value)


def test_bad_catalogue_stops_the_build_with_a_message(tmp_path):
    (tmp_path / "entries").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "lessons.yml").write_text("48: nope\n")
    options = Settings.resolve(tmp_path / "entries", tmp_path, {}, serving=False, environ={})
    with pytest.raises(GlossaryError, match="lessons.yml, day 48"):
        GlossaryBuild(options, logging.getLogger("t")).load()


def test_tag_slugs_and_paths():
    assert tags.tag_slug("Memory bound") == "memory-bound"
    assert tags.tag_path("memory-bound") == "tags/memory-bound.md"


def test_kernel_fusion_page_has_plot_kernel_source_tags_and_lesson_titles():
    page = render("kernel-fusion")
    assert "(kernel-fusion/plots/tesla-t4.svg){ .glossary-plot" in page
    assert '??? note "chain.cu — sha256 ' in page
    assert "    ```cuda\n" in page
    # the whole block, its first line too, is inside the collapsible note
    assert "…\"\n    The source the harness compiled and timed: [chain.cu](kernel-fusion/chain.cu)" in page
    assert "Tags: [memory-bound](tags/memory-bound.md), [optimization](tags/optimization.md)" in page
    assert "- **Day 30, The memory-bound mindset**" in page


def test_lessons_resolve_to_the_other_entries_that_list_the_day():
    from types import SimpleNamespace

    from glossary.entries import lessons
    from glossary.entries.model import Lesson

    def entry(slug, title, days):
        return SimpleNamespace(slug=slug, title=title,
                               meta=SimpleNamespace(lessons=[Lesson(d, "t") for d in days]))

    by_day = lessons.entries_by_day([entry("b", "Beta", [30, 30]), entry("a", "Alpha", [30, 49])])
    assert by_day == {30: [{"slug": "a", "title": "Alpha"}, {"slug": "b", "title": "Beta"}],
                      49: [{"slug": "a", "title": "Alpha"}]}
    out = lessons.resolve([Lesson(30, "Own"), Lesson(7, "Seven")],
                          {}, by_day, own_slug="a")
    assert [x["entries"] for x in out] == [[{"slug": "b", "title": "Beta"}], []]
    many = lessons.entries_by_day([entry(f"e{i}", f"E{i:02d}", [30]) for i in range(9)])
    capped = lessons.resolve([Lesson(30, "Own")], {}, many, own_slug="e0")[0]
    assert len(capped["entries"]) == lessons.MAX_LINKED and capped["more_entries"] == 3
