"""Escape by default: markup in every string of an entry and of its result files stays text.

A fixture entry carries markup payloads in every string field of its front-matter and of its
result files (an imported result with a ``last_failure``, and a failed one).  The built site,
in a preview build (the entry is a draft) and in a published build (a variant signed through
the review machinery), must show every payload as typed: no element, attribute, link or
script made from one, in any page, plot, the search index, ``glossary.json`` or the sitemap.
``test_browser.py`` loads the same sites in Chromium and checks that nothing runs.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest
import yaml

from conftest import mkdocs, sign_entry_file, write_project
from site_fixture import KERNEL as TRIAD_KERNEL, REFERENCE as TRIAD_REFERENCE  # bench/gen_entries' triad
from glossary.site import export, plots, render, tooltips
from glossary.entries.model import load_entries
from glossary.figures.views import DeviceView, SizeView, VariantRow
from glossary.entries.model import measurement_fingerprint

PAYLOADS = (
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=2">',
    '"><svg onload=window.__xss=3>',
    "[x](javascript:window.__xss=4)",
    '{: onclick="window.__xss=5"}',
    "</script>",
    "{{ 7*7 }}",
    "{{ 9*111111 }}",  # 999999 if anything evaluated it
    "`code` ``` ~~~",  # a backtick of a value must not pair with a code span the template opens
    "<!-- --> &lt;b&gt; &#60;i&#62; \u2028\u2029",
)
ALL = " ".join(PAYLOADS)
# Starts that would open a block of their own where a value begins a line.
STARTS = ("# ", "!!! danger ", "=== ", "- ", "1. ", "> ", "~~~ ", "??? note ", "| ")


def hostile(label: str, i: int = 0, limit: int | None = None, first: int = 0) -> str:
    """A field's value: a block start, the field's name (to find it again) and every payload from
    the ``first``, or as many as fit in ``limit`` characters (the model caps a title, an abbreviation)."""
    text = f"{STARTS[i % len(STARTS)]}{label}"
    for k in range(len(PAYLOADS)):
        more = f"{text} {PAYLOADS[(first + k) % len(PAYLOADS)]}"
        if limit is not None and len(more) > limit:
            break
        text = more
    return text


TITLE = 120  # glossary.entries.model: MAX_TITLE_CHARS, MAX_ABBREVIATION_CHARS
ABBREVIATION = 60


# The synthetic glossary's triad kernel and reference, with markup in a comment.
KERNEL = "// Kernel comments with markup: <script>window.__xss=1</script> </script> ``` ~~~ {{ 7*7 }}\n" + TRIAD_KERNEL
REFERENCE = TRIAD_REFERENCE
# A variant name is an identifier the entry chooses; it reaches tables, claims, plots and alt text.
NAME = 'tri<b onmouseover="window.__xss=8">ad'


def front_matter(author: str, reviewer: str) -> dict:
    """Every string field of the front-matter holds the payloads."""
    return {
        "title": hostile("Title", 0, TITLE),
        "summary": hostile("Summary", 1),
        # Tags are words of letters and digits (glossary.entries.model.TAG_RE): no markup gets that far.
        "tags": ["markup", "every field"],
        # One payload each (an abbreviation is short), so that together they hold all of them.
        "abbreviations": ["xssterm", "back\\slash term",
                          *(hostile(f"Abbr{k}", k, ABBREVIATION, first=k) for k in range(len(PAYLOADS)))],
        "lessons": [
            {"day": 7, "title": hostile("Lesson title", 4), "note": hostile("Lesson note", 5)},
            {"day": 8, "title": hostile("Catalogue lesson", 6), "note": hostile("Note", 7)},
        ],
        "sources": [{"title": hostile("Source title", 8), "checked": dt.date(2026, 1, 2),
                     "url": "https://example.org/a)(javascript:window.__xss=6)[x]?q=1&r=2",
                     "note": hostile("Source note", 1)}],
        "author": author,
        "written_on": dt.date(2026, 1, 1),
        "reviewer": reviewer,
        "reviewed_on": None,
        "measure": {
            "sources": ["triad.cu"], "reference": "reference.py", "archs": ["sm_90"],
            "sizes": [{"n": 1 << 20}, {"n": 1 << 24}], "headline": {"n": 1 << 24}, "scalars": {"s": 3.0},
            "buffers": {"a": {"role": "output"}, "b": {"role": "input"}, "c": {"role": "input"}},
            "variants": [
                {"name": "copy", "label": hostile("Copy label", 2), "bytes_per_elem": 8,
                 "launches": [{"kernel": "copy", "grid": ["ceil(n / 256)"], "block": [256], "args": ["b", "a", "n"]}]},
                {"name": NAME, "label": hostile("Triad label", 3), "bytes_per_elem": 12,
                 "launches": [{"kernel": "triad", "grid": ["ceil(n / 256)"], "block": [256],
                               "args": ["a", "b", "c", "s", "n"]}]},
            ],
            "ratios": [{"num": NAME, "den": "copy"}],
            "claims": [{"kind": "fraction_of_floor", "variant": NAME, "at_least": 0.5, "sizes": "all",
                        "expected_failure": hostile("Expected failure, a reason", 4)}],
        },
    }


def entry_text(meta: dict, body: str) -> str:
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n" + body


BODY = "The body is the author's own Markdown and goes through as written; this one is plain.\n"

OTHER = """\
---
title: Bystander
summary: An entry that mentions the hostile one, so it gets its tooltip and its related link.
related: [{slug}]
author: Grace Hopper
written_on: 2026-01-01
reviewer: Ada Lovelace
reviewed_on: 2026-01-04
---
A page that mentions the xssterm in passing, and the back\\slash term as well.
"""

LESSONS = {7: {"title": hostile("Catalogue title", 5), "url": "https://example.org/day-7/?a=<b>&c=\"d\""}}


def _size(n: int, floor: float, copy_ms: float, triad_ms: float) -> dict:
    return {
        "params": {"n": n}, "elements": n, "working_set_bytes": 12 * n, "copy_floor": {"gbps": floor},
        "variants": {
            "copy": {"bytes_per_elem": 8, "samples_ms": [copy_ms] * 5, "stats": {"mean": copy_ms},
                     "counters": {"flushed": {"dram_bytes_per_elem": 8.2, "source": hostile("Counter source")}}},
            NAME: {"bytes_per_elem": 12, "samples_ms": [triad_ms] * 5, "stats": {"mean": triad_ms},
                   "counters": {"flushed": {"dram_bytes_per_elem": None, "per_kernel_note": hostile("Note"),
                                            "per_kernel_approx_bytes_per_elem": 12.4}}},
        },
    }


def results(slug: str) -> dict[str, dict]:
    """An imported result (every string field hostile, with a last failure) and a failed one."""
    environment = {
        "gpu": hostile("GPU", 0), "driver": hostile("Driver", 1), "cuda_driver": hostile("CUDA", 2),
        "pycuda_cuda": hostile("pycuda CUDA", 3), "nvcc": hostile("nvcc", 4),
        "compile_command": "nvcc -O3 `x` ``y`` -I/site/pycuda/cuda " + ALL, "arch": hostile("arch", 5),
        "pci_bus_id": hostile("PCI", 6), "gpu_uuid": hostile("UUID", 7), "host": hostile("host", 8),
        "platform": hostile("platform"), "python_executable": hostile("python"), "harness_version": hostile("h"),
        "pycuda": hostile("pycuda"), "python": hostile("python version"), "nvml_error": hostile("NVML"),
        "l2_bytes": 50 << 20, "sm_count": 132, "clocks": {"sm_mhz_after": 1980},
        "throttle_reasons": [hostile("Throttle reason", 1), "<script>window.__xss=1</script>"], "throttled": True,
        "captured_at": "2026-01-02",
    }
    imported = {
        "format": 1, "entry": slug, "device": "fixture-gpu-a", "status": "ok", "provenance": "imported",
        "imported_from": hostile("Imported from", 2), "fingerprint": None, "environment": environment,
        "method": {"warmups": 1, "runs": 5, "statistic": "mean", "timer": hostile("timer", 3),
                   "flush_method": hostile("flush", 4),
                   "check": {"rtol": 1e-5, "atol": 1e-6, "poison": hostile("poison", 5)}},
        "sizes": [_size(1 << 20, 2900.0, 0.003, 0.0045), _size(1 << 24, 3300.0, 0.0425, 0.064)],
        "last_failure": {"entry": slug, "device": "fixture-gpu-a", "provenance": "measured",
                         "fingerprint": "sha256:" + "0" * 64,
                         "error": hostile("Last failure", 6) + "\n# a second line\n~~~\n" + ALL,
                         "environment": {"gpu": hostile("GPU of the failure", 7), "captured_at": "2026-01-03"}},
    }
    failed = {
        "format": 1, "entry": slug, "device": "fixture-gpu-b", "status": "failed", "provenance": "measured",
        "fingerprint": "sha256:" + "0" * 64,
        "error": hostile("Error", 8) + "\n\n<script>window.__xss=1</script>\n" + ALL,
        "environment": {"gpu": hostile("Failed GPU", 0), "captured_at": "2026-01-04"},
    }
    return {"fixture-gpu-a": imported, "fixture-gpu-b": failed}


def build_hostile_site(tmp_path: Path, published: bool, body: str = BODY) -> Path:
    """The fixture project built; ``published``: signed and built without preview."""
    slug = "hostile"
    if published:  # a name is no markup (the gate refuses those), but quotes and ampersands are fine
        meta = front_matter('Ada" onmouseover="window.__xss=7" & Lovelace', "Charles ' Babbage & \"Co\"")
    else:
        meta = front_matter(hostile("Author"), hostile("Reviewer", 1))
        meta["review_fingerprint"] = hostile("Fingerprint", 2)
    files = {f"{slug}/triad.cu": KERNEL, f"{slug}/reference.py": REFERENCE}
    for key, data in results(slug).items():
        files[f"{slug}/results/{key}.json"] = json.dumps(data, indent=1)
    project = write_project(tmp_path, {slug: entry_text(meta, body), "bystander": OTHER.format(slug=slug)}, files)
    (project / "data").mkdir()
    (project / "data" / "lessons.yml").write_text(yaml.safe_dump(LESSONS, allow_unicode=True))
    if published:
        entries = project / "entries"
        entry = load_entries(entries)[slug]
        # Published figures are measured ones, for the entry as it is (imported ones cannot publish).
        measured = dict(results(slug)["fixture-gpu-a"], provenance="measured", fingerprint=measurement_fingerprint(entry))
        del measured["imported_from"]
        (entry.folder / "results" / "fixture-gpu-a.json").write_text(json.dumps(measured, indent=1))
        sign_entry_file(entry.path, meta["reviewer"], dt.date(2026, 1, 5))  # as `glossary sign` does
    run = mkdocs(project, "build", env={} if published else {"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    site = project / "site"
    assert (site / slug / "index.html").is_file(), f"the hostile entry is not on the site:\n{run.stderr}"
    if published:
        page = (site / slug / "index.html").read_text()
        assert "Status: published" in page and "Draft: not published" not in page, run.stderr
    return site


# -- what counts as live markup --------------------------------------------------------------------

_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}


class _Scan(HTMLParser):
    """Every element and attribute a browser would make of a document, judged for payload traces."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.script: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}={value!r}>")
            if name in _URL_ATTRS and value and re.match(r"\s*(javascript|vbscript|data):", value, re.I):
                self.problems.append(f"<{tag} {name}={value!r}>")
        if tag in ("img", "svg", "b") and any("__xss" in (v or "") for n, v in attrs if n not in ("alt", "title")):
            self.problems.append(f"<{tag}> made from a payload: {attrs!r}")
        if tag == "img" and ("src", "x") in attrs:
            self.problems.append(f"<img src=x> made from a payload: {attrs!r}")
        if tag == "script":
            self.script = []
        # Material's tooltips (content.tooltips) render an element's title as HTML.
        for name, value in attrs:
            if name == "title" and value and "<" in value:
                self.problems += [f"title of <{tag}>: {p}" for p in live_markup(value)] or \
                    [f"title of <{tag}> holds markup: {value[:80]!r}"]

    def handle_endtag(self, tag):
        if tag == "script" and self.script is not None:
            text = "".join(self.script)
            if "__xss" in text or "999999" in text:
                self.problems.append(f"<script> holding a payload: {text[:80]!r}")
            self.script = None

    def handle_data(self, data):
        if self.script is not None:
            self.script.append(data)
        if "999999" in data:
            self.problems.append(f"a template expression was evaluated: {data[:80]!r}")


