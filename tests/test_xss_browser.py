"""Author markup runs no script (issue 29, item 3), in a real browser: headless Chromium.

One fixture glossary holds a payload in every place an author controls: the body's raw HTML,
attr_list attributes, link URLs and titles, front-matter strings (title, summary, lesson note,
source title), an SVG image shown with and without the plot class, and SVGs that would run
script when opened directly.  It is built twice, published and preview, served on localhost and
read at both colour schemes, hovering and clicking what a reader would.  Every payload sets
``window.__xss`` and calls ``alert``: neither may happen.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, mkdocs, write_project
from serving import hover, local_context, playwright_or_skip, serve, without_search
from site_fixture import fixture_config

pytestmark = pytest.mark.browser
pytest_plugins = ["browser_fixtures"]  # its session fixture: one Chromium


playwright_or_skip()

RUN = "window.__xss=1;alert(1)"
IMG = f"<img src=x onerror='{RUN}'>"
DATA_HTML = "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="

GADGET = f"""\
---
title: "Gadget {IMG}"
summary: "A gadget {IMG} that <script>{RUN}</script> does [nothing](javascript:{RUN})."
abbreviations: [gadget]
lessons:
  - {{day: 7, title: "Day {IMG}", note: "A note {IMG} <script>{RUN}</script>"}}
sources:
  - {{title: "Source {IMG}", url: "https://example.org/src", checked: 2026-01-02}}
author: Ada Lovelace
written_on: 2026-01-01
reviewer: Charles Babbage
reviewed_on: 2026-01-03
---
Raw HTML: <img src="x" onerror="{RUN}"> and <a href="javascript:{RUN}">click-raw-js</a>.

<script>{RUN}</script>

<iframe src="javascript:{RUN}"></iframe>

<object data="assets/images/plain.svg" type="image/svg+xml"></object>

<embed src="assets/images/plain.svg">

<svg onload="{RUN}"><circle r="5"/></svg>

<details ontoggle="{RUN}" open><summary>toggle-me</summary>inside</details>

<p style="background:url(javascript:{RUN})" onmouseover="{RUN}">styled paragraph</p>

