"""A plain build renders its pages' HTML on the cores MkDocs does not work on (glossary.html_ahead, issue
34), and the site is byte for byte the site MkDocs' own rendering makes: the same pages, the same search
index, the same WARNINGs said once each, the same `--strict` failure.  A page whose final Markdown is not
the one a worker rendered, or a site whose files changed after the workers forked, is rendered by MkDocs."""

from __future__ import annotations

import logging
import re
import textwrap
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import File, get_files
from mkdocs.structure.pages import Page
from mkdocs.utils import meta

from conftest import mkdocs, write_project
from glossary import html_ahead
from glossary.entries import parallel
from glossary.site import sanitize

# Entries as outside authors write them: sections with their own anchors, links to each other's sections
# and to a page that does not exist, a table, tabs, a fenced kernel, raw HTML with a script the sanitizer
# takes out, a CJK heading, footnotes.
ENTRY = """\
---
title: {title}
summary: The {title} term, in one sentence.
related: [{related}]
tags: [fixture-tag]
author: pending
reviewer: pending
---
Prose about {title}; see [{other}]({other_slug}.md#{other_slug}-section), [nothing](missing-{slug}.md) and
[no such part]({other_slug}.md#no-part-{slug}).

## A section {{: #{slug}-section }}

| kernel | bytes |
|:--|--:|
| `copy_{slug}` | 8 |

=== "One"

    A tab about {title}.[^1]

=== "Two"

    ```cuda
    __global__ void k_{slug}(float* y) {{ y[threadIdx.x] = 0.f; }}
    ```

<div onclick="alert(1)"><script>alert("{slug}")</script>Raw HTML of {title}.</div>

## 共享内存 {title}

More about {title}.

[^1]: A footnote of {title}.
"""

SLUGS = [f"term-{i:02d}" for i in range(8)]


def _entries() -> dict[str, str]:
    out = {}
    for i, slug in enumerate(SLUGS):
        nxt = SLUGS[(i + 1) % len(SLUGS)]
        out[slug] = ENTRY.format(title=f"Term {i}", related=nxt, other=f"Term {i + 1}", other_slug=nxt, slug=slug)
    return out


def _project(tmp_path: Path, rendered: bool) -> Path:
    # MkDocs checks the anchors pages link to once every page is rendered, from what each render recorded
    project = write_project(tmp_path, _entries(), extra_yaml="validation:\n  anchors: warn\n")
    if rendered:  # the repository's own layout: docs_dir is the render stage's folder
        config = project / "mkdocs.yml"
        text = config.read_text().replace("docs_dir: entries", "docs_dir: build/docs")
        config.write_text(text.replace("  glossary:\n", "  glossary:\n    entries: entries\n", 1))
        (project / "build" / "docs").mkdir(parents=True)
    return project


def _site(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _warnings(stderr: str) -> list[str]:
    return sorted(line for line in stderr.splitlines() if line.startswith("WARNING"))


@pytest.mark.parametrize("rendered", [False, True], ids=["docs-dir-entries", "render-stage"])
def test_pages_rendered_on_other_cores_make_the_same_site(tmp_path, monkeypatch, rendered):
    project = _project(tmp_path, rendered)
    env = {"GLOSSARY_PREVIEW": "1"}  # drafts shown: every entry's page is made
    alone = mkdocs(project, "build", "-v", "-d", "site-alone", env=dict(env, GLOSSARY_WORKERS="1"))
    assert alone.returncode == 0, alone.stderr
    assert "rendered on other cores" not in alone.stderr
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)  # a fixture of a few pages: pool it anyway (the build forks)
    ahead = mkdocs(project, "build", "-v", "-d", "site-ahead", env=dict(env, GLOSSARY_WORKERS="2"))
    assert ahead.returncode == 0, ahead.stderr
    used = re.search(r"(\d+) of (\d+) pages rendered on other cores", ahead.stderr)
    assert used and int(used.group(1)) >= 1, ahead.stderr  # the worker rendered some pages, MkDocs the others
    assert _site(project / "site-ahead") == _site(project / "site-alone")
    assert _warnings(ahead.stderr) == _warnings(alone.stderr)  # each said once, by MkDocs' process

    # Without -v MkDocs also checks the anchors every page links to, once all are rendered, from what each
    # page's render recorded (with -v it skips that); --strict counts every WARNING.
    strict = mkdocs(project, "build", "--strict", "-d", "site-strict", env=dict(env, GLOSSARY_WORKERS="2"))
    strict_alone = mkdocs(project, "build", "--strict", "-d", "site-strict-alone", env=dict(env, GLOSSARY_WORKERS="1"))
    assert strict.returncode == strict_alone.returncode == 1
    said = _warnings(strict.stderr)
    assert said == _warnings(strict_alone.stderr)
    assert sum("missing-" in line for line in said) == sum("no-part-" in line for line in said) == len(SLUGS)
    counted = re.compile(r"Aborted with (\d+) warnings in strict mode")
    said_strict = [counted.search(run.stdout + run.stderr) for run in (strict, strict_alone)]
    assert said_strict[0] and said_strict[1] and said_strict[0].group(1) == said_strict[1].group(1) == str(len(said))


