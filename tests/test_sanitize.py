"""Author markup is inert (issue 29, item 3), without a browser: the sanitized HTML, the plot
embedder's choice by origin, the SVG gate and the refusal of control characters."""

from __future__ import annotations

import dataclasses
import re
import time

import pytest

from conftest import write_project
from glossary.entries import images
from glossary.entries.errors import EntryError
from glossary.entries.markdown_budget import MAX_INLINE_ELEMENTS, markup_problem
from glossary.entries.model import parse_entry
from glossary.site import plots, sanitize
from glossary.verdicts import assess

XSS = "window.__xss=1"

# Every place raw HTML or attr_list lets an author put script, as Python-Markdown renders it.
PAYLOADS = [
    f'<p><img src="x" onerror="{XSS}"></p>',
    f"<script>{XSS}</script>",
    f'<p><a href="javascript:{XSS}">js</a> <a href="JaVaScRiPt&colon;{XSS}">js2</a></p>',
    f'<p><a href="https://example.org" onmouseover="{XSS}">hover</a></p>',
    '<p><a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a></p>',
    f'<p><img src="data:image/svg+xml,&lt;svg onload=&quot;{XSS}&quot;&gt;"></p>',
    f'<iframe src="javascript:{XSS}"></iframe><iframe srcdoc="&lt;script&gt;{XSS}&lt;/script&gt;"></iframe>',
    '<object data="assets/images/x.svg" type="image/svg+xml"></object><embed src="assets/images/x.svg">',
    f'<svg onload="{XSS}"><script>{XSS}</script></svg>',
    f'<details ontoggle="{XSS}" open><summary>s</summary></details>',
    f'<form action="javascript:{XSS}"><button formaction="javascript:{XSS}">b</button></form>',
    f'<p style="background:url(javascript:{XSS})">styled</p>',
    f'<style>body{{background:url("javascript:{XSS}")}}</style>',
    f'<math><mi xlink:href="javascript:{XSS}">m</mi></math>',
    f'<input type="text" onfocus="{XSS}" autofocus>',
    f'<meta http-equiv="refresh" content="0;url=javascript:{XSS}"><base href="javascript:/">',
    f'<div><noscript><p title="</noscript><img src=x onerror={XSS}>"></p></noscript></div>',
]


@pytest.mark.parametrize("html", PAYLOADS)
def test_sanitized_html_holds_nothing_that_runs(html):
    out = sanitize.clean(html)
    low = out.lower()
    assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", low), out
    for bad in ("<script", "javascript:", "data:", "<iframe", "<object", "<embed", "<svg", "<form",
                "<meta", "<base", "<style", "<math", "srcdoc", "formaction"):
        assert bad not in low, (bad, out)
    # what is left of an <img> is an element, never a handler hidden in text
    assert XSS not in re.sub(r">[^<]*<", "><", out) or "<" not in out


def test_the_projects_own_markup_is_kept():
    html = ('<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" '
            'name="__tabbed_1" type="radio"><label for="__tabbed_1_1">A</label></div>'
            '<table><tr><th style="text-align: right;">t</th></tr></table>'
            '<h2 id="measured">Measured<a class="headerlink" href="#measured" title="Permanent link">¶</a></h2>'
            '<p><abbr title="&amp;lt;b&amp;gt; bold">term</abbr><sup id="fnref:1"><a class="footnote-ref" '
            'href="#fn:1">1</a></sup><img alt="a" src="assets/images/x.png#only-light"></p>'
            '<div class="highlight"><pre><span></span><code><span class="n">x</span></code></pre></div>')
    out = sanitize.clean(html)
    for kept in ('data-tabs="1:2"', 'type="radio"', 'name="__tabbed_1"', 'for="__tabbed_1_1"',
                 'style="text-align: right;"', 'id="measured"', 'class="headerlink"', 'href="#measured"',
                 'title="&amp;lt;b&amp;gt; bold"', 'href="#fn:1"', 'src="assets/images/x.png#only-light"',
                 '<span class="n">x</span>', "checked"):
        assert kept in out, (kept, out)
    # any other style, or an input that is not a radio, loses the attribute
    assert "style" not in sanitize.clean('<td style="text-align: left; background: red">x</td>')
    assert "text" not in sanitize.clean('<input type="text">')


