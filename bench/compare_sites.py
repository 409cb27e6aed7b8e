"""Compare the pages of two builds of the glossary, text only: what a restructure must keep.

    python3 bench/compare_sites.py BEFORE_REF [AFTER_REF]      # git refs; AFTER defaults to the working tree
    python3 bench/compare_sites.py --sites SITE_A SITE_B         # two built site/ folders

Each ref is checked out into a temporary worktree and built with ``GLOSSARY_PREVIEW=1``
(drafts shown, so every entry's page is compared) and measuring off.  Every HTML page's
visible text is compared (scripts, styles and the build date left out), and every other
generated file (glossary.json, plots, kernels, results) byte for byte.  Prints one line per
difference and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Material prints the build date in the footer of some themes and in the sitemap.
_DATES = re.compile(r"\b20\d\d-\d\d-\d\d(?:T[\d:.+Z-]+)?\b")
_SKIP_FILES = ("sitemap.xml", "sitemap.xml.gz")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.parts.append(" ".join(data.split()))


def page_text(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    return parser.parts


def build(ref: str | None, out: Path) -> Path:
    """Build ``ref`` (None: the working tree) into ``out``; returns the site folder."""
    env = dict(os.environ, GLOSSARY_PREVIEW="1", GLOSSARY_MEASURE="never", NO_MKDOCS_2_WARNING="1")
    if ref is None:
        tree = ROOT
    else:
        tree = out / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), ref], check=True,
                       capture_output=True)
        env["PYTHONPATH"] = str(tree)
    site = out / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)], cwd=tree, env=env,
                         capture_output=True, text=True)
    if ref is not None:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
    if run.returncode != 0:
        raise SystemExit(f"build of {ref or 'the working tree'} failed:\n{run.stderr}")
    return site


def compare(a: Path, b: Path) -> list[str]:
    """One line per difference between two built sites."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    out = [f"only in the first: {f}" for f in sorted(files_a - files_b) if not f.endswith(_SKIP_FILES)]
    out += [f"only in the second: {f}" for f in sorted(files_b - files_a) if not f.endswith(_SKIP_FILES)]
    for rel in sorted(files_a & files_b):
        if rel.endswith(_SKIP_FILES) or rel.startswith("assets/") and not rel.endswith("glossary.css"):
            continue
        left, right = (a / rel).read_bytes(), (b / rel).read_bytes()
        if rel.endswith(".html"):
            ta = [_DATES.sub("<date>", t) for t in page_text(left.decode("utf-8", "replace"))]
            tb = [_DATES.sub("<date>", t) for t in page_text(right.decode("utf-8", "replace"))]
            if ta != tb:
                diff = [d for d in difflib.unified_diff(ta, tb, lineterm="", n=0) if d[:1] in "+-"][2:6]
                out.append(f"{rel}: text differs: " + " | ".join(diff))
        elif rel.endswith("search_index.json") and _index(left) == _index(right):
            continue  # the same documents: the order MkDocs met the files in is no part of the site
        elif left != right:
            out.append(f"{rel}: content differs")
    return out


def _index(data: bytes):
    """A search index as a reader's search sees it: its configuration and its documents, in any order."""
    import json

    try:
        index = json.loads(data)
        return index.get("config"), sorted(json.dumps(d, sort_keys=True) for d in index.get("docs", []))
    except (ValueError, AttributeError):
        return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("refs", nargs="*", help="BEFORE_REF [AFTER_REF]")
    ap.add_argument("--sites", nargs=2, type=Path, metavar=("SITE_A", "SITE_B"))
    opts = ap.parse_args(argv)
    if opts.sites:
        a, b = opts.sites
    else:
        if not 1 <= len(opts.refs) <= 2:
            ap.error("give BEFORE_REF [AFTER_REF], or --sites A B")
        tmp = Path(tempfile.mkdtemp(prefix="compare-sites-"))
        a = build(opts.refs[0], tmp / "a")
        b = build(opts.refs[1] if len(opts.refs) > 1 else None, tmp / "b")
    differences = compare(a, b)
    for line in differences:
        print(line)
    print(f"{len(differences)} difference(s) between {a} and {b}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
