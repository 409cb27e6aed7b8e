"""``measure_entry``: the cold measurement of one entry, orchestrated from the harness's parts.

Compile once (``compile``); per size allocate and fill outside the timed region
(``workspace``), check every variant against the reference before anything is timed
(``check``), then sample the variants and the copy floor (``copy_floor``) interleaved,
each behind the L2 flush and the blocking kernel (``session``), until the stopping rule
says enough (``sampling``); record the environment (``envinfo``) and, where ncu is
there, the DRAM counters (``counters``).
"""

from __future__ import annotations

import threading
import traceback
from pathlib import Path
from typing import Callable


from measure import expr, stats, store
from measure.harness import compile as nvcc, counters, counting, envinfo, parallel
from measure.harness.check import HostBuffers
from measure.harness.correctness import PendingCheck, check_size, kernel_scalars, host_memory, start_check
from measure.harness.copy_floor import copy_floor_bytes, copy_floor_record, copy_floor_regions
from measure.harness.errors import MeasurementError
from measure.harness.disassembly import sass_record
from measure.harness.fills import variant_fills
from measure.harness.driver_occupancy import DriverOccupancy
from measure.harness.launches import launch_attributes, prepare_calls
from measure.harness.link_floor import LINK_REGIONS, LinkBuffers, copy_record, link_floor_record
from measure.harness.streams import SERIAL, GraphReplay, Program, StepList
from measure.harness.phases import ConfigProgress, PhaseClock, serialized
from measure.harness.sampling import host_part, take_samples
from measure.harness.session import BLOCK_TIMEOUT_NS, GpuSession
from measure.harness.workspace import FLOOR_STREAM, allocate, allocation_bytes, fill_input
from measure.spec import MeasureSpec, working_set_bytes
from measure.spec.steps import blocked_variants

POISON_WORDS = ("a quiet NaN of the type (float32 0x7fc00000, float16 0x7e00, bfloat16 0x7fc0), all ones "
                "(float64 NaN, int32 -1), int8 -128")
TIMERS = {"device": "cuda-events", "host": "host-perf-counter", "both": "cuda-events+host-perf-counter"}


def measure_entry(slug: str, entry_dir: Path, spec: MeasureSpec, fingerprint: str,
                  progress: Callable[[str], None] = print,
                  on_configs: Callable[[float, int], None] | None = None,
                  prior_counters: dict | None = None, covered: set[str] | None = None) -> dict:
    """Measure one entry on device 0 and return its result dict (status "ok"); see ``_measure_entry``.

    The reference runs in the sandbox from before the first compile to after the last comparison;
    ``covered`` names the entry files the fingerprints hash, which are all a compile may read of the
    entry's folder."""
    try:
        import pycuda.driver  # noqa: F401 -- fail before the sandbox starts
    except Exception as err:
        raise MeasurementError(f"pycuda cannot be imported: {err}") from None
    entry_dir = Path(entry_dir).resolve()
    reference = nvcc.load_reference(slug, entry_dir, spec)
    try:
        return _measure_entry(slug, entry_dir, spec, fingerprint, progress, on_configs, prior_counters, covered,
                              reference)
    finally:
        reference.close()