# -- HtmlAhead over MkDocs' own objects, no glossary ------------------------------------------------------

def _plain_project(tmp_path: Path, pages: int = 6) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(pages):
        (docs / f"p{i}.md").write_text(textwrap.dedent(f"""\
            ---
            title: Page {i}
            ---
            # Page {i}

            ## Part {{: #part-{i} }}

            See [the next](p{(i + 1) % pages}.md#part-{(i + 1) % pages}) and [no page](gone-{i}.md).
            <p onclick="x()">Raw {i}</p>
            """))
    (tmp_path / "mkdocs.yml").write_text("site_name: Plain\nmarkdown_extensions: [toc, attr_list, tables]\n")
    return tmp_path


def _fresh(config, files, src: str) -> Page:
    """The page as MkDocs renders it itself, on a page object of its own."""
    file = files.get_file_from_path(src)
    kept = file.page
    page = Page(None, file, config)
    file.page = kept
    page.read_source(config)
    page.render(config, files)
    return page


@pytest.fixture
def plain(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    config = load_config(str(_plain_project(tmp_path) / "mkdocs.yml"))
    return config, get_files(config)


def _markdown_of(file: File) -> str:
    return meta.get_data(file.content_string)[0]


def test_each_page_takes_the_render_a_worker_made_or_renders_itself(plain, caplog):
    config, files = plain
    assert html_ahead.worth_it(config, len(files.documentation_pages()), 2)
    pages = [Page(None, f, config) for f in files.documentation_pages()]
    expected = {p.file.src_uri: _fresh(config, files, p.file.src_uri) for p in pages}
    ahead = html_ahead.HtmlAhead(config, files, _markdown_of, workers=2)
    _begun(ahead.work, len(pages) - 1)
    caplog.set_level(logging.WARNING, logger="mkdocs")
    caplog.clear()
    for page in pages:
        page.read_source(config)
        made = ahead.take(page)
        assert made is None or made == page.markdown
        page.render(config, files)
        want = expected[page.file.src_uri]
        assert (page.content, page.title, page.present_anchor_ids) == (want.content, want.title, want.present_anchor_ids)
        assert [(t.id, t.title, [c.id for c in t.children]) for t in page.toc] == \
               [(t.id, t.title, [c.id for c in t.children]) for t in want.toc]
        assert {f.src_uri: v for f, v in page.links_to_anchors.items()} == \
               {f.src_uri: v for f, v in want.links_to_anchors.items()}
        assert ahead.clean(page.content, page) == sanitize.clean(want.content)
    ahead.close()
    assert ahead.used >= 1  # the pool began at the last page: at least that one is the worker's
    gone = [r.getMessage() for r in caplog.records if "gone-" in r.getMessage()]
    assert len(gone) == len(pages)  # each page's warning said once, in this process


def test_a_page_whose_markdown_a_plugin_changed_is_rendered_by_mkdocs(plain):
    config, files = plain
    pages = [Page(None, f, config) for f in files.documentation_pages()]
    ahead = html_ahead.HtmlAhead(config, files, _markdown_of, workers=2)
    last = pages[-1]
    last.read_source(config)
    _begun(ahead.work, len(pages) - 1)
    assert ahead.take(last) is not None  # the pool began with it
    last.markdown += "\nAdded by another plugin.\n"  # its on_page_markdown, after the glossary's
    last.render(config, files)
    assert "Added by another plugin." in last.content and ahead.used == 0
    assert ahead.clean("<p>other HTML</p>", last) == sanitize.clean("<p>other HTML</p>")
    ahead.close()


def test_files_that_changed_after_the_workers_forked_turn_every_worker_render_down(plain, tmp_path):
    config, files = plain
    pages = [Page(None, f, config) for f in files.documentation_pages()]
    ahead = html_ahead.HtmlAhead(config, files, _markdown_of, workers=2)
    (tmp_path / "docs" / "gone-5.md").write_text("# Now there\n")  # a later plugin's on_files adds a page
    files.append(File("gone-5.md", config.docs_dir, config.site_dir, config.use_directory_urls))
    last = pages[-1]
    last.read_source(config)
    _begun(ahead.work, len(pages) - 1)
    assert ahead.take(last) is not None
    last.render(config, files)
    assert ahead.used == 0
    assert "gone-5" in last.content and _fresh(config, files, last.file.src_uri).content == last.content
    ahead.close()


def _begun(work: parallel.Ahead, index: int) -> None:
    """Wait until the pool has begun the chunk of item ``index`` (its first, backwards: forked just now)."""
    import time

    future = work._chunks[index // work._chunk]
    deadline = time.monotonic() + 30
    while not (future.running() or future.done()) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_backwards_pool_begins_at_the_last_item_and_the_caller_at_the_first(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    work = parallel.Ahead(_slow_double, list(range(40)), None, workers=2, here=_here, backwards=True)
    try:
        _begun(work, 39)
        assert work.get(0) == "here"  # the pool had not begun the first chunk: the caller's own way
        assert work.get(39) == 78  # the pool's first
    finally:
        work.close()


def _slow_double(context, item: int) -> int:
    import time

    time.sleep(0.05)
    return item * 2


def _here(context, item: int) -> str:
    return "here"


def test_a_worker_that_dies_leaves_its_pages_to_mkdocs(plain):
    import os
    import signal
    import time

    config, files = plain
    pages = [Page(None, f, config) for f in files.documentation_pages()]
    ahead = html_ahead.HtmlAhead(config, files, _markdown_of, workers=2)
    _begun(ahead.work, len(pages) - 1)
    pool = ahead.work._pool
    for pid in list(pool._processes):
        os.kill(pid, signal.SIGKILL)  # the kernel's out-of-memory killer, say
    deadline = time.monotonic() + 30
    while not pool._broken and time.monotonic() < deadline:  # the executor has seen it (its own thread)
        time.sleep(0.01)
    for page in pages:
        page.read_source(config)
        ahead.take(page)
        page.render(config, files)
        assert page.content == _fresh(config, files, page.file.src_uri).content
    ahead.close()


def test_a_pool_wanted_later_forks_at_its_first_get_and_ends_with_its_last(monkeypatch):
    # The plots' pool of a build whose pages are made here forks once html_ahead's pool has ended, so no
    # pool forks while another's threads run (Python 3.12 warns of it: the child may deadlock).
    monkeypatch.setattr(parallel, "MIN_ITEMS", 2)
    work = parallel.Ahead(_slow_double, list(range(8)), None, workers=2, start=False)
    assert work._pool is None
    assert work.get(0) == 0 and work._pool is not None
    processes = list(work._pool._processes.values())
    assert [work.get(i) for i in range(1, 8)] == [2 * i for i in range(1, 8)]
    assert work._pool is None and not any(p.is_alive() for p in processes)  # ended, not left to end
