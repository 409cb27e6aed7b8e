"""Harness fidelity on the H200: the harness against its peers, in one process (issue 8).

    PYTHONUNBUFFERED=1 python3 bench/h200_peers.py --out "$OUT"

with pycuda and this repository on PYTHONPATH; torch (and cupy, where present) come from the
machine. Three parts; after each one, peers.json, peers.md (the BENCHMARKS.md section "Harness
fidelity on the H200") and peers.log under --out are rewritten, so a run cut short keeps what
it finished. Nothing is written into entries/.

1. Copy floor.  The harness's own copy-floor regions (harness.copy_floor_regions: a float4 copy
   kernel and cuMemcpyDtoD, timed as the harness times them) against cuMemcpyDtoD and the float4
   copy timed with plain events, and torch's ``dst.copy_(src)`` timed with torch.cuda.Event (and
   once more the harness's way), 1 GiB per buffer, bytes read plus written.
2. Fused chain.  kernel-fusion's variants, compiled and launched exactly as the harness does
   (harness.compile_kernels, harness.prepare_calls, from the entry's spec), against torch eager and
   torch.compile of the same chain (the tanh GELU, as chain.cu), at every size of the spec.
   Every contestant is checked against the entry's float64 reference (rel. L2 error) before it
   is timed; all are then timed the harness's way, interleaved, with the harness's copy floor
   of that size among them.
3. Stability.  harness.measure_entry on kernel-fusion twice in a row, as the build runs it
   (counter pass off): per variant and size, the drift of the median between the runs and the
   relative IQR of the published samples.

"The harness's way" is harness.GpuSession.sample: a kernel reads 2x the L2 (the flush), a blocking
kernel holds the stream while the host enqueues, then events around the region.

Why one process in the primary context: torch works in the device's primary context, so the
harness's pycuda session shares it (harness.GpuSession(primary=True)) and torch enqueues its work on
the harness's stream (torch.cuda.ExternalStream). Every contestant of part 2 is then timed by
the same code, behind the same flush and blocking kernel. Torch in a subprocess would need its
own flush, blocking kernel and event timing: a second harness, not a comparison with this one.
Part 3 runs measure_entry as the build does (its own context) after parts 1-2 freed their memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from measure import HARNESS_VERSION, expr, stats, units  # noqa: E402

SLUG = "kernel-fusion"
OUTPUT = "y"                   # the chain's output buffer, and the torch chain's result
FUSED = "fused_vec4"           # the fused kernel the goals judge (16-byte accesses)
CHAIN_BYTES_PER_ELEM = 12      # x and r read once, y written once
FLOOR_ELEMENTS = 268_435_456   # 1 GiB per copy buffer, 17x the H200's 60 MiB L2
REL_L2_MAX = 1e-5              # float32 lands near 1e-7; an erf GELU would be about 1e-4 off
GOALS = {"floor_of_best_copy": 0.98, "fused_of_best_copy": 0.98, "fused_over_compile": 1.15,
         "median_drift": 0.01, "rel_iqr": 0.02}
PARTS = ("floor", "fused", "stability")

FLOOR_LABELS = {
    "harness_vector_copy": ("harness float4 copy", "harness (flush, blocking kernel, events)"),
    "harness_memcpy_dtod": ("harness cuMemcpyDtoD", "harness (flush, blocking kernel, events)"),
    "plain_vector_copy": ("float4 copy kernel", "plain pycuda events"),
    "plain_memcpy_dtod": ("cuMemcpyDtoD", "plain pycuda events"),
    "torch_copy": ("torch dst.copy_(src)", "torch.cuda.Event, default stream"),
    "torch_copy_harness": ("torch dst.copy_(src)", "harness (flush, blocking kernel, events)"),
}


# ---------------------------------------------------------------------------------------------
# Pure helpers (tested on the CPU in tests/test_bench_peers.py)


def summary(samples_ms: list[float]) -> dict:
    """stats.summarize plus ``rel_iqr``, the IQR over the median."""
    st = stats.summarize(samples_ms)
    st["rel_iqr"] = st["iqr"] / st["median"] if st["median"] > 0 else math.inf
    return st


def relative_change(before: float, after: float) -> float:
    """(after - before) / before."""
    if before <= 0:
        raise ValueError(f"a relative change needs a positive starting value, found {before}")
    return (after - before) / before


def check_passes(rel_l2: float, nan: int) -> bool:
    """A contestant is timed only when no output is NaN and its rel. L2 error is at most REL_L2_MAX."""
    return nan == 0 and math.isfinite(rel_l2) and rel_l2 <= REL_L2_MAX


def floor_verdict(gbps: dict[str, float], harness_floor_gbps: float) -> dict:
    """The harness's floor against the best copy of all contestants (GB/s at the median)."""
    if not gbps:
        raise ValueError("no copy was timed")
    best = max(gbps, key=lambda name: gbps[name])
    ratio = harness_floor_gbps / gbps[best]
    goal = GOALS["floor_of_best_copy"]
    return {"best": best, "best_gbps": gbps[best], "harness_floor_gbps": harness_floor_gbps,
            "ratio": ratio, "goal": goal, "ok": ratio >= goal}


def fused_goals(size: dict, best_copy_gbps: float | None) -> dict:
    """The fused-kernel goals at one size of part 2 (the headline): of the best copy, over torch.compile."""
    timed = size["contestants"]
    fused = timed.get(FUSED, {})
    compiled = timed.get("torch_compile", {})
    out: dict[str, Any] = {"size": size["label"], "variant": FUSED}
    if fused.get("gbps") is not None and best_copy_gbps:
        ratio = fused["gbps"] / best_copy_gbps
        out["of_best_copy"] = {"value": ratio, "goal": GOALS["fused_of_best_copy"],
                               "ok": ratio >= GOALS["fused_of_best_copy"]}
    if fused.get("stats") and compiled.get("stats"):
        speedup = compiled["stats"]["median"] / fused["stats"]["median"]
        out["over_compile"] = {"value": speedup, "goal": GOALS["fused_over_compile"],
                               "ok": speedup >= GOALS["fused_over_compile"]}
    return out