def _measure_entry(slug: str, entry_dir: Path, spec: MeasureSpec, fingerprint: str,
                   progress: Callable[[str], None], on_configs: Callable[[float, int], None] | None,
                   prior_counters: dict | None, covered: set[str] | None, reference: Callable) -> dict:
    """The measurement itself, with the reference already started (``measure_entry``).

    ``progress`` gets a line of text per step; ``on_configs(done, total)`` the (size, variant)
    configurations done so far, fractional (``ConfigProgress``).  ``prior_counters``
    (``measure.results.carried_counters`` of a verified earlier result) lets a size whose counter
    key is unchanged keep its counters instead of profiling them again.  Raises MeasurementError for a
    compile error, a wrong or NaN result, or a CUDA error.
    """
    import pycuda.driver as drv
    progress = serialized(progress)
    parallel.tune_malloc()
    clock = PhaseClock()
    cache_dir = nvcc.cache_dir()
    try:
        with clock.phase("compile"):
            gpu = GpuSession(drv)
    except drv.Error as err:
        raise MeasurementError(f"{slug}: cannot open a CUDA context: {err}") from None
    nvml = occupancy = None
    try:
        from measure.harness.hopper import require
        require(spec, gpu)  # clusters, tensor maps, L2 windows, managed memory: refused with the reason
        nvml = envinfo.Nvml(gpu.dev.pci_bus_id())
        with clock.phase("compile"):
            gpu.load_harness(cache_dir)
            built = nvcc.compile_kernels(slug, entry_dir, spec, gpu, cache_dir, covered)
            compiled_code = sass_record(built, gpu.arch)
        environment = envinfo.environment(gpu, nvml, built)
        modules = len(set(built.commands.values()))
        progress(f"{slug}: compiled for {gpu.arch} on {gpu.name}" + (f" ({modules} builds)" if modules > 1 else ""))
        if spec.metrics and spec.counters:
            counters.check_metrics(spec, gpu.name)  # an unknown metric stops the run before any timing
        occupancy = DriverOccupancy(built.cubins)
        configs = ConfigProgress(len(spec.sizes) * len(spec.measured_variants), 3 if spec.counters else 2,
                                 on_configs)
        defer = _defer_checks(spec)
        sizes, pending = [], []
        host = None if defer else HostBuffers()
        for index, params in enumerate(spec.sizes):
            record, later = _measure_size(slug, spec, params, gpu, built, reference, nvml, progress, clock,
                                          configs, host, occupancy, verify_chunking=index == 0, defer=defer)
            sizes.append(record)
            pending.append(later)
        host = None  # noqa: F841 -- the host copies go before the counter pass
        environment["occupancy_source"] = "driver" if occupancy.error is None else f"formula ({occupancy.error})"
    except MeasurementError:
        raise
    except drv.Error as err:
        raise MeasurementError(f"{slug}: CUDA error: {type(err).__name__}: {err}") from None
    except Exception as err:  # the caller records failures; a harness bug must not crash the build
        raise MeasurementError(f"{slug}: harness error: {type(err).__name__}: {err}\n"
                               f"{traceback.format_exc(limit=4)}") from err
    finally:
        built = None  # noqa: F841 -- release kernel handles before the context goes
        if occupancy is not None:
            occupancy.close()
        try:
            gpu.close()
        finally:
            if nvml is not None:
                nvml.close()
    envinfo.finish_environment(environment, sizes)
    from measure.harness.uvm_pass import attach_unified_memory
    attach_unified_memory(slug, entry_dir, spec, sizes, progress)  # its own process, once this one's buffers are freed
    result = {
        "entry": slug,
        "device": store.device_key(environment["gpu"]),
        "status": "ok",
        "provenance": "measured",
        "fingerprint": fingerprint,
        "environment": environment,
        "method": _method(spec, gpu.flush_bytes),
        "sizes": sizes,
        "sass": compiled_code,
    }
    # The counter pass needs the GPU alone, and the deferred comparisons need only the host: they
    # run side by side, the counters in a thread of their own with a phase clock of their own.
    counter_clock = PhaseClock()
    failed: list[BaseException] = []

    def count() -> None:
        try:
            with counter_clock.phase("counters"):
                counting.attach_counters(slug, entry_dir, spec, result, progress, counter_clock, configs,
                                         prior_counters)
        except BaseException as err:  # re-raised in the measuring thread
            failed.append(err)

    counting_thread = threading.Thread(target=count, name=f"counters {slug}", daemon=True)
    counting_thread.start()
    try:
        with clock.phase("check"):
            for record, later in zip(sizes, pending):
                if later is not None:
                    record["check"] = check_record(later.finish(clock), spec)
    except MeasurementError:
        raise
    except Exception as err:
        raise MeasurementError(f"{slug}: harness error: {type(err).__name__}: {err}\n"
                               f"{traceback.format_exc(limit=4)}") from err
    finally:
        counting_thread.join()
    if failed:
        raise MeasurementError(f"{slug}: harness error in the counter pass: {type(failed[0]).__name__}: "
                               f"{failed[0]}") from failed[0]
    configs.finish()
    result["phases"] = clock.record(also=counter_clock)
    return result


def _defer_checks(spec: MeasureSpec) -> bool:
    """Whether the sizes' comparisons wait until every size is timed, to run beside the counter pass:
    for an elementwise reference, where a counter pass will run, and where every size's inputs and
    every variant's outputs fit in a quarter of this host's memory at once."""
    if not (spec.reference_elementwise and spec.counters and counters.find_ncu()):
        return False
    held = 0
    for params in spec.sizes:
        sizes = allocation_bytes(spec, params)
        for name, buf in spec.buffers.items():
            if buf.role == "input":
                held += sizes[name]
            elif buf.role == "output":
                held += sizes[name] * len(spec.measured_variants)
    return held <= host_memory() // 4


