"""Measure one entry with the harness and print a short table (a bench script, not the build).

    python3 bench/run_entry.py kernel-fusion --out /tmp/kf.json [--sizes 1048576,67108864] [--no-counters]

Writes the full result JSON to --out (never into entries/); the glossary CLI is
what records results in the store.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from measure import harness, results, stats  # noqa: E402
from measure.spec import MeasureSpec  # noqa: E402
from measure.typed import load  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("slug")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sizes", help="comma-separated n values replacing the spec's sizes")
    ap.add_argument("--no-counters", action="store_true")
    opts = ap.parse_args()
    md = ROOT / "entries" / f"{opts.slug}.md"
    entry_dir = ROOT / "entries" / opts.slug
    data = yaml.safe_load(md.read_text(encoding="utf-8")[3:].split("\n---", 1)[0])["measure"]
    if opts.sizes:
        sizes = [{"n": int(v)} for v in opts.sizes.split(",")]
        data = dict(data, sizes=sizes, headline=data["headline"] if data["headline"] in sizes else sizes[-1])
    spec = load(MeasureSpec, data)
    if opts.no_counters:
        spec = dataclasses.replace(spec, counters=False)
    files = {p: (entry_dir / p).read_bytes() for p in [*spec.sources, spec.reference]}
    fp = results.measurement_fingerprint(spec, files)
    ok, why = harness.probe_gpu()
    print(f"probe_gpu: {ok} {why}")
    data = harness.measure_entry(opts.slug, entry_dir, spec, fp)
    opts.out.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    result = results.parse_measured(data)  # read through the model, as the site reads it
    env = result.environment
    print(f"\n{env.gpu} driver {env.driver} CUDA {env.cuda_driver} nvcc {env.nvcc} {env.arch} "
          f"L2 {env.l2_bytes} clocks {env.clocks} throttled {env.throttled} {env.throttle_reasons}")
    print(f"compile: {env.compile_command}")
    if result.counters:
        print(f"counters: {result.counters.status} at {result.counters.size} ({result.counters.reason or ''})")
    stat = result.method.statistic
    for size in result.sizes:
        floor = size.copy_floor
        print(f"\n{stats.size_label(size.params)}  working set {size.working_set_bytes / 1e6:.0f} MB  "
              f"copy floor {floor.gbps:.0f} GB/s (float4 {floor.vector_copy_gbps:.0f}, "
              f"dtod {floor.memcpy_dtod_gbps:.0f})  max rel err {size.check.max_rel_err:.2e}")
        for name, var in size.variants.items():
            st = var.stats
            ms = getattr(st, stat)
            bw = stats.gbps(var.bytes_per_elem * size.elements, ms)
            line = (f"  {name:10s} {stat} {ms:.4f} ms  median {st.median:.4f}  sd {st.stdev:.4f}  "
                    f"{bw:.0f} GB/s ({bw / floor.gbps:.0%} of floor)")
            c = var.counters
            if c and c.flushed and c.unflushed:
                line += (f"  dram B/elem flushed {c.flushed.dram_bytes_per_elem:.2f} "
                         f"unflushed {c.unflushed.dram_bytes_per_elem:.2f} "
                         f"per kernel {[round(k.bytes_per_elem, 2) for k in c.flushed.per_kernel or ()]}")
            elif c:
                line += f"  counters: {c.error}"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