def _sample_sets(result: dict) -> dict[tuple[str, str], list[float]]:
    """(size label, name) -> published samples of one measure_entry result, copy floor included."""
    out = {}
    for size in result["sizes"]:
        label = stats.size_label(size["params"])
        for name, rec in size["variants"].items():
            out[(label, name)] = rec["samples_ms"]
        for part in ("vector_copy", "memcpy_dtod"):
            out[(label, f"copy floor: {part}")] = size["copy_floor"][part]["samples_ms"]
    return out


def stability_rows(first: dict, second: dict | None,
                   more: dict[tuple[str, str], float] | None = None) -> list[dict]:
    """Per size and variant: medians and means of both runs, their drift, and relative IQRs.

    ``more`` maps (size label, variant) to the relative IQR of a longer series (part 2).
    """
    a_sets = _sample_sets(first)
    b_sets = _sample_sets(second) if second is not None else {}
    rows = []
    for key, a_samples in a_sets.items():
        a = summary(a_samples)
        row: dict[str, Any] = {"size": key[0], "variant": key[1], "n": a["n"],
                               "median_ms": [a["median"]], "mean_ms": [a["mean"]], "rel_iqr": [a["rel_iqr"]],
                               "median_drift": None, "mean_drift": None,
                               "rel_iqr_more": (more or {}).get(key)}
        if key in b_sets:
            b = summary(b_sets[key])
            row["median_ms"].append(b["median"])
            row["mean_ms"].append(b["mean"])
            row["rel_iqr"].append(b["rel_iqr"])
            row["median_drift"] = relative_change(a["median"], b["median"])
            row["mean_drift"] = relative_change(a["mean"], b["mean"])
        rows.append(row)
    return rows


def stability_goals(rows: list[dict]) -> dict:
    """Worst median drift and worst relative IQR over all rows, against the goals."""
    out: dict[str, Any] = {}
    drifts = [r for r in rows if r["median_drift"] is not None]
    if drifts:
        worst = max(drifts, key=lambda r: abs(r["median_drift"]))
        out["median_drift"] = {"worst": worst["median_drift"], "where": f"{worst['size']} {worst['variant']}",
                               "goal": GOALS["median_drift"],
                               "missed": sum(abs(r["median_drift"]) > GOALS["median_drift"] for r in drifts),
                               "of": len(drifts)}
        out["median_drift"]["ok"] = out["median_drift"]["missed"] == 0
    if rows:
        worst = max(rows, key=lambda r: max(r["rel_iqr"]))
        out["rel_iqr"] = {"worst": max(worst["rel_iqr"]), "where": f"{worst['size']} {worst['variant']}",
                          "goal": GOALS["rel_iqr"], "n": worst["n"],
                          "missed": sum(max(r["rel_iqr"]) > GOALS["rel_iqr"] for r in rows), "of": len(rows)}
        out["rel_iqr"]["ok"] = out["rel_iqr"]["missed"] == 0
        longer = [r for r in rows if r["rel_iqr_more"] is not None]
        if longer:
            out["rel_iqr_more"] = {"worst": max(r["rel_iqr_more"] for r in longer), "goal": GOALS["rel_iqr"],
                                   "missed": sum(r["rel_iqr_more"] > GOALS["rel_iqr"] for r in longer),
                                   "of": len(longer)}
            out["rel_iqr_more"]["ok"] = out["rel_iqr_more"]["missed"] == 0
    return out


def select_sizes(sizes: list[dict], headline: dict, choice: str) -> list[dict]:
    """Sizes of the spec: "all", "headline", "upto-headline" (the spec's order), or comma-separated
    values of its one size parameter."""
    sizes = [dict(s) for s in sizes]
    if choice == "all":
        return sizes
    if choice == "headline":
        return [dict(headline)]
    if choice == "upto-headline":
        return sizes[:sizes.index(dict(headline)) + 1]
    keys = sorted(sizes[0])
    if len(keys) != 1:
        raise ValueError(f"sizes as numbers need a spec with one size parameter, this one has {keys}")
    try:
        return [{keys[0]: int(v)} for v in choice.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"expected all, headline, upto-headline or numbers like 1048576,67108864; "
                         f"found {choice!r}") from None


