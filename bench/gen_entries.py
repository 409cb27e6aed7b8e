"""Synthetic glossaries for the build-cost benchmark: N entries with recorded (invented) results.

    python3 bench/gen_entries.py OUT_DIR --n 1000 [--plain]

Writes a MkDocs project into OUT_DIR/glossary (this repository's mkdocs.yml,
hook and templates) holding N entries that pass the publish gate: invented
fixture people sign them ("Ada Example" writes, "Grace Example" reviews, signed
with the project's own review fingerprint), each with related links, tags, a
lesson, a source, a measurement spec and a results file in the real store
format whose fingerprint is the project's own ``measurement_fingerprint`` of the
entry, so nothing is stale.

These are benchmark fixtures, never entries of the real glossary: every result
is filed under the device key ``synthetic-gpu`` ("Synthetic GPU (benchmark
fixture)", timer "synthetic"), and every page says that its numbers are
invented.  The gate publishes only results recorded as the harness records
them, signed by a trusted node, and reviews signed by their reviewers' keys, so
the project's trust files list keys made for it in memory (a "synthetic" node,
the two fixture people): the build pays for verification as a real one does.
No private key is written anywhere; nothing is ever measured (the benchmark
builds with GLOSSARY_MEASURE=never).

With ``--plain`` it also writes OUT_DIR/plain-nav and OUT_DIR/plain-nonav: the
same pages as the glossary build renders them, as plain Markdown files under
plain Material (no hook), with every page in the sidebar nav or none of them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from glossary.entries import lessons
from glossary.build import GlossaryBuild  # noqa: E402
from glossary.verdicts import people, review, trust  # noqa: E402
from glossary.settings import Settings  # noqa: E402
from glossary.entries.model import load_entries, parse_entry  # noqa: E402
from glossary.entries.model import measurement_fingerprint  # noqa: E402
from measure import attest, store  # noqa: E402

DEVICE = "synthetic-gpu"
AUTHOR = "Ada Example"
REVIEWER = "Grace Example"
PROVENANCE = ("synthetic benchmark fixture written by bench/gen_entries.py; "
              "every number is invented, nothing was measured")
DAY = dt.date(2026, 1, 5)
TAGS = ("memory-bound", "latency", "occupancy", "caches", "scheduling", "synchronization", "arithmetic",
        "launch", "profiling", "numerics", "layout", "streams")
SYLLABLES = ("ka", "lo", "mi", "ne", "pu", "ra", "si", "to", "vu", "ze", "bo", "da", "fe", "gi", "ju", "ho")
SIZES = (1 << 20, 1 << 24, 1 << 26)

KERNEL = """\
extern "C" __global__ void copy(const float* b, float* a, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i];
}

