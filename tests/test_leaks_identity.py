"""The leak check by identity (issue 31, class 1), at function level: what is a refused entry's own
(its page, folder, links and records to it, text no shown entry has) is found wherever it stands;
what only resembles it (a tag page of the same slug, a sentence a shown entry shares) is not."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from glossary.entries.model import load_entries
from glossary.site import leaks

SITE_URL = "https://example.org/cuda-glossary/"


def _entry(title: str, summary: str, body: str, extra: str = "") -> str:
    return f"---\ntitle: {title}\nsummary: {summary}\n{extra}author: Ada Lovelace\nreviewer: pending\n---\n{body}"


ENTRIES = {
    # refused
    "device-software": _entry("Device software", "The section of terms about software that runs on the device.",
                              "- [CUDA](cuda.md)\n- [PTX](ptx.md)\n\nEvery term of this section has one line here, "
                              "as a landing page would list them.\n"),
    "warp": _entry("Warp", "A group of thirty-two threads that the hardware schedules together.",
                   "CUDA stands for Compute Unified Device Architecture.\n\n"
                   "A warp is a group of thirty-two threads that execute one instruction together.\n\n"
                   "| Part | Note |\n|--|--|\n| scheduler | Each warp scheduler issues one warp instruction per cycle. |\n\n"
                   "线程束是调度的基本单位，每个线程束有三十二个线程。线程束内的线程同步执行同一条指令。\n\n"
                   "Made with Material for MkDocs, as every page of the theme says at its foot.\n"),
    # shown
    "cuda": _entry("CUDA", "The platform and programming model for running general code on NVIDIA GPUs.",
                   "CUDA stands for Compute Unified Device Architecture. Kernels are written in C++.\n\n"
                   "A [warp](warp.md) is a group of thirty-two threads that execute one instruction together.\n\n"
                   "线程束是调度的基本单位，每个线程束有三十二个线程。\n", "tags: [device-software]\n"),
}
KERNEL = "extern \"C\" __global__ void warp_vote(const int* flags, int* out, long long n)\n{ out[0] = 1; }\n"


@pytest.fixture
def traces(tmp_path):
    entries = tmp_path / "entries"
    entries.mkdir()
    for slug, text in ENTRIES.items():
        (entries / f"{slug}.md").write_text(text, encoding="utf-8")
    loaded = load_entries(entries)
    warp = dataclasses.replace(loaded["warp"], kernel_files={"warp.cu": KERNEL.encode()})  # as its spec read it
    refused = [loaded["device-software"], warp]
    shown = [loaded["cuda"]]
    rendered = ["# CUDA\n\nCUDA stands for Compute Unified Device Architecture. Kernels are written in C++.\n\n"
                "A warp is a group of thirty-two threads that execute one instruction together.\n"]
    site = tmp_path / "site"
    site.mkdir()
    (site / "404.html").write_text("<footer>Made with Material for MkDocs, as every page of the theme says at "
                                   "its foot.</footer>")

    def find(files: dict[str, str]) -> list[str]:
        for rel, content in files.items():
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_text(content, encoding="utf-8")
        try:
            return leaks.find(site, refused, shown, rendered, SITE_URL)
        finally:
            for rel in files:
                (site / rel).unlink()

    return find


SITEMAP = "<urlset>" + "".join(f"<url><loc>{SITE_URL}{p}</loc></url>" for p in ("", "cuda/", "tags/",
                                                                                   "tags/device-software/")) + "</urlset>"

CLEAN = {
    "a tag page named like a refused entry": {"tags/device-software/index.html": "<h1>device-software</h1>",
                                              "sitemap.xml": SITEMAP},
    "a link to that tag page": {"cuda/index.html": '<a href="../tags/device-software/">device-software</a>'},
    "a search record of the tag page": {"search/search_index.json": json.dumps(
        {"docs": [{"location": "tags/device-software/", "text": "<p>CUDA</p>"}]})},
    "a sentence a shown entry shares": {"cuda/index.html": "<p>CUDA stands for <em>Compute Unified Device "
                                                           "Architecture</em>. Kernels are written in C++.</p>"},
    "a link's text to a refused entry, unlinked": {"cuda/index.html": "<p>A warp is a group of thirty-two "
                                                                      "threads that execute one instruction "
                                                                      "together.</p>"},
    "a Chinese sentence a shown entry shares": {"cuda/index.html": "<p>线程束是调度的基本单位，每个线程束有三十二个线程。</p>"},
    "the theme's own words": {"cuda/index.html": "<footer>Made with Material for MkDocs, as every page of the "
                                                 "theme says at its foot.</footer>"},
    "the slug elsewhere on the web": {"cuda/index.html": '<a href="https://docs.example.org/warp/">NVIDIA on warps</a>'
                                                         '<a href="/other-site/warp/">x</a>'},
    "an export naming the slug in a source's URL": {"glossary.json": json.dumps({"entries": [
        {"slug": "cuda", "url": "cuda/", "sources": [{"url": "https://docs.nvidia.com/warp/"},
                                                     {"url": "https://example.org/warp/"}]}]})},
    "a sitemap of another site path": {"sitemap.xml": "<urlset><url><loc>https://example.org/warp/</loc></url>"
                                                      f"<url><loc>{SITE_URL}</loc></url></urlset>"},
}

LEAKED = {
    "the page": ({"warp/index.html": "<p>hello</p>"}, "a file of refused entry 'warp'"),
    "a page without directory URLs": ({"warp.html": "<p>hello</p>"}, "a file of refused entry 'warp'"),
    "its kernel": ({"warp/warp.cu": KERNEL}, "a file of refused entry 'warp'"),
    "a link to it": ({"cuda/index.html": '<a href="../warp/#top">Warp</a>'}, "a link to refused entry 'warp'"),
    "an absolute link": ({"cuda/index.html": '<a href="/cuda-glossary/warp/">Warp</a>'}, "refused entry 'warp'"),
    "a plot embedded from it": ({"cuda/index.html": '<object data="../warp/plots/gpu.svg"></object>'},
                                "a link to refused entry 'warp'"),
    "its sitemap line": ({"sitemap.xml": SITEMAP.replace("</urlset>", f"<url><loc>{SITE_URL}device-software/</loc>"
                                                                     "</url></urlset>")},
                         "the sitemap lists refused entry 'device-software'"),
    "its search record": ({"search/search_index.json": json.dumps(
        {"docs": [{"location": "device-software/#see", "text": "x"}]})}, "refused entry 'device-software'"),
    "its Zensical search record": ({"search.json": json.dumps(
        {"config": {}, "items": [{"location": "warp/", "path": ["Glossary"], "text": "x"}]})},
                                   "refused entry 'warp'"),
    "its URL in an export, absolute": ({"glossary.json": json.dumps({"entries": [
        {"slug": "cuda", "see": [{"url": SITE_URL + "warp/"}]}]})}, "a record of refused entry 'warp'"),
    "its glossary.json item": ({"glossary.json": json.dumps({"entries": [{"slug": "warp"}]})},
                               "an item for refused entry 'warp'"),
    "its summary in a tooltip": ({"cuda/index.html": '<abbr title="A group of thirty-two threads that the '
                                                     'hardware schedules together.">warp</abbr>'},
                                 "text of refused entry 'warp'"),
    "a sentence of its own in a shown page": ({"cuda/index.html": "<p>Intro. Every term of this section has "
                                                                  "one line here, as a landing page would list "
                                                                  "them.</p>"}, "refused entry 'device-software'"),
    "a table cell of its own": ({"cuda/index.html": "<table><tr><td>scheduler</td><td>Each warp scheduler issues "
                                                    "one <code>warp</code> instruction per cycle.</td></tr></table>"},
                                "text of refused entry 'warp'"),
    "its Chinese sentence": ({"cuda/index.html": "<p>线程束内的线程同步执行同一条指令。</p>"},
                             "text of refused entry 'warp'"),
    "its sentence in the search index": ({"search/search_index.json": json.dumps(
        {"docs": [{"location": "cuda/", "text": "<p>Each warp scheduler issues one warp instruction per "
                                                "cycle.</p>"}]})}, "text of refused entry 'warp'"),
    "a kernel line in a shown page": ({"cuda/index.html": "<pre><code>extern &quot;C&quot; __global__ void "
                                                          "warp_vote(const int* flags, int* out, long long n)\n"
                                                          "</code></pre>"}, "text of refused entry 'warp'"),
}


@pytest.mark.parametrize("name", CLEAN)
def test_what_only_resembles_a_refused_entry_is_no_leak(traces, name):
    assert traces(CLEAN[name]) == []


@pytest.mark.parametrize("name", LEAKED)
def test_what_is_a_refused_entrys_own_is_found(traces, name):
    files, said = LEAKED[name]
    found = traces(files)
    assert len(found) == 1 and said in found[0], found


def test_units_read_html_and_markdown_alike():
    markdown = ("1. A **bold** [link](x.md) and `code`, with an escaped \\* star.\n"
                "   The second sentence of the item.\n\n> Quoted text of a paragraph, long enough.\n")
    html = ("<ol><li>A <strong>bold</strong> <a href=\"x/\">link</a> and <code>code</code>, with an escaped * star.\n"
            "The second sentence of the item.</li></ol><blockquote><p>Quoted text of a paragraph, long enough."
            "</p></blockquote>")
    from_markdown = set(leaks.units(leaks.markdown_text(markdown)))
    from_html = set(leaks.units(leaks.html_text(html)))
    assert "A bold link and code, with an escaped * star." in from_markdown & from_html
    assert "Quoted text of a paragraph, long enough." in from_markdown & from_html


def test_the_check_costs_a_few_ms_per_page(tmp_path):
    """100 refused entries, 200 shown pages of about 20 kB: one pass per page, whatever the refused count
    (bench/leak_check_cost.py measures the same at full size)."""
    entries = tmp_path / "entries"
    entries.mkdir()
    for i in range(100):
        body = "\n\n".join(f"Refused entry {i} says a sentence number {j} that nobody else says anywhere."
                           for j in range(20))
        (entries / f"r{i}.md").write_text(_entry(f"R {i}", f"The summary of refused entry {i}, its own words.", body))
    refused = list(load_entries(entries).values())
    site = tmp_path / "site"
    paragraph = ("<p>A shown page's paragraph with <a href=\"../s1/\">a link</a>, <code>code</code> and "
                 "<abbr title=\"A definition of a shown term, long enough.\">a term</abbr>. Another sentence.</p>\n")
    for i in range(200):
        (site / f"s{i}").mkdir(parents=True)
        (site / f"s{i}" / "index.html").write_text("<html><body>" + paragraph * 80 + "</body></html>")
    started = time.process_time()  # this process's CPU: the other test workers' load does not count
    assert leaks.find(site, refused, []) == []
    per_page = (time.process_time() - started) / 200
    assert per_page < 0.015, f"{per_page * 1000:.1f} ms per page"  # about 4 ms on an idle core


def test_reading_hostile_text_is_linear():
    started = time.perf_counter()
    for text in (' title="' * 40000, "<!--" * 60000, "[" * 60000 + "](" * 30000, "*_" * 60000, "<a " * 60000):
        list(leaks.units(leaks.markdown_text(text)))
        list(leaks.units(leaks.html_text(text)))
    assert time.perf_counter() - started < 5
