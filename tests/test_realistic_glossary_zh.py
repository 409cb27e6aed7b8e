"""Issue 31's Chinese check: the Chinese copy of part of the realistic glossary
(tests/fixtures/realistic-glossary-zh/, 16 terms) imported into an empty project and preview-built.

1. at least 90% of the term links (a link from one imported term to another) carry the target's own
   definition as their tooltip on the built page;
2. no tooltip stands inside a code span, a heading, a link's text or a generated table;
3. a term inside running Chinese text, which has no spaces (线程束 in 每个线程束), gets its tooltip.

One import and one preview build serve every test (module fixture).
"""

from __future__ import annotations

import html
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, ROOT, mkdocs, write_project

sys.path.insert(0, str(FIXTURES))
import realistic_glossary as corpus  # noqa: E402
from test_realistic_glossary import GATE, _Abbrs, _config, _entry_meta, assert_tooltip_share  # noqa: E402

from glossary.importer import import_glossary  # noqa: E402

TOOLTIP_SHARE = 0.90
# Where no tooltip may stand: code, headings, another link's text, any table (the generated ones).
_NO_TOOLTIP = frozenset("code pre kbd samp h1 h2 h3 h4 h5 h6 a table".split())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(entries folder, slug of each source file, the preview build's run, its site folder)."""
    root = write_project(tmp_path_factory.mktemp("realistic-zh"), {})
    config = _config(root)
    config["site_name"] = "Realistic fixture glossary (zh)"
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    shutil.copytree(ROOT / "entries" / "assets", root / "entries" / "assets")
    (root / "trust").mkdir(exist_ok=True)
    (root / "trust" / "nodes.allowed_signers").write_text("# none\n")
    (root / "trust" / "people.allowed_signers").write_text("# none\n")
    report = import_glossary(corpus.CORPUS_ZH, root / "entries")
    slug_of = {f.source: f.slug for f in report.files if f.imported}
    run = mkdocs(root, "build", env={"GLOSSARY_PREVIEW": "1", "GLOSSARY_MEASURE": "never"}, timeout=600)
    return root / "entries", slug_of, run, root / "site"


def _slug(slug_of: dict, term: corpus.Term) -> str:
    return slug_of[f"{term.section}/{term.path.name}"]


_CODE_LINK = re.compile(r"(?<!!)\[(`+)([^`\n]+?)\1\]\(([^()\s]+)\)")


def _links_as_shown(terms: dict) -> list[tuple[str, str, str]]:
    """(source, text as the page shows it, target) of each link between two different terms.
    ``corpus.term_links`` reads prose with code spans blanked, so a link whose text is code
    ("[`nvcc`](nvcc.md)") comes with a blank text: its text is that code."""
    out = []
    code = {slug: [(corpus._resolve(t, m.group(3), terms)[0], m.group(2)) for m in _CODE_LINK.finditer(t.body)]
            for slug, t in terms.items()}
    for link in corpus.term_links(corpus.CORPUS_ZH):
        text = link.text
        if not text.strip():  # the first code link of its page to that target
            at = next(i for i, (target, _) in enumerate(code[link.source]) if target == link.target)
            text = code[link.source].pop(at)[1]
        if link.source != link.target:
            out.append((link.source, text, link.target))
    return out


def test_the_build_runs_and_warns_only_of_the_gate(built):
    _, slug_of, run, site = built
    assert run.returncode == 0, run.stderr[-4000:]
    assert len(slug_of) == len(corpus.terms(corpus.CORPUS_ZH)) == 16
    warnings = [line for line in run.stderr.splitlines() if line.startswith("WARNING") and not GATE.search(line)]
    assert warnings == []


def test_term_links_carry_their_targets_tooltip(built):
    entries, slug_of, run, site = built
    assert run.returncode == 0, run.stderr[-4000:]
    terms = corpus.terms(corpus.CORPUS_ZH)
    summary = {slug: " ".join(str(_entry_meta(entries / f"{_slug(slug_of, t)}.md")["summary"]).split())
               for slug, t in terms.items()}
    links = _links_as_shown(terms)
    assert len(links) >= 40 and any(text == "nvcc" for _, text, _ in links)
    assert_tooltip_share([(site / _slug(slug_of, terms[source]) / "index.html", text, summary[target],
                           f"{source}: [{text}] -> {target}") for source, text, target in links],
                         TOOLTIP_SHARE, "term links have their target's tooltip")


class _Placed(HTMLParser):
    """Each <abbr>: its text and the tags it stands inside; and each link with a title, nested or not."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.abbrs: list[tuple[str, tuple[str, ...]]] = []
        self.titled_links_inside: list[tuple[str, tuple[str, ...]]] = []  # (title, tags around)
        self._open: list[list] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a" and dict(attrs).get("title") and set(self.stack) & _NO_TOOLTIP:
            self.titled_links_inside.append((" ".join(html.unescape(dict(attrs)["title"]).split()), tuple(self.stack)))
        if tag == "abbr":
            self._open.append(["", tuple(self.stack)])
        if tag not in ("br", "img", "hr", "input", "meta", "link", "wbr", "source"):
            self.stack.append(tag)

    def handle_data(self, data):
        for item in self._open:
            item[0] += data

    def handle_endtag(self, tag):
        if tag == "abbr" and self._open:
            text, stack = self._open.pop()
            self.abbrs.append((text, stack))
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass


def _placed(page: Path) -> _Placed:
    parser = _Placed()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_no_tooltip_in_code_headings_other_links_or_tables(built):
    entries, slug_of, run, site = built
    assert run.returncode == 0, run.stderr[-4000:]
    definitions = {" ".join(str(_entry_meta(entries / f"{slug}.md")["summary"]).split()) for slug in slug_of.values()}
    wrong, count = [], 0
    for source, slug in sorted(slug_of.items()):
        placed = _placed(site / slug / "index.html")
        count += len(placed.abbrs)
        wrong += [f"{slug}: <abbr>{text}</abbr> inside {'>'.join(stack)}"
                  for text, stack in placed.abbrs if set(stack) & _NO_TOOLTIP]
        # a heading's permalink has a title of its own ("Permanent link"): only a definition is a tooltip
        wrong += [f"{slug}: a term link with its tooltip inside {'>'.join(stack)}"
                  for title, stack in placed.titled_links_inside if title in definitions]
    assert count > 0
    assert wrong == []
    # the fixture gives each rule something to refuse: thread-block says 线程束 in a heading, in a fenced
    # block, in a code span and in a link to shared memory (the zh fixture has no table of its own,
    # so any table on these pages is one the glossary made)
    page = (site / slug_of["programming-model/thread-block.md"] / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<h2[^>]*>线程块与线程束", page)
    assert "<code>线程束号</code>" in page and re.search(r"<pre[^>]*>(?:(?!</pre>).)*每个线程束", page, re.S)
    assert re.search(r"<a [^>]*>每个线程束用到的共享内存</a>", page)


def test_a_term_inside_running_chinese_text_gets_its_tooltip(built):
    """线程束 stands unlinked, with Han characters on both sides, in the definition line of three pages
    and in a section of a fourth (the first use in that part of the page): each gets the warp's
    tooltip, and the text around it reads as before."""
    entries, slug_of, run, site = built
    assert run.returncode == 0, run.stderr[-4000:]
    terms = corpus.terms(corpus.CORPUS_ZH)
    warp = " ".join(str(_entry_meta(entries / f"{_slug(slug_of, terms['warp'])}.md")["summary"]).split())
    for name, around in (("occupancy", "上驻留的线程束数量与"), ("bank-conflict", "是同一线程束中的"),
                         ("latency-hiding", "在一个线程束等待内存时"), ("thread-block", "一组切分成线程束，所以")):
        page = site / _slug(slug_of, terms[name]) / "index.html"
        source = page.read_text(encoding="utf-8")
        parser = _Abbrs()
        parser.feed(source)
        assert ("线程束", warp) in parser.found, (name, sorted(parser.found))
        assert re.search(r"<abbr title=\"[^\"]*\">线程束</abbr>", source), name
        assert around in html.unescape(re.sub(r"<[^>]+>", "", source)), (name, around)