extern "C" __global__ void triad(float* a, const float* b, const float* c, float s, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
"""

REFERENCE = """\
def reference(variant, inputs, scalars, params):
    if variant == "copy":
        return {"a": inputs["b"]}
    return {"a": inputs["b"] + scalars["s"] * inputs["c"]}
"""

SPEC = {
    "sources": ["triad.cu"],
    "reference": "reference.py",
    "archs": ["sm_90"],
    "sizes": [{"n": n} for n in SIZES],
    "headline": {"n": SIZES[-1]},
    "scalars": {"s": 3.0},
    "buffers": {"a": {"role": "output"}, "b": {"role": "input"}, "c": {"role": "input"}},
    "variants": [
        {"name": "copy", "label": "plain copy", "bytes_per_elem": 8,
         "launches": [{"kernel": "copy", "grid": ["ceil(n / 256)"], "block": [256], "args": ["b", "a", "n"]}]},
        {"name": "triad", "label": "triad kernel", "bytes_per_elem": 12,
         "launches": [{"kernel": "triad", "grid": ["ceil(n / 256)"], "block": [256],
                       "args": ["a", "b", "c", "s", "n"]}]},
    ],
    "ratios": [{"num": "triad", "den": "copy"}],
}


def word(i: int) -> str:
    """A pronounceable made-up word, distinct for every i (so titles never collide)."""
    out = ""
    i += len(SYLLABLES)  # at least two syllables
    while i:
        i, d = divmod(i, len(SYLLABLES))
        out += SYLLABLES[d]
    return out


def slug(i: int) -> str:
    return f"term-{i:04d}"


def title(i: int) -> str:
    return f"{word(i).capitalize()} {word(i * 7 + 3)}"


def related(i: int, n: int) -> list[int]:
    return sorted({(i + k) % n for k in (1, 7, 31)} - {i}) if n > 1 else []


def entry_text(i: int, n: int) -> str:
    """The Markdown of synthetic entry i: front-matter (unsigned) and a body that names its related terms."""
    front = {
        "title": title(i),
        "summary": f"An invented term number {i} of a synthetic glossary, used only to time the build.",
        "tags": [TAGS[i % len(TAGS)], TAGS[(i * 5 + 1) % len(TAGS)]],
        "related": [slug(j) for j in related(i, n)],
        "lessons": [{"day": 30, "title": "The memory-bound mindset", "note": "where the term is met."}],
        "aliases": [word(i).capitalize()],
        "sources": [{"title": "Synthetic source", "url": f"https://example.org/synthetic/{i}",
                     "checked": DAY, "id": "sheet"}],
        "author": AUTHOR,
        "written_on": DAY,
        "reviewer": REVIEWER,
        "reviewed_on": DAY,
        "measure": SPEC,
    }
    names = [title(j) for j in related(i, n)]
    mentions = ", ".join(f"[{t}]({slug(j)}.md)" for t, j in zip(names, related(i, n)))
    # Tooltips as real prose needs them: lower case, plurals and an alias of each related term.
    prose = " ".join(f"Unlike the {t.lower()}, it needs no extra pass; two {t.title()}s or a "
                     f"{t.split()[0]} make one." for t in names)
    # Cited figures (glossary.figures.cite): one in the prose, a small cited table.
    cited = ('An invented datasheet gives it {{ cite("3.35 TB/s", "sheet") }} (invented, as every number here).\n\n'
             '{% call cite_table("sheet") %}\n| model | invented bandwidth (TB/s) | invented peak (TFLOPS) |\n'
             '|:--|--:|--:|\n| A | 1.5 | 100 |\n| B | 3.0 | 200 |\n{% endcall %}\n\n')
    body = (f"This entry is a benchmark fixture ({PROVENANCE}). It relates to {mentions or 'nothing'}.\n\n"
            f"{prose}\n\n{cited}"
            'The triad runs at {{ fig.gbps("triad") }} here, {{ fig.speedup("triad", "copy") }} the copy time.\n')
    return "---\n" + yaml.dump(front, Dumper=_NoAliases, sort_keys=False, width=1000) + "---\n" + body


class _NoAliases(yaml.SafeDumper):
    """Writes repeated values out again instead of as YAML aliases (&id001), as an author would."""

    def ignore_aliases(self, data) -> bool:
        return True


def result(i: int, entry_slug: str, fingerprint: str | None) -> dict:
    """A results file in the store's format, for the synthetic device, with invented numbers
    (the environment and the timer say so, and so does every page)."""
    floor = 3000.0 + (i % 97)
    sizes = []
    for k, n in enumerate(SIZES):
        copy_ms = 8 * n / (floor * 0.9e6) * (1.0 + 0.01 * k)
        triad_ms = copy_ms * (1.5 + 0.001 * (i % 13))
        sizes.append({
            "params": {"n": n}, "elements": n, "working_set_bytes": 12 * n, "copy_floor": {"gbps": floor},
            "variants": {
                "copy": {"bytes_per_elem": 8, "samples_ms": [copy_ms] * 5, "stats": {"mean": copy_ms}},
                "triad": {"bytes_per_elem": 12, "samples_ms": [triad_ms] * 5, "stats": {"mean": triad_ms}},
            },
        })
    env = {"gpu": "Synthetic GPU (benchmark fixture)", "driver": "0.0", "cuda_driver": "0.0", "nvcc": "none",
           "compile_command": "none: synthetic fixture", "arch": "sm_90", "captured_at": DAY.isoformat(),
           "l2_bytes": 50 << 20, "sm_count": 132}
    return {"format": store.RESULT_FORMAT, "entry": entry_slug, "device": DEVICE, "status": "ok",
            "provenance": "measured", "fingerprint": fingerprint,
            "environment": env, "method": {"warmups": 1, "runs": 5, "statistic": "mean", "timer": "synthetic"},
            "sizes": sizes}


def mkdocs_config(plain: str | None) -> dict:
    """This repository's mkdocs.yml for a synthetic project.

    ``plain`` None: the glossary build (the hook, measuring off); "nav": no hook, every
    page in the sidebar nav (MkDocs' default); "nonav": no hook, only the home page in the nav.
    """
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config.update(site_name=f"Synthetic glossary ({plain or 'glossary'})", docs_dir="entries", site_dir="site")
    config.pop("watch", None)  # the repository's folders (mkdocs serve), which this project does not have
    extra = config.setdefault("extra", {})
    if plain is None:
        config["hooks"] = [str(ROOT / "hooks" / "glossary_hooks.py")]
        extra["glossary"] = {"measure": "never", "templates": str(ROOT / "templates"),
                             "lessons": str(ROOT / "data" / "lessons.yml")}
        return config
    config.pop("hooks", None)
    extra.pop("glossary", None)
    if plain == "nonav":
        config["nav"] = ["index.md"]
    else:
        config.pop("nav", None)
    return config


def write_glossary(project: Path, n: int) -> Path:
    """A glossary project with n signed synthetic entries and their results; returns the project."""
    if project.exists():
        shutil.rmtree(project)
    entries_dir = project / "entries"
    entries_dir.mkdir(parents=True)
    shutil.copytree(ROOT / "entries" / "assets", entries_dir / "assets")
    (project / "mkdocs.yml").write_text(yaml.safe_dump(mkdocs_config(None), sort_keys=False), encoding="utf-8")
    catalog = lessons.load_catalog(ROOT / "data" / "lessons.yml")  # the project's, as mkdocs_config points
    keys = {"node": attest.Signer.generate(), AUTHOR: attest.Signer.generate(), REVIEWER: attest.Signer.generate()}
    (project / "trust").mkdir()
    (project / trust.NODES_FILE).write_text(
        trust.allowed_signers_line("synthetic-node", keys["node"].public, trust.RESULT_NAMESPACE) + "\n")
    (project / trust.PEOPLE_FILE).write_text("".join(
        trust.allowed_signers_line(name, keys[name].public, trust.REVIEW_NAMESPACE) + "\n"
        for name in (AUTHOR, REVIEWER)))
    for i in range(n):
        s = slug(i)
        folder = entries_dir / s
        (folder / "results").mkdir(parents=True)
        (folder / "triad.cu").write_text(KERNEL, encoding="utf-8")
        (folder / "reference.py").write_text(REFERENCE, encoding="utf-8")
        path = entries_dir / f"{s}.md"
        text = entry_text(i, n)
        path.write_text(text, encoding="utf-8")
        entry = parse_entry(path, entries_dir)
        data = attest.sign_result(result(i, s, measurement_fingerprint(entry)), keys["node"], signed_at=DAY.isoformat())
        store.write_atomic(store.results_dir(folder) / f"{DEVICE}.json", data)
        # sign as the project's `glossary sign` does (the author, then the reviewer), so the gate
        # publishes it without warnings
        recorded = store.load_results(folder)
        content = review.content_fingerprint(entry, recorded, catalog)
        people.write_author_signature(entry, DAY, content, keys[AUTHOR])
        signed, fingerprint = review.sign_entry(entry, text, REVIEWER, DAY, recorded, catalog)
        path.write_text(signed, encoding="utf-8")
        people.write_review_signature(parse_entry(path, entries_dir), REVIEWER, DAY, fingerprint, keys[REVIEWER],
                                     content)
    load_entries(entries_dir)  # every related slug resolves, every file parses
    return project


def write_plain(glossary: Path, out: Path, in_nav: bool) -> Path:
    """The glossary's pages as the hook renders them, as a plain Material project (no hook)."""
    if out.exists():
        shutil.rmtree(out)
    docs = out / "entries"
    shutil.copytree(glossary / "entries", docs)
    config = yaml.safe_load((glossary / "mkdocs.yml").read_text(encoding="utf-8"))
    options = Settings.resolve(entries_dir=docs, config_dir=glossary, extra=config.get("extra") or {},
                              serving=False, environ={"GLOSSARY_MEASURE": "never"})
    build = GlossaryBuild(settings=options, log=logging.getLogger("bench.gen_entries"))
    build.load(measurer=None)
    made = build.site_files(directory_urls=True)  # plots from the glossary's cache where it has them
    made["index.md"] = "# Glossary\n"  # as the hook adds it; rendered below like every page
    for rel, content in made.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    for path in sorted(docs.glob("*.md")):
        rendered = build.render_page(path.name)
        if rendered is not None:
            path.write_text(rendered, encoding="utf-8")
    config_plain = mkdocs_config("nav" if in_nav else "nonav")
    (out / "mkdocs.yml").write_text(yaml.safe_dump(config_plain, sort_keys=False), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("out", type=Path, help="folder to write the project(s) into")
    ap.add_argument("--n", type=int, default=100, help="number of entries (default 100)")
    ap.add_argument("--plain", action="store_true", help="also write the plain-Material projects")
    opts = ap.parse_args(argv)
    if opts.n < 1:
        ap.error("--n must be at least 1")
    glossary = write_glossary(opts.out / "glossary", opts.n)
    print(f"wrote {opts.n} synthetic entries to {glossary}")
    if opts.plain:
        for in_nav, name in ((True, "plain-nav"), (False, "plain-nonav")):
            print(f"wrote {write_plain(glossary, opts.out / name, in_nav)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