def live_markup(html: str) -> list[str]:
    """What in ``html`` a payload made into markup (empty when every payload stayed text)."""
    scan = _Scan()
    scan.feed(html)
    scan.close()
    problems = scan.problems
    if re.search(r"<script>window|<svg onload|<img src=x", html, re.I):
        problems.append("a payload's tag appears unescaped")
    return problems


def check_site(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 5
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert live_markup(html) == [], path.relative_to(site)
    for path in sorted(site.rglob("*.svg")):
        if "assets" in path.parts:
            continue
        tree = ET.fromstring(path.read_bytes())  # well-formed: text was escaped
        for el in tree.iter():
            assert not el.tag.endswith("script"), path
            assert not [a for a in el.attrib if a.startswith("on")], path
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    for doc in index["docs"]:  # Material shows a result's title and text as HTML
        for key in ("title", "text"):
            assert live_markup(doc[key]) == [], (doc["location"], key)
    raw = (site / "glossary.json").read_text(encoding="utf-8")
    assert "<" not in raw and ">" not in raw and "&" not in raw, "glossary.json must not hold raw < > &"
    assert "\\u003cscript\\u003ewindow.__xss=1\\u003c/script\\u003e" in raw
    assert "\u2028" not in raw and "\u2029" not in raw
    data = json.loads(raw)
    [entry] = [e for e in data["entries"] if e["slug"] == "hostile"]
    assert entry["title"] == hostile("Title", 0, TITLE)  # the data, as typed
    for path in sorted(site.glob("*/results/*.json")):  # the published result files: inert data as well
        assert "<" not in path.read_text(encoding="utf-8"), path.relative_to(site)
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert live_markup(sitemap) == [] and "<script" not in sitemap
    ET.fromstring(sitemap.encode())


@pytest.fixture(scope="module")
def preview_site(tmp_path_factory) -> Path:
    return build_hostile_site(tmp_path_factory.mktemp("escape-preview"), published=False)


@pytest.fixture(scope="module")
def published_site(tmp_path_factory) -> Path:
    return build_hostile_site(tmp_path_factory.mktemp("escape-published"), published=True)


def test_preview_site_shows_every_payload_as_text(preview_site):
    check_site(preview_site)
    page = (preview_site / "hostile" / "index.html").read_text()
    assert "Draft: not published" in page
    text = _text(page)
    # Shown as typed, in the places they land: the title, a table cell, a tab title, an error.
    for label in ("Title", "Summary", "Copy label", "GPU", "Driver", "Imported from", "Last failure",
                  "Lesson note", "Source title", "Source note", "Catalogue title", "Triad label"):
        assert f"{label} <script>window.__xss=1</script>" in text, label
    assert "{{ 7*7 }}" in text and "[x](javascript:window.__xss=4)" in text
    assert '{: onclick="window.__xss=5"}' in text
    assert "Error <script>window.__xss=1</script>" in (preview_site / "hostile" / "index.html").read_text() \
        .replace("&lt;", "<").replace("&gt;", ">")
    # A value at the start of a line opens no block of its own: no heading, list, tab or fence.
    assert "<h1" not in page.split("glossary-summary")[1].split("</article>")[0]


def test_published_site_shows_every_payload_as_text(published_site):
    check_site(published_site)
    page = (published_site / "hostile" / "index.html").read_text()
    assert "bound to this exact text" in page
    assert '<meta name="author" content="Ada&quot; onmouseover=&quot;window.__xss=7&quot; &amp; Lovelace">' in page


def test_bound_figures_carry_result_text_as_text(tmp_path):
    body = 'Copy takes {{ fig.ms("copy") }} on {{ fig.gpu() }}; {{ fig.on("nope").ms("copy") }}.\n'
    site = build_hostile_site(tmp_path, published=False, body=body)
    assert live_markup((site / "hostile" / "index.html").read_text()) == []


def test_tooltips_carry_the_definition_as_an_attribute(preview_site):
    page = (preview_site / "bystander" / "index.html").read_text()
    # Material shows a title as HTML: the attribute holds escaped text, so the tooltip shows it as typed.
    assert re.search(r'<abbr title="!!! danger Summary &amp;lt;script&amp;gt;window.__xss=1&amp;lt;/script&amp;gt;',
                     page)
    assert "*[" not in _text(page)  # every definition line was read as one, none left as a paragraph


def _text(html: str) -> str:
    class Text(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.parts = []

        def handle_data(self, data):
            self.parts.append(data)

    parser = Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


# -- the filters, one context at a time --------------------------------------------------------------


def _render(source: str, **values) -> str:
    env = render.make_env(Path("/nonexistent"))
    return env.from_string(source).render(**values)


def test_every_output_is_escaped_unless_a_filter_made_it_safe():
    assert _render("{{ x }}", x="<b>[a](javascript:b)</b>") == r"&lt;b&gt;\[a\](javascript:b)&lt;/b&gt;"
    assert _render("{{ x }} {{ n }} {{ f }}", x="{: onclick=y}", n=3, f=1.5) == r"\{: onclick=y\} 3 1.5"
    assert _render("{{ x | safe }}", x="<b>") == "&lt;b&gt;"  # Jinja's own markers are not trusted
    assert _render("{{ x | e }}", x="[a](b)") == r"\[a\](b)"
    assert _render("{{ x ~ y }}", x="<", y=render.plain_text("<")) == "&lt;&amp;lt;"  # escaped, never raw
    assert _render("{{ xs | join(', ') }}", xs=["<a>", "b"]) == "&lt;a&gt;, b"
    assert _render("{{ x | text }}", x="<") == "&lt;"  # once, not twice
    assert _render("a{{ ', ' }}b{{ ' · ' }}c{{ x }}d", x=" <\n") == "a, b · c &lt; d"  # a space at the ends stays


def test_verbatim_is_only_what_render_marks():
    assert _render("{{ x }}", x=render.verbatim("<b>kept</b>")) == "<b>kept</b>"
    assert _render("{{ x | indent(2, first=True) }}", x=render.verbatim("a\n<b>")) == "  a\n  <b>"
    with pytest.raises(jinja2.UndefinedError):
        _render("{{ missing }}")


def test_plain_text_is_inert_markdown():
    pt = render.plain_text
    assert pt("a <b> & c") == "a &lt;b&gt; &amp; c"
    assert pt("[x](y) {: z} \\ `c`") == r"\[x\](y) \{: z\} \\ \`c\`"
    assert pt("two\nlines\n\n# not a heading") == "two lines # not a heading"
    for start in ("# h", "#h", "!!! danger", "=== \"t\"", "??? note", "~~~", "- item", "+ item", "* item",
                  "| cell", ": def"):
        assert pt(start)[0] in "&\\", start
    assert pt("1. first") == "1&#46; first" and pt("12) x") == "12&#41; x"
    assert pt("*not emphasis* chain_fused") == r"\*not emphasis\* chain_fused" and pt("-3 dB") == "-3 dB"


def test_cell_code_title_attr_url():
    env = render.make_env(Path("/nonexistent"))
    f = env.filters
    assert f["cell"]("a | b") == r"a \| b"
    assert f["code"]("nvcc -I<pycuda>/cuda") == "`nvcc -I<pycuda>/cuda`"
    assert f["code"]("a `b` c") == "``a `b` c``"
    assert f["code"]("``x") == "``` ``x ```"
    assert f["code"]("two\nlines") == "`two lines`"
    assert f["quoted"]('GPU "x" <y>') == "GPU &quot;x&quot; &lt;y&gt;"
    assert f["attr"]('a"b<c>&') == "a&quot;b&amp;lt;c&amp;gt;&amp;amp;"  # a title: Material shows it as HTML
    assert f["url"]("https://example.org/a b(c)[d]<e>\"f'") == \
        "https://example.org/a%20b%28c%29%5Bd%5D%3Ce%3E%22f%27"
    assert f["url"]("https://example.org/?q=1&r=%20") == "https://example.org/?q=1&r=%20"
    assert f["url"]("javascript:alert(1)") == "#"
    assert f["url"](" JavaScript:alert(1)") == "#"
    assert f["url"]("kernel-fusion/chain.cu") == "kernel-fusion/chain.cu"
    assert f["ms"](2.419) == "2.419" and f["fixed"](1234.5, 1) == "1,234.5"
    assert isinstance(f["ms"](2.419), render.Safe)
    assert not isinstance(render._number(str)("<b>"), render.Safe)  # a number format given text: no safe text


def test_code_block_fence_outlasts_the_code():
    block = render.make_env(Path("/nonexistent")).filters["code_block"]("a\n````\nb", "cuda")
    assert block == "`````cuda\na\n````\nb\n`````"
    assert render.make_env(Path("/nonexistent")).filters["code_block"]("x", "c<u>") == "```\nx\n```"


def test_tojson_is_inert_in_yaml_and_markdown():
    out = _render("{{ x | tojson }}", x="</script>[a](b){c}`d`|&'\u2028")
    assert out == '"\\u003c/script\\u003e\\u005ba\\u005d\\u0028b\\u0029\\u007bc\\u007d\\u0060d\\u0060' \
                  '\\u007c\\u0026\\u0027\\u2028"'
    assert yaml.safe_load(f"title: {out}")["title"] == "</script>[a](b){c}`d`|&'\u2028"


def test_export_json_escapes_what_could_close_a_script():
    text = export.dumps({"t": "</script><!-- & \u2028\u2029 é"})
    assert text == '{\n "t": "\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029 é"\n}\n'
    assert json.loads(text) == {"t": "</script><!-- & \u2028\u2029 é"}


def test_unlink_is_linear():
    for line in ("[" * 20_000, "[a" * 10_000, "[" + "a" * 20_000, "[a](" * 5_000, "![" * 10_000):
        start = time.perf_counter()
        render.unlink(line + "\n" + line, {"x"})
        assert time.perf_counter() - start < 0.5, line[:10]
    assert render.unlink("see [Roofline](roofline.md#x) and [B](./b.md)", {"roofline", "b"}) == "see Roofline and B"
    assert render.unlink("![img](roofline.md)", {"roofline"}) == "![img](roofline.md)"


def test_tooltip_title_is_escaped_for_an_html_tooltip():
    assert tooltips.title_text("<b> & 'x' &lt;") == "&amp;lt;b&amp;gt; &amp;amp; 'x' &amp;amp;lt;"
    assert tooltips.title_text("A warp's loads") == "A warp's loads"  # what real summaries hold: unchanged


def test_plot_text_is_escaped_and_well_formed():
    def row(name: str) -> VariantRow:
        return VariantRow(name=name, label=name, ms=1.0, bytes_per_elem=12, gbps=900.0, gflops=None,
                          counted_bytes_per_elem=None, fraction_of_floor=0.9, samples=5, spread=None)

    names = ("<script>window.__xss=1</script>", "a\x07b\x1b]]>&\ud800")
    sizes = tuple(SizeView(params={"n": n}, elements=n, working_set_bytes=12 * n, copy_floor_gbps=1000.0,
                           rows=tuple(row(x) for x in names), ratios=(), headline=n == 1 << 22)
                  for n in (1 << 20, 1 << 22))
    view = DeviceView(key="k", gpu=ALL, status="ok", provenance="imported", imported_from=ALL, stale=False,
                      environment={}, method={"statistic": "mean"}, sizes=sizes, error=None, last_failure=None,
                      l2_bytes=None)
    svg = plots.device_svg(view)
    root = ET.fromstring(svg)
    assert not [el for el in root.iter() if el.tag.endswith("script") or any(a.startswith("on") for a in el.attrib)]
    assert names[0] in "".join(root.itertext()) and "ab]]>&" in "".join(root.itertext())


def test_underscores_at_a_words_edge_are_shown_as_typed():
    """A source note saying "__launch_bounds__" rendered as bold "launch_bounds" (seen in the
    register-spilling page's Sources); underscores inside a word stay unescaped."""
    import markdown
    from glossary.figures.fmt import plain_text
    for typed in ("-maxrregcount and __launch_bounds__ as the controls", "_x_ and *y*", "sm_90, wmma_f16"):
        assert markdown.markdown(plain_text(typed)) == f"<p>{typed}</p>"
    assert plain_text("sm_90 wmma_f16") == "sm_90 wmma_f16"
