"""`glossary import DIR` (issue 21): a folder of Markdown terms in section folders as draft entries.

Small source folders are written into tmp_path; each test imports one and reads the entries back
through the strict entry parser, the report, and `glossary check` (``checks.inspect``).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from glossary import checks
from glossary.cli import cli
from glossary.entries.model import MAX_SUMMARY_CHARS, parse_entry
from glossary.importer import import_glossary
from glossary.importer.markdown import plain_text, sentence_end

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n'
DARK_SVG = SVG.replace("<rect", '<rect fill="white"')

CLEAN = {
    "core/warp.md": """\
---
title: "What is a warp?"
weight: 3
authors: [Someone Else]
---
A warp is a group of 32 [threads](thread.md) that a [Streaming Multiprocessor](../device/streaming-multiprocessor.md) schedules together, e.g. for one instruction at a time.

Each [SM](/device/streaming-multiprocessor/) holds many warps, i.e. it switches between them (see Fig. 2 below).

![Warp schedule](../images/warp-schedule.svg)

The [CUDA programming guide](https://docs.nvidia.com/cuda/cuda-c-programming-guide/) describes warps in detail.

```ptx
mov.b64 {%f1, %f2}, %rd1;   // [not a link](thread.md)
```

Inline code such as `[also code](thread.md)` stays as typed.
""",
    "core/thread.md": """\
# Thread

A thread is one sequential stream of instructions, one lane of a [warp](./warp.md#lanes).

Threads of one [block](../core/thread-block) share [smem](../device/shared-memory.md).
""",
    "core/thread-block.md": """\
---
title: Thread block
---
A thread block is a group of [threads](thread) that run on one [SM](../device/streaming-multiprocessor.md) and share its [smem](../device/shared-memory.md).

Its [Threads](thread.md) can synchronise; a [block](thread-block.md) is the unit the hardware schedules.
""",
    "device/streaming-multiprocessor.md": """\
---
title: Streaming multiprocessor
abbreviations: [SM]
---
A streaming multiprocessor is the unit of a GPU that runs [warps](../core/warp.md) of [threads](../core/thread.md).

Several [thread blocks](../core/thread-block.md) can be resident on one [SMs](streaming-multiprocessor.md) at a time, sharing its [shared memory](shared-memory.md).
""",
    "device/shared-memory.md": """\
---
title: Shared memory
sources:
  - {title: CUDA C++ Programming Guide, url: "https://docs.nvidia.com/cuda/cuda-c-programming-guide/", checked: 2026-11-20}
---
Shared memory is on-chip memory that the [threads](../core/thread.md) of one [thread block](../core/thread-block.md) share.

It is fast, and small: see [here](shared-memory.md) for the banks.
""",
}


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path) -> tuple[Path, Path]:
    """(source folder with the CLEAN terms and an image with its dark partner, empty entries folder)."""
    src = write_tree(tmp_path / "src", {**CLEAN, "images/warp-schedule.svg": SVG,
                                        "images/warp-schedule.dark.svg": DARK_SVG})
    entries = tmp_path / "project" / "entries"
    entries.mkdir(parents=True)
    (tmp_path / "project" / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    return src, entries


def entry(entries: Path, slug: str):
    return parse_entry(entries / f"{slug}.md", entries)


def notes(report, source: str, kind: str | None = None) -> list[str]:
    file = next(f for f in report.files if f.source == source)
    return [n.message for n in file.notes if kind is None or n.kind == kind]


# -- the whole import --------------------------------------------------------------------------


def test_clean_import_leaves_only_the_pending_people_for_glossary_check(project):
    src, entries = project
    report = import_glossary(src, entries)
    assert report.ok and len(report.imported) == 5
    reports, general = checks.inspect(entries)
    assert not general
    problems = [(r.slug, p.check, p.message) for r in reports for p in r.problems]
    assert problems and all(check == "gate" and "pending" in message for _, check, message in problems), problems
    assert {r.slug for r in reports} == {"warp", "thread", "thread-block", "streaming-multiprocessor",
                                         "shared-memory"}


def test_each_entry_maps_title_summary_tags_related_and_people(project):
    src, entries = project
    import_glossary(src, entries)
    warp = entry(entries, "warp")
    assert warp.meta.title == "What is a warp?"
    assert warp.meta.summary == ("A warp is a group of 32 threads that a Streaming Multiprocessor schedules "
                                 "together, e.g. for one instruction at a time.")
    assert "A warp is a group" not in warp.body  # the summary is the page's lead; the body does not repeat it
    assert warp.body.startswith("Each [SM](streaming-multiprocessor.md) holds many warps, i.e.")
    assert list(warp.meta.tags) == ["core"]
    assert list(warp.meta.related) == ["thread", "streaming-multiprocessor"]
    assert (warp.meta.author, warp.meta.reviewer) == ("pending", "pending")
    assert warp.meta.written_on is None and warp.meta.reviewed_on is None
    assert warp.meta.measure is None and list(warp.meta.lessons) == []
    assert "warp" in warp.meta.aliases  # the question-style title's term, from the file name
    thread = entry(entries, "thread")
    assert thread.meta.title == "Thread" and not thread.body.lstrip().startswith("#")  # the H1, removed
    assert entry(entries, "shared-memory").meta.sources[0].title == "CUDA C++ Programming Guide"
    assert list(entry(entries, "streaming-multiprocessor").meta.abbreviations) == ["SM"]


def test_unmapped_front_matter_is_reported_and_authors_never_copied(project):
    src, entries = project
    report = import_glossary(src, entries)
    said = " ".join(notes(report, "core/warp.md", "front-matter"))
    assert "weight" in said and "authors" in said
    assert "Someone Else" not in (entries / "warp.md").read_text()


# -- links ---------------------------------------------------------------------------------------


def test_term_links_in_every_form_become_slug_links_with_anchors_kept(project):
    src, entries = project
    report = import_glossary(src, entries)
    thread = (entries / "thread.md").read_text()
    assert "[block](thread-block.md)" in thread and "[smem](shared-memory.md)" in thread
    assert "[warp](warp.md#lanes)" not in thread  # it was in the first sentence: now the summary's text
    assert entry(entries, "thread").meta.summary.endswith("one lane of a warp.")
    block = (entries / "thread-block.md").read_text()
    assert "[Threads](thread.md)" in block and "[block](thread-block.md)" in block
    warp = (entries / "warp.md").read_text()
    assert "[SM](streaming-multiprocessor.md)" in warp  # '/device/streaming-multiprocessor/'
    assert "[CUDA programming guide](https://docs.nvidia.com/cuda/cuda-c-programming-guide/)" in warp
    assert report.links_rewritten >= 8


def test_links_inside_code_never_change(project):
    src, entries = project
    import_glossary(src, entries)
    warp = (entries / "warp.md").read_text()
    assert "mov.b64 {%f1, %f2}, %rd1;   // [not a link](thread.md)" in warp
    assert "`[also code](thread.md)`" in warp


def test_a_link_to_a_term_not_in_the_folder_becomes_its_text_and_is_reported(tmp_path):
    src = write_tree(tmp_path / "src", {"a/one.md": "---\ntitle: One\n---\nOne is a term.\n\nIt uses "
                                                    "[a missing term](../b/gone.md) and [a page](gone.html).\n"})
    report = import_glossary(src, tmp_path / "entries")
    body = entry(tmp_path / "entries", "one").body
    assert "It uses a missing term and a page." in body
    said = notes(report, "a/one.md", "links")
    assert len(said) == 2 and "../b/gone.md" in said[0]
    assert report.ok


def test_related_is_capped_and_the_rest_reported(tmp_path, monkeypatch):
    import glossary.importer.run as run

    monkeypatch.setattr(run, "MAX_RELATED", 2)
    files = {f"s/t{i}.md": f"---\ntitle: T{i}\n---\nT{i} is a term.\n" for i in range(4)}
    files["s/hub.md"] = "---\ntitle: Hub\n---\nHub links.\n\n" + " ".join(f"[t{i}](t{i}.md)" for i in (3, 1, 2, 1)) + "\n"
    report = import_glossary(write_tree(tmp_path / "src", files), tmp_path / "entries")
    assert list(entry(tmp_path / "entries", "hub").meta.related) == ["t3", "t1"]
    assert any("t2" in n for n in notes(report, "s/hub.md", "related"))


# -- the summary ---------------------------------------------------------------------------------


@pytest.mark.parametrize("paragraph, sentence", [
    ("A warp is 32 threads, e.g. a lane each. More.", "A warp is 32 threads, e.g. a lane each."),
    ("HBM3 moves 3.35 TB/s, i.e. fast. Next.", "HBM3 moves 3.35 TB/s, i.e. fast."),
    ("CPU vs. GPU matters. Next.", "CPU vs. GPU matters."),
    ("As Fig. 2 shows, it stalls. Next.", "As Fig. 2 shows, it stalls."),
    ("Call `cudaFree(p). Then` once. Next.", "Call `cudaFree(p). Then` once."),
    ("See [the guide. Really](https://x.org/a.b) now. Next.", "See [the guide. Really](https://x.org/a.b) now."),
    ("What is occupancy? It is a ratio.", "What is occupancy?"),
    ("It ends (in brackets.) Then more.", "It ends (in brackets.)"),
    ("No end here", None),
])
def test_the_first_sentence_ends_where_a_sentence_ends(paragraph, sentence):
    end = sentence_end(paragraph)
    assert (None if end is None else paragraph[:end].rstrip()) == sentence


def test_summary_is_plain_text():
    assert plain_text("A [*warp*](warp.md) runs `mma.sync` on **SMs** ![x](y.png).") == "A warp runs mma.sync on SMs ."


def test_a_long_or_missing_first_sentence_is_reported_and_left_a_todo(tmp_path):
    long = "word " * (MAX_SUMMARY_CHARS // 4)
    src = write_tree(tmp_path / "src", {"s/long.md": f"---\ntitle: Long\n---\n{long.strip()}.\n",
                                        "s/list.md": "---\ntitle: List\n---\n- an item\n- another\n"})
    report = import_glossary(src, tmp_path / "entries")
    assert report.ok
    for slug in ("long", "list"):
        got = entry(tmp_path / "entries", slug)
        assert got.meta.summary.startswith("TODO")
        assert notes(report, f"s/{slug}.md", "summary")
    assert entry(tmp_path / "entries", "long").body.startswith("word word")


# -- images --------------------------------------------------------------------------------------


def test_images_are_copied_with_their_dark_partner_and_rewritten(project):
    src, entries = project
    report = import_glossary(src, entries)
    images = entries / "assets" / "images"
    assert (images / "warp-schedule.svg").read_text() == SVG
    assert (images / "warp-schedule.dark.svg").read_text() == DARK_SVG
    assert "![Warp schedule](assets/images/warp-schedule.svg)" in (entries / "warp.md").read_text()
    assert report.images_copied == 2


def test_missing_clashing_and_escaping_images(tmp_path):
    (tmp_path / "secret.png").write_bytes(b"secret")
    src = write_tree(tmp_path / "src", {
        "a/one.md": "---\ntitle: One\n---\nOne is a term.\n\n![A](pic.png) ![B](nope.png) ![C](../../secret.png)\n",
        "b/two.md": "---\ntitle: Two\n---\nTwo is a term.\n\n<img src=\"pic.png\" alt=\"other\">\n",
        "a/pic.png": b"first", "b/pic.png": b"second"})
    report = import_glossary(src, tmp_path / "entries")
    images = tmp_path / "entries" / "assets" / "images"
    assert (images / "pic.png").read_bytes() == b"first" and (images / "two-pic.png").read_bytes() == b"second"
    assert '<img src="assets/images/two-pic.png" alt="other">' in entry(tmp_path / "entries", "two").body
    one = entry(tmp_path / "entries", "one").body
    assert "![A](assets/images/pic.png) B C" in one
    said = " ".join(notes(report, "a/one.md", "images"))
    assert "nope.png is missing" in said and "outside the imported folder" in said
    assert sorted(p.name for p in images.iterdir()) == ["pic.png", "two-pic.png"]


# -- aliases -------------------------------------------------------------------------------------


def test_link_texts_become_aliases_unless_a_spelling_already_matches(project):
    src, entries = project
    report = import_glossary(src, entries)
    assert list(entry(entries, "shared-memory").meta.aliases) == ["smem"]  # linked twice
    # 'SMs', 'Streaming Multiprocessor', 'threads', 'Threads', 'warps': the title, the abbreviation
    # or a plural already match them
    assert list(entry(entries, "streaming-multiprocessor").meta.aliases) == []
    assert list(entry(entries, "thread").meta.aliases) == []
    # 'block' is one common English word: as an alias it would mark every block of the site (issue 31)
    assert list(entry(entries, "thread-block").meta.aliases) == []
    assert "common word" in " ".join(notes(report, "core/thread-block.md", "aliases"))
    said = " ".join(notes(report, "device/shared-memory.md", "aliases"))
    assert "'here'" in said and "generic" in said


def test_another_terms_name_is_never_an_alias(tmp_path):
    src = write_tree(tmp_path / "src", {
        "s/cache.md": "---\ntitle: L2 cache\n---\nThe L2 cache is shared.\n",
        "s/l1.md": "---\ntitle: L1 cache\n---\nThe L1 cache is near.\n\nUnlike the [L2 cache](cache.md), a "
                   "[L1 cache](cache.md) ... no: [cache](cache.md), [HBM 3](cache.md), [42](cache.md).\n"})
    report = import_glossary(src, tmp_path / "entries")
    # 'HBM 3' is a name no title has, but it does not name the L2 cache and one file links it so (issue 31)
    assert list(entry(tmp_path / "entries", "cache").meta.aliases) == []
    said = " ".join(notes(report, "s/cache.md", "aliases"))
    assert "another term (l1)" in said and "does not name the term" in said and "'42'" in said


# -- names, overwriting, dry run, the command ----------------------------------------------------


def test_slug_clashes_reserved_slugs_and_existing_entries(tmp_path):
    src = write_tree(tmp_path / "src", {"a/warp.md": "---\ntitle: Warp\n---\nA warp.\n",
                                        "b/warp.md": "---\ntitle: Warp two\n---\nAnother warp.\n",
                                        "b/tags.md": "---\ntitle: Tags\n---\nTags are labels.\n",
                                        "a/kept.md": "---\ntitle: Kept\n---\nKept is kept.\n",
                                        "a/index.md": "# Section A\n"})
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "kept.md").write_text("---\ntitle: Kept\nsummary: Mine.\n---\n")
    report = import_glossary(src, entries)
    assert report.ok  # kept.md is the project's own: the term is imported beside it (issue 31), never over it
    assert (entries / "kept.md").read_text() == "---\ntitle: Kept\nsummary: Mine.\n---\n"
    assert entry(entries, "a-kept").meta.title == "Kept"
    assert "--merge-into kept" in " ".join(notes(report, "a/kept.md", "slug"))
    assert entry(entries, "b-warp").meta.title == "Warp two"
    assert entry(entries, "b-tags").meta.title == "Tags"
    assert notes(report, "b/warp.md", "slug") and notes(report, "b/tags.md", "slug")
    assert not (entries / "index.md").exists() and notes(report, "a/index.md", "file")


def test_overwrite_replaces_only_an_earlier_import(project):
    src, entries = project
    import_glossary(src, entries)
    (entries / "assets" / "images" / "warp-schedule.svg").unlink()
    again = import_glossary(src, entries)
    assert not again.ok and not again.imported
    assert not (entries / "assets" / "images" / "warp-schedule.svg").exists()  # not for an entry not written
    (entries / "thread.md").write_text("---\ntitle: Thread\nsummary: Written by hand.\n---\n")
    replaced = import_glossary(src, entries, overwrite=True)
    assert not replaced.failed  # the hand-written thread.md stays; the term is imported beside it (issue 31)
    assert "Written by hand." in (entries / "thread.md").read_text()
    assert entry(entries, "core-thread").meta.title == "Thread"


def test_dry_run_writes_nothing(project):
    src, entries = project
    report = import_glossary(src, entries, dry_run=True)
    assert report.ok and len(report.imported) == 5 and report.images_copied == 2
    assert list(entries.iterdir()) == []


def run_cli(entries: Path, *args: str):
    return CliRunner().invoke(cli, ["--entries", str(entries), "import", *args], catch_exceptions=False)


def test_cli_exit_codes_and_report_files(project, tmp_path):
    src, entries = project
    assert run_cli(entries, str(tmp_path / "nowhere")).exit_code == 2
    result = run_cli(entries, str(src), "--report", str(tmp_path / "report.json"))
    assert result.exit_code == 0, result.output
    assert "imported 5 of 5" in result.output
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["ok"] and data["totals"]["imported"] == 5 and data["totals"]["images_copied"] == 2
    assert any(n["kind"] == "front-matter" for f in data["files"] for n in f["notes"])
    result = run_cli(entries, str(src), "--dry-run", "--report", str(tmp_path / "report.md"))
    assert result.exit_code == 1  # every entry exists now: nothing could be imported
    assert "# Import of" in (tmp_path / "report.md").read_text()


def test_a_term_that_cannot_be_read_fails_the_import_but_not_the_others(tmp_path):
    src = write_tree(tmp_path / "src", {"s/bad.md": "---\ntitle: [unclosed\n---\nBad.\n",
                                        "s/good.md": "---\ntitle: Good\n---\nGood is fine. It [links](bad.md).\n"})
    assert run_cli(tmp_path / "entries", str(src)).exit_code == 2  # no entries folder
    (tmp_path / "entries").mkdir()
    result = run_cli(tmp_path / "entries", str(src))
    assert result.exit_code == 1
    assert "s/bad.md" in result.output and "not imported" in result.output
    good = entry(tmp_path / "entries", "good")
    assert "It links." in good.body and list(good.meta.related) == []


# -- bounded on hostile input --------------------------------------------------------------------


def test_symlinks_out_of_the_folder_are_not_followed(tmp_path):
    outside = write_tree(tmp_path / "outside", {"secret.md": "---\ntitle: Secret\n---\nSecret text.\n"})
    src = write_tree(tmp_path / "src", {"s/a.md": "---\ntitle: A\n---\nA is a term.\n"})
    os.symlink(outside / "secret.md", src / "s" / "secret.md")
    os.symlink(outside, src / "linked")
    report = import_glossary(src, tmp_path / "entries")
    assert not (tmp_path / "entries" / "secret.md").exists()
    assert notes(report, "s/secret.md") and report.general


def test_file_count_and_size_are_capped(tmp_path, monkeypatch):
    import glossary.importer.reading as reading

    monkeypatch.setattr(reading, "MAX_IMPORT_FILES", 3)
    files = {f"s/t{i}.md": f"---\ntitle: T{i}\n---\nT{i} is a term.\n" for i in range(5)}
    files["s/t0.md"] = "---\ntitle: Big\n---\n" + "x" * (300 * 1024)
    report = import_glossary(write_tree(tmp_path / "src", files), tmp_path / "entries")
    assert not report.ok and len(report.files) == 3
    assert "KB" in notes(report, "s/t0.md")[0]


def test_hostile_markup_is_bounded_work(tmp_path):
    files = {"s/brackets.md": "---\ntitle: B\n---\nB is.\n\n" + "[" * 60_000 + "\n",
             "s/links.md": "---\ntitle: L\n---\nL is.\n\n" + "[a](" * 20_000 + "\n",
             "s/dots.md": "---\ntitle: D\n---\n" + "e.g. x " * 20_000 + "\n"}
    started = time.monotonic()
    import_glossary(write_tree(tmp_path / "src", files), tmp_path / "entries")
    assert time.monotonic() - started < 10


def test_reference_links_resolve_through_their_definitions(tmp_path):
    src = write_tree(tmp_path / "src", {
        "s/warp.md": "---\ntitle: Warp\n---\nA warp is a group of threads.\n",
        "s/lane.md": "---\ntitle: Lane\n---\nA lane is one thread of a [warp][w].\n\nSee the [group][w] and "
                     "[gone][g].\n\n[w]: warp.md#top\n[g]: ../elsewhere/gone.md\n"})
    report = import_glossary(src, tmp_path / "entries")
    lane = entry(tmp_path / "entries", "lane")
    assert list(lane.meta.related) == ["warp"]
    assert "See the [group][w] and gone." in lane.body and "[w]: warp.md#top" in lane.body
    assert "gone.md" not in lane.body
    assert any("gone.md" in n for n in notes(report, "s/lane.md", "links"))


def test_a_question_in_the_file_name_gives_the_asked_term_as_alias(tmp_path):
    src = write_tree(tmp_path / "src", {
        "p/what-is-occupancy.md": '---\ntitle: "What is occupancy?"\n---\nOccupancy is a ratio.\n',
        "p/what-are-tensor-cores.md": '---\ntitle: "What are tensor cores?"\n---\nTensor cores multiply tiles.\n',
        "p/comments.md": "---\n# only a comment\n---\n# Comments\n\nComments are notes.\n"})
    import_glossary(src, tmp_path / "entries")
    assert list(entry(tmp_path / "entries", "what-is-occupancy").meta.aliases) == ["occupancy"]
    assert list(entry(tmp_path / "entries", "what-are-tensor-cores").meta.aliases) == ["tensor core"]
    assert entry(tmp_path / "entries", "comments").meta.summary == "Comments are notes."


def test_links_to_entries_imported_earlier_resolve(tmp_path):
    entries = tmp_path / "entries"
    import_glossary(write_tree(tmp_path / "a", {"core/warp.md": "---\ntitle: Warp\n---\nA warp is 32 threads.\n"}),
                    entries)
    import_glossary(write_tree(tmp_path / "b", {"perf/occupancy.md": "---\ntitle: Occupancy\n---\nOccupancy "
                                                "counts [warps](../core/warp.md).\n"}), entries)
    assert list(entry(entries, "occupancy").meta.related) == ["warp"]


def test_html_links_to_terms_are_rewritten_too(tmp_path):
    src = write_tree(tmp_path / "src", {
        "s/warp.md": "---\ntitle: Warp\n---\nA warp is a group of threads.\n",
        "t/lane.md": '---\ntitle: Lane\n---\nA lane is a thread.\n\nOf a <a href="../s/warp.md#x">warp</a> and '
                     '<a href="gone.md">gone</a>.\n'})
    report = import_glossary(src, tmp_path / "entries")
    lane = entry(tmp_path / "entries", "lane")
    assert '<a href="warp.md#x">warp</a>' in lane.body and '<a href="gone.md">gone</a>' in lane.body
    assert list(lane.meta.related) == ["warp"]
    assert any("gone.md" in n for n in notes(report, "t/lane.md", "links"))


def test_the_summary_is_found_past_headings_and_sources_keep_their_shape(tmp_path):
    src = write_tree(tmp_path / "src", {"s/warp.md": """\
---
title: "What is a warp?"
sources:
  - {title: Guide, url: "https://example.org/guide", checked: 2026-01-02, note: why, id: guide}
  - https://example.org/bare
  - {title: No date, url: "https://example.org/x"}
---
# Warp

## Definition

A warp is 32 threads. It runs in lockstep.
"""})
    report = import_glossary(src, tmp_path / "entries")
    warp = entry(tmp_path / "entries", "warp")
    assert warp.meta.summary == "A warp is 32 threads."
    assert warp.body.startswith("## Definition\n\nIt runs in lockstep.")
    assert [s.title for s in warp.meta.sources] == ["Guide"] and warp.meta.sources[0].note == "why"
    assert len(notes(report, "s/warp.md", "sources")) >= 2
    assert notes(report, "s/warp.md", "title")  # '# Warp' left the body: the page shows the title


def test_figures_typed_by_hand_are_reported_for_a_cite_or_nofig(tmp_path):
    """The import cannot know a figure's source: each number with a figure's unit that is neither
    arithmetic nor marked is kept as written and listed in the report, with its line."""
    src = write_tree(tmp_path / "src", {"a/peak.md": (
        "---\ntitle: Peak\n---\nA peak is the most a part can do.\n\n"
        "Hopper reaches 66.9 TFLOPS. A warp reads 32 × 4 = 128 bytes. Suppose a kernel takes 100 ms.\n\n"
        "| GPU | Bandwidth (TB/s) |\n|:--|--:|\n| X | 3.35 |\n")})
    report = import_glossary(src, tmp_path / "entries")
    found = notes(report, "a/peak.md", "figures")
    assert len(found) == 2, found
    assert "'66.9 TFLOPS'" in found[0] and "cite" in found[0] and "nofig" in found[0]
    assert "Bandwidth (TB/s)" in found[1] and "cite_table" in found[1]
    assert report.ok  # reported, not refused: the entry is written as a draft
