"""The tooltip matcher, old and new side by side over the same generated pages (issue 31).

    python bench/tooltip_matcher.py [--n 200] [--repeat 3] [--old-commit 24f4233]

Writes a synthetic glossary of N entries (bench/gen_entries.py: bodies that name their related terms
in lower case, in the plural and by an alias), renders every entry page's Markdown once, then times
three ways of turning those same pages into HTML, each page with a fresh Python-Markdown instance
and mkdocs.yml's extensions, as MkDocs does:

* plain: no glossary tooltips at all (the floor);
* old: the abbr-line matcher of ``--old-commit`` (``glossary/site/tooltips.py`` as it was there, read
  with ``git show``): its word pass writes ``*[spelling]: definition`` lines and Python-Markdown's abbr
  extension wraps them with its ``\\b...\\b`` pattern;
* new: ``tooltips.append`` (the page's table) and ``tooltip_html`` over the rendered HTML.

It prints the best of ``--repeat`` runs of each, the tooltips each placed, and the ratios new / old
of the whole conversion and of the tooltips' own share (time above plain).
"""

from __future__ import annotations

import argparse
import logging
import re
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import markdown
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gen_entries import write_glossary  # noqa: E402

from glossary.build import GlossaryBuild  # noqa: E402
from glossary.settings import Settings  # noqa: E402
from glossary.site import headings, render, tooltip_html, tooltips  # noqa: E402

_TERM_LINK = re.compile(r'<a href="term-\d+\.md[^"]*" title=')
BASE_EXTENSIONS = ["abbr", "admonition", "attr_list", "tables", "toc", "pymdownx.details", "pymdownx.superfences",
                   "pymdownx.tabbed", "pymdownx.highlight", "pymdownx.inlinehilite"]
CONFIGS = {"toc": {"permalink": True}, "pymdownx.tabbed": {"alternate_style": True}}


def old_module(commit: str) -> types.ModuleType:
    """``glossary/site/tooltips.py`` as it was at ``commit``, imported under another name."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:glossary/site/tooltips.py"],
                            capture_output=True, text=True, check=True).stdout
    module = types.ModuleType("old_tooltips")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:glossary/site/tooltips.py", "exec"), module.__dict__)  # our own code, old
    return module


def pages(n: int, work: Path) -> tuple[GlossaryBuild, dict[str, str]]:
    project = write_glossary(work / "glossary", n)
    config = yaml.safe_load((project / "mkdocs.yml").read_text(encoding="utf-8"))
    settings = Settings.resolve(entries_dir=project / "entries", config_dir=project, extra=config.get("extra") or {},
                                serving=False, environ={"GLOSSARY_MEASURE": "never"})
    build = GlossaryBuild(settings=settings, log=logging.getLogger("bench.tooltip_matcher"))
    build.load(measurer=None)
    out = {}
    if not any(build.shown(s) for s in build.models):
        raise SystemExit("no synthetic entry was published: " + build.summary())
    for slug, model in build.models.items():
        if build.shown(slug):
            out[slug] = render.render_entry(build.env, model, hidden=build.hidden, catalog=build.lesson_catalog,
                                            by_day=build.lessons_by_day)
    return build, out


def convert(text: str, extra: list) -> str:
    return markdown.Markdown(extensions=BASE_EXTENSIONS + extra, extension_configs=CONFIGS).convert(text)


def run(texts: dict[str, str], ways: dict, repeat: int) -> dict[str, tuple[float, int]]:
    """Seconds (the sum over pages of each page's best of ``repeat``) and tooltips placed, per way.
    The ways take turns page by page, so a machine shared with others slows them alike."""
    best = {name: {slug: float("inf") for slug in texts} for name in ways}
    placed = {name: 0 for name in ways}
    for round_ in range(repeat):
        for slug, text in texts.items():
            for name, (prepare, extra) in ways.items():
                start = time.perf_counter()
                page = convert(prepare(text, slug), extra())
                best[name][slug] = min(best[name][slug], time.perf_counter() - start)
                if round_ == 0:
                    # tooltips placed: abbrs and titled term links (a bench's count, read off the output)
                    placed[name] += page.count("<abbr") + len(_TERM_LINK.findall(page))
    return {name: (sum(best[name].values()), placed[name]) for name in ways}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--n", type=int, default=200, help="entries (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, the best kept (default 3)")
    ap.add_argument("--old-commit", default="24f4233", help="the commit whose abbr-line matcher is 'old'")
    opts = ap.parse_args(argv)
    old = old_module(opts.old_commit)
    with tempfile.TemporaryDirectory() as work:
        build, texts = pages(opts.n, Path(work))
    shown = [m.entry for m in build.shown_models()]
    old_matcher = old.Matcher(old.terms(shown))
    new_matcher = tooltips.Matcher(tooltips.terms(shown))
    chars = sum(len(t) for t in texts.values())
    print(f"{len(texts)} pages, {chars / 1e6:.2f} MB of Markdown, {len(new_matcher.terms)} spellings")
    ways = {
        "plain": (lambda t, s: t, lambda: []),
        "old": (lambda t, s: old.append(t, old_matcher, s), lambda: [old.ScopeExtension()]),
        "new": (lambda t, s: tooltips.append(t, new_matcher, s),
                lambda: [tooltips.ScopeExtension(), tooltip_html.TooltipExtension(), headings.HeadingIdExtension()]),
    }
    timed = run(texts, ways, opts.repeat)
    for name, (seconds, placed) in timed.items():
        print(f"  {name:6s} {seconds:8.3f} s  {seconds / len(texts) * 1000:7.2f} ms/page  {placed:6d} tooltips")
    (plain, _), (before, _), (after, _) = timed["plain"], timed["old"], timed["new"]
    print(f"new / old, whole conversion: {after / before:.2f}x")
    if before > plain:
        print(f"new / old, tooltips' own time (above plain): {(after - plain) / (before - plain):.2f}x "
              f"({(after - plain) * 1000 / len(texts):.2f} against {(before - plain) * 1000 / len(texts):.2f} ms/page)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
