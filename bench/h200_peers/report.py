"""The report: peers.json, peers.md (the BENCHMARKS.md section), peers.log and the closing table.

The renderers read the report dict alone, so a partial report (a run cut short, a part that
failed) renders as far as it got.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from measure import HARNESS_VERSION, units

from bench.h200_peers.floor import FLOOR_LABELS
from bench.h200_peers.fused import CHAIN_BYTES_PER_ELEM, FUSED
from bench.h200_peers.method import GOALS, REL_L2_MAX, SLUG


def finite(obj: Any) -> Any:
    """A copy of ``obj`` that JSON can hold: NaN and infinities become strings."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {str(k): finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


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
             f"Measured by `bench/h200_peers/` on {env.get('gpu', 'the GPU')} (driver {env.get('driver')}, "
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
