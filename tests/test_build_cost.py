"""Build cost stays low: synthetic entries build, a rebuild draws no plot, tooltips skip absent terms,
front-matter parses with libyaml and stays strict."""

from __future__ import annotations

import datetime
import json
import re
import sys

import pytest
import yaml

from conftest import ROOT, mkdocs
from glossary.entries import frontmatter
from glossary.site import tooltips
from glossary.entries.model import load_entries
from glossary.entries.model import measurement_fingerprint

sys.path.insert(0, str(ROOT / "bench"))
import gen_entries  # noqa: E402

_PLOTS = re.compile(r"plots: (\d+) drawn, (\d+) from the cache")


def _plots(log: str) -> tuple[int, int]:
    found = _PLOTS.search(log)
    assert found, f"no plot count in the build log:\n{log}"
    return int(found.group(1)), int(found.group(2))


def test_synthetic_glossary_builds_and_a_rebuild_draws_no_plot(tmp_path):
    project = gen_entries.write_glossary(tmp_path / "glossary", 4)
    entries = load_entries(project / "entries")
    for entry in entries.values():
        recorded = json.loads((entry.folder / "results" / f"{gen_entries.DEVICE}.json").read_text())
        assert recorded["fingerprint"] == measurement_fingerprint(entry)
        assert recorded["method"]["timer"] == "synthetic" and "benchmark fixture" in recorded["environment"]["gpu"]
        assert "signature" in recorded  # by the project's synthetic node key

    first = mkdocs(project, "build", "--strict")
    assert first.returncode == 0, first.stderr
    assert _plots(first.stderr) == (4, 0)
    page = (project / "site" / "term-0001" / "index.html").read_text()
    assert "every number is invented" in page and "Grace Example" in page
    assert (project / "site" / "term-0001" / "plots" / f"{gen_entries.DEVICE}.svg").is_file()

    again = mkdocs(project, "build", "--strict")
    assert again.returncode == 0, again.stderr
    assert _plots(again.stderr) == (0, 4)
    assert "measuring" not in again.stderr


def test_repository_keeps_entries_out_of_the_sidebar_nav():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["nav"] == [{"Glossary": "index.md"}]


def test_tooltip_word_pass_finds_what_one_combined_regex_finds(tmp_path):
    # The matcher's one pass over the tokens (a trie walk per token) against the plain way: one
    # combined regex of every form, longest first, acronyms case-sensitive, the rest in any case.
    spellings = ["C++ streams", "kernel-fusion", "L2 cache", "warp_shuffle", "Über cache", "CUDA", "CUDA graph",
                 "SM", "Latency"]
    for i, spelling in enumerate(spellings):
        (tmp_path / f"t-{i}.md").write_text(f"---\ntitle: {json.dumps(spelling)}\nsummary: Term {i}.\n---\nBody.\n")
    terms = tooltips.terms(list(load_entries(tmp_path).values()))
    forms = sorted(((f, t) for t in terms for f in t.forms), key=lambda ft: -len(ft[0]))
    combined = re.compile(r"(?<![\w-])(?:" + "|".join(
        (f"(?-i:{re.escape(f)})" if t.exact else re.escape(f)) for f, t in forms) + r")(?![\w-])", re.IGNORECASE)
    texts = ["Use C++ streams and a kernel-fusion pass; the L2 cache and warp_shuffle help.",
             "C++ stream, kernel-fusions, L2-cache, warp_shuffles, xCUDA, CUDA-graph, Über caches.",
             "A CUDA graph over the über cache, CUDA graphs, cuda; SMs, sms, SM's, sm_90, latencies.", ""]
    for text in texts:
        found: dict[str, str] = {}
        for m in combined.finditer(text):
            term = next(t for f, t in forms if (m.group() == f if t.exact else m.group().lower() == f))
            found.setdefault(m.group(), term.definition)
        got: dict[str, str] = {}
        for surface, term in tooltips.mentions(text, terms):
            got.setdefault(surface, term.definition)
        assert got == found


def test_fast_yaml_loader_keeps_duplicate_keys_and_impossible_dates_strict():
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML built without libyaml: the pure loader is the only one")
    assert issubclass(frontmatter._FastLoader, yaml.CSafeLoader)
    # refused on the fast path itself, not only by the pure loader's second parse
    with pytest.raises(yaml.constructor.ConstructorError, match=r"duplicate key 'a' \(first on line 2\)"):
        yaml.load("a: 1\nb: 2\na: 3\n", Loader=frontmatter._FastLoader)
    data = yaml.load("made: 2026-13-45\nseen: 2026-01-02\n", Loader=frontmatter._FastLoader)
    assert data == {"made": "2026-13-45", "seen": datetime.date(2026, 1, 2)}


def test_fast_yaml_loader_reads_what_the_pure_loader_reads(tmp_path):
    project = gen_entries.write_glossary(tmp_path / "glossary", 2)
    texts = [p.read_text() for p in sorted((ROOT / "entries").glob("*.md")) + sorted((project / "entries").glob("*.md"))]
    for text in texts:
        front = frontmatter.FRONT_MATTER_RE.match(text).group(1)
        assert frontmatter._load_yaml(front) == yaml.load(front, Loader=frontmatter._StrictLoader)