def finite(obj: Any) -> Any:
    """A copy of ``obj`` that JSON can hold: NaN and infinities become strings."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {str(k): finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def floor_record(samples: dict[str, list[float]], errors: dict[str, str], notes: dict[str, str],
                 floor_bytes: int, warmups: int, runs: int, clocks: dict) -> dict:
    """Part 1's record from its samples: each copy's stats and GB/s, and the harness's floor
    (``harness.copy_floor_record`` over its two regions, at the median) against the best copy."""
    from measure.harness import copy_floor_record
    contestants = {}
    for name, (label, timing) in FLOOR_LABELS.items():
        rec: dict[str, Any] = {"label": label, "timing": timing, "samples_ms": samples.get(name, [])}
        if rec["samples_ms"] and name not in errors:
            rec["stats"] = summary(rec["samples_ms"])
            rec["gbps"] = stats.gbps(2 * floor_bytes, rec["stats"]["median"])
        else:
            rec["error"] = errors.get(name, "no samples")
        if name in notes:
            rec["note"] = notes[name]
        contestants[name] = rec
    out = {"elements": floor_bytes // 4, "bytes_per_buffer": floor_bytes, "bytes_moved": 2 * floor_bytes,
           "warmups": warmups, "runs": runs, "contestants": contestants, "clocks": clocks}
    if "stats" in contestants["harness_vector_copy"] and "stats" in contestants["harness_memcpy_dtod"]:
        harness = copy_floor_record({"__vector_copy": samples["harness_vector_copy"],
                                     "__memcpy_dtod": samples["harness_memcpy_dtod"]}, floor_bytes, "median")
        out["verdict"] = floor_verdict({n: c["gbps"] for n, c in contestants.items() if "gbps" in c},
                                       harness["gbps"])
    return out


def size_record(params: dict[str, int], elements: int, headline: bool, reference_where: str,
                checks: dict[str, dict], samples: dict[str, list[float]], errors: dict[str, str],
                notes: dict[str, str], floor_bytes: int, best_copy: float | None, clocks: dict) -> dict:
    """One size of part 2 from its checks and samples: per contestant the check, stats, GB/s at
    CHAIN_BYTES_PER_ELEM, fractions of the floor at this size and of the best copy; speedups."""
    from measure.harness import copy_floor_record
    size: dict[str, Any] = {"label": stats.size_label(params), "params": dict(params), "elements": elements,
                            "headline": headline, "reference": reference_where, "clocks": clocks,
                            "contestants": {}}
    if samples.get("__vector_copy") and samples.get("__memcpy_dtod"):
        floor = copy_floor_record(samples, floor_bytes, "median")
        size["floor"] = {k: v for k, v in floor.items() if k not in ("vector_copy", "memcpy_dtod")}
        size["floor"]["vector_copy_stats"] = summary(samples["__vector_copy"])
        size["floor"]["memcpy_dtod_stats"] = summary(samples["__memcpy_dtod"])
        size["floor_gbps"] = floor["gbps"]
    for name, check in checks.items():
        rec: dict[str, Any] = {"check": {k: v for k, v in check.items() if k != "traceback"}}
        if not check["ok"]:
            rec["skipped"] = check.get("error") or "failed the reference check"
        elif name in errors or not samples.get(name):
            rec["skipped"] = errors.get(name, "no samples")
        else:
            st = summary(samples[name])
            rec.update(samples_ms=samples[name], stats=st, gbps=stats.gbps(CHAIN_BYTES_PER_ELEM * elements,
                                                                           st["median"]))
            if size.get("floor_gbps"):
                rec["of_floor"] = rec["gbps"] / size["floor_gbps"]
            if best_copy:
                rec["of_best_copy"] = rec["gbps"] / best_copy
        if name in notes:
            rec["note"] = notes[name]
        size["contestants"][name] = rec
    timed = size["contestants"]
    # "a over b": how many times faster a is than b (b's median over a's)
    size["speedup"] = {f"{a} over {b}": timed[b]["stats"]["median"] / timed[a]["stats"]["median"]
                       for a in ("fused", FUSED) for b in timed
                       if b.startswith("torch_") and "stats" in timed.get(a, {}) and "stats" in timed[b]}
    return size


def _pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x:.4f}"


def _met(goal: dict | None) -> str:
    return "not judged" if not goal else ("met" if goal["ok"] else "missed")


def render_markdown(report: dict) -> str:
    """The BENCHMARKS.md section, from the report alone."""
    env = report.get("environment", {})
    lines = ["## Harness fidelity on the H200", "",
             f"Measured by `bench/h200_peers.py` on {env.get('gpu', 'the GPU')} (driver {env.get('driver')}, "
             f"torch {env.get('torch')}, triton {env.get('triton')}, pycuda {env.get('pycuda')}, "
             f"harness {HARNESS_VERSION}), {report.get('captured_at', '')}. "
             f"SM clock {env.get('sm_mhz_before')} MHz before, {env.get('sm_mhz_after')} MHz after; "
             f"throttle reasons seen: {', '.join(env.get('throttle_reasons') or []) or 'none'}.", ""]
    floor = report.get("floor")
    if floor:
        lines += ["### Copy floor", "",
                  f"Two buffers of {floor['bytes_per_buffer']:,} bytes; GB/s count bytes read plus written "
                  f"({floor['bytes_moved']:,} per copy). Median of {floor['runs']} samples after "
                  f"{floor['warmups']} warm-ups, contestants interleaved.", "",
                  "| copy | timed with | median ms | GB/s | rel. IQR | of best |", "|---|---|--:|--:|--:|--:|"]
        v = floor.get("verdict")
        for name, c in floor["contestants"].items():
            if c.get("stats"):
                lines.append(f"| {c['label']} | {c['timing']} | {_ms(c['stats']['median'])} | {c['gbps']:.0f} | "
                             f"{_pct(c['stats']['rel_iqr'], 2)} | {_pct(c['gbps'] / v['best_gbps']) if v else '–'} |")
            else:
                lines.append(f"| {c['label']} | {c['timing']} | not timed: {c.get('error')} | | | |")
        lines += ["", "The harness's flush reads, so each of its copies starts with a clean L2 and leaves up to one "
                      "L2 of its writes unwritten when the stop event fires (they go out during the next flush); "
                      "plain back-to-back copies pay that write-back inside the next copy."]
        if v:
            lines += ["", f"Goal: the harness's floor ({v['harness_floor_gbps']:.0f} GB/s, the better of its two "
                          f"regions) is at least {_pct(v['goal'], 0)} of the best device copy "
                          f"({'{} ({})'.format(*FLOOR_LABELS[v['best']])}, {v['best_gbps']:.0f} GB/s): "
                          f"**{_met(v)}** ({_pct(v['ratio'])})."]
        else:
            lines += ["", "Goal not judged: the harness's own copy regions were not timed."]
        lines.append("")
    fused = report.get("fused")
    if fused:
        best_copy = fused.get("best_copy_gbps")
        lines += ["### Fused chain against torch", "",
                  f"`clamp(gelu_tanh(x * scale + bias) + r, lo, hi)` in float32. Each contestant is checked "
                  f"against the entry's float64 reference ({fused['reference_where']}) first: rel. L2 error at "
                  f"most {REL_L2_MAX:g}, no NaN. All are timed the harness's way (read-only L2 flush, blocking "
                  f"kernel, events, one stream), interleaved: median of {fused['runs']} samples after "
                  f"{fused['warmups']} warm-ups. GB/s count {CHAIN_BYTES_PER_ELEM} B/elem for every contestant "
                  f"(what the chain must move); \"floor\" is the harness's copy floor timed beside them at that "
                  f"size, \"best copy\" the best copy of the part above.", "",
                  "| elements | contestant | median ms | GB/s | of floor | of best copy | rel. IQR | rel. L2 error |",
                  "|--:|---|--:|--:|--:|--:|--:|--:|"]
        for size in fused["sizes"]:
            floor_gbps = size.get("floor_gbps")
            for name, c in size["contestants"].items():
                err = c["check"].get("rel_l2")
                err_s = "–" if err is None else (f"{err:.1e}" if isinstance(err, float) else str(err))
                if c.get("stats"):
                    lines.append(f"| {size['label']} | {name} | {_ms(c['stats']['median'])} | {c['gbps']:.0f} | "
                                 f"{_pct(c['gbps'] / floor_gbps) if floor_gbps else '–'} | "
                                 f"{_pct(c['gbps'] / best_copy) if best_copy else '–'} | "
                                 f"{_pct(c['stats']['rel_iqr'], 2)} | {err_s} |")
                else:
                    lines.append(f"| {size['label']} | {name} | not timed: {c.get('skipped')} | | | | | {err_s} |")
            if floor_gbps:
                lines.append(f"| {size['label']} | copy floor (harness) | | {floor_gbps:.0f} | 100.0% | "
                             f"{_pct(floor_gbps / best_copy) if best_copy else '–'} | | |")
        key = f"{FUSED} over torch_compile"
        speed = [f"{s['label']} {s['speedup'][key]:.2f}x" for s in fused["sizes"] if s.get("speedup", {}).get(key)]
        if speed:
            lines += ["", f"{FUSED} over torch.compile (median over median): {', '.join(speed)}."]
        g = fused.get("goals") or {}
        if g:
            lines += ["", f"Goals at the headline ({g['size']}): {FUSED} at least "
                          f"{_pct(GOALS['fused_of_best_copy'], 0)} of the best device copy: "
                          f"**{_met(g.get('of_best_copy'))}** ({_pct((g.get('of_best_copy') or {}).get('value'))}); "
                          f"at least {GOALS['fused_over_compile']:.2f}x torch.compile: "
                          f"**{_met(g.get('over_compile'))}**"
                          + (f" ({g['over_compile']['value']:.2f}x)." if g.get("over_compile") else ".")]
        lines.append("")
    stab = report.get("stability")
    if stab:
        times = {0: "not run", 1: "run once", 2: "run twice in a row"}.get(len(stab["durations_s"]), "run")
        longer = (report.get("fused") or {}).get("runs")
        lines += ["### Stability", "",
                  f"`measure_entry` on {SLUG} {times}, as the build runs it (counter pass off), at "
                  f"{', '.join(stab['sizes'])}; {stab['runs']} published samples per variant and run. The last "
                  f"column is the relative IQR of the same kernels over part 2's longer series "
                  f"({longer or '–'} samples, timed the same way, interleaved with torch).", ""]
        if stab.get("skipped"):
            lines += [f"Not complete: {stab['skipped']}", ""]
        lines += ["| elements | variant | median 1 ms | median 2 ms | drift | rel. IQR 1 | rel. IQR 2 | rel. IQR, longer series |",
                  "|--:|---|--:|--:|--:|--:|--:|--:|"]
        for r in stab["rows"]:
            m, q = r["median_ms"], r["rel_iqr"]
            lines.append(f"| {r['size']} | {r['variant']} | {_ms(m[0])} | {_ms(m[1] if len(m) > 1 else None)} | "
                         f"{_pct(r['median_drift'], 2)} | {_pct(q[0], 2)} | {_pct(q[1] if len(q) > 1 else None, 2)} | "
                         f"{_pct(r['rel_iqr_more'], 2)} |")
        g = stab.get("goals", {})
        parts = []
        if "median_drift" in g:
            d = g["median_drift"]
            parts.append(f"median drift at most {_pct(d['goal'], 0)}: **{_met(d)}** (worst {_pct(d['worst'], 2)} at "
                         f"{d['where']}; {d['missed']} of {d['of']} over)")
        if "rel_iqr" in g:
            q = g["rel_iqr"]
            parts.append(f"relative IQR of the {q['n']} published samples at most {_pct(q['goal'], 0)}: "
                         f"**{_met(q)}** (worst {_pct(q['worst'], 2)} at {q['where']}; {q['missed']} of {q['of']} over)")
        if "rel_iqr_more" in g:
            q = g["rel_iqr_more"]
            parts.append(f"over the longer series: **{_met(q)}** (worst {_pct(q['worst'], 2)}; "
                         f"{q['missed']} of {q['of']} over)")
        if parts:
            lines += ["", "Goals: " + "; ".join(parts) + "."]
        lines.append("")
    notes = list(report.get("notes", [])) + [f"{e['part']}: {e['error']}" for e in report.get("errors", [])]
    if notes:
        lines += ["Notes:", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)


def render_table(report: dict) -> str:
    """The short table printed last (the device reply carries the end of the output)."""
    out = ["", "=" * 100, "HARNESS FIDELITY (medians)"]
    floor = report.get("floor")
    if floor:
        v = floor.get("verdict")
        out.append(f"copy floor, {units.binary_bytes(floor['bytes_per_buffer'], 'GiB', 2)}/buffer: " +
                   (f"harness {v['harness_floor_gbps']:.0f} GB/s = {_pct(v['ratio'])} of best ({v['best']} "
                    f"{v['best_gbps']:.0f}) -> {_met(v)}" if v else "harness floor not timed -> not judged"))
        for name, c in floor["contestants"].items():
            if c.get("stats"):
                out.append(f"  {name:22s} {c['stats']['median']:.4f} ms {c['gbps']:7.0f} GB/s  "
                           f"rel IQR {_pct(c['stats']['rel_iqr'], 2)}")
            else:
                out.append(f"  {name:22s} not timed: {c.get('error')}")
    fused = report.get("fused")
    if fused:
        names: list[str] = []
        for size in fused["sizes"]:
            names += [n for n in size["contestants"] if n not in names]
        out.append("fused chain, ms (GB/s at 12 B/elem as % of the floor at that size):")
        out.append("  " + f"{'size':14s}" + "".join(f"{n[:20]:>22s}" for n in names) + f"{'floor GB/s':>12s}")
        for size in fused["sizes"]:
            cells = []
            for n in names:
                c = size["contestants"].get(n)
                if c and c.get("stats"):
                    of = _pct(c["gbps"] / size["floor_gbps"], 0) if size.get("floor_gbps") else "?"
                    cells.append(f"{c['stats']['median']:.4f} ({of})")
                else:
                    cells.append("skipped" if c else "")
            floor_s = f"{size['floor_gbps']:.0f}" if size.get("floor_gbps") else "–"
            out.append("  " + f"{size['label']:14s}" + "".join(f"{c:>22s}" for c in cells) + f"{floor_s:>12s}")
        g = fused.get("goals") or {}
        if g:
            obc, oc = g.get("of_best_copy"), g.get("over_compile")
            out.append(f"goals at {g['size']}: {FUSED} of best copy {_pct((obc or {}).get('value'))} -> {_met(obc)}; "
                       f"over torch.compile "
                       f"{(str(round(oc['value'], 3)) + 'x') if oc else '–'} -> {_met(oc)}")
    stab = report.get("stability")
    if stab:
        g = stab.get("goals", {})
        for key in ("median_drift", "rel_iqr", "rel_iqr_more"):
            if key in g:
                out.append(f"stability {key}: worst {_pct(g[key]['worst'], 2)} "
                           f"{g[key].get('where', '')} ({g[key]['missed']} of {g[key]['of']} over "
                           f"{_pct(g[key]['goal'], 0)}) -> {_met(g[key])}")
        if stab.get("skipped"):
            out.append(f"stability: {stab['skipped']}")
    for e in report.get("errors", []):
        out.append(f"ERROR in {e['part']}: {e['error']}")
    out.append("=" * 100)
    return "\n".join(out)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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


# ---------------------------------------------------------------------------------------------
# Output


class Writer:
    """Progress lines to stdout and peers.log; the report to peers.json and peers.md."""

    def __init__(self, out: Path) -> None:
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self.t0 = time.monotonic()
        self.log = (out / "peers.log").open("w", encoding="utf-8")

    def say(self, line: str) -> None:
        text = f"[{time.monotonic() - self.t0:6.1f}s] {line}"
        print(text, flush=True)
        self.log.write(text + "\n")
        self.log.flush()

    def write(self, report: dict) -> None:
        (self.out / "peers.json").write_text(json.dumps(finite(report), indent=1) + "\n", encoding="utf-8")
        (self.out / "peers.md").write_text(render_markdown(report), encoding="utf-8")

    def elapsed(self) -> float:
        return time.monotonic() - self.t0


# ---------------------------------------------------------------------------------------------
# GPU session (torch, pycuda and the harness share the primary context)


class _DevicePtr:
    """A torch tensor as the harness's launch code sees a buffer: int() is its device address."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __int__(self) -> int:
        return int(self.tensor.data_ptr())

    def free(self) -> None:
        """torch owns the memory."""


