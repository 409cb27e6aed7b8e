"""Does a re-measure agree with the result it replaces?  Median ratio per variant at every size.

    python3 bench/agreement.py OLD.json NEW.json [--within 0.005]

Prints one row per (size, variant) whose working set is at least 4x the L2 (smaller ones are
L2-resident and shown for information, not judged), the new median over the old, and whether
it is within --within; exits 1 when a judged row is not.  Also prints both results' phases.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from measure import results  # noqa: E402
from measure.harness.phases import breakdown  # noqa: E402


def load(path: Path) -> results.Result:
    return results.parse(json.loads(path.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--within", type=float, default=0.005)
    opts = ap.parse_args(argv)
    old, new = load(opts.old), load(opts.new)
    stat = new.method.statistic
    l2 = new.environment.l2_bytes or 0
    before = {tuple(sorted(s.params.items())): s for s in old.sizes}
    worst, bad = 0.0, 0
    print(f"{new.entry} on {new.environment.gpu}: {stat} of the re-measure over the recorded one")
    for size in new.sizes:
        was = before.get(tuple(sorted(size.params.items())))
        if was is None:
            continue
        judged = bool(size.working_set_bytes and l2 and size.working_set_bytes >= 4 * l2)
        for name, var in size.variants.items():
            if name not in was.variants:
                continue
            ratio = getattr(var.stats, stat) / getattr(was.variants[name].stats, stat)
            ok = abs(ratio - 1) <= opts.within
            if judged:
                worst = max(worst, abs(ratio - 1))
                bad += not ok
            mark = ("ok" if ok else "OUTSIDE") if judged else "(under 4x L2, not judged)"
            print(f"  {size.params}  {name:14s} {ratio:.4f}  {mark}")
    print(f"  worst judged difference {worst:.2%} (limit {opts.within:.1%}); {bad} outside")
    for label, r in (("recorded", old), ("re-measure", new)):
        print(f"  phases, {label}: {breakdown(r.phases) if r.phases else 'not recorded'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
