"""Issue 21: tooltips that match real prose (case, plurals, aliases), none on a page's own term,
in headings or in the Related list; Related lists ordered and capped; matching linear in text.
(Since issue 31 the tooltips are placed over the HTML, the first use per section: see
tests/test_tooltips_issue31.py; these keep issue 21's cases.)"""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from conftest import write_project
from glossary.entries.model import MAX_ALIASES, front_matter_schema, parse_entry
from glossary.site import tooltip_html, tooltips
from glossary.site.page import MAX_RELATED_SHOWN
from page_fixture import render

TERMS = {  # slug: (title, extra front-matter)
    "thread": ("Thread", ""),
    "warp": ("Warp", ""),
    "kernel": ("Kernel", ""),
    "tensor-core": ("Tensor Core", ""),
    "streaming-multiprocessor": ("Streaming multiprocessor", "abbreviations: [SM]\n"),
    "shared-memory": ("Shared memory", "aliases: [smem, scratchpad memory]\n"),
    "latency": ("Latency", ""),
    "cuda-graph": ("CUDA graph", ""),
    "cache": ("Cache", ""),
    "roofline-model": ("Roofline model", ""),
}

# Every mention below is one the issue counted as missed, or a case or plural variant of one.
PROSE = """\
Threads are grouped into warps; a warp of 32 threads runs on one SM, and most GPUs have many SMs.
Shared Memory (shared memory, SMEM or smem, the scratchpad memory) is per block. Each kernel, and
the kernels after it, may use Tensor Cores, tensor cores or one Tensor Core. Latencies add up: a
latency of 500 cycles. CUDA graphs and a cuda graph record kernels. Caches and the L2 cache. A thread.
The Roofline Model and the roofline model bound a Kernel. Warps of threads, Threads of warps.
"""
MENTIONS = ["Threads", "warps", "warp", "threads", "SM", "SMs", "Shared Memory", "shared memory", "SMEM", "smem",
            "scratchpad memory", "kernel", "kernels", "Tensor Cores", "tensor cores", "Tensor Core", "Latencies",
            "latency", "CUDA graphs", "cuda graph", "kernels", "Caches", "cache", "thread", "Roofline Model",
            "roofline model", "Kernel", "Warps", "threads", "Threads", "warps"]


def _entries(tmp_path: Path) -> list:
    out = []
    for slug, (title, extra) in TERMS.items():
        path = tmp_path / f"{slug}.md"
        path.write_text(f"---\ntitle: {title}\nsummary: What {title.lower()} means.\n{extra}---\nBody.\n")
        out.append(parse_entry(path, tmp_path))
    return out


def _html(text: str, terms=None, own_slug=None) -> str:
    """``text`` as prose of an entry page (between the render stage's markers), rendered with its
    tooltips; ``text`` already ending in a tooltip table when ``terms`` is None."""
    if terms is not None:
        text = tooltips.append(f"{tooltip_html.prose_marker()}\n\n{text}\n\n{tooltip_html.prose_marker(True)}\n",
                               terms, own_slug)
    return markdown.markdown(text, extensions=["abbr", "attr_list", tooltips.ScopeExtension(),
                                                tooltip_html.TooltipExtension()])


def _definitions(text: str, terms, own_slug) -> list[str]:
    """'spelling: definition' for each spelling found in plain ``text``, as the old abbr lines were."""
    found: dict[str, str] = {}
    for surface, term in tooltips.mentions(text, terms, own_slug):
        found.setdefault(surface, term.definition)
    return [f"*[{s}]: {d}" for s, d in sorted(found.items(), key=lambda sd: (-len(sd[0]), sd[0]))]


def test_case_and_plural_variants_get_their_tooltips(tmp_path):
    terms = tooltips.terms(_entries(tmp_path))
    got = [surface for surface, _ in tooltips.mentions(PROSE, terms)]
    assert len(MENTIONS) == 31
    assert sorted(got) == sorted(MENTIONS)
    # on a page, each carries its own term's definition, whatever the spelling (one per term per section)
    page = _html(PROSE.replace(". ", ".\n\n## Section\n\n"), terms)
    assert '<abbr title="What shared memory means.">Shared Memory</abbr>' in page
    assert '<abbr title="What streaming multiprocessor means.">SM</abbr>' in page
    assert '<abbr title="What latency means.">Latencies</abbr>' in page


def test_acronyms_match_as_written_and_words_stay_whole(tmp_path):
    terms = tooltips.terms(_entries(tmp_path))
    text = "sms and sm_90 and multi-warp and warpage and kernel-fusion and `warps` and [x](warp.md)."
    assert "<abbr" not in _html(text, terms)
    assert tooltips.plurals("latency") == ["latencies"] and tooltips.plurals("bus") == ["buses"]
    assert tooltips.plurals("SM") == ["SMs"] and tooltips.plurals("day") == ["days"]
    assert tooltips.plurals("sm_90") == [] and tooltips.plurals("L2") == []


def test_longest_spelling_wins(tmp_path):
    terms = tooltips.terms(_entries(tmp_path))
    lines = _definitions("CUDA graphs and the shared memory bank.", terms, own_slug=None)
    assert lines == ["*[shared memory]: What shared memory means.", "*[CUDA graphs]: What cuda graph means."]


