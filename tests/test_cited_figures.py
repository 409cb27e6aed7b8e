"""Cited figures (issue 21): a figure taken from a source renders marked "cited" with its source,
is counted apart from measured figures, and the lint flags a number with a unit only when it is
neither bound, nor cited, nor arithmetic, nor marked as no figure. Fixture entries and fixture
sources only: the figures here are test text, not claims of the glossary."""

from __future__ import annotations

import datetime as dt
import logging
import textwrap
from pathlib import Path

import markdown
import pytest

from conftest import ROOT, write_project
from glossary.build import GlossaryBuild
from glossary.entries import lint
from glossary.entries.errors import EntryError
from glossary.entries.model import Source, load_entries, parse_entry
from glossary.figures import bind
from glossary.site import counts, render, tooltips
from glossary.settings import Settings
from page_fixture import render as render_page

SOURCES = (Source("Fixture GPU datasheet", "https://example.org/datasheet", dt.date(2026, 11, 20), id="sheet"),
           Source("Fixture paper", "https://example.org/paper", dt.date(2026, 11, 21)))

SOURCES_YAML = """\
sources:
  - {id: sheet, title: Fixture GPU datasheet, url: "https://example.org/datasheet", checked: 2026-11-20}
  - {title: Fixture paper, url: "https://example.org/paper", checked: 2026-11-21}
"""


def _render(body: str):
    cited: list[str] = []
    text, problems = bind.render_body(body, (), {}, sources=SOURCES, cited=cited)
    return text, problems, cited


# -- rendering ---------------------------------------------------------------------------------


def test_a_cited_figure_is_marked_and_names_its_source():
    text, problems, cited = _render('The peak is {{ cite("3.35 TB/s", "sheet") }} and {{ cite("42 ns", 2) }}.')
    assert problems == []
    html = markdown.markdown(text, extensions=["attr_list"])
    assert '<span class="glossary-cited" title="Cited from Fixture GPU datasheet, checked 2026-11-20' in html
    assert '>3.35 TB/s</span><sup class="glossary-cited-mark"><a href="#source-sheet">cited</a></sup>' in html
    assert '<a href="#source-2">cited</a>' in html  # a source without an id is named by its number
    assert cited == ["https://example.org/datasheet", "https://example.org/paper"]


def test_a_citation_of_no_source_is_a_problem_and_visible():
    text, problems, cited = _render('Peak {{ cite("3.35 TB/s", "sheeet") }}.')
    assert "[no source: sheeet]" in text and cited == []
    assert len(problems) == 1 and "'sheeet'" in problems[0] and "'sheet'" in problems[0]
    _, problems = bind.render_body('{{ cite("1 ms", 1) }}', (), {}, sources=())
    assert "lists no sources" in problems[0]


def test_a_cited_table_marks_every_number_and_gets_a_caption():
    body = textwrap.dedent("""\
        {% call cite_table("sheet") %}
        | GPU | Memory bandwidth (TB/s) | FP16 (TFLOPS) |
        |:--|--:|--:|
        | Fixture X | 3.35 | 989.4 |
        | Fixture Y | 4.8 | n/a |
        {% endcall %}
        """)
    text, problems, cited = _render(body)
    assert problems == [] and len(cited) == 3
    html = markdown.markdown(text, extensions=["attr_list", "tables"])
    assert html.count('class="glossary-cited"') == 3 and ">n/a<" in html
    assert '<p class="glossary-cited-caption">Cited from <a href="#source-sheet">Fixture GPU datasheet</a>' in html
    _, problems, _ = _render('{% call cite_table("sheet") %}not a table{% endcall %}')
    assert "holds no Markdown table" in problems[0]


def test_nofig_is_text_and_only_literal_citations_run():
    text, problems, _ = _render('Say it took {{ nofig("100 ms") }}.')
    assert (text, problems) == ("Say it took 100 ms.", [])
    body = '{{ cite(x, "sheet") }} {% call cite_table(x) %}| a |{% endcall %}'
    text, problems, _ = _render(body)
    assert text == body and "not a bound figure" in problems[0]


