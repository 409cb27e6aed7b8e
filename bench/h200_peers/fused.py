"""Part 2, the fused chain: kernel-fusion's variants as the harness launches them, against torch.

Every contestant is checked against the entry's float64 reference before it is timed; then all,
with the harness's copy floor of that size, are timed the harness's way, interleaved.
"""

from __future__ import annotations

import gc
import importlib
import time
import traceback
from typing import Any, Callable

from measure import expr, stats

from bench.h200_peers.method import GOALS, SLUG, summary
from bench.h200_peers.session import Session, interleave, timer_notes

OUTPUT = "y"                   # the chain's output buffer, and the torch chain's result
FUSED = "fused_vec4"           # the fused kernel the goals judge (16-byte accesses)
CHAIN_BYTES_PER_ELEM = 12      # x and r read once, y written once


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


def make_chain(torch: Any, scalars: dict[str, float]) -> Callable[[Any, Any], Any]:
    """chain.cu's function in torch: clamp(gelu_tanh(x * scale + bias) + r, lo, hi)."""
    gelu = torch.nn.functional.gelu
    scale, bias, lo, hi = scalars["scale"], scalars["bias"], scalars["lo"], scalars["hi"]

    def chain(x: Any, r: Any) -> Any:
        return torch.clamp(gelu(x * scale + bias, approximate="tanh") + r, lo, hi)
    return chain


class _DevicePtr:
    """A torch tensor as the harness's launch code sees a buffer: int() is its device address."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __int__(self) -> int:
        return int(self.tensor.data_ptr())

    def free(self) -> None:
        """torch owns the memory."""


def reference_y(s: Session, reference: Callable, inputs: dict[str, Any], scalars: dict[str, float],
                params: dict[str, int]) -> tuple[Any, str]:
    """The entry's float64 reference output as a float64 torch tensor on the GPU, and where it ran.

    reference.py runs unchanged on cupy arrays (numpy dispatches np.tanh and np.clip to cupy),
    which takes milliseconds where numpy on the CPU takes tens of seconds at 268M elements.
    """
    torch = s.torch
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
        y = torch.from_numpy(s.np.ascontiguousarray(got, dtype=s.np.float64)).to("cuda")
        return y, f"reference.py on numpy float64 arrays (CPU; cupy: {type(err).__name__}: {err})"


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
    for v in spec.measured_variants:
        own = {n: torch.empty(counts[n], device="cuda") for n in outputs}
        ws = harness.Workspace(allocs={n: _DevicePtr(t) for n, t in {**tensors, **own}.items()})
        calls = harness.prepare_calls(spec, v, functions[v.name], ws, params, prepared, limits=s.gpu.limits)

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
    """One size of part 2 on the GPU: seeded inputs, the reference, the checks, then the timing."""
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
    ref, where = reference_y(s, reference, inputs, scalars, params)
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
    notes = timer_notes(timers)
    size = size_record(params, n, headline, where, checks, samples, errors, notes, floor_bytes, best_copy, clocks)
    del contestants, tensors, inputs, timers
    gc.collect()
    torch.cuda.empty_cache()
    return size


def part_fused(s: Session, entry: Any, spec: Any, sizes: list[dict], best_copy: float | None,
               warmups: int, runs: int, max_autotune: bool) -> dict:
    """Part 2 on the GPU: compile the entry as the harness does, torch.compile the chain, every size."""
    import numpy as np
    torch, harness = s.torch, s.harness
    built = harness.compile_kernels(SLUG, entry.folder.resolve(), spec, s.gpu, s.cache_dir)
    functions, commands = built.functions, built.distinct_commands
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