def check_record(checks: list[dict], spec: MeasureSpec) -> dict:
    """A size's ``check``: the worst errors and the elements compared, over every variant's outputs."""
    return {"max_abs_err": max(c["max_abs_err"] for c in checks),
            "max_rel_err": max(c["max_rel_err"] for c in checks),
            "max_tolerance_used": max(c["max_tolerance_used"] for c in checks),
            "elements_checked": sum(c["elements_checked"] for c in checks),
            "rtol": spec.rtol, "atol": spec.atol}


def _method(spec: MeasureSpec, flush_bytes: int) -> dict:
    """A result's ``method``: how every sample was taken and checked."""
    timing = spec.timing
    return {
        "warmups": timing.warmups, "runs": timing.runs, "statistic": timing.statistic,
        "max_runs": timing.max_runs, "target_ci": timing.target_ci,
        "max_seconds": timing.max_seconds,
        "clock": timing.clock, "blocking": timing.blocking, "l2_flush": timing.l2_flush,
        "flush_bytes": flush_bytes if timing.l2_flush else 0,
        "flush_method": "a kernel reads (never writes) 2x the L2 before each sample" if timing.l2_flush else None,
        "interleaved": True,
        "timer": TIMERS[timing.clock],
        "blocking_timeout_s": BLOCK_TIMEOUT_NS / 1e9, "seed": spec.seed,
        "check": {"rtol": spec.rtol, "atol": spec.atol, "poison": POISON_WORDS,
                  "tolerances": {name: list(spec.tolerance(name)) for name, b in spec.buffers.items()
                                 if b.role == "output"}},
    }