def test_a_title_reaches_the_tooltip_as_text():
    # Material's tooltips put a title into the page as HTML: a raw '<' becomes '&lt;' in the value
    out = sanitize.clean(f'<abbr title="&lt;img src=x onerror={XSS}&gt;">t</abbr>')
    assert 'title="&amp;lt;img src=x onerror=window.__xss=1&amp;gt;"' in out


def test_sanitizing_is_bounded_work():
    # html5ever's tree building grows with the square of the nesting depth (40,000 open <div>s take
    # seconds); the body's budget lets fewer than MAX_INLINE_ELEMENTS tags through, and at that
    # depth the sanitizer takes a fraction of a second.
    assert markup_problem("<div>" * 50_000) is not None
    hostile = "<div>" * (MAX_INLINE_ELEMENTS - 100) + "<a href='javascript:x' onclick='y'>t</a>" * 2_000
    start = time.perf_counter()
    out = sanitize.clean(hostile)
    assert time.perf_counter() - start < 2
    assert "onclick" not in out and "javascript:" not in out


# -- plots: <object> by where the file came from ------------------------------------------------


def test_only_drawn_plots_become_objects():
    drawn = {"triad/plots/gpu-a.svg"}
    plot = '<img alt="plot" class="glossary-plot" loading="lazy" src="plots/gpu-a.svg">'
    author = '<img alt="d" class="glossary-plot" src="../assets/images/x.svg">'
    page = sanitize.clean(f"<p>{plot}{author}</p>")
    out = plots.embed_plots(page, "triad/", drawn)
    assert out.count("<object") == 1
    assert 'data="plots/gpu-a.svg"' in out and 'data="../assets/images/x.svg"' not in out
    # the same plot from a page one level up, and with directory URLs off
    assert "<object" in plots.embed_plots('<img src="triad/plots/gpu-a.svg">', "index.html", drawn)
    assert "<object" in plots.embed_plots('<img src="../triad/plots/gpu-a.svg">', "other/", drawn)
    # nothing drawn, another host, a fragment: an <img> stays an <img>
    assert "<object" not in plots.embed_plots(plot, "triad/", set())
    assert "<object" not in plots.embed_plots('<img src="//evil.example/triad/plots/gpu-a.svg">', "triad/", drawn)
    assert "<object" not in plots.embed_plots('<img src="plots/gpu-a.svg#x">', "triad/", drawn)


# -- SVG assets -------------------------------------------------------------------------------

SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">{}</svg>'

PLAIN_SVG = SVG.format('<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="4" height="4"/>'
                       '<use xlink:href="#g"/><title>a &amp; b</title><style>rect { fill: url(#g) }</style>')


@pytest.mark.parametrize("body, reason", [
    ("<script>alert(1)</script>", "<script>"),
    ('<g onload="alert(1)"/>', "onload="),
    ('<g ONCLICK="alert(1)"/>', "ONCLICK="),
    ("<foreignObject><div xmlns='http://www.w3.org/1999/xhtml'>x</div></foreignObject>", "<foreignObject>"),
    ('<use xlink:href="other.svg#a"/>', "external reference"),
    ('<image href="https://example.org/x.png"/>', "external reference"),
    ('<a href="javascript:alert(1)"><text>x</text></a>', "external reference"),
    ('<a><set attributeName="href" to="javascript:alert(1)"/></a>', "animation"),
    ('<rect style="fill: url(https://example.org/x)"/>', "url()"),
    ("<style>@import 'x.css';</style>", "@import"),
    ('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>', "<script>"),
    ("<iframe/>", "<iframe>"),
])
def test_svg_with_script_or_external_reference_is_refused(body, reason):
    why = images.svg_problem(SVG.format(body).encode())
    assert why is not None and reason in why and "line 1" in why


def test_plain_svg_passes_and_odd_files_are_refused():
    assert images.svg_problem(PLAIN_SVG.encode()) is None
    assert "DOCTYPE" in images.svg_problem(b'<?xml version="1.0"?><!DOCTYPE svg SYSTEM "x.dtd"><svg/>')
    assert "well-formed" in images.svg_problem(b"<svg")
    assert "<html>" in images.svg_problem(b"<html/>")
    assert "processing instruction" in images.svg_problem(b'<?xml-stylesheet href="x.css"?><svg/>')


