"""Issue 31 on the realistic fixture: the 78-term English glossary in section folders
(tests/fixtures/realistic-glossary/) and its partial Chinese copy (realistic-glossary-zh/),
imported into an empty glossary and beside this repository's own entries.

Every class the importer owns shows up on them: landing pages, abbreviation keys, generic link
texts, old-site and code-span links, near-duplicate slugs, figures before prose, themed images,
and Chinese sentences, questions and link texts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT
from glossary.entries.model import parse_entry
from glossary.importer import import_glossary

EN = FIXTURES / "realistic-glossary"
ZH = FIXTURES / "realistic-glossary-zh"
LANDING = {"README.md", "contributors.md", "device-hardware.md", "performance.md", "host-software.md",
           "programming-model/programming-model.md"}


def _notes(report, source: str, kind: str | None = None) -> str:
    file = next(f for f in report.files if f.source == source)
    return " | ".join(n.message for n in file.notes if kind is None or n.kind == kind)


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    entries = tmp_path_factory.mktemp("en") / "entries"
    entries.mkdir()
    return import_glossary(EN, entries), entries


@pytest.fixture(scope="module")
def chinese(tmp_path_factory):
    entries = tmp_path_factory.mktemp("zh") / "entries"
    entries.mkdir()
    return import_glossary(ZH, entries), entries


def _entries(entries: Path):
    return {p.stem: parse_entry(p, entries) for p in sorted(entries.glob("*.md"))}


def test_landing_pages_are_reported_and_every_term_imported(english):
    report, entries = english
    assert report.ok
    landing = {f.source for f in report.files if any(n.kind == "file" and "landing page" in n.message for n in f.notes)}
    assert landing == LANDING
    assert not any(f.imported for f in report.files if f.source in LANDING)
    assert len(report.imported) == 78


def test_abbreviation_keys_and_titles_ending_in_their_abbreviation(english):
    _, entries = english
    got = _entries(entries)
    assert list(got["streaming-multiprocessor"].meta.abbreviations) == ["SM"]
    assert list(got["instruction-level-parallelism"].meta.abbreviations) == ["ILP"]
    assert list(got["copy-engine"].meta.abbreviations) == ["CE"]
    assert list(got["gpc"].meta.abbreviations) == ["GPC"]
    assert "CUDA Profiling Tools Interface" in got["cupti"].meta.aliases


def test_no_alias_is_a_common_word_or_a_phrase_that_does_not_name_its_term(english):
    report, entries = english
    aliases = {a.lower() for e in _entries(entries).values() for a in e.meta.aliases}
    generic = {"instructions", "cores", "performance", "stalled", "overlaps", "memory", "registers", "block",
               "tiled", "device memory", "warps diverge", "the sm"}
    assert not aliases & generic, aliases & generic
    assert "'instructions' (linked 2 times): one common word" in _notes(report, "host-software/sass.md", "aliases")


def test_code_span_old_site_and_alt_text_links(english):
    report, entries = english
    got = _entries(entries)
    assert "[`cuobjdump`](cuobjdump.md)" in got["cuobjdump"].body
    assert "[`nvcc`](nvcc.md)" in got["cuda-c-plus-plus"].body
    assert "[SMs](streaming-multiprocessor.md)" in got["cupti"].body  # '/gpu-glossary/device-hardware/...'
    assert "[SM](streaming-multiprocessor.md)" in got["texture-unit"].body
    said = _notes(report, "performance/wave-quantization.md", "links")
    assert re.search(r"line \d+: \[performance\]\(/gpu-glossary/performance\): a section's landing page", said)
    assert "the alt text of image themed-image://gpc.svg holds links" in _notes(report, "device-hardware/gpc.md")
    assert "![A GPC holding several streaming multiprocessors](assets/images/gpc.svg)" in got["gpc"].body


def test_figures_before_prose_and_themed_images(english):
    _, entries = english
    got = _entries(entries)
    assert got["copy-engine"].meta.summary.startswith("A copy engine is a DMA unit")
    assert got["gpc"].meta.summary.startswith("A Graphics Processing Cluster is a group")
    assert got["wave-quantization"].meta.summary.startswith("Wave quantization is the loss")
    assert got["wave-quantization"].body.startswith("![Blocks of a grid in waves]")
    images = entries / "assets" / "images"
    for name in ("copy-engine", "gpc"):
        light, dark = (images / f"{name}.svg").read_text(), (images / f"{name}.dark.svg").read_text()
        assert "#fff" in light and "#111" in dark


def test_near_duplicates_and_clashes_with_this_repositorys_entries(tmp_path):
    entries = tmp_path / "entries"
    entries.mkdir()
    for own in (ROOT / "entries").glob("*.md"):  # the project's own slugs, as entries not written by an import
        (entries / own.name).write_text("---\ntitle: Own\nsummary: Ours.\n---\n")
    report = import_glossary(EN, entries, dry_run=True)
    assert report.ok
    for source, own in [("performance/bank-conflict.md", "bank-conflicts"), ("host-software/cuda-graph.md", "cuda-graphs"),
                        ("device-hardware/tensor-core.md", "tensor-cores"), ("performance/roofline-model.md", "roofline")]:
        assert f"nearly the existing entry {own!r}" in _notes(report, source, "slug"), source
    clash = next(f for f in report.files if f.source == "performance/occupancy.md")
    assert clash.imported and clash.slug == "performance-occupancy"
    assert "--merge-into occupancy" in _notes(report, "performance/occupancy.md", "slug")


def test_chinese_summaries_are_one_sentence_and_questions_name_their_term(chinese):
    report, entries = chinese
    assert report.ok and len(report.imported) == 16
    got = _entries(entries)
    for slug, entry in got.items():
        summary = entry.meta.summary
        assert summary[-1] in "。！？" and not re.search(r"[。！？].", summary), (slug, summary)
    assert not any("no sentence end" in n.message for f in report.files for n in f.notes)
    assert "线程束" in got["warp"].meta.aliases and "张量核心" in got["tensor-core"].meta.aliases
    assert "占用率" in got["occupancy"].meta.aliases  # "占用率是什么？"
    assert list(got["streaming-multiprocessor"].meta.abbreviations) == ["SM"]
    assert got["roofline-model"].meta.summary.startswith("屋顶线模型是一张图")  # past the figure


def test_chinese_link_texts_that_are_too_long_or_common_are_no_aliases(chinese):
    report, entries = chinese
    aliases = {a for e in _entries(entries).values() for a in e.meta.aliases}
    assert "关于屋顶线建模的文章" not in aliases and "共享" not in aliases
    assert "longer than 4 words" in _notes(report, "performance/roofline-model.md", "aliases")
    assert "common word" in _notes(report, "device-hardware/shared-memory.md", "aliases")
    assert "[`nvcc`](nvcc.md)" in _entries(entries)["ptx"].body
    assert "[流式多处理器](streaming-multiprocessor.md)" in _entries(entries)["grid"].body
