"""What the post-build leak check costs per page (issue 31): a synthetic site, many refused entries.

    PYTHONPATH=$PWD python3 bench/leak_check_cost.py [--pages 600] [--refused 400]

Writes REFUSED draft entries of 21 sentences each and PAGES shown pages of about 20 kB (links,
code, tooltips) into a temporary folder, runs ``glossary.site.leaks.find`` over the site three
times and prints the best time per page.  Nothing leaks, so every page is read to its end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from glossary.entries.model import load_entries  # noqa: E402
from glossary.site import leaks  # noqa: E402

PARAGRAPH = ("<p>A shown page's paragraph with <a href=\"../s1/\">a link</a>, <code>code</code> and "
             "<abbr title=\"A definition of a shown term, long enough.\">a term</abbr>. Another sentence.</p>\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=600)
    parser.add_argument("--refused", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        entries, site = Path(tmp) / "entries", Path(tmp) / "site"
        entries.mkdir()
        for i in range(args.refused):
            body = "\n\n".join(f"Refused entry {i} says a sentence number {j} that nobody else says anywhere."
                               for j in range(20))
            (entries / f"r{i}.md").write_text(f"---\ntitle: R {i}\nsummary: The summary of refused entry {i}, its "
                                              f"own words.\n---\n{body}\n")
        refused = list(load_entries(entries).values())
        for i in range(args.pages):
            (site / f"s{i}").mkdir(parents=True)
            (site / f"s{i}" / "index.html").write_text("<html><body>" + PARAGRAPH * 80 + "</body></html>")
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            found = leaks.find(site, refused, [])
            best = min(best, time.perf_counter() - started)
        assert not found, found[:3]
        print(f"{args.pages} pages, {args.refused} refused entries: {best / args.pages * 1000:.1f} ms per page "
              f"({best:.2f} s in all)")


if __name__ == "__main__":
    main()
