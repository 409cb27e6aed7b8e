"""The hostile corpus (tests/hostile/): malformed and malicious entries.

Each case either stops the build with an error naming the file and the key (and no
traceback), or is refused by the gate and renders inert in a preview: nothing of it
reaches the published site, and template or HTML payloads show as typed.  Cases that
cannot live in git (symlinks, a 10 MB file) are made at test time.  ERRORS and INERT
below are the list of cases with the exact outcome a user sees.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import mkdocs, write_project

from glossary.entries.model import EntryErrors, MAX_ENTRY_BYTES, load_entries

CORPUS = Path(__file__).parent / "hostile"

# slug -> (the key the message names, or "" for a whole-file problem; a fragment of the message)
ERRORS: dict[str, tuple[str, str]] = {
    "yaml-bad": ("tags", "front-matter is not valid YAML (line 6, column 22): expected ',' or ']'"),
    "yaml-tabs": ("lessons", "found character '\\t' that cannot start any token; indent with spaces, not tabs"),
    "yaml-duplicate-key": ("title", "duplicate key 'title' (first on line 2)"),
    "yaml-unclosed": ("", "the front-matter opened with '---' on line 1 is never closed"),
    "yaml-empty": ("title", "the front-matter is empty; it needs at least title and summary"),
    "yaml-not-mapping": ("", "expected the front-matter to be a mapping of keys to values, found a list"),
    "yaml-alias-bomb": ("tags", "the front-matter expands to more than 100,000 values (YAML aliases count once"),
    "encoding-latin1": ("", "the file is not UTF-8 text (byte 0xe9 on line 3); save it as UTF-8"),
    "size-10mb": ("", "the file is 10,240 KB; an entry may be at most 256 KB"),
    "type-title-number": ("title", "expected text, found an integer 42"),
    "type-related-text": ("related", "expected a list of text, found text 'kernel-fusion'"),
    "type-bad-date": ("written_on", "expected a date (YYYY-MM-DD), found text '2026-13-45'"),
    "type-author-boolean": ("author", "expected text, found a boolean False"),
    "unknown-key-typo": ("sumary", "unknown key (known keys: title, summary,"),
    "unknown-key-nested": ("measure.timing.rusn", "did you mean 'runs'?"),
    "slug-Bad_Name": ("", "the file name must be a slug (lowercase words joined by '-'), found 'slug-Bad_Name'"),
    "related-self": ("related[0]", "an entry cannot be related to itself ('related-self'); remove it"),
    "related-missing": ("related[0]", "found 'related-cycle-x'; did you mean 'related-cycle-"),
    "kernel-traversal": ("measure.sources[0]", "expected a file inside the entry's folder"),
    "kernel-absolute": ("measure.sources[0]", "expected a file name relative to the entry's folder"),
    "kernel-other-entry": ("measure.sources[0]", "which resolves to"),
    "kernel-symlink": ("measure.sources[0]", "found 'link.cu', which resolves to"),
    "kernel-symlink-folder": ("measure.sources[0]", "found 'k.cu', which resolves to"),
    "kernel-missing": ("measure.sources[0]", "found none"),
    "spec-zero-size": ("measure.sizes[1].n", "expected a size of at least 1, found 0"),
    "spec-negative-size": ("measure.sizes[0].n", "expected a size of at least 1, found -4096"),
    "spec-zero-runs": ("measure.timing.runs", "expected at least 1 timed run, found 0"),
    "spec-negative-warmups": ("measure.timing.warmups", "expected 0 or more warm-up runs, found -1"),
    "spec-negative-bytes": ("measure.variants[0].bytes_per_elem", "expected a number of at least 0, found -8.0"),
    "spec-no-launches": ("measure.variants[0].launches", "expected at least one launch"),
    "spec-zero-block": ("measure.variants[0].launches[0].block", "expected positive sizes"),
    "spec-nvcc-output": ("measure.nvcc_flags[1]", "options that name files"),
    "bound-expr-power": ("measure.buffers.x.size", "expression '9 ** 9 ** 9' raises 9 to the power 387,420,489; "
                                                   "exponents may be at most 64"),
    "bound-yaml-alias-launches": ("measure", "the front-matter expands to more than 100,000 values"),
    "bound-body-brackets": ("body", "line 7: The '[' and '](' of links in the body would make the build's "
                                    "parsers read more than 1,000,000 characters"),
    "bound-body-nesting": ("body", "line 9: the line opens with 1,000 quote or list markers"),
    "bound-tags-many": ("tags", "expected at most 12 items, found 13"),
    "bound-tag-form": ("tags[0]", "expected a short topic name"),
    "bound-related-repeated": ("related[2]", "text 'related-cycle-a' repeats related[0]; list it once"),
    "bound-size-huge": ("measure.sizes[0].n", "expected at most 2**40 (1,099,511,627,776) elements"),
    "bound-date-future": ("sources[0].checked", "the date 2999-01-01 is in the future"),
    # issue 28, item 9: what one measurement may cost the node
    "bound-host-pageable": ("measure.buffers.h", "need 512.0 GiB of host memory (h 512.0 GiB pageable), more "
                                                 "than the 16.0 GiB"),
    "bound-graph-nodes": ("measure.variants[0].launches[0].repeat", "102,400,000 a round of every measured "
                                                                    "variant), more than the 50,000,000 it may"),
}

# slug -> (other corpus entries it needs, the gate's reason in the build's WARNING)
INERT: dict[str, tuple[tuple[str, ...], str]] = {
    "encoding-bom": ((), "no named author (author is 'pending')"),
    "related-cycle-a": (("related-cycle-b",), "no named author (author is 'pending')"),
    "names-placeholders": ((), "no named author (author is 'TBD'); no named reviewer (reviewer is '<pending>')"),
    "names-case-spacing": ((), "is the author; a different person must review"),
    "names-fullwidth": ((), "is the author; a different person must review"),
    "names-nbsp": ((), "is the author; a different person must review"),
    "names-combining": ((), "is the author; a different person must review"),
    "names-zero-width": ((), "is the author; a different person must review"),
    "names-confusable": ((), "the reviewer ('ɑda Exarnple') looks the same as the author ('Ada Example'); "
                             "a different person must review"),
    "names-bidi": ((), "the reviewer's name contains a right-to-left override (U+202E)"),
    "names-mixed-script": ((), "the author's name mixes Latin and Cyrillic letters (Cyrillic: 'А' U+0410"),
    "names-placeholder-cyrillic": ((), "no named author (author is 'рending', which reads as the placeholder "
                                       "'pending')"),
    "inject-body-jinja": ((), "no named author (author is 'pending')"),
    "inject-title-jinja": ((), "no named author (author is 'pending')"),
    "inject-title-html": ((), "no named author (author is 'pending')"),
    "inject-byline-html": ((), "no named reviewer (reviewer is '[TBD](javascript:alert(4))')"),
}

# What must never appear in a page that shows a hostile entry: payloads evaluated, or live markup.
EVALUATED = ["Seven times seven: 49", "<script>alert", "<img src=x", 'href="javascript:', "&lt;class",
             "<class ", "Loop: 012", "012 {{", ">49<", "49 {{"]
LIVE_HANDLER = re.compile(r"<[a-z][^<>]*\son[a-z]+\s*=", re.I)  # an element carrying an event handler


def _make_corpus(folder: Path) -> Path:
    """The committed corpus plus the cases git cannot hold: symlinks and a 10 MB entry."""
    shutil.copytree(CORPUS, folder, dirs_exist_ok=True)
    (folder / "kernel-symlink" / "link.cu").symlink_to("/etc/hostname")
    outside = folder.parent / "outside-entries"
    outside.mkdir(exist_ok=True)
    (outside / "k.cu").write_text('extern "C" __global__ void copy() {}\n')
    (outside / "reference.py").write_text("def reference(variant, inputs, scalars, params):\n    return {}\n")
    (folder / "kernel-symlink-folder").symlink_to(outside, target_is_directory=True)
    word = b"padding "
    body = word * (10 * (1 << 20) // len(word))
    (folder / "size-10mb.md").write_bytes(b"---\ntitle: Huge\nsummary: Ten megabytes.\n---\n" + body)
    return folder


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return _make_corpus(tmp_path_factory.mktemp("hostile") / "entries")


@pytest.fixture(scope="module")
def load_errors(corpus) -> dict[str, str]:
    with pytest.raises(EntryErrors) as caught:
        load_entries(corpus)
    return {Path(e.path).stem: (e.key, str(e)) for e in caught.value.errors}


def test_corpus_is_complete(corpus):
    slugs = {p.stem for p in corpus.glob("*.md")}
    assert slugs == set(ERRORS) | set(INERT) | {"related-cycle-b"}
    assert len(slugs) >= 25
    assert (corpus / "size-10mb.md").stat().st_size > 10 * MAX_ENTRY_BYTES


@pytest.mark.parametrize("slug", sorted(ERRORS))
def test_error_names_file_and_key(slug, load_errors):
    key, fragment = ERRORS[slug]
    assert slug in load_errors, f"{slug}.md loaded without an error"
    found_key, message = load_errors[slug]
    assert found_key == key
    assert message.split(":", 1)[0].endswith(f"{slug}.md" + (f", key '{key}'" if key else ""))
    assert fragment in message
    assert "Traceback" not in message and "Error:" not in message


def test_inert_cases_load(load_errors):
    assert not set(INERT) & set(load_errors)


def _project(tmp_path: Path, corpus: Path, slugs: list[str]) -> Path:
    project = write_project(tmp_path, {})
    for slug in slugs:
        shutil.copy2(corpus / f"{slug}.md", project / "entries" / f"{slug}.md")
    return project


def _site_files(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text(errors="replace") for p in site.rglob("*")
            if p.is_file() and p.suffix in (".html", ".json", ".xml")}


@pytest.mark.parametrize("slug", sorted(INERT))
def test_inert_case_is_never_published(slug, tmp_path, corpus):
    companions, reason = INERT[slug]
    slugs = [slug, *companions]
    project = _project(tmp_path, corpus, slugs)
    run = mkdocs(project, "build")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert f"entries/{slug}.md: refused, left out of the site: " in run.stderr
    assert reason in run.stderr
    site = project / "site"
    for s in slugs:
        assert not (site / s).exists()
        for name, text in _site_files(site).items():
            assert s not in text, f"{name} mentions refused entry {s}"
    search = json.loads((site / "search" / "search_index.json").read_text())
    assert [d["location"] for d in search["docs"] if d["location"] not in ("", "tags/")] == []
    assert json.loads((site / "glossary.json").read_text()).get("entries", []) == []


@pytest.mark.parametrize("slug", sorted(INERT))
def test_inert_case_renders_payloads_as_text_in_preview(slug, tmp_path, corpus):
    companions, _ = INERT[slug]
    project = _project(tmp_path, corpus, [slug, *companions])
    run = mkdocs(project, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    page = (project / "site" / slug / "index.html").read_text()
    assert "Draft: not published" in page
    for payload in EVALUATED:
        assert payload not in page, f"{payload!r} in the preview page of {slug}"
    assert not LIVE_HANDLER.search(page)
    index = (project / "site" / "index.html").read_text()
    for payload in EVALUATED:
        assert payload not in index


def test_injected_payloads_show_as_typed(tmp_path, corpus):
    slugs = ["inject-body-jinja", "inject-title-jinja", "inject-title-html", "inject-byline-html"]
    project = _project(tmp_path, corpus, slugs)
    run = mkdocs(project, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    site = project / "site"
    body = (site / "inject-body-jinja" / "index.html").read_text()
    assert "Seven times seven: {{ 7*7 }}" in body
    assert "Power: {{ 9" in body  # ** pairs render as bold; the point is that nothing was computed
    assert "template code that is not a bound figure" in run.stderr
    title = (site / "inject-title-jinja" / "index.html").read_text()
    assert "{{ 7*7 }} {{ config }}" in title
    assert "{% for i in range(3) %}" in title
    html = (site / "inject-title-html" / "index.html").read_text()
    assert "&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt; Scripted" in html or \
        "&lt;script&gt;alert('title')&lt;/script&gt; Scripted" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "[click](javascript:alert(2))" in html
    byline = (site / "inject-byline-html" / "index.html").read_text()
    assert "Written by: pending. Reviewed by: pending." in byline  # markup is no person's name
    assert "<script>alert" not in byline


def test_whole_corpus_build_reports_every_problem(tmp_path):
    project = write_project(tmp_path, {})
    _make_corpus(project / "entries")
    run = mkdocs(project, "build", "--strict")
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    for slug, (key, fragment) in ERRORS.items():
        where = f"{slug}.md" + (f", key '{key}'" if key else "")
        assert where in run.stderr, f"the build did not report {where}"
        assert fragment in run.stderr
    # the symlinked folder is reported too: MkDocs would walk what it points at
    assert "symbolic links to folders" in run.stderr and "kernel-symlink-folder ->" in run.stderr
    assert not (project / "site" / "index.html").exists()