class _HarnessTimer:
    """One contestant timed by harness.GpuSession.sample (flush, blocking kernel, events).

    If the blocking kernel times out (the host could not enqueue behind it: something in the
    contestant synchronised), the contestant is timed without it from then on, and ``note`` says so.
    """

    def __init__(self, gpu: Any, enqueue: Callable[[], None]) -> None:
        self.gpu, self.enqueue = gpu, enqueue
        self.blocking = True
        self.note: str | None = None

    def __call__(self) -> float:
        from measure.harness import MeasurementError
        try:
            return self.gpu.sample(self.enqueue, "device", self.blocking, True)
        except MeasurementError as err:
            if not self.blocking:
                raise
            self.blocking = False
            self.note = f"timed without the blocking kernel after: {err}"
            return self.gpu.sample(self.enqueue, "device", False, True)


class Session:
    """torch and the harness's pycuda session in the device's primary context, one stream."""

    def __init__(self, seed: int, floor_bytes: int, say: Callable[[str], None]) -> None:
        import numpy as np
        import torch
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the runtime makes the primary context current first
        import pycuda
        import pycuda.driver as drv
        from measure import harness
        from measure.harness import envinfo
        self.np, self.torch, self.drv, self.harness, self.say = np, torch, drv, harness, say
        self.pycuda_version = pycuda.VERSION_TEXT
        self.cache_dir = harness.cache_dir()
        self.gpu = harness.GpuSession(drv, primary=True)
        self.nvml = None
        try:
            self.nvml = envinfo.Nvml(self.gpu.dev.pci_bus_id())
            self.gpu.load_harness(self.cache_dir)
            self.stream = torch.cuda.ExternalStream(int(self.gpu.stream.handle))
            # The copy buffers of every part, allocated once, filled as the harness fills its own.
            self.floor_bytes = floor_bytes
            self.floor_src, self.floor_dst = self.gpu.alloc(floor_bytes), self.gpu.alloc(floor_bytes)
            drv.memcpy_htod(self.floor_src, harness.fill_input(np.random.default_rng(seed + 1), floor_bytes // 4,
                                                               "float32", "uniform"))
        except BaseException:
            self.close()
            raise

    def environment(self) -> dict:
        torch, gpu, nvml = self.torch, self.gpu, self.nvml
        env = {"gpu": gpu.name, "arch": gpu.arch, "sm_count": gpu.sm_count, "l2_bytes": gpu.l2_bytes,
               "memory_bytes": gpu.memory_bytes, "driver": nvml.driver_version() if nvml else None,
               "torch": torch.__version__, "torch_cuda": torch.version.cuda, "pycuda": self.pycuda_version,
               "harness_version": HARNESS_VERSION, "sm_mhz_max": nvml.max_sm_clock_mhz() if nvml else None,
               "memory_mhz": nvml.memory_clock_mhz() if nvml else None}
        for name in ("triton", "cupy"):
            try:
                env[name] = __import__(name).__version__
            except Exception as err:
                env[name] = f"unavailable: {err}"
        return env

    def clocks(self) -> dict:
        nvml = self.nvml
        return {"sm_mhz": nvml.sm_clock_mhz() if nvml else None,
                "throttle_reasons": (nvml.throttle_reasons() if nvml else None) or []}

    def harness_timer(self, enqueue: Callable[[], Any], torch_work: bool = False) -> _HarnessTimer:
        if not torch_work:
            return _HarnessTimer(self.gpu, enqueue)
        torch, stream = self.torch, self.stream

        def run() -> None:
            with torch.cuda.stream(stream):
                enqueue()
        return _HarnessTimer(self.gpu, run)

    def plain_timer(self, enqueue: Callable[[], None]) -> Callable[[], float]:
        """Events around the region on the harness's stream; no flush, no blocking kernel."""
        return lambda: self.gpu.sample(enqueue, "device", False, False)

    def torch_timer(self, enqueue: Callable[[], Any]) -> Callable[[], float]:
        """torch.cuda.Event around the region on torch's current (default) stream, as torch users time."""
        torch = self.torch
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def sample() -> float:
            start.record()
            enqueue()
            stop.record()
            stop.synchronize()
            return float(start.elapsed_time(stop))
        return sample

    def reference_y(self, reference: Callable, inputs: dict[str, Any], scalars: dict[str, float],
                    params: dict[str, int]) -> tuple[Any, str]:
        """The entry's float64 reference output as a float64 torch tensor on the GPU, and where it ran.

        reference.py runs unchanged on cupy arrays (numpy dispatches np.tanh and np.clip to cupy),
        which takes milliseconds where numpy on the CPU takes tens of seconds at 268M elements.
        """
        torch = self.torch
        try:
            import cupy
            arrays = {k: cupy.from_dlpack(v.double()) for k, v in inputs.items()}
            got = reference(FUSED, arrays, dict(scalars), dict(params))[OUTPUT]
            if not isinstance(got, cupy.ndarray):
                raise TypeError(f"the reference returned {type(got).__name__}, not a cupy array")
            cupy.cuda.runtime.deviceSynchronize()
            y = torch.from_dlpack(got).to(torch.float64).clone()
            del arrays, got
            torch.cuda.synchronize()
            cupy.get_default_memory_pool().free_all_blocks()
            return y, "reference.py on cupy float64 arrays (GPU)"
        except Exception as err:
            host = {k: v.double().cpu().numpy() for k, v in inputs.items()}
            got = reference(FUSED, host, dict(scalars), dict(params))[OUTPUT]
            y = torch.from_numpy(self.np.ascontiguousarray(got, dtype=self.np.float64)).to("cuda")
            return y, f"reference.py on numpy float64 arrays (CPU; cupy: {type(err).__name__}: {err})"

    def compare(self, y: Any, ref: Any) -> dict:
        """rel. L2 error, max. abs. error and NaN count of a float32 output against a float64 reference."""
        torch = self.torch
        nan = int(torch.isnan(y).sum())
        diff = y.double() - ref
        rel = float(torch.linalg.vector_norm(diff) / torch.linalg.vector_norm(ref))
        max_abs = float(diff.abs().max()) if nan == 0 else math.nan
        del diff
        return {"rel_l2": rel, "max_abs_err": max_abs, "nan": nan, "elements": int(y.numel()),
                "ok": check_passes(rel, nan)}

    def close(self) -> None:
        """Free torch's cache and our buffers, then leave the primary context (torch keeps it)."""
        torch = self.torch
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        try:
            self.gpu.close()
        finally:
            if self.nvml is not None:
                self.nvml.close()


