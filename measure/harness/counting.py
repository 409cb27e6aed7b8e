"""The counter stage of a measurement: which sizes Nsight Compute profiles, which keep counters
already measured, and how both are attached to the result.

A size's counters depend on its kernels, launches, inputs, device and ncu version, not on how it
is timed (``measure.results.identity.counter_key``).  Where the caller offers the counters of an
earlier, verified result (``measure.results.carried_counters``) for a size with the same key, they
are carried over with where they came from (``counters_from``) instead of being profiled again;
every other size is profiled, all in one ncu process per cache mode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from measure import results, stats
from measure.harness import counters
from measure.harness.phases import ConfigProgress, PhaseClock
from measure.harness.session import harness_source
from measure.spec import MeasureSpec


def counted_sources(entry_dir: Path, spec: MeasureSpec) -> dict[str, bytes]:
    """The files a counter pass depends on: the entry's kernels and the harness's CUDA source."""
    files = {name: (entry_dir / name).read_bytes() for name in spec.sources}
    files["<harness>/harness.cu"] = harness_source().encode()
    return files


def _canon(params: dict) -> str:
    return json.dumps({k: int(v) for k, v in params.items()}, sort_keys=True)


def attach_counters(slug: str, entry_dir: Path, spec: MeasureSpec, result: dict, progress: Callable[[str], None],
                    clock: PhaseClock, configs: ConfigProgress, prior: dict | None = None) -> None:
    """Give each profiled size its counter key and counters (profiled now or carried), and the
    result its counter summary; record why when the pass is skipped."""
    headline = dict(spec.headline)
    everything = len(spec.sizes) * len(spec.measured_variants)
    if not spec.counters:
        result["counters"] = {"status": "skipped", "reason": "counters: false in the spec", "size": headline}
        return
    targets = [s for s in result["sizes"] if spec.counter_sizes == "all" or s["params"] == headline]
    if not targets:  # validated away by the spec; kept so a bad spec cannot crash here
        result["counters"] = {"status": "skipped", "reason": "headline is not among the sizes", "size": headline}
        return
    ncu = counters.find_ncu()
    version = counters.ncu_version(ncu) if ncu else None
    sources = counted_sources(entry_dir, spec)
    offered = {_canon(s["params"]): s for s in (prior or {}).get("sizes", [])}
    carried, fresh = [], []
    for target in targets:
        key = target["counter_key"] = results.counter_key(spec, sources, result["device"], version, target["params"])
        earlier = offered.get(_canon(target["params"]))
        counted = {v.name for v in spec.measured_variants if any(step.kernel for step in v.launches)}
        if ncu and earlier and earlier["counter_key"] == key and set(earlier["variants"]) == set(target["variants"]) & counted:
            for name, rec in target["variants"].items():
                if name in counted:
                    rec["counters"] = earlier["variants"][name]
            target["counters_from"] = earlier["from"]
            carried.append(target)
        else:
            fresh.append(target)
    configs.advance(everything - len(fresh) * len(spec.measured_variants))  # sizes not profiled in this run
    if carried:
        shown = ", ".join(stats.size_label(t["params"]) for t in carried)
        progress(f"{slug}: counters at {shown} carried from the result of {carried[0]['counters_from'].get('captured_at')} "
                 f"(same kernels, launches, inputs, device and ncu {version})")
    outcomes = {}
    if fresh:
        times = counters.PassTimes()
        share = len(fresh) * len(spec.measured_variants) / len(counters.CACHE_CONTROLS)
        ran = counters.run_counter_passes(slug, entry_dir, spec, [(t["params"], t["elements"]) for t in fresh],
                                          progress, times=times, on_pass=lambda: configs.advance(share))
        clock.attribute("ncu_startup", times.overhead_s)
        outcomes = {id(t): o for t, o in zip(fresh, ran)}
    summaries = []
    for target in targets:
        outcome = outcomes.get(id(target))
        if outcome is None:  # carried
            summaries.append(counters.pass_summary(spec, version, target["params"]))
            continue
        summaries.append({k: v for k, v in outcome.items() if k != "variants"})
        kernels = {v.name: any(step.kernel for step in v.launches) for v in spec.measured_variants}
        for name, rec in target["variants"].items():
            if not kernels.get(name, True):
                continue  # copies only: no kernel for the counters to count
            if outcome["status"] == "ok":
                rec["counters"] = outcome["variants"].get(name, {"error": "ncu reported no launch of this variant"})
            elif outcome["status"] == "error":
                rec["counters"] = {"error": outcome["error"]}
        if outcome["status"] != "ok":
            target.pop("counter_key", None)  # nothing was counted for that key
    lead = next((s for s in summaries if s.get("size") == headline), summaries[-1])
    result["counters"] = dict(lead, sizes=[s.get("size") for s in summaries],
                              statuses=[s.get("status") for s in summaries])
