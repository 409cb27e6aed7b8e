"""The command line: options, then the parts in order, the report rewritten after each one."""

from __future__ import annotations

import argparse
import os
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import bench.h200_peers as package
from measure import expr, stats

from bench.h200_peers.floor import FLOOR_ELEMENTS, part_floor
from bench.h200_peers.fused import part_fused
from bench.h200_peers.method import GOALS, REL_L2_MAX, SLUG, select_sizes
from bench.h200_peers.report import Writer, render_table
from bench.h200_peers.session import Session
from bench.h200_peers.stability import more_samples, part_stability

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("floor", "fused", "stability")
PROG = "python3 -m bench.h200_peers"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options; ``--parts`` comes back as a list of part names."""
    ap = argparse.ArgumentParser(prog=PROG, description=package.__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for peers.json, peers.md, peers.log")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    ap.add_argument("--sizes", default="all", help="part 2's sizes: all, headline, upto-headline or n values")
    ap.add_argument("--stability-sizes", default="upto-headline",
                    help="part 3's sizes (same forms); the default leaves out 268M elements, whose float64 "
                         "checks cost the harness about a minute of CPU time per run")
    ap.add_argument("--floor-elements", type=int, default=FLOOR_ELEMENTS, help="float32 elements per copy buffer")
    ap.add_argument("--warmups", type=int, default=5)
    ap.add_argument("--runs", type=int, default=50, help="samples per contestant in parts 1 and 2")
    ap.add_argument("--max-autotune", action="store_true",
                    help="also torch.compile(mode='max-autotune-no-cudagraphs') (adds compile time)")
    ap.add_argument("--budget-s", type=float, default=420.0,
                    help="skip part 3's second run when it would end after this many seconds")
    opts = ap.parse_args(argv)
    parts = [p.strip() for p in opts.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        ap.error(f"--parts: unknown part(s) {', '.join(unknown)}; expected some of {', '.join(PARTS)}")
    if opts.runs < 5 or opts.warmups < 0 or opts.floor_elements < 4:
        ap.error("--runs must be at least 5, --warmups at least 0, --floor-elements at least 4")
    opts.parts = parts
    return opts


def _run_part(report: dict, name: str, writer: Writer, fn: Callable[[], dict]) -> None:
    """One part into ``report[name]``; its failure is recorded, and the report rewritten either way."""
    writer.say(f"--- part {name} ---")
    t0 = time.monotonic()
    try:
        report[name] = fn()
        report["errors"] += [{"part": name, "error": e} for e in report[name].get("errors", [])]
    except Exception as err:  # one failing part must not lose the others
        report["errors"].append({"part": name, "error": f"{type(err).__name__}: {err}"})
        writer.say(f"part {name} failed: {type(err).__name__}: {err}\n{traceback.format_exc()}")
    report["durations_s"][name] = time.monotonic() - t0
    writer.write(report)


def main(argv: list[str] | None = None) -> int:
    """Run the parts asked for; 0 when none recorded an error, else 1."""
    opts = parse_args(argv)
    # Inductor compiles in this process: no worker pool to start beside a live CUDA context.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    from glossary.entries.model import parse_entry
    from measure import harness
    from measure.harness import envinfo

    writer = Writer(opts.out)
    entry = parse_entry(ROOT / "entries" / f"{SLUG}.md", ROOT / "entries")
    spec = entry.meta.measure
    fused_sizes = select_sizes(spec.sizes, spec.headline, opts.sizes)
    stability_sizes = select_sizes(spec.sizes, spec.headline, opts.stability_sizes)
    report: dict[str, Any] = {"schema": "h200-peers/1", "captured_at": envinfo.captured_at(),
                              "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(opts).items()},
                              "goals": GOALS, "rel_l2_max": REL_L2_MAX, "environment": {}, "errors": [],
                              "notes": [], "durations_s": {}}
    ok, gpu = harness.probe_gpu()
    writer.say(f"probe_gpu: {ok} {gpu}")
    if not ok:
        report["errors"].append({"part": "setup", "error": gpu})
        writer.write(report)
        print(render_table(report))
        return 1
    if {"floor", "fused"} & set(opts.parts):
        need = max([harness.copy_floor_bytes(opts.floor_elements, 0)] +
                   [harness.copy_floor_bytes(expr.evaluate_int(spec.elements, p), 0) for p in fused_sizes])
        session = None
        try:
            session = Session(spec.seed, max(need, 2**27), writer.say)  # >= 2x any L2 (copy_floor_bytes)
            report["environment"] = session.environment()
            report["environment"]["sm_mhz_before"] = session.clocks()["sm_mhz"]
            writer.say(f"environment: {report['environment']}")
            if "floor" in opts.parts:
                _run_part(report, "floor", writer,
                          lambda: part_floor(session, spec.seed, opts.floor_elements, opts.warmups, opts.runs))
            best_copy = (report.get("floor") or {}).get("verdict", {}).get("best_gbps")
            if "fused" in opts.parts:
                _run_part(report, "fused", writer,
                          lambda: part_fused(session, entry, spec, fused_sizes, best_copy, opts.warmups,
                                             opts.runs, opts.max_autotune))
            clocks = session.clocks()
            report["environment"]["sm_mhz_after"] = clocks["sm_mhz"]
            reasons = {r for part in ("floor", "fused") for r in _reasons(report.get(part))}
            report["environment"]["throttle_reasons"] = sorted(reasons | set(clocks["throttle_reasons"]))
        except Exception as err:
            report["errors"].append({"part": "session", "error": f"{type(err).__name__}: {err}"})
            writer.say(f"session failed: {traceback.format_exc()}")
        finally:
            if session is not None:
                try:
                    session.close()
                except Exception as err:
                    report["errors"].append({"part": "session", "error": f"closing: {type(err).__name__}: {err}"})
        writer.write(report)
    if "stability" in opts.parts:
        _run_part(report, "stability", writer,
                  lambda: part_stability(entry, spec, stability_sizes, writer, opts.budget_s,
                                         more_samples(report.get("fused"))))
    if stability_sizes != [dict(p) for p in spec.sizes] and "stability" in opts.parts:
        report["notes"].append(f"stability ran at {', '.join(stats.size_label(p) for p in stability_sizes)} "
                               f"(--stability-sizes {opts.stability_sizes}), not every size of the spec.")
    report["durations_s"]["total"] = writer.elapsed()
    writer.write(report)
    print(render_table(report))
    writer.say(f"wrote {opts.out / 'peers.json'}, {opts.out / 'peers.md'}, {opts.out / 'peers.log'}")
    return 1 if report["errors"] else 0


def _reasons(part: dict | None) -> set[str]:
    """Throttle reasons any clock reading of a part saw."""
    found: set[str] = set()
    if not part:
        return found
    blocks = [part.get("clocks")] + [z.get("clocks") for z in part.get("sizes", [])]
    for block in blocks:
        for reading in (block or {}).values():
            found.update(reading.get("throttle_reasons") or [])
    return found