def interleave(timers: dict[str, Callable[[], float]], warmups: int, runs: int,
               say: Callable[[str], None], label: str) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Rounds of one sample per contestant, as the harness interleaves variants; errors are data."""
    samples: dict[str, list[float]] = {name: [] for name in timers}
    errors: dict[str, str] = {}
    total = warmups + runs
    for k in range(total):
        for name, timer in timers.items():
            if name in errors:
                continue
            try:
                ms = timer()
            except Exception as err:  # a failing contestant is recorded; the others go on
                errors[name] = f"{type(err).__name__}: {err}"
                say(f"{label}: {name} failed: {errors[name]}")
                continue
            if k >= warmups:
                samples[name].append(ms)
        if k + 1 == warmups or (k + 1 - warmups) % 25 == 0 and k >= warmups:
            say(f"{label}: round {k + 1}/{total}")
    return samples, errors


# ---------------------------------------------------------------------------------------------
# Part 1: copy floor


def part_floor(s: Session, seed: int, elements: int, warmups: int, runs: int) -> dict:
    torch, harness, gpu = s.torch, s.harness, s.gpu
    floor_bytes = harness.copy_floor_bytes(elements, gpu.l2_bytes)
    regions = harness.copy_floor_regions(gpu, s.floor_src, s.floor_dst, floor_bytes)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed + 1)
    tsrc = torch.rand(floor_bytes // 4, device="cuda", generator=gen)
    tdst = torch.empty_like(tsrc)

    def copy() -> None:
        tdst.copy_(tsrc)
    copy()
    torch.cuda.synchronize()
    if not torch.equal(tdst, tsrc):
        raise RuntimeError("torch copy_ did not copy (dst differs from src)")
    timers = {
        "harness_vector_copy": s.harness_timer(regions["__vector_copy"]),
        "harness_memcpy_dtod": s.harness_timer(regions["__memcpy_dtod"]),
        "plain_vector_copy": s.plain_timer(regions["__vector_copy"]),
        "plain_memcpy_dtod": s.plain_timer(regions["__memcpy_dtod"]),
        "torch_copy": s.torch_timer(copy),
        "torch_copy_harness": s.harness_timer(copy, torch_work=True),
    }
    before = s.clocks()
    samples, errors = interleave(timers, warmups, runs, s.say, "copy floor")
    clocks = {"before": before, "after": s.clocks()}
    notes = {name: t.note for name, t in timers.items() if getattr(t, "note", None)}
    return floor_record(samples, errors, notes, floor_bytes, warmups, runs, clocks)


# ---------------------------------------------------------------------------------------------
# Part 2: the fused chain against torch


def make_chain(torch: Any, scalars: dict[str, float]) -> Callable[[Any, Any], Any]:
    """chain.cu's function in torch: clamp(gelu_tanh(x * scale + bias) + r, lo, hi)."""
    gelu = torch.nn.functional.gelu
    scale, bias, lo, hi = scalars["scale"], scalars["bias"], scalars["lo"], scalars["hi"]

    def chain(x: Any, r: Any) -> Any:
        return torch.clamp(gelu(x * scale + bias, approximate="tanh") + r, lo, hi)
    return chain


