"""The process ncu profiles: each variant's launches once, in spec order, at each size asked for.

Run as ``python -m measure.harness.profile_main --spec spec.json --entry-dir DIR --params JSON
--manifest OUT.json`` (by measure.harness.counters, under ncu); ``--params`` is one size's
parameters or a list of them, profiled in that order, each size allocated and freed in turn.  Inputs are filled from
the spec's seed as in the timed run; nothing is checked or timed here.  The
manifest lists the launches made, so the counter rows can be matched to variants.

With ``--unified-memory`` (``measure.harness.uvm_pass``, not under ncu), CUPTI's unified-memory
counters are enabled after ``cuInit`` and before the context is made, each variant runs once whole (every repeat) from
its starting state, and the manifest's ``unified_memory`` holds the counts per variant, or why none.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from measure.harness.compile import cache_dir, compile_kernels
from measure.harness.errors import MeasurementError
from measure.harness.fills import variant_fills
from measure.harness.launches import prepare_calls
from measure.harness.parallel import tune_malloc
from measure.harness.session import GpuSession
from measure.harness.workspace import allocate
from measure.spec import MeasureSpec
from measure.typed import load


def main(argv: list[str] | None = None) -> int:
    """Launch every variant once at each size of --params and write the manifest; 2 where the harness refused."""
    ap = argparse.ArgumentParser(prog="python -m measure.harness.profile_main")
    ap.add_argument("--spec", required=True, type=Path)
    ap.add_argument("--entry-dir", required=True, type=Path)
    ap.add_argument("--params", required=True)
    ap.add_argument("--manifest", required=True, type=Path)
    ap.add_argument("--unified-memory", action="store_true", help="count page faults and migrations (CUPTI)")
    opts = ap.parse_args(argv)
    started = time.time()  # wall clock: the parent compares it with when it started ncu
    tune_malloc()
    spec = load(MeasureSpec, json.loads(opts.spec.read_text(encoding="utf-8")))
    given = json.loads(opts.params)
    sizes = [{k: int(v) for k, v in p.items()} for p in (given if isinstance(given, list) else [given])]
    entry_dir = opts.entry_dir.resolve()

    import pycuda.driver as drv
    uvm = why = None
    if opts.unified_memory:
        from measure.harness.uvm_counters import open_counters
        drv.init()  # CUPTI refuses before cuInit (CUPTI_ERROR_NOT_READY on the H200 node)
        uvm, why = open_counters()  # and before the context: counting enabled after it got no record
    gpu = GpuSession(drv)
    manifest = []
    memory: dict = {"counts": {}, "why": why}  # --unified-memory: the first size's counts, or why none
    built = None
    marks: dict = {}
    try:
        built = compile_kernels("profile", entry_dir, spec, gpu, cache_dir())
        gpu.load_harness(cache_dir())
        prepared: dict[str, str] = {}
        marks = {"ready": time.time(), "sizes": []}  # set up; then each size's inputs and its launches
        for index, params in enumerate(sizes):
            began = time.time()
            ws = allocate(spec, params, gpu)
            filled = time.time()
            from measure.harness.hopper import RegionState
            state = RegionState(spec, ws, gpu, params)
            try:
                runs = {}
                for variant in spec.measured_variants:
                    if opts.unified_memory:
                        calls = prepare_calls(spec, variant, built.functions[variant.name], ws, params, prepared,
                                              limits=gpu.limits, gpu=gpu, cubins=built.cubins[variant.name])
                        runs[variant.name] = (_starting_state(spec, variant, ws, gpu, state),
                                              _whole_run(calls, gpu))
                        continue
                    if state.active:  # the managed pages and the L2 window each variant's samples start from
                        state.before(variant)
                    _untimed_setup(spec, variant, ws, gpu)
                    calls = prepare_calls(spec, variant, built.functions[variant.name], ws, params, prepared,
                                          first_only=True, limits=gpu.limits, gpu=gpu,
                                          cubins=built.cubins[variant.name])
                    for li, (call, launch) in enumerate(zip(calls, variant.launches)):
                        call.launch(gpu.stream)
                        gpu.stream.synchronize()
                        if call.kernel is None:  # a copy: run, so the kernels after it see its data; not profiled
                            continue
                        manifest.append({"variant": variant.name, "launch": li, "kernel": call.kernel,
                                         "repeat": launch.repeat, "size": index})
                if uvm is not None:
                    from measure.harness.uvm_counters import count_variants
                    memory["counts"], memory["why"] = count_variants(uvm, runs)  # closes the counters
                    uvm = None
            finally:
                state.close()
                ws.free()
            marks["sizes"].append({"inputs_s": round(filled - began, 3), "launches_s": round(time.time() - filled, 3)})
    except MeasurementError as err:
        print(f"profile: {err}", file=sys.stderr)
        return 2
    finally:
        built = None  # noqa: F841 -- release kernel handles before the context goes
        gpu.close()
    if opts.unified_memory:
        marks["unified_memory"] = memory
    opts.manifest.write_text(json.dumps({"launches": manifest, "started": started, "finished": time.time(), **marks}),
                             encoding="utf-8")
    return 0


def _untimed_setup(spec: MeasureSpec, variant, ws, gpu: GpuSession) -> None:
    """What the timed runs do before a variant's region, outside it: its fills, then the L2 flush."""
    fills = variant_fills(spec, variant, ws)
    if fills:  # the untimed setup, before the flush as in the timed runs
        fills.enqueue(gpu.stream)
        gpu.stream.synchronize()
    if spec.timing.l2_flush:
        # As in the timed runs: the L2 is written over before each variant's region, not
        # between its launches, so an unflushed pass counts the bytes the timing saw.
        gpu.flush_l2()
        gpu.stream.synchronize()


def _starting_state(spec: MeasureSpec, variant, ws, gpu: GpuSession, state):
    def before() -> None:
        state.before(variant)  # the managed pages where the variant's samples start from
        gpu.ctx.synchronize()
        _untimed_setup(spec, variant, ws, gpu)
    return before


def _whole_run(calls, gpu: GpuSession):
    def run() -> None:  # every launch and repeat in order on the main stream, as one timed region
        for call in calls:
            call.launch(gpu.stream)
        gpu.ctx.synchronize()
    return run


if __name__ == "__main__":
    sys.exit(main())