def test_the_page_links_each_cited_mark_to_its_source(tmp_path):
    text = f"---\ntitle: Fixture peak\nsummary: A fixture term with a cited figure.\n{SOURCES_YAML}---\n" \
           'Its peak is {{ cite("3.35 TB/s", "sheet") }}, and {{ cite("4.8 TB/s", "sheet") }} later.\n'
    project = write_project(tmp_path, {"peak": text})
    page = render_page(project, "peak")
    html = markdown.markdown(page, extensions=["attr_list", "abbr"])
    assert '<li id="source-sheet">' in html and '<li id="source-2">' in html
    assert "cited for 2 figures on this page" in html
    assert html.count('href="#source-sheet">cited</a>') == 2


def test_a_citation_of_no_source_keeps_the_entry_off_the_site(tmp_path):
    text = f"---\ntitle: T\nsummary: S.\n{SOURCES_YAML}author: A Person\nreviewer: B Person\n---\n" \
           '{{ cite("3 TB/s", "nowhere") }}\n'
    project = write_project(tmp_path, {"t": text})
    build = GlossaryBuild(Settings(entries_dir=project / "entries", templates_dir=ROOT / "templates"),
                          logging.getLogger("test"))
    build.load()
    assert not build.verdicts["t"].publishable
    assert any("'nowhere'" in r for r in build.verdicts["t"].reasons)


def test_source_ids_are_slugs_and_unique(tmp_path):
    dup = SOURCES_YAML.replace("- {title: Fixture paper", "- {id: sheet, title: Fixture paper")
    (tmp_path / "a.md").write_text(f"---\ntitle: A\nsummary: S.\n{dup}---\nBody.\n")
    with pytest.raises(EntryError, match=r"sources\[1\]\.id"):
        parse_entry(tmp_path / "a.md", tmp_path)
    bad = SOURCES_YAML.replace("id: sheet", "id: Sheet One")
    (tmp_path / "a.md").write_text(f"---\ntitle: A\nsummary: S.\n{bad}---\nBody.\n")
    with pytest.raises(EntryError, match=r"sources\[0\]\.id"):
        parse_entry(tmp_path / "a.md", tmp_path)


# -- counting ----------------------------------------------------------------------------------


def test_the_home_sentence_counts_what_the_pages_hold():
    both = counts.FigureCounts(measured=312, gpus=("GPU A", "GPU B"), imported=0, cited=41, sources=9)
    assert both.sentence().startswith("312 figures on these pages were measured on 2 GPUs (GPU A, GPU B)")
    assert "; 41 are cited from 9 sources" in both.sentence()
    only_cited = counts.FigureCounts(measured=0, gpus=(), imported=0, cited=1, sources=1)
    assert only_cited.sentence().startswith("No figure on these pages was measured here; 1 figure is cited from 1 source")
    assert counts.FigureCounts(0, (), 0, 0, 0).sentence() == ""


def test_the_real_home_page_counts_cited_and_measured_figures():
    build = GlossaryBuild(Settings.for_project(ROOT / "entries", environ={"GLOSSARY_PREVIEW": "1",
                                                                          "GLOSSARY_MEASURE": "never"}),
                          logging.getLogger("test"))
    build.load()
    home = build.render_page("index.md")
    found = counts.FigureCounts.of(build.shown_models())
    assert found.measured > 100 and found.cited >= 1  # the tensor-core entry cites a datasheet peak
    assert found.sentence() in home
    assert "Every figure on these pages came from a real measurement" not in home


# -- the lint ----------------------------------------------------------------------------------


def _lint(tmp_path: Path, body: str) -> list[lint.Finding]:
    (tmp_path / "term.md").write_text("---\ntitle: T\nsummary: S\n---\n" + textwrap.dedent(body))
    return lint.unbound_figures(load_entries(tmp_path)["term"])


def test_the_lint_keeps_quiet_on_arithmetic_hypotheticals_and_orders_of_magnitude(tmp_path):
    found = _lint(tmp_path, """\
        A warp of 32 threads × 4 bytes = 128 bytes; 16 × 8 × 16 = 2,048 products per mma.
        Four loads of 4096 × 4096 × 4 bytes = 64 MiB each, and 2 x 3 = 6.
        Suppose a kernel takes 100 ms. Say, 10 TB/s of bandwidth. For example, 5 µs per launch.
        A GPU with 10 TB/s of bandwidth would still wait. Loads, e.g. 3 TB/s peaks, are rare.
        A switch is 1000x faster than a context switch, 100× cheaper.
        It is {{ nofig("100 ms") }} and {{ cite("8 TB/s", 1) }} and {{ fig.ms("a") }}.
        {% call cite_table(1) %}
        | GPU | Memory bandwidth (TB/s) |
        |:--|--:|
        | X | 3.35 |
        {% endcall %}
        """)
    assert found == []