def _contestants(s: Session, spec: Any, params: dict[str, int], functions: dict[str, Any],
                 tensors: dict[str, Any], counts: dict[str, int], chain: Callable,
                 compiled: dict[str, Callable]) -> dict[str, dict]:
    """name -> {"enqueue", "torch", "output"}: the entry's variants as the harness launches them, then torch's.

    ``tensors`` holds the inputs and scratch; each variant gets outputs of its own, so each is checked apart.
    """
    torch, harness, gpu = s.torch, s.harness, s.gpu
    out: dict[str, dict] = {}
    prepared: dict[str, str] = {}
    outputs = [n for n, b in spec.buffers.items() if b.role == "output"]
    for v in spec.variants:
        own = {n: torch.empty(counts[n], device="cuda") for n in outputs}
        ws = harness.Workspace(allocs={n: _DevicePtr(t) for n, t in {**tensors, **own}.items()})
        calls = harness.prepare_calls(spec, v, functions, ws, params, prepared)

        def run(calls: list = calls) -> None:
            for call in calls:
                call.launch(gpu.stream)
        out[v.name] = {"enqueue": run, "torch": False, "output": own[OUTPUT]}
    x, r = tensors["x"], tensors["r"]
    out["torch_eager"] = {"enqueue": lambda: chain(x, r), "torch": True}
    for name, fn in compiled.items():
        out[name] = {"enqueue": (lambda fn=fn: fn(x, r)), "torch": True}
    return out