def test_no_tooltip_for_the_own_term(tmp_path):
    terms = tooltips.terms(_entries(tmp_path))
    lines = _definitions(PROSE, terms, own_slug="warp")
    assert not [line for line in lines if "What warp means" in line]
    assert any("What thread means" in line for line in lines)
    # the own term's spellings still take part in matching: 'scratchpad memory' is not cut short
    own = _definitions("the scratchpad memory", terms, own_slug="shared-memory")
    assert own == []


def test_no_tooltips_in_headings_or_the_related_list(tmp_path):
    terms = tooltips.terms(_entries(tmp_path))
    text = ("# Warp\n\nA warp of threads.\n\n## Warps and threads\n\nText.\n\n## Related terms\n\n"
            "- [Thread](thread.md): A thread of a warp.\n- [Kernel](kernel.md): What runs warps.\n\n"
            "## Sources\n\nA thread again.\n")
    # the Related list is outside the prose, as the render stage marks it (templates/entry.md.j2)
    prose, rest = text.split("## Related terms")
    marked = (f"{tooltip_html.prose_marker()}\n\n{prose}\n{tooltip_html.prose_marker(True)}\n\n"
              f"## Related terms{rest}")
    page = _html(tooltips.append(marked, terms, own_slug="kernel"))
    related = page[page.index("Related terms"):page.index("Sources")]
    assert "<abbr" not in related and " title=" not in related
    assert not re.search(r"<h\d[^>]*>[^\n]*<abbr", page)
    assert page.count("<abbr") == 2  # 'warp' and 'threads' in the prose; 'Sources' is the glossary's, not prose


def test_aliases_are_a_bounded_front_matter_list(tmp_path):
    schema = front_matter_schema()["properties"]["aliases"]
    assert schema["maxItems"] == MAX_ALIASES and schema["uniqueItems"] is True and schema.get("description")
    path = tmp_path / "t.md"
    path.write_text("---\ntitle: T\nsummary: S.\naliases: [a, a]\n---\nBody.\n")
    with pytest.raises(Exception, match=r"aliases\[1\]"):
        parse_entry(path, tmp_path)
    path.write_text("---\ntitle: T\nsummary: S.\naliases: [" + ", ".join(f"a{i}" for i in range(21)) + "]\n---\nB.\n")
    with pytest.raises(Exception, match="at most 20 items"):
        parse_entry(path, tmp_path)


def test_matching_is_one_pass_and_linear_in_the_text(tmp_path):
    terms = tooltips.terms(_entries(tmp_path))
    page = tooltip_html.PageTerms(tooltips.table(PROSE, terms, None)).matcher
    list(page.scan(PROSE))
    once = page.checks
    assert page.passes == 1 and once > 0
    list(page.scan(PROSE * 10))
    assert page.passes == 2 and page.checks - once == 10 * once  # ten times the text, ten times the work
    # a thousand more terms that the text does not use cost nothing per word
    many = tooltips.terms(_entries(tmp_path)) + [tooltips.Term(f"t-{i}", f"Term{i} word", "x") for i in range(1_000)]
    wide = tooltip_html.PageTerms(tooltips.table(PROSE, many, None)).matcher
    list(wide.scan(PROSE))
    assert wide.checks == once


def test_related_list_keeps_the_authors_order_and_names_the_rest(tmp_path):
    slugs = [f"rel-{c}" for c in "kjihgfedcba"]  # written in reverse alphabetical order
    entries = {s: f"---\ntitle: Term {s[-1].upper()}\nsummary: The {s[-1]} thing.\n---\nBody.\n" for s in slugs}
    entries["main"] = ("---\ntitle: Main\nsummary: The main thing.\nrelated: [" + ", ".join(slugs) + "]\n---\n"
                       "Body mentions Term K and Term A.\n")
    page = render(write_project(tmp_path, entries), "main")
    section = page[page.index("## Related terms"):]
    section = section[:section.index("\n## ", 4)]
    items = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(items) == MAX_RELATED_SHOWN + 1 == 9
    assert [i.split("]")[0][3:] for i in items[:8]] == [f"Term {c.upper()}" for c in "kjihgfed"]
    assert items[8] == "- And 3 more: [Term C](rel-c.md), [Term B](rel-b.md), [Term A](rel-a.md)."
    html = _html(page)
    assert "<abbr" not in html[html.index("Related terms"):]
    assert html.count("<abbr") == 2  # the body's two mentions
    assert " title=" not in html[html.index("Related terms"):]  # the list shows each definition already


def test_built_site_has_tooltips_in_prose_only(tmp_path):
    from conftest import mkdocs

    entries = {
        "warp": "---\ntitle: Warp\nsummary: Thirty-two threads.\nrelated: [thread]\n---\n"
                "A warp of Threads.\n\n## Threads in a warp\n\nText.\n",
        "thread": "---\ntitle: Thread\nsummary: One lane of a warp.\nrelated: [warp]\n---\nThreads form warps.\n",
    }
    project = write_project(tmp_path, entries)
    built = mkdocs(project, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert built.returncode == 0, built.stderr
    page = (project / "site" / "warp" / "index.html").read_text()
    article = page[page.index("<article"):page.index("</article>")]
    # the summary's 'threads' (the first in its section: the body's 'Threads' is in the same one), none for
    # the own term, none in the heading
    assert re.findall(r"<abbr[^>]*>([^<]*)</abbr>", article) == ["threads"]
    related = article[article.index('id="related-terms"'):]
    assert "<abbr" not in related.split("<h2", 1)[0]
