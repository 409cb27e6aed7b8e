"""`glossary import` on what real glossaries hold (issue 31, the importer's classes 2, 3, 5-9).

Each test writes a small source folder in the shapes a public glossary has (section folders with
landing pages, `abbreviation:` keys, generic link texts, site-absolute and code-span links,
near-duplicate slugs, bodies that open with a figure, themed images, Chinese text) and imports it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from glossary.cli import cli
from glossary.entries.model import parse_entry
from glossary.importer import import_glossary, naming
from glossary.importer.markdown import first_paragraph, plain_text, rewrite_links, sentence_end

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n'


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def entry(entries: Path, slug: str):
    return parse_entry(entries / f"{slug}.md", entries)


def notes(report, source: str, kind: str | None = None) -> str:
    file = next(f for f in report.files if f.source == source)
    return " | ".join(n.message for n in file.notes if kind is None or n.kind == kind)


def term(title: str, body: str, **keys: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in keys.items())
    return f"---\ntitle: {title}\n{extra}---\n{body}"


# -- class 2: landing pages ------------------------------------------------------------------------


def test_section_landing_pages_are_reported_not_imported_and_give_no_aliases(tmp_path):
    listing = "".join(f"- [{t}](device-hardware/{s}.md): what it is.\n" for s, t in
                      [("sm", "SM"), ("l2", "L2"), ("hbm", "HBM"), ("tc", "TC")])
    src = write_tree(tmp_path / "src", {
        "device-hardware.md": term("Device hardware", "The parts of a GPU.\n\n" + listing),
        "device-hardware/device-hardware.md": term("Hardware", "Also a landing page. See [the SM](sm.md).\n"),
        "device-hardware/sm.md": term("Streaming multiprocessor", "An SM runs warps. It is near [L2](l2.md).\n"),
        "device-hardware/l2.md": term("L2 cache", "The L2 cache is shared by every [SM](sm.md).\n"),
        "device-hardware/hbm.md": term("HBM", "HBM is the DRAM. [Back](../device-hardware.md).\n"),
        "device-hardware/tc.md": term("Tensor core", "A tensor core multiplies tiles.\n"),
        "contributors.md": term("Contributors", "- [Someone](https://example.org/a)\n- [Another](https://example.org/b)\n"),
        "perf/perf-overview.md": term("Performance", "Pages on speed:\n\n" + "".join(
            f"* [Page {i}](../device-hardware/sm.md)\n" for i in range(6))),
    })
    report = import_glossary(src, tmp_path / "entries")
    assert report.ok
    slugs = sorted(f.slug for f in report.imported)
    assert slugs == ["hbm", "l2", "sm", "tc"]
    for source, why in [("device-hardware.md", "beside it"), ("device-hardware/device-hardware.md", "its folder"),
                        ("contributors.md", "glossary itself"), ("perf/perf-overview.md", "list items")]:
        assert "landing page" in notes(report, source, "file") and why in notes(report, source, "file")
    # "the SM" from a landing page is no alias ("SM", the title's initials, from l2.md is); the link back
    # to a landing page is reported with its line
    assert list(entry(tmp_path / "entries", "sm").meta.aliases) == ["SM"]
    assert "line 4: [Back](../device-hardware.md): a section's landing page" in notes(report, "device-hardware/hbm.md")


def test_a_term_with_a_list_in_it_is_still_a_term(tmp_path):
    body = ("The memory hierarchy is the ladder of stores a GPU reads data from, each level larger and slower "
            "than the one above it, from registers at the top to device memory at the bottom of the ladder.\n\n"
            + "".join(f"- [Level {i}](l{i}.md)\n" for i in range(4)))
    src = write_tree(tmp_path / "src", {"hw/memory-hierarchy.md": term("Memory hierarchy", body)})
    report = import_glossary(src, tmp_path / "entries")
    assert [f.slug for f in report.imported] == ["memory-hierarchy"]


# -- class 3: abbreviation keys and acronyms -------------------------------------------------------------


def test_abbreviation_keys_and_title_acronyms_become_abbreviations(tmp_path):
    src = write_tree(tmp_path / "src", {
        "hw/streaming-multiprocessor.md": term("Streaming multiprocessor", "An SM runs warps.\n", abbreviation="SM"),
        "hw/sm-partition.md": term("SM partition", "An SM partition is a quarter of an [SM](streaming-multiprocessor.md).\n"),
        "sw/ptx.md": term("Parallel Thread eXecution (PTX)", "PTX is a virtual instruction set.\n"),
        "sw/tma.md": term("Tensor memory accelerator", "The TMA copies tiles.\n", acronym="[TMA]"),
        "sw/sass.md": term("SASS", "SASS is the machine code; [PTX](ptx.md) compiles to it; so does "
                                   "[the TMA's](tma.md) code. The [TMA](tma.md) is fed by SASS.\n"),
    })
    report = import_glossary(src, tmp_path / "entries")
    entries = tmp_path / "entries"
    assert list(entry(entries, "streaming-multiprocessor").meta.abbreviations) == ["SM"]
    assert "not mapped" not in notes(report, "hw/streaming-multiprocessor.md")
    assert list(entry(entries, "tma").meta.abbreviations) == ["TMA"]
    ptx = entry(entries, "ptx")
    assert list(ptx.meta.abbreviations) == ["PTX"] and "Parallel Thread eXecution" in ptx.meta.aliases
    # "SM" is part of "SM partition"'s title, but it is the SM's own abbreviation: never refused for that
    assert "part of another term" not in notes(report, "hw/streaming-multiprocessor.md", "aliases")


def test_an_acronym_link_text_of_the_titles_initials_is_an_alias(tmp_path):
    src = write_tree(tmp_path / "src", {
        "hw/streaming-multiprocessor.md": term("Streaming multiprocessor", "It runs warps.\n"),
        "hw/sm-partition.md": term("SM partition", "A quarter of one [SM](streaming-multiprocessor.md), and of "
                                                   "its [SMs](streaming-multiprocessor.md).\n"),
    })
    import_glossary(src, tmp_path / "entries")
    assert list(entry(tmp_path / "entries", "streaming-multiprocessor").meta.aliases) == ["SM"]


# -- class 5: an alias names its term ---------------------------------------------------------------


def test_generic_and_common_link_texts_never_become_aliases(tmp_path):
    src = write_tree(tmp_path / "src", {
        "a/sass.md": term("SASS", "SASS is machine code.\n"),
        "a/shared-memory.md": term("Shared memory", "Shared memory is on chip.\n"),
        "a/warp-scheduler.md": term("Warp scheduler", "It picks a warp.\n"),
        "a/roofline-model.md": term("Roofline model", "A chart of limits.\n"),
        "a/stall.md": term("Warp stall", "A warp that cannot issue.\n"),
        "a/copy-engine.md": term("Copy engine", "It copies.\n"),
        "a/one.md": term("One", "Text with [instructions](sass.md), [shared](shared-memory.md), "
                               "[performance](roofline-model.md), [stalled](stall.md), [the roofline](roofline-model.md), "
                               "[scheduler](warp-scheduler.md), [smem](shared-memory.md), [overlaps](copy-engine.md) and "
                               "[DMA units](copy-engine.md).\n"),
        "a/two.md": term("Two", "Also [smem](shared-memory.md) and [instructions](sass.md), [copying](copy-engine.md).\n"),
    })
    report = import_glossary(src, tmp_path / "entries")
    entries = tmp_path / "entries"
    assert list(entry(entries, "sass").meta.aliases) == []  # a common word, even linked from two files
    assert list(entry(entries, "shared-memory").meta.aliases) == ["smem"]  # two files link it so
    assert list(entry(entries, "roofline-model").meta.aliases) == ["roofline"]  # the title less "model"
    assert list(entry(entries, "warp-scheduler").meta.aliases) == ["scheduler"]  # the title's rare head noun
    assert list(entry(entries, "stall").meta.aliases) == []
    assert list(entry(entries, "copy-engine").meta.aliases) == []
    said = notes(report, "a/sass.md", "aliases")
    assert "'instructions' (linked 2 times): one common word" in said
    assert "common word" in notes(report, "a/shared-memory.md", "aliases")
    said = notes(report, "a/copy-engine.md", "aliases")
    assert "'overlaps' (linked 1 time): one common word" in said and "'copying' (linked 1 time): one common" in said
    assert "'DMA units' (linked 1 time): it does not name the term" in said


def test_a_verb_form_of_a_noun_term_is_no_alias():
    assert naming.is_inflection("overlapping", ("overlap",))
    assert naming.is_inflection("compiled", ("compile",))
    assert not naming.is_inflection("overlaps", ("overlap",))  # the noun's plural: the tooltips' rule


def test_common_words_come_from_wordfreq_in_english_and_chinese():
    assert all(naming.is_common_word(w) for w in ("instructions", "caches", "shared", "grid", "stalled", "共享"))
    assert not any(naming.is_common_word(w) for w in ("multiprocessor", "roofline", "smem", "线程束", "warp scheduler"))


# -- class 6: broken links -----------------------------------------------------------------------------


def test_code_span_site_absolute_and_alt_text_links_are_rewritten_or_reported_with_their_line(tmp_path):
    src = write_tree(tmp_path / "src", {
        "host-software/nvcc.md": term("nvcc", "nvcc is the CUDA compiler driver.\n"),
        "device-hardware/sm.md": term("Streaming multiprocessor", "An SM runs warps.\n"),
        "images/sm.svg": SVG,
        "host-software/ptx.md": term("PTX", "PTX is a virtual ISA.\n\n"
                                     "It is compiled by [`nvcc`](nvcc.md), runs on an "
                                     "[SM](/gpu-glossary/device-hardware/sm) and is not `[code](nvcc.md)`.\n\n"
                                     "![The [SM](../device-hardware/sm.md) that runs it](../images/sm.svg)\n\n"
                                     "See [the start](/gpu-glossary) and [a section](/gpu-glossary/device-hardware).\n"),
    })
    report = import_glossary(src, tmp_path / "entries")
    body = entry(tmp_path / "entries", "ptx").body
    assert "[`nvcc`](nvcc.md)" in body  # a term link whose text is code keeps its target
    assert "[SM](sm.md)" in body  # the old site's base path is dropped
    assert "`[code](nvcc.md)`" in body  # code never changes
    assert "![The SM that runs it](assets/images/sm.svg)" in body
    said = notes(report, "host-software/ptx.md", "links")
    assert "line 8: the alt text of image ../images/sm.svg holds links" in said
    assert "line 10: [the start](/gpu-glossary): not a term" in said
    assert "line 10: [a section](/gpu-glossary/device-hardware)" in said
    assert "nvcc" not in entry(tmp_path / "entries", "nvcc").meta.aliases  # code names an identifier


def test_rewrite_links_sees_code_inside_a_link_text_only():
    seen = []
    rewrite_links("[`a`](x.md) `[b](y.md)` [c](`z`)\n```\n[d](w.md)\n```\n", lambda l: seen.append(l.dest) or l.raw)
    assert seen == ["x.md"]


# -- class 7: near-duplicate slugs, --rename, --merge-into -----------------------------------------------


def test_near_duplicates_are_reported_and_a_clash_imports_beside_the_entry(tmp_path):
    entries = tmp_path / "entries"
    write_tree(entries, {"bank-conflicts.md": "---\ntitle: Bank conflicts\nsummary: Mine.\n---\n",
                         "roofline.md": "---\ntitle: Roofline\nsummary: Mine.\n---\n",
                         "cuda-graph.md": "---\ntitle: CUDA graph\nsummary: Mine.\n---\n"})
    src = write_tree(tmp_path / "src", {
        "perf/bank-conflict.md": term("Bank conflict", "Two lanes, one bank.\n"),
        "perf/roofline-model.md": term("Roofline model", "A chart.\n"),
        "sw/cuda-graph.md": term("CUDA graph", "Launches as one. Unlike a [tensor core](../hw/tensor-cores.md).\n"),
        "hw/tensor-core.md": term("Tensor core", "A matrix unit.\n"),
        "hw/tensor-cores.md": term("Tensor cores", "Many matrix units.\n"),
    })
    report = import_glossary(src, entries)
    assert report.ok
    assert "nearly the existing entry 'bank-conflicts'" in notes(report, "perf/bank-conflict.md", "slug")
    assert "nearly the existing entry 'roofline'" in notes(report, "perf/roofline-model.md", "slug")
    assert "nearly 'tensor-cores'" in notes(report, "hw/tensor-core.md", "slug")
    # an exact clash: imported beside the project's entry, which stays as it was
    assert entry(entries, "sw-cuda-graph").meta.title == "CUDA graph"
    assert (entries / "cuda-graph.md").read_text().endswith("summary: Mine.\n---\n")
    assert "--merge-into cuda-graph" in notes(report, "sw/cuda-graph.md", "slug")


def test_rename_and_merge_into(tmp_path):
    entries = tmp_path / "entries"
    write_tree(entries, {"bank-conflicts.md": "---\ntitle: Bank conflicts\nsummary: Mine.\n---\n"})
    src = write_tree(tmp_path / "src", {
        "perf/bank-conflict.md": term("Bank conflict", "Two lanes, one bank.\n"),
        "perf/roofline-model.md": term("Roofline model", "A chart.\n\nSee [conflicts](bank-conflict.md).\n"),
    })
    result = CliRunner().invoke(cli, ["--entries", str(entries), "import", str(src), "--merge-into",
                                      "bank-conflict=bank-conflicts", "--rename", "roofline-model=roofline"])
    assert result.exit_code == 0, result.output
    assert not (entries / "bank-conflict.md").exists() and (entries / "roofline.md").exists()
    assert "[conflicts](bank-conflicts.md)" in entry(entries, "roofline").body
    assert list(entry(entries, "roofline").meta.related) == ["bank-conflicts"]
    bad = CliRunner().invoke(cli, ["--entries", str(entries), "import", str(src), "--rename", "roofline"])
    assert bad.exit_code == 2 and "OLD=NEW" in bad.output
    missing = import_glossary(src, entries, merges={"bank-conflict": "nothing-here"}, dry_run=True)
    assert not missing.ok and "neither an entry nor an imported term" in notes(missing, "perf/bank-conflict.md")


def test_near_keys():
    assert naming.near_key("bank-conflicts") == naming.near_key("bank-conflict")
    assert naming.near_key("roofline-model") == naming.near_key("roofline")
    assert naming.near_key("warp") != naming.near_key("warp-scheduler")


# -- class 8: figures before prose, themed images -------------------------------------------------------


def test_a_body_opening_with_a_figure_takes_its_summary_from_the_prose(tmp_path):
    src = write_tree(tmp_path / "src", {
        "images/sm.svg": SVG,
        "hw/sm.md": term("Streaming multiprocessor",
                         "![A diagram of an SM with its four partitions.](../images/sm.svg)\n"
                         "*Figure 1. The SM.*\n\n"
                         "A streaming multiprocessor is the unit that runs warps. It has four partitions.\n"),
        "hw/l2.md": term("L2 cache", '<figure markdown>\n<img src="../images/sm.svg">\n<figcaption>The L2.'
                                     '</figcaption>\n</figure>\n\nThe L2 cache is shared by all SMs. More.\n'),
    })
    report = import_glossary(src, tmp_path / "entries")
    sm = entry(tmp_path / "entries", "sm")
    assert sm.meta.summary == "A streaming multiprocessor is the unit that runs warps."
    assert sm.body.startswith("![A diagram of an SM with its four partitions.](assets/images/sm.svg)")
    assert "It has four partitions." in sm.body and "the unit that runs warps" not in sm.body
    assert "opens with a figure" in notes(report, "hw/sm.md", "summary")
    assert entry(tmp_path / "entries", "l2").meta.summary == "The L2 cache is shared by all SMs."


@pytest.mark.parametrize("light,dark", [("images/light-sm.svg", "images/dark-sm.svg"),
                                        ("images/sm-light.svg", "images/sm-dark.svg"),
                                        ("images/light/sm.svg", "images/dark/sm.svg"),
                                        ("images/sm.svg", "images/sm.dark.svg")])
def test_themed_images_become_a_light_and_dark_pair(tmp_path, light, dark):
    dark_svg = SVG.replace("<rect", '<rect fill="white"')
    src = write_tree(tmp_path / "src", {light: SVG, dark: dark_svg, "hw/sm.md": term(
        "Streaming multiprocessor", "An SM runs warps.\n\n![The SM](themed-image://sm.svg)\n\n"
                                    "![Gone](themed-image://nothing.svg)\n")})
    report = import_glossary(src, tmp_path / "entries")
    images = tmp_path / "entries" / "assets" / "images"
    assert (images / "sm.svg").read_text() == SVG and (images / "sm.dark.svg").read_text() == dark_svg
    body = entry(tmp_path / "entries", "sm").body
    assert "![The SM](assets/images/sm.svg)" in body and "themed-image" not in body
    assert "line 8: themed-image://nothing.svg: no light or dark image" in notes(report, "hw/sm.md", "images")


# -- class 9: Chinese -------------------------------------------------------------------------------------


def test_chinese_sentences_end_at_cjk_stops():
    assert sentence_end("线程束是一组线程。它们一起执行！") == len("线程束是一组线程。")
    assert sentence_end("这是问题吗？是的。") == len("这是问题吗？")
    assert sentence_end("「引号里的话。」后面的话。") == len("「引号里的话。」")
    assert sentence_end("SM 的意思是流式多处理器（SM）。然后") == len("SM 的意思是流式多处理器（SM）。")
    assert sentence_end("这是什么?那是线程束!") == len("这是什么?")  # ASCII marks between CJK characters
    assert sentence_end("版本 3.5 的线程束。") == len("版本 3.5 的线程束。")  # a decimal is no end


def test_a_chinese_glossary_imports_with_one_sentence_summaries_and_question_titles(tmp_path):
    src = write_tree(tmp_path / "src", {
        "device-hardware/warp.md": term("什么是线程束？", "线程束是 32 个一起调度的[线程](thread.md)。每个[流式多处理器](sm.md)"
                                                        "同时保存许多线程束。\n"),
        "device-hardware/thread.md": term("线程", "线程是一条指令流。它属于一个[线程束](warp.md)！\n"),
        "device-hardware/sm.md": term("流式多处理器（SM）", "流式多处理器是运行[线程束](warp.md)的单元？是的。\n"),
        "device-hardware/roofline.md": term("屋顶线模型", "屋顶线模型是一张图。参见[关于屋顶线建模的文章](roofline.md)"
                                                     "和[关于屋顶线建模的文章](roofline.md)。\n"),
        "device-hardware/other.md": term("其他", "另见[关于屋顶线建模的文章](roofline.md)和[共享](thread.md)与"
                                               "[共享](thread.md)。\n"),
    })
    report = import_glossary(src, tmp_path / "entries")
    entries = tmp_path / "entries"
    warp = entry(entries, "warp")
    assert warp.meta.summary == "线程束是 32 个一起调度的线程。"
    assert "线程束" in warp.meta.aliases  # what follows 什么是, not the file name
    assert entry(entries, "thread").meta.summary == "线程是一条指令流。"
    assert entry(entries, "sm").meta.summary == "流式多处理器是运行线程束的单元？"
    assert not any("no sentence end" in n.message for f in report.files for n in f.notes)
    assert list(entry(entries, "roofline").meta.aliases) == []  # ten CJK characters: five words
    assert "longer than 4 words" in notes(report, "device-hardware/roofline.md", "aliases")
    assert "common word" in notes(report, "device-hardware/thread.md", "aliases")


def test_alias_length_counts_per_script():
    assert naming.words("关于屋顶线建模的文章") == 5
    assert naming.words("流式多处理器") == 3 and naming.words("CUDA 核心") == 2
    assert naming.words("warp scheduler") == 2


def test_plain_text_and_first_paragraph_of_chinese_and_figures():
    body = "![图](a.svg)\n\n线程束是一组线程。"
    start, stop = first_paragraph(body)
    assert body[start:stop] == "线程束是一组线程。" and plain_text("[线程](t.md)。") == "线程。"


def test_the_new_passes_are_bounded_on_hostile_bodies(tmp_path):
    import time

    many = 1000  # within the markup budget (glossary.entries.markdown_budget): the import refuses more
    body = ("A hostile term. " + " ".join(f"[`c{i}`](missing{i}.md) `x` [t{i}](/site/x/missing{i})"
                                           for i in range(many)) + "\n\n"
            + "\n\n".join("![a [b](c.md)](themed-image://n%d.svg)" % i for i in range(many)) + "\n")
    images = {f"img/light-n{i}.svg": SVG for i in range(200)}
    src = write_tree(tmp_path / "src", {"a/hostile.md": term("Hostile", body), **images,
                                        "a/list.md": term("List", "- [x](y.md)\n" * 4000)})
    start = time.perf_counter()
    report = import_glossary(src, tmp_path / "entries", dry_run=True)
    assert time.perf_counter() - start < 20
    said = notes(report, "a/hostile.md", "links")
    assert said.count("line ") >= 2 * many
    assert "landing page" in notes(report, "a/list.md", "file")


def test_a_line_break_inside_chinese_text_is_no_space():
    assert plain_text("线程束是\n一组[线程](t.md)。\nThe end\nof it") == "线程束是一组线程。 The end of it"


def test_a_term_in_a_folder_of_its_own_is_no_landing_page(tmp_path):
    src = write_tree(tmp_path / "src", {
        "warp/warp.md": term("Warp", "A warp is 32 threads.\n\n![Lanes](lanes.svg)\n"), "warp/lanes.svg": SVG,
        "core/thread.md": term("Thread", "A thread runs.\n"), "core/block.md": term("Block", "A block of threads.\n"),
        "table.md": term("CUDA tools", "The CUDA tools are the programs of the toolkit that build, check and "
                                       "profile CUDA code; each has a page of its own, and the table below says "
                                       "which one a task needs and how often it is used in practice by the "
                                       "teams that write kernels every day, from the first build to the "
                                       "last profile of a release, on every machine they run.\n\n"
                         + "".join(f"| [tool {i}](core/thread.md) | what tool {i} does |\n" for i in range(8)))})
    report = import_glossary(src, tmp_path / "entries", dry_run=True)
    assert sorted(f.slug for f in report.imported) == ["block", "table", "thread", "warp"]


def test_a_rename_or_merge_of_no_term_is_an_error(tmp_path):
    src = write_tree(tmp_path / "src", {"a/warp.md": term("Warp", "A warp.\n")})
    report = import_glossary(src, tmp_path / "entries", dry_run=True, renames={"wrap": "x"}, merges={"thred": ""})
    assert not report.ok
    said = " | ".join(n.message for n in report.general)
    assert "--rename wrap: no term" in said and "--merge-into thred: no term" in said
