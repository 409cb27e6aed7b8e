"""The correctness check: every output element against the entry's float64 reference, before any timing."""

from __future__ import annotations

import contextlib
import traceback
from typing import Any, Callable

import numpy as np

from measure import stats
from measure.harness import parallel
from measure.harness.errors import MeasurementError
from measure.harness.launches import Call
from measure.harness.session import GpuSession
from measure.harness.workspace import NP_DTYPES, Workspace, poison
from measure.sandbox import ReferenceFailed
from measure.sandbox.server import reads_argument as inspect_reads
from measure.spec import MeasureSpec
from measure.spec.sizes import swept_names
from measure.spec.sweep import MeasuredVariant


def check_elements(got: np.ndarray, ref: np.ndarray, rtol: float, atol: float) -> dict:
    """Compare every element: |got - ref| <= atol + rtol * |ref|; NaN never passes.

    Returns {"ok", "elements_checked", "bad", "nan", "first_bad", "max_abs_err", "max_rel_err",
    "max_tolerance_used"} (the largest |err| / (atol + rtol |ref|), at most 1 when ok); the
    maxima are None when the check fails (they could be NaN).  The arrays are compared in
    chunks on every core; the answer is the same as one pass over all of them.
    """
    got_flat, ref_flat = np.asarray(got).ravel(), np.asarray(ref).ravel()
    if got_flat.size != ref_flat.size:
        raise ValueError(f"check_elements: {got_flat.size} elements against {ref_flat.size}")
    parts = parallel.map_chunks(lambda a, b: check_chunk(got_flat[a:b], ref_flat[a:b], a, rtol, atol),
                                got_flat.size)
    return merge_checks(parts, got_flat.size)


def merge_checks(parts: list[dict], elements: int) -> dict:
    """``check_elements``'s record from its chunks' records, given in element order (pure)."""
    n_bad = sum(p["bad"] for p in parts)
    out: dict[str, Any] = {"ok": n_bad == 0, "elements_checked": int(elements), "bad": n_bad,
                           "nan": sum(p["nan"] for p in parts), "first_bad": None,
                           "max_abs_err": None, "max_rel_err": None, "max_tolerance_used": None}
    if n_bad:
        out["first_bad"] = next(p["first_bad"] for p in parts if p["bad"])
        return out
    for key in ("max_abs_err", "max_tolerance_used", "max_rel_err"):
        out[key] = max((p[key] for p in parts), default=0.0)
    return out


def check_chunk(got: np.ndarray, ref: np.ndarray, offset: int, rtol: float, atol: float) -> dict:
    """``check_elements`` over one chunk starting at element ``offset`` of the whole.

    Written with three float64 temporaries reused in place, so a chunk stays in cache."""
    got64 = np.array(got, dtype=np.float64)
    ref64 = np.asarray(ref, dtype=np.float64)
    err = np.subtract(got64, ref64)
    np.abs(err, out=err)
    bound = np.abs(ref64)
    bound *= rtol
    bound += atol
    good = err <= bound                       # False wherever either side is NaN
    n_bad = int(good.size - np.count_nonzero(good))
    out: dict[str, Any] = {"bad": n_bad, "nan": int(np.count_nonzero(np.isnan(got64)))}
    if n_bad:
        first = int(np.argmin(good))
        out["first_bad"] = {"index": offset + first, "got": float(got64[first]), "expected": float(ref64[first])}
        return out
    if not err.size:
        out.update(max_abs_err=0.0, max_tolerance_used=0.0, max_rel_err=0.0)
        return out
    out["max_abs_err"] = float(err.max())
    # Near-zero references make max_rel_err large while atol covers them; this says how close to failing.
    # An exact comparison (int8: tolerance 0) has bound 0 where err is 0: no tolerance used, not 0/0.
    got64.fill(0.0)
    out["max_tolerance_used"] = float(np.divide(err, bound, out=got64, where=bound > 0).max())
    np.abs(ref64, out=bound)
    nonzero = bound > 0
    if nonzero.any():
        got64.fill(0.0)
        out["max_rel_err"] = float(np.divide(err, bound, out=got64, where=nonzero).max())
    else:
        out["max_rel_err"] = 0.0
    return out


def nan_note(count: int) -> str:
    """' (12 NaN: unwritten, poisoned or computed NaN)' where a check found NaN, else ''."""
    return f" ({count} NaN: unwritten, poisoned or computed NaN)" if count else ""


def reads_variant(reference: Callable) -> bool:
    """Whether ``reference``'s result can depend on the variant it is asked about: it reads its first
    parameter (or cannot be inspected).  A reference that never reads it gives every variant the
    same expected outputs, so they are computed once per size instead of once per variant."""
    return reads_argument(reference, 0)


def reads_point(reference: Callable) -> bool:
    """Whether ``reference``'s result can depend on a sweep point: it reads ``params``, its fourth
    parameter (or cannot be inspected).  One that never does answers every point of a sweep alike."""
    return reads_argument(reference, 3)