[hover-attr](https://example.org/){{ onmouseover="{RUN}" onclick="{RUN}" }} and
[click-md-js](javascript:{RUN}) and [click-data]({DATA_HTML}) and
[hover-title](https://example.org/ "<img src=x onerror={RUN}>").

<abbr title="<img src=x onerror={RUN}>">hover-abbr</abbr>

![plain, with the plot class](assets/images/plain.svg){{ .glossary-plot }}

![plain](assets/images/plain.svg)

<img src="x" class="glossary-plot" alt="raw plot" onerror="{RUN}">
"""

READER = """\
---
title: Reader
summary: An entry that uses the term gadget, so the gadget's summary is its tooltip.
related: [gadget]
author: Grace Hopper
written_on: 2026-01-01
reviewer: Ada Lovelace
reviewed_on: 2026-01-04
---
Every gadget here is inert; see [the gadget](gadget.md).
"""

PAINTED = f"""\
---
title: Painted
summary: An entry whose pictures are SVGs that would run script.
author: Grace Hopper
written_on: 2026-01-01
reviewer: Ada Lovelace
reviewed_on: 2026-01-04
---
With the plot class: ![d](assets/images/evil.svg){{ .glossary-plot }}

Without it: ![d](assets/images/evil-script.svg)
"""

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">{}</svg>'
FILES = {
    "assets/images/plain.svg": SVG.format('<rect width="40" height="20" fill="#1f6fb4"><title>plain</title></rect>'),
    "assets/images/evil.svg": SVG.format(f'<rect width="40" height="20" onload="{RUN}"/>'),
    "assets/images/evil-script.svg": SVG.format(f"<script>{RUN}</script>"),
}
LESSONS = '7: {title: Day seven, url: "https://example.org/course/day-7/"}\n'


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The hostile project built published and preview: (project, published site, preview site, log)."""
    tmp = tmp_path_factory.mktemp("xss")
    project = write_project(tmp, {"gadget": GADGET, "reader": READER, "painted": PAINTED}, FILES)
    config = fixture_config(project)
    config["extra"]["glossary"]["trust"] = "names"
    (project / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    shutil.copytree(ROOT / "entries" / "assets", project / "entries" / "assets", dirs_exist_ok=True)
    (project / "data").mkdir()
    (project / "data" / "lessons.yml").write_text(LESSONS)
    published = mkdocs(project, "build", "-d", str(tmp / "published"))
    assert published.returncode == 0, published.stderr
    preview = mkdocs(project, "build", "-d", str(tmp / "preview"), env={"GLOSSARY_PREVIEW": "1"})
    assert preview.returncode == 0, preview.stderr
    return project, tmp / "published", tmp / "preview", published.stderr


class Reader:
    """A browser tab that records every dialog a page opens, kept for the module's tests: a new tab costs
    Chromium a renderer process's start, about three times the page it then loads (issue 34).  Each test
    serves its site on a port of its own, so no page of one test shares an origin (or its storage) with
    another's; ``use`` sets the colour scheme and forgets the dialogs of the test before."""

    def __init__(self, browser):
        # no test here searches: the search box is not what a reader of these pages touches
        self.context = without_search(local_context(browser, viewport={"width": 1280, "height": 900}))
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.dialogs: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def use(self, scheme: str) -> Reader:
        self.page.goto("about:blank")
        self.page.emulate_media(color_scheme=scheme)
        self.page.mouse.move(0, 0)
        self.dialogs.clear()
        return self

    def ran(self) -> str | None:
        """What ran on the page: ``window.__xss`` (or a dialog), or None."""
        value = self.page.evaluate("() => typeof window.__xss === 'undefined' ? null : String(window.__xss)")
        if value is not None or self.dialogs:
            return f"window.__xss={value}, dialogs={self.dialogs}"
        return None


@pytest.fixture(scope="module")
def tab(browser):
    """The module's ``Reader``."""
    reader = Reader(browser)
    yield reader
    reader.context.close()


def _read_like_a_reader(reader: Reader, url: str) -> None:
    page = reader.page
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # an <img onerror> fires once its request fails
    targets = page.locator("article a, article abbr, article img, article object, article [title], "
                           "article summary, article p")
    for handle in targets.element_handles()[:80]:
        if handle.is_visible():
            hover(page, handle, timeout=2_000)
            page.wait_for_timeout(40)
    for link in page.locator("article a").all():
        text = link.inner_text().strip()
        if text.startswith("click-"):
            link.click(timeout=2_000)
            page.wait_for_timeout(150)
            if page.url.split("#")[0] != url:
                page.goto(url)
    page.wait_for_timeout(200)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("build", ["published", "preview"])
def test_no_payload_runs_when_a_reader_reads_and_hovers(tab, sites, build, scheme):
    _, published, preview, _ = sites
    folder = published if build == "published" else preview
    # Published, the gadget is refused at the gate for its markup (so no builder publishes it); the
    # preview shows it, through the sanitizer, with every payload.
    pages = ["", "reader/"] + (["gadget/", "painted/"] if build == "preview" else [])
    reader = tab.use(scheme)
    with serve(folder) as base:
        for path in pages:
            _read_like_a_reader(reader, base + path)
            assert reader.page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == (
                "slate" if scheme == "dark" else "default")
            assert reader.ran() is None, f"{build} {scheme} {path}: {reader.ran()}"
            # no element the author wrote can run: no handler, no script of theirs, no frame
            found = reader.page.evaluate("""() => {
                const bad = [];
                for (const el of document.querySelectorAll('article *')) {
                    for (const a of el.attributes) {
                        if (/^on/i.test(a.name)) bad.push(el.tagName + ' ' + a.name);
                        if (/^\\s*(javascript|data):/i.test(a.value)) bad.push(el.tagName + ' ' + a.value);
                    }
                    if (['SCRIPT', 'IFRAME', 'EMBED', 'SVG'].includes(el.tagName.toUpperCase())) bad.push(el.tagName);
                    if (el.tagName === 'OBJECT' && !/\\/plots\\//.test(el.getAttribute('data') || ''))
                        bad.push('object ' + el.getAttribute('data'));
                }
                return bad;
            }""")
            assert found == [], f"{build} {scheme} {path}: {found}"
        if build == "preview":  # the author's plain SVG stays an <img>, with the plot class or without it
            reader.page.goto(base + "gadget/")
            assert reader.page.locator("article object").count() == 0
            assert reader.page.locator("article img[src$='plain.svg']").count() == 2


@pytest.mark.parametrize("build", ["published", "preview"])
def test_every_published_svg_opened_directly_runs_nothing(tab, sites, build):
    _, published, preview, _ = sites
    folder = published if build == "published" else preview
    svgs = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.svg"))
    assert ("assets/images/plain.svg" in svgs) == (build == "preview")  # only the refused gadget links it
    assert not any("evil" in s for s in svgs), svgs  # refused SVGs are published in no mode
    reader = tab.use("light")
    with serve(folder) as base:
        for svg in svgs:
            reader.page.goto(base + svg)
            reader.page.wait_for_timeout(100)
            assert reader.ran() is None, f"{svg}: {reader.ran()}"
        for name in ("evil.svg", "evil-script.svg"):
            response = reader.page.goto(base + "assets/images/" + name)
            assert response.status == 404
            assert reader.ran() is None


def test_the_build_names_the_refused_svg_and_why(sites):
    _, published, preview, log = sites
    assert "evil.svg" in log and "onload=" in log and "evil-script.svg" in log and "<script>" in log
    assert not (published / "painted").exists() and (preview / "painted").exists()
    # the body's markup keeps the gadget off the published site, named, whatever builder builds it
    assert not (published / "gadget").exists() and (preview / "gadget" / "index.html").exists()
    assert "the body's HTML holds" in log and "onerror=" in log