def test_the_lint_flags_datasheet_numbers_measurements_tables_and_wrong_sums(tmp_path):
    found = _lint(tmp_path, """\
        The peak is 66.9 TFLOPS and 8 TB/sec, or 66,908 billion FLOPS on the same line.
        A real 16x reduction in throughput; it took 0.785 ms.
        Wrong: 16 × 8 × 16 = 2,049 products.

        | GPU | Memory bandwidth (TB/s) | SMs |
        |:--|--:|--:|
        | X | 3.35 | 132 |
        | Y | 4.8 | 132 |
        """)
    assert [(f.text, f.kind) for f in found] == [
        ("66.9 TFLOPS", "rate"), ("8 TB/sec", "bandwidth"), ("66,908 billion FLOPS", "rate"),
        ("16x", "speedup"), ("0.785 ms", "time"), ("16 × 8 × 16 = 2,049", "arithmetic"),
        ("Memory bandwidth (TB/s)", "table column")]
    assert "cite its source" in str(found[0]) and "nofig" in str(found[0])
    assert "16 × 8 × 16 is 2,048" in str(found[5])
    assert "holds 2 hand-typed figures" in str(found[6]) and "cite_table" in str(found[6])
    assert found[0].line == 5 and found[6].line == 9


def test_the_lint_is_linear_on_long_hostile_lines(tmp_path):
    import time
    started = time.perf_counter()
    _lint(tmp_path, "1 × " * 10000 + "\n" + "| a (ms) |\n|--|\n" + "| 1 |\n" * 4000 + "say, " * 10000 + "\n")
    # unclosed template and code openers (the entry model's markup budget refuses such a body; the
    # lint's own masking must not be the slow part either)
    lint._mask("{{ " * 60000 + "{% call cite_table(1) %} " * 8000 + "\n" + "```\n~~~\n" * 20000)
    assert time.perf_counter() - started < 5


# -- question-style titles -----------------------------------------------------------------------


def test_question_titles_give_the_term_they_ask_about():
    assert tooltips.question_terms("What is occupancy?", "occupancy")[1:] == ["occupancy"]
    assert "tensor cores" in tooltips.question_terms("What are tensor cores?", "tensor-cores")
    assert tooltips.question_terms("How does a warp scheduler pick a warp?", "warp-scheduler")[1:] == ["warp scheduler"]
    assert tooltips.question_terms("Kernel fusion", "kernel-fusion") == ["Kernel fusion"]


def test_the_index_files_questions_under_their_term(tmp_path):
    entries = {"occupancy": "What is occupancy?", "bank-conflict": "Bank conflict"}
    for slug, title in entries.items():
        (tmp_path / f"{slug}.md").write_text(f"---\ntitle: \"{title}\"\nsummary: S.\n---\nBody.\n")
    loaded = load_entries(tmp_path)
    assert render.index_term(loaded["occupancy"]) == "occupancy"
    assert render.index_term(loaded["bank-conflict"]) == "Bank conflict"


def test_glossary_json_counts_each_entrys_measured_and_cited_figures():
    import json
    build = GlossaryBuild(Settings.for_project(ROOT / "entries", environ={"GLOSSARY_PREVIEW": "1",
                                                                          "GLOSSARY_MEASURE": "never"}),
                          logging.getLogger("test"))
    build.load()
    exported = {e["slug"]: e for e in json.loads(build.site_files()["glossary.json"])["entries"]}
    tensor = exported["tensor-cores"]
    assert tensor["figures"]["cited"] == 1 and tensor["figures"]["measured"] > 0
    cited = [s for s in tensor["sources"] if s["cited_figures"]]
    assert [(s["id"], s["cited_figures"]) for s in cited] == [("h100-whitepaper", 1)]
