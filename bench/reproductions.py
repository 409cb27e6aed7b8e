"""The agreement of every committed reproduction with its record, per entry and size regime.

    python3 bench/reproductions.py [--entries entries]

Prints a Markdown table for BENCHMARKS.md (the worst difference per regime and its tolerance,
judged by the site's own code: glossary.verdicts.reproductions under the project's trust
files), then one line per number outside its tolerance, so each can be explained. A
reproduction that does not count is listed with the reason. Exits 1 when one disagrees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from glossary.entries.model import load_entries  # noqa: E402
from glossary.settings import Settings  # noqa: E402
from glossary.verdicts import agreement, reproductions  # noqa: E402
from measure import store  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--entries", type=Path, default=ROOT / "entries")
    opts = ap.parse_args(argv)
    policy = Settings.for_project(opts.entries).load_trust()
    columns = [r for r in agreement.REGIMES if r != "unclassified"] + ["unclassified"]
    print("| entry | device | node | verdict | " + " | ".join(agreement.REGIME_TEXT[r] for r in columns) + " |")
    print("|:--|:--|:--|:--|" + "--:|" * len(columns))
    outside, bad = [], 0
    for slug, entry in sorted(load_entries(opts.entries).items()):
        for checked in reproductions.check_entry(entry, store.load_results(entry.folder), policy):
            if not checked.counted:
                print(f"| {slug} | {checked.device or '?'} | {checked.node or '?'} | not counted: {checked.reason} |"
                      + " |" * len(columns))
                continue
            regimes = {g.regime: g for g in checked.agreement.regimes()}
            cells = [f"{agreement.percent(regimes[r].worst)} (within {regimes[r].tolerance_text})" if r in regimes
                     else "–" for r in columns]
            print(f"| {slug} | {checked.device} | {checked.node} | {checked.status} | " + " | ".join(cells) + " |")
            outside += [(slug, checked.node, n) for n in checked.agreement.outside]
            bad += checked.status == "disagrees"
    for slug, node, n in outside:
        ratio = "missing" if n.ratio is None else f"{n.ratio:.4f}"
        print(f"- {slug}, {node}: {n.where} ({agreement.REGIME_TEXT[n.regime]}): {ratio} of the record, "
              f"tolerance {agreement.percent(n.tolerance)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