def test_billion_laughs_is_bounded_work():
    lol = ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lollollollollollollollollollol">'
           + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9))
           + ']><svg xmlns="http://www.w3.org/2000/svg"><text>&j;</text></svg>')
    start = time.perf_counter()
    assert "DOCTYPE" in images.svg_problem(lol.encode())
    assert time.perf_counter() - start < 1


def _entry(tmp_path, body: str, files: dict | None = None):
    project = write_project(tmp_path, {"thing": f"---\ntitle: Thing\nsummary: A thing.\n---\n{body}"}, files)
    entries = project / "entries"
    return parse_entry(entries / "thing.md", entries)


def test_an_entry_showing_an_unsafe_svg_is_refused_naming_the_file_and_why(tmp_path):
    evil = SVG.format('<circle r="3" onload="window.__xss=1"/>')
    entry = _entry(tmp_path, "![d](assets/images/evil.svg){ .glossary-plot }\n\n![p](assets/images/plain.svg)\n",
                   {"assets/images/evil.svg": evil, "assets/images/plain.svg": PLAIN_SVG})
    reasons = assess.unsafe_files(entry)
    assert len(reasons) == 1
    assert "assets/images/evil.svg" in reasons[0] and "onload=" in reasons[0] and "<circle>" in reasons[0]
    judged = assess.assess(entry, {})
    assert not judged.verdict.publishable
    assert any("evil.svg" in r.message for r in judged.refusals)
    # the site publishes it in no mode; the plain one goes
    assert set(images.safe_images(entry.image_files)) == {"assets/images/plain.svg"}


# -- control characters -----------------------------------------------------------------------


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9b", "\x0c", "\r"])
def test_control_characters_in_a_body_are_refused_naming_the_line(tmp_path, char):
    with pytest.raises(EntryError) as err:
        _entry(tmp_path, f"First line.\n\nThird line with a{char}b in it.\n")
    message = str(err.value)
    # the front-matter is lines 1-4, so the body's third line is the file's seventh
    assert "line 7" in message and f"U+{ord(char):04X}" in message and "thing.md" in message


def test_tab_newline_and_crlf_are_text(tmp_path):
    entry = _entry(tmp_path, "A\tb.\r\nNext line.\r\n")
    assert "Next line." in entry.body


# -- front-matter strings ---------------------------------------------------------------------


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
                                 "JavaScript:alert(1)", "vbscript:x", "//evil.example/x"])
def test_a_source_url_other_than_http_is_refused_naming_the_key(tmp_path, url):
    front = (f"---\ntitle: Thing\nsummary: A thing.\nsources:\n"
             f"  - {{title: S, url: {url!r}, checked: 2026-01-02}}\n---\nBody.\n")
    project = write_project(tmp_path, {"thing": front})
    with pytest.raises(EntryError) as err:
        parse_entry(project / "entries" / "thing.md", project / "entries")
    assert "url" in str(err.value) and "http" in str(err.value)


def test_a_declared_file_a_browser_would_run_is_refused_and_not_published(tmp_path):
    from glossary.site import sitefiles

    entry = _entry(tmp_path, "Body.\n")
    entry = dataclasses.replace(entry, kernel_files={"k.cu": b"__global__ void k() {}", "page.html": b"<script>x</script>"})
    reasons = assess.unsafe_files(entry)
    assert len(reasons) == 1 and "page.html" in reasons[0] and "rename it" in reasons[0]
    assert set(sitefiles.declared_files(entry)) == {"thing/k.cu"}


@pytest.mark.parametrize("body", [
    "A claim with a note.[^1]\n\n[^1]: The note, with its link back.\n",  # footnotes: href="#fn:1", "#fnref:1"
    '<a href="#part:two">a section whose id holds a colon</a>\n',
    '<a href="notes.md#part:two">another page\'s</a> and <a href="?q=a:b">a query</a>\n',
])
def test_a_relative_url_with_a_colon_is_no_scheme(body):
    from glossary.entries import allowlist

    assert allowlist.body_problems(body) == []


@pytest.mark.parametrize("href", ["javascript:x()", "JaVa&#9;ScRiPt:x()", " java&#10;script:x()", "&#1;javascript:x()",
                                  "vbscript:x", "data:text/html,x", "jar:file:x"])
def test_a_url_scheme_a_browser_reads_through_tabs_and_spaces_is_named(href):
    from glossary.entries import allowlist

    problems = allowlist.body_problems(f'<a href="{href}">x</a>\n')
    assert len(problems) == 1 and problems[0].startswith("the URL "), problems
