"""Part 3, stability: measure_entry on the entry twice in a row, as the build runs it."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from measure import stats

from bench.h200_peers.method import GOALS, SLUG, relative_change, summary
from bench.h200_peers.report import Writer


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


def more_samples(fused: dict | None) -> dict[tuple[str, str], float]:
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


def part_stability(entry: Any, spec: Any, sizes: list[dict], writer: Writer, budget_s: float,
                   more: dict[tuple[str, str], float]) -> dict:
    """Part 3 on the GPU: up to two measure_entry runs within ``budget_s``; a failed run is data."""
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