def _check(s: Session, name: str, c: dict, ref: Any) -> dict:
    """Poison, run once, compare with the reference; torch's first call also compiles (timed here)."""
    torch = s.torch
    try:
        t0 = time.monotonic()
        if c["torch"]:
            with torch.cuda.stream(s.stream):
                y = c["enqueue"]()
            s.stream.synchronize()
        else:
            c["output"].fill_(float("nan"))
            torch.cuda.synchronize()
            c["enqueue"]()
            s.gpu.stream.synchronize()
            y = c["output"]
        first_call_s = time.monotonic() - t0
        result = s.compare(y, ref)
        result["first_call_s"] = first_call_s
        return result
    except Exception as err:  # e.g. torch.compile failing on this machine: recorded, not timed
        s.say(f"{name}: check failed: {type(err).__name__}: {err}")
        return {"ok": False, "error": f"{type(err).__name__}: {err}",
                "traceback": traceback.format_exc(limit=6)}


def fused_size(s: Session, spec: Any, params: dict[str, int], headline: bool, functions: dict[str, Any],
               reference: Callable, scalars: dict[str, float], chain: Callable, compiled: dict[str, Callable],
               best_copy: float | None, warmups: int, runs: int) -> dict:
    torch, harness, gpu = s.torch, s.harness, s.gpu
    label = stats.size_label(params)
    n = expr.evaluate_int(spec.elements, params)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(spec.seed)
    tensors, counts = {}, {}
    for name, buf in spec.buffers.items():
        if buf.dtype != "float32":
            raise RuntimeError(f"buffer {name}: this bench knows float32 buffers only, found {buf.dtype}")
        count = counts[name] = expr.evaluate_int(buf.size, params)
        if buf.role == "input":  # seeded, never zeros, the spec's distribution
            tensors[name] = (torch.randn(count, device="cuda", generator=gen) if buf.init == "normal"
                             else torch.rand(count, device="cuda", generator=gen) * 2 - 1)
        elif buf.role == "scratch":
            tensors[name] = torch.empty(count, device="cuda")
    s.say(f"{label}: reference")
    inputs = {name: tensors[name] for name, b in spec.buffers.items() if b.role == "input"}
    ref, where = s.reference_y(reference, inputs, scalars, params)
    contestants = _contestants(s, spec, params, functions, tensors, counts, chain, compiled)
    checks = {}
    for name, c in contestants.items():
        checks[name] = _check(s, name, c, ref)
        if "traceback" in checks[name]:
            s.say(checks[name]["traceback"])
        s.say(f"{label}: {name} rel. L2 error {checks[name].get('rel_l2')} "
              f"({'ok' if checks[name]['ok'] else 'FAILED, not timed'})")
    del ref
    torch.cuda.synchronize()
    timers: dict[str, Callable[[], float]] = {
        name: s.harness_timer(c["enqueue"], torch_work=c["torch"])
        for name, c in contestants.items() if checks[name]["ok"]}
    floor_bytes = harness.copy_floor_bytes(n, gpu.l2_bytes)
    if floor_bytes > s.floor_bytes:
        raise RuntimeError(f"{label}: the copy floor needs {floor_bytes} bytes per buffer, the session has "
                           f"{s.floor_bytes}; raise --floor-elements")
    timers.update({k: s.harness_timer(f) for k, f in
                   harness.copy_floor_regions(gpu, s.floor_src, s.floor_dst, floor_bytes).items()})
    before = s.clocks()
    samples, errors = interleave(timers, warmups, runs, s.say, label)
    clocks = {"before": before, "after": s.clocks()}
    notes = {name: t.note for name, t in timers.items() if getattr(t, "note", None)}
    size = size_record(params, n, headline, where, checks, samples, errors, notes, floor_bytes, best_copy, clocks)
    del contestants, tensors, inputs, timers
    gc.collect()
    torch.cuda.empty_cache()
    return size