def _measure_size(slug: str, spec: MeasureSpec, params: dict[str, int], gpu: GpuSession,
                  built: nvcc.Built, reference: Callable, nvml: envinfo.Nvml,
                  progress: Callable[[str], None], clock: PhaseClock, configs: ConfigProgress,
                  host: HostBuffers | None, occupancy: DriverOccupancy, verify_chunking: bool = False,
                  defer: bool = False) -> tuple[dict, PendingCheck | None]:
    """One size: allocate, check every variant, sample the variants and the copy floor; its record.

    With ``defer``, the variants run and their outputs are copied back before timing, but the
    comparison is returned (a PendingCheck, its record's ``check`` None until it finishes)."""
    drv, timing = gpu.drv, spec.timing
    label = f"{slug}: {stats.size_label(params)}"
    try:
        elements = expr.evaluate_int(spec.elements, params)
    except expr.ExprError as err:
        raise MeasurementError(f"{label}: elements: {err}") from None
    progress(f"{label} allocating and filling inputs (seed {spec.seed})")
    floor_bytes = copy_floor_bytes(elements, gpu.l2_bytes)
    with clock.phase("inputs"):
        ws = allocate(spec, params, gpu, extra_bytes=2 * floor_bytes)
    floor_src = floor_dst = link = state = None
    replays: dict[str, GraphReplay] = {}
    try:
        from measure.harness.hopper import RegionState
        state = RegionState(spec, ws, gpu, params)
        if any(b.location != "device" for b in spec.buffers.values()):
            with clock.phase("inputs"):
                link = LinkBuffers(gpu)
        prepared: dict[str, str] = {}
        measured = spec.measured_variants
        calls = {v.name: StepList(prepare_calls(spec, v, built.functions[v.name], ws, params, prepared,
                                                limits=gpu.limits, gpu=gpu, cubins=built.cubins[v.name]))
                 for v in measured}
        if state.active:  # each run starts from the same managed pages and L2 window (outside timing)
            for v in measured:
                calls[v.name].before_sample = lambda v=v: state.before(v)
        programs = {name: Program(gpu, steps) for name, steps in calls.items()}
        fills = {v.name: variant_fills(spec, v, ws) for v in measured}
        for name, steps in calls.items():
            steps.fills = fills[name]
        for v in measured:  # the check runs each variant as it will be timed: on its streams, or its graph
            if v.spec.graph:
                replays[v.name] = calls[v.name].runner = GraphReplay(programs[v.name], f"{label} variant {v.name}")
            elif programs[v.name].multi_stream:
                calls[v.name].runner = programs[v.name]
        checks = later = None
        with clock.phase("check"):
            if defer:
                later = start_check(label, spec, calls, ws, gpu, reference, kernel_scalars(spec), params, clock,
                                    progress, verify_chunking, checked=lambda name: configs.advance())
            else:
                checks = check_size(slug, spec, calls, ws, gpu, reference, params, clock, progress,
                                    verify_chunking=verify_chunking, checked=lambda name: configs.advance(),
                                    host=host)

        with clock.phase("inputs"):
            floor_src, floor_dst = drv.mem_alloc(floor_bytes), drv.mem_alloc(floor_bytes)
            drv.memcpy_htod(floor_src, fill_input(spec.seed, FLOOR_STREAM, floor_bytes // 4, "float32", "uniform"))
        floor_regions = copy_floor_regions(gpu, floor_src, floor_dst, floor_bytes)

        def enqueue_variant(name: str) -> Callable[[], None]:
            if name in replays:
                return replays[name].launch
            if programs[name].multi_stream:
                return programs[name].enqueue

            def run() -> None:
                for call in calls[name]:
                    call.launch(gpu.stream)
            return run

        regions: dict[str, Callable[[], None]] = {v.name: enqueue_variant(v.name) for v in measured}
        regions.update({v.name + SERIAL: programs[v.name].serial for v in measured
                        if programs[v.name].multi_stream and v.name not in replays})
        regions.update(floor_regions)
        if link is not None:
            regions.update(link.regions(gpu))
        # timing.block_where_possible: the variants that can wait behind the blocking kernel (and their serial twins)
        can_wait = blocked_variants(spec)
        blocked = {name for name in regions if name.split(SERIAL)[0] in can_wait}
        if state.active:
            regions = state.wrap(regions, {**{v.name: v for v in measured},
                                           **{v.name + SERIAL: v for v in measured}})
        with clock.phase("timing"):
            setups = {name: f for v in measured if (f := fills[v.name]) for name in (v.name, v.name + SERIAL)}
            sampled = take_samples(gpu, regions, timing, nvml, [v.name for v in measured], label, progress, setups,
                                   blocked)
        configs.advance(len(measured))
        graph_records = {name: replay.record() for name, replay in replays.items()}
    finally:
        for replay in replays.values():
            replay.close()
        if state is not None:
            state.close()
        ws.free()
        for buf in (floor_src, floor_dst, link):
            if buf is not None:
                buf.free()

    samples = sampled.samples
    variants = {}
    for v in measured:
        variants[v.name] = {
            "bytes_per_elem": v.per_elem("bytes_per_elem", params),
            "useful_bytes_per_elem": v.per_elem("useful_bytes_per_elem", params),
            "flops_per_elem": v.per_elem("flops_per_elem", params),
            "launches": len(calls[v.name]),
            "samples_ms": samples[v.name],
            "stats": stats.summarize(samples[v.name]),
            "counters": None,
            "launch_attrs": launch_attributes(calls[v.name], gpu.limits,
                                              lambda call, name=v.name: occupancy.blocks(name, call)),
        }
        if v.swept:
            variants[v.name].update(base=v.base, point=dict(v.point))
        copies, moved = copy_record(spec, calls[v.name])
        if copies:
            variants[v.name].update(copies=copies, copy_bytes=moved)
        used = {call.stream for call in calls[v.name]}
        if len(used) > 1:  # the streams its steps run on (main counts only where a step runs there)
            variants[v.name]["streams"] = len(used)
        if v.name + SERIAL in samples:
            serial = stats.pick(stats.summarize(samples[v.name + SERIAL]), timing.statistic)
            mine = stats.pick(variants[v.name]["stats"], timing.statistic)
            variants[v.name]["overlap"] = {"serial_ms": serial, "fraction": 1 - mine / serial,
                                           "serial_samples_ms": samples[v.name + SERIAL]}
        if v.name in replays:
            variants[v.name]["graph"] = graph_records[v.name]
        if fills[v.name]:
            variants[v.name]["setup"] = fills[v.name].record()
        variants[v.name].update(host_part(sampled.host_samples[v.name]))
        if v.name in blocked:
            variants[v.name]["blocked"] = True
    return {
        "params": dict(params),
        "elements": elements,
        "working_set_bytes": working_set_bytes(spec, params),
        "copy_floor": copy_floor_record(samples, floor_bytes, timing.statistic),
        "link_floor": link_floor_record(samples, timing.statistic) if LINK_REGIONS[0] in samples else None,
        "check": check_record(checks, spec) if checks is not None else None,
        "clocks": {"sm_mhz_before": sampled.sm_before, "sm_mhz_after": sampled.sm_after,
                   "throttle_reasons": sorted(sampled.reasons)},
        "sampling": {"samples": len(samples[measured[0].name]), "stopped": sampled.stop,
                     "median_ci_rel": {name: stats.median_ci_rel(values) for name, values in samples.items()}},
        "variants": variants,
    }, later
