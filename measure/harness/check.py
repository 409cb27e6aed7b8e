"""The correctness check: every output element against the entry's float64 reference, before any timing."""

from __future__ import annotations

import traceback
from typing import Any, Callable

import numpy as np

from measure import stats
from measure.harness.errors import MeasurementError
from measure.harness.launches import Call
from measure.harness.session import GpuSession
from measure.harness.workspace import NP_DTYPES, Workspace, poison
from measure.spec import MeasureSpec, Variant


def check_elements(got: np.ndarray, ref: np.ndarray, rtol: float, atol: float) -> dict:
    """Compare every element: |got - ref| <= atol + rtol * |ref|; NaN never passes.

    Returns {"ok", "elements_checked", "bad", "nan", "first_bad", "max_abs_err", "max_rel_err",
    "max_tolerance_used"} (the largest |err| / (atol + rtol |ref|), at most 1 when ok); the
    maxima are None when the check fails (they could be NaN).
    """
    got64 = np.asarray(got, dtype=np.float64).ravel()
    ref64 = np.asarray(ref, dtype=np.float64).ravel()
    err = np.abs(got64 - ref64)
    abs_ref = np.abs(ref64)
    good = err <= atol + rtol * abs_ref      # False wherever either side is NaN
    n_bad = int(good.size - np.count_nonzero(good))
    out: dict[str, Any] = {"ok": n_bad == 0, "elements_checked": int(got64.size), "bad": n_bad,
                           "nan": int(np.count_nonzero(np.isnan(got64))), "first_bad": None,
                           "max_abs_err": None, "max_rel_err": None, "max_tolerance_used": None}
    if n_bad:
        first = int(np.argmin(good))
        out["first_bad"] = {"index": first, "got": float(got64[first]), "expected": float(ref64[first])}
        return out
    out["max_abs_err"] = float(err.max()) if err.size else 0.0
    # Near-zero references make max_rel_err large while atol covers them; this says how close to failing.
    out["max_tolerance_used"] = float((err / (atol + rtol * abs_ref)).max()) if err.size else 0.0
    nonzero = abs_ref > 0
    out["max_rel_err"] = float((err[nonzero] / abs_ref[nonzero]).max()) if nonzero.any() else 0.0
    return out


def nan_note(count: int) -> str:
    """' (12 NaN: unwritten, poisoned or computed NaN)' where a check found NaN, else ''."""
    return f" ({count} NaN: unwritten, poisoned or computed NaN)" if count else ""


def check_variant(slug: str, spec: MeasureSpec, variant: Variant, calls: list[Call], ws: Workspace,
                  gpu: GpuSession, reference: Callable, inputs64: dict[str, np.ndarray],
                  params: dict[str, int]) -> list[dict]:
    """Poison, run once with a sync after every launch, compare every output element.

    Returns each output's ``check_elements`` record; a wrong output is a MeasurementError.
    """
    drv = gpu.drv
    label = f"{slug}: {stats.size_label(params)} variant {variant.name}"
    poison(spec, ws, gpu)
    gpu.ctx.synchronize()
    for k, call in enumerate(calls):
        try:
            call.launch(gpu.stream)
            gpu.stream.synchronize()
        except drv.Error as err:
            raise MeasurementError(f"{label}: launch {k} ({call.kernel}, grid {call.grid}, block {call.block}) "
                                   f"failed: {err}") from None
    # Scalars as the kernels received them (float32), so both sides compute the same function.
    scalars = {k: float(np.float32(v)) for k, v in spec.scalars.items()}
    try:
        expected = reference(variant.name, inputs64, scalars, dict(params))
    except Exception:
        raise MeasurementError(f"{label}: the reference raised:\n{traceback.format_exc(limit=3)}") from None
    outputs = {n for n, b in spec.buffers.items() if b.role == "output"}
    if not isinstance(expected, dict) or set(expected) != outputs:
        got_keys = sorted(expected) if isinstance(expected, dict) else type(expected).__name__
        raise MeasurementError(f"{label}: the reference must return {{output name: array}} for exactly "
                               f"{sorted(outputs)}, returned {got_keys}")
    checks = []
    for name in sorted(outputs):
        buf = spec.buffers[name]
        host = np.empty(ws.counts[name], dtype=NP_DTYPES[buf.dtype])
        drv.memcpy_dtoh(host, ws.allocs[name])
        ref = np.asarray(expected[name], dtype=np.float64)
        if ref.size != host.size:
            raise MeasurementError(f"{label}: reference output {name} has {ref.size} elements, "
                                   f"the buffer {host.size}")
        result = check_elements(host, ref, spec.rtol, spec.atol)
        if not result["ok"]:
            bad = result["first_bad"]
            raise MeasurementError(
                f"{label}: output {name} is wrong in {result['bad']} of {result['elements_checked']} elements"
                f"{nan_note(result['nan'])}; first at index {bad['index']}: "
                f"got {bad['got']!r}, expected {bad['expected']!r} "
                f"(tolerance {spec.atol} + {spec.rtol} x |expected|). Nothing was timed.")
        checks.append(result)
    return checks