def part_fused(s: Session, entry: Any, spec: Any, sizes: list[dict], best_copy: float | None,
               warmups: int, runs: int, max_autotune: bool) -> dict:
    import numpy as np
    torch, harness = s.torch, s.harness
    functions, commands = harness.compile_kernels(SLUG, entry.folder.resolve(), spec, s.gpu, s.cache_dir)
    reference = harness.load_reference(SLUG, entry.folder.resolve(), spec)
    # Scalars as the kernels receive them (float32), as the harness's check does.
    scalars = {k: float(np.float32(v)) for k, v in spec.scalars.items()}
    chain = make_chain(torch, scalars)
    # One compiled graph per size (dynamic=False), for every mode: raise dynamo's recompile limit
    # so that no size silently falls back to eager.
    dynamo_config = importlib.import_module("torch._dynamo").config
    for key in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                "accumulated_cache_size_limit"):
        if hasattr(dynamo_config, key):
            setattr(dynamo_config, key, 256)
    compiled = {"torch_compile": torch.compile(chain, dynamic=False)}
    if max_autotune:
        compiled["torch_compile_max_autotune"] = torch.compile(chain, dynamic=False,
                                                               mode="max-autotune-no-cudagraphs")
    out: dict[str, Any] = {"compile_command": commands, "warmups": warmups, "runs": runs,
                           "best_copy_gbps": best_copy, "sizes": [], "reference_where": "not run", "errors": []}
    for params in sizes:
        try:
            size = fused_size(s, spec, params, params == dict(spec.headline), functions, reference, scalars,
                              chain, compiled, best_copy, warmups, runs)
        except Exception as err:  # one size failing (memory, say) keeps the others
            out["errors"].append(f"{stats.size_label(params)}: {type(err).__name__}: {err}")
            s.say(f"{stats.size_label(params)} failed:\n{traceback.format_exc()}")
            gc.collect()
            torch.cuda.empty_cache()
            continue
        out["sizes"].append(size)
        out["reference_where"] = size["reference"]
    head = [z for z in out["sizes"] if z["headline"]]
    if head:
        out["goals"] = fused_goals(head[0], best_copy)
    del functions
    return out


# ---------------------------------------------------------------------------------------------
# Part 3: stability of the harness's own measurement


def part_stability(entry: Any, spec: Any, sizes: list[dict], writer: Writer, budget_s: float,
                   more: dict[tuple[str, str], float]) -> dict:
    from glossary.entries.model import measurement_fingerprint
    from measure import harness
    headline = dict(spec.headline) if dict(spec.headline) in sizes else sizes[-1]
    run_spec = dataclasses.replace(spec, sizes=[dict(p) for p in sizes], headline=headline, counters=False)
    fingerprint = measurement_fingerprint(entry)
    results, durations, errors = [], [], []
    skipped = None
    for k in (1, 2):
        estimate = durations[0] if durations else 0.0
        if writer.elapsed() + estimate > budget_s:
            skipped = (f"run {k} not started: {writer.elapsed():.0f} s had passed and a run takes about "
                       f"{estimate:.0f} s, past the {budget_s:.0f} s budget (--budget-s)")
            writer.say(skipped)
            break
        writer.say(f"stability: measure_entry run {k} of 2, sizes {[stats.size_label(p) for p in sizes]}")
        t0 = time.monotonic()
        try:
            results.append(harness.measure_entry(SLUG, entry.folder.resolve(), run_spec, fingerprint,
                                                 progress=writer.say))
        except harness.MeasurementError as err:  # keep a first run that worked
            skipped = f"run {k} failed: {err}"
            errors.append(skipped)
            writer.say(skipped)
            break
        durations.append(time.monotonic() - t0)
    if not results:
        return {"sizes": [stats.size_label(p) for p in sizes], "runs": spec.timing.runs, "durations_s": [],
                "rows": [], "goals": {}, "skipped": skipped, "errors": errors}
    rows = stability_rows(results[0], results[1] if len(results) > 1 else None, more)
    keep = ("environment", "method", "sizes")
    return {"sizes": [stats.size_label(p) for p in sizes], "runs": spec.timing.runs,
            "statistic_published": spec.timing.statistic, "durations_s": durations, "rows": rows,
            "goals": stability_goals(rows), "skipped": skipped, "errors": errors,
            "results": [{k: r[k] for k in keep} for r in results]}


def _more_samples(fused: dict | None) -> dict[tuple[str, str], float]:
    """(size label, variant) -> rel. IQR over part 2's longer series, for the stability table."""
    out = {}
    for size in (fused or {}).get("sizes", []):
        for name, c in size["contestants"].items():
            if "stats" in c:
                out[(size["label"], name)] = c["stats"]["rel_iqr"]
        floor = size.get("floor") or {}
        for part in ("vector_copy", "memcpy_dtod"):
            if f"{part}_stats" in floor:
                out[(size["label"], f"copy floor: {part}")] = floor[f"{part}_stats"]["rel_iqr"]
    return out


# ---------------------------------------------------------------------------------------------


def _run_part(report: dict, name: str, writer: Writer, fn: Callable[[], dict]) -> None:
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
                                         _more_samples(report.get("fused"))))
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


if __name__ == "__main__":
    sys.exit(main())
