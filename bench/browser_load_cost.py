"""What a page of a built site costs headless Chromium, in a new tab and in a tab kept for many pages.

    python3 bench/browser_load_cost.py SITE_DIR [PAGE ...] [--loads 8]

SITE_DIR is a built site (say `GLOSSARY_PREVIEW=1 mkdocs build -d /tmp/preview`), served on localhost.
For each PAGE (default: the home page and 404.html) it loads the page ``--loads`` times each way, side by
side in one run, and prints the machine's busy CPU-seconds per load (from /proc/stat, so Chromium's
processes count, and the host's stolen time does not), with the ratio. The suite's browser tests are
CPU-bound on a 2-core machine: a new tab starts a renderer process, a kept tab does not (issue 34).
Material's search worker is stubbed as the suite's tests that never search stub it (tests/serving.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from serving import CHROMIUM, CHROMIUM_ARGS, local_context, serve, without_search  # noqa: E402


def busy_cpu_s() -> float:
    """Seconds of CPU the whole machine spent busy so far (user to softirq; idle, iowait, steal left out)."""
    with open("/proc/stat") as stat:
        ticks = [int(x) for x in stat.readline().split()[1:8]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("pages", nargs="*", default=["", "404.html"])
    parser.add_argument("--loads", type=int, default=8)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with serve(args.site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)

        def context():
            return without_search(local_context(browser, viewport={"width": 1280, "height": 900}))

        def load(tab, url: str) -> None:
            tab.goto(url)
            tab.wait_for_load_state("networkidle")  # nothing left in flight when its tab closes

        def new_tabs(url: str) -> float:
            start = busy_cpu_s()
            for _ in range(args.loads):
                made = context()
                load(made.new_page(), url)
                made.close()
            return (busy_cpu_s() - start) / args.loads

        def kept_tab(url: str) -> float:
            made = context()
            tab = made.new_page()
            load(tab, url)  # the renderer's start is not a load's
            start = busy_cpu_s()
            for _ in range(args.loads):
                load(tab, url)
            spent = (busy_cpu_s() - start) / args.loads
            made.close()
            return spent

        print(f"{'page':32s} {'new tab':>9s} {'kept tab':>9s} {'ratio':>6s}   (machine CPU-s a load)")
        for page in args.pages:
            new_tabs(base + page)  # warm the server and the page cache
            fresh, kept = new_tabs(base + page), kept_tab(base + page)
            print(f"{page or '(home)':32s} {fresh:9.3f} {kept:9.3f} {fresh / kept:6.2f}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