def reads_argument(reference: Callable, position: int) -> bool:
    """Whether ``reference`` reads its parameter at ``position`` (True where it cannot be inspected).
    A sandboxed reference was inspected inside its sandbox, by the same function."""
    told = getattr(reference, {0: "reads_variant", 3: "reads_point"}.get(position, ""), None)
    if isinstance(told, bool):
        return told
    return inspect_reads(reference, position)


def call_reference(reference: Callable, variant: str, inputs: dict[str, np.ndarray], scalars: dict,
                   params: dict, sizes: dict[str, int], start: int | None = None, stop: int | None = None) -> Any:
    """The reference's answer for elements [start, stop) of ``inputs`` (all where None), each input
    given as float64.  A sandboxed reference (``measure.sandbox.SandboxedReference``) gets the inputs
    in their own types and converts them inside; a plain function (tests) here.  ReferenceFailed or
    whatever the plain function raises propagates."""
    chunk = getattr(reference, "chunk", None)
    if chunk is not None:
        return chunk(variant, inputs, scalars, params, start, stop, sizes)
    piece = {k: np.asarray(v[start:stop], dtype=np.float64) for k, v in inputs.items()}
    return reference(variant, piece, scalars, params)


def reference_raised(label: str, err: BaseException, where: str = "") -> MeasurementError:
    """The error for a reference that failed: the sandbox's own words, or a plain function's traceback."""
    if isinstance(err, ReferenceFailed):
        return MeasurementError(f"{label}: {err}{where}")
    return MeasurementError(f"{label}: the reference raised{where}:\n{traceback.format_exc(limit=3)}")


class Expected:
    """The reference's outputs at one size, computed once per variant, or once for all of them
    where the reference never reads the variant (``reads_variant``)."""

    def __init__(self, reference: Callable, inputs: dict[str, np.ndarray], scalars: dict[str, float],
                 params: dict[str, int], in_phase: Callable[[], Any] = contextlib.nullcontext,
                 sizes: dict[str, int] | None = None,
                 sizes_for: Callable[[MeasuredVariant], dict[str, int]] | None = None) -> None:
        self.reference, self.inputs, self.scalars, self.params = reference, inputs, scalars, params
        self.sizes = sizes or {}  # output -> elements: what the reference must return
        self.sizes_for = sizes_for  # the same for one variant, where outputs are sized by the sweep
        self.in_phase = in_phase  # a context the reference runs in (the phase clock's "reference")
        self.shared = not reads_variant(reference)
        self.by_point = reads_point(reference)
        self._cache: dict[str | None, Any] = {}

    def outputs(self, variant: MeasuredVariant) -> Any:
        """The reference's answer for a measured variant: asked about its base name, with its sweep
        point among the params (``ask``)."""
        base, params = ask(variant, self.params)
        sizes = self.sizes_for(variant) if self.sizes_for is not None else self.sizes
        key = (None if self.shared else base, tuple(variant.point.items()) if self.by_point else (),
               tuple(sorted(sizes.items())))
        if key not in self._cache:
            self._cache.clear()  # one variant's float64 outputs at a time: they can be gigabytes
            with self.in_phase():
                self._cache[key] = call_reference(self.reference, base, self.inputs, self.scalars, params,
                                                  sizes)
        return self._cache[key]


def ask(variant: MeasuredVariant, params: dict[str, int]) -> tuple[str, dict[str, int]]:
    """What the reference is called with for a measured variant: its base name, and the size
    parameters with its sweep point."""
    return variant.base, {**params, **variant.point}


class HostBuffers:
    """Host arrays that variants' outputs are copied into, kept from size to size (and group to
    group) so that their pages are touched once per entry, on every core, not once per copy."""

    def __init__(self) -> None:
        self._arrays: dict[Any, np.ndarray] = {}

    def get(self, key: Any, count: int, dtype: Any) -> np.ndarray:
        arr = self._arrays.get(key)
        if arr is None or arr.size < count or arr.dtype != np.dtype(dtype):
            self._arrays.pop(key, None)  # let the old pages go before new ones are touched
            arr = self._arrays[key] = parallel.empty_touched(count, dtype)
        return arr[:count]


def run_variant(spec: MeasureSpec, variant: MeasuredVariant, calls: list[Call], ws: Workspace, gpu: GpuSession,
                label: str, host: HostBuffers | None = None, slot: int = 0) -> dict[str, np.ndarray]:
    """Poison, fill what the variant's setup fills, run the variant once with a sync after every launch,
    and copy its outputs to the host (into ``host``'s arrays of ``slot`` where given, else new ones)."""
    drv = gpu.drv
    poison(spec, ws, gpu)
    fills = getattr(calls, "fills", None)
    if fills:  # the variant's untimed setup, as before each sample
        fills.enqueue(gpu.stream)
    gpu.ctx.synchronize()
    before = getattr(calls, "before_sample", None)
    if before is not None:  # the state every sample starts from (managed pages, the L2 window)
        before()
    runner = getattr(calls, "runner", None)
    if runner is not None:  # on its streams, or replayed from its graph, exactly as it will be timed
        try:
            runner.launch() if hasattr(runner, "exec") else runner.enqueue()
            gpu.ctx.synchronize()
        except drv.Error as err:
            raise MeasurementError(f"{label}: the variant's {'graph' if hasattr(runner, 'exec') else 'streams'} "
                                   f"failed: {err}") from None
    for k, call in enumerate(calls if runner is None else ()):
        try:
            call.launch(gpu.stream)
            gpu.stream.synchronize()
        except drv.Error as err:
            what = f"{call.kernel}, grid {call.grid}, block {call.block}" if call.kernel else call.label
            raise MeasurementError(f"{label}: launch {k} ({what}) failed: {err}") from None
    got = {}
    for name in output_names(spec, variant):
        dtype = NP_DTYPES[spec.buffers[name].dtype]
        count = ws.count_for(spec, name, variant)  # a buffer sized by the sweep: this point's elements
        got[name] = (host.get((slot, name), count, dtype) if host is not None
                     else parallel.empty_touched(count, dtype))
        if name in ws.host:  # a host output: the copy steps brought the results there
            got[name][:] = ws.host[name]
        else:
            drv.memcpy_dtoh(got[name], ws.allocs[name])
    return got


def output_names(spec: MeasureSpec, variant: MeasuredVariant | None = None) -> list[str]:
    """The spec's outputs, or those ``variant`` writes: the destinations of its copies and the
    output buffers its kernels are given (a variant of one copy writes one output; the others
    are not its to check)."""
    outputs = sorted(n for n, b in spec.buffers.items() if b.role == "output")
    if variant is None:
        return outputs
    from measure.spec.hopper import step_buffers
    touched = {arg for step in variant.launches for arg in step_buffers(spec, step)}
    return [n for n in outputs if n in touched]


def expected_outputs(expected: Any, spec: MeasureSpec, label: str, elements: dict[str, int]) -> dict[str, np.ndarray]:
    """The reference's answer as {output: float64 array}, checked for its keys and element counts."""
    outputs = output_names(spec)
    if not isinstance(expected, dict) or set(expected) != set(outputs):
        got_keys = sorted(expected) if isinstance(expected, dict) else type(expected).__name__
        raise MeasurementError(f"{label}: the reference must return {{output name: array}} for exactly "
                               f"{outputs}, returned {got_keys}")
    out = {}
    for name in outputs:
        if name not in elements:  # sized by a sweep this variant does not have: not its output to check
            continue
        ref = np.asarray(expected[name], dtype=np.float64)
        if ref.size != elements[name]:
            raise MeasurementError(f"{label}: reference output {name} has {ref.size} elements, "
                                   f"the buffer {elements[name]}")
        out[name] = ref
    return out


def output_counts(spec: MeasureSpec, variant: MeasuredVariant, ws: Workspace) -> dict[str, int]:
    """The elements of each output the reference answers for ``variant``: the allocation's, or the
    variant's point's for an output sized by the sweep; one sized by names the variant does not
    sweep is left out (it is not the variant's to write)."""
    return {n: ws.count_for(spec, n, variant) for n in output_names(spec)
            if swept_names(spec, n) <= set(variant.point)}


def wrong_output(label: str, name: str, result: dict, spec: MeasureSpec) -> MeasurementError:
    bad = result["first_bad"]
    rtol, atol = spec.tolerance(name)
    return MeasurementError(
        f"{label}: output {name} is wrong in {result['bad']} of {result['elements_checked']} elements"
        f"{nan_note(result['nan'])}; first at index {bad['index']}: "
        f"got {bad['got']!r}, expected {bad['expected']!r} "
        f"(tolerance {atol} + {rtol} x |expected|). Nothing was recorded.")


def check_variant(slug: str, spec: MeasureSpec, variant: MeasuredVariant, calls: list[Call], ws: Workspace,
                  gpu: GpuSession, expected_outputs_of: Expected, params: dict[str, int]) -> list[dict]:
    """Poison, run once with a sync after every launch, compare every output element with the
    reference computed over the whole size.

    Returns each output's ``check_elements`` record; a wrong output is a MeasurementError.
    """
    label = f"{slug}: {stats.size_label(params)} variant {variant.name}"
    got = run_variant(spec, variant, calls, ws, gpu, label)
    try:
        answer = expected_outputs_of.outputs(variant)
    except Exception as err:
        raise reference_raised(label, err) from None
    expected = expected_outputs(answer, spec, label, output_counts(spec, variant, ws))
    checks = []
    for name in got:
        result = check_elements(got[name], expected[name], *spec.tolerance(name))
        if not result["ok"]:
            raise wrong_output(label, name, result, spec)
        checks.append(result)
    return checks
