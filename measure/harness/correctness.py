"""A size's correctness check: every variant run once, every output element compared with the
entry's float64 reference, before anything is timed.

Two ways to get the reference:

- whole (the default): the inputs are converted to float64 and the reference is called once per
  size (once per variant where it reads the variant: ``check.reads_variant``);
- chunked, where the spec says ``reference_elementwise: true``: the author promises that output
  element i depends only on element i of each input (and on the scalars and size parameters).
  Every variant's outputs are copied back first; then each chunk of the inputs is converted, given
  to the reference, and its answer compared at once with every variant's outputs for that chunk,
  on every core.  No full-size float64 array is ever built.

The promise is tested, not trusted: at the first size, over its first ``VERIFY_ELEMENTS``
elements, the reference is computed whole and in three uneven pieces, and the pieces must agree
with the whole to 1e-12 in every element; where they do not, the measurement stops naming the
first element that differs.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from measure import stats
from measure.harness import parallel
from measure.harness.check import (Expected, HostBuffers, ask, call_reference, check_chunk, check_variant,
                                   expected_outputs, merge_checks, output_names, reads_point, reads_variant,
                                   output_counts, reference_raised, run_variant, wrong_output)
from measure.harness.errors import MeasurementError
from measure.harness.launches import Call
from measure.harness.phases import PhaseClock
from measure.harness.session import GpuSession
from measure.harness.workspace import NP_DTYPES, Workspace
from measure.spec import MeasureSpec
from measure.spec.sweep import MeasuredVariant

# How closely the chunked reference must match the whole one: float64 rounding differences only.
CHUNKING_RTOL = 1e-12
# Elements the elementwise promise is tested on (a prefix of the first size's inputs).
VERIFY_ELEMENTS = 1 << 20
# Variants' outputs held on the host at once for the chunked check, at most.
HOST_BUDGET_BYTES = 8 << 30


def check_size(slug: str, spec: MeasureSpec, calls: dict[str, list[Call]], ws: Workspace, gpu: GpuSession,
               reference: Callable, params: dict[str, int], clock: PhaseClock,
               progress: Callable[[str], None], verify_chunking: bool = False,
               checked: Callable[[str], None] = lambda name: None, host: HostBuffers | None = None) -> list[dict]:
    """Check every variant at one size (in the open "check" phase); each output's record, in order.

    ``verify_chunking`` (the first size) also tests the elementwise promise; ``checked`` is
    called with each variant's name once it passed; ``host`` keeps the host copies of the outputs
    from size to size.  A wrong output is a MeasurementError.
    """
    label = f"{slug}: {stats.size_label(params)}"
    scalars = kernel_scalars(spec)
    if not spec.reference_elementwise:
        expected = Expected(reference, dict(ws.inputs), scalars, params, in_phase=lambda: clock.phase("reference"),
                            sizes_for=lambda v: output_counts(spec, v, ws))
        checks = []
        for v in spec.measured_variants:
            progress(f"{label} checking {v.name}")
            checks += check_variant(slug, spec, v, calls[v.name], ws, gpu, expected, params)
            checked(v.name)
        return checks
    checks = []
    for i, group in enumerate(host_groups(spec, ws.counts)):  # a group's outputs at a time on the host
        checks += start_check(label, spec, calls, ws, gpu, reference, scalars, params, clock, progress,
                              verify_chunking and i == 0, checked, host, group).finish(clock)
    return checks


def kernel_scalars(spec: MeasureSpec) -> dict[str, float | int]:
    """The scalars as the kernels received them (a float32 rounded to float32, an integer as an
    int), so both sides compute the same function."""
    out: dict[str, float | int] = {}
    for name in spec.scalars:
        kind, value = spec.scalar(name)
        out[name] = float(np.float32(value)) if kind == "float32" else float(value) if kind == "float64" \
            else int(value)
    return out


@dataclass
class PendingCheck:
    """A size's chunked check whose variants have run and whose outputs are on the host: the
    comparison with the reference (CPU only) is left to ``finish``, which may come after the size
    was timed, while the GPU serves the counter pass.  The outputs compared are those of the run
    before timing, on poisoned buffers, as always."""

    label: str
    spec: MeasureSpec
    reference: Callable
    inputs: dict[str, np.ndarray]
    scalars: dict[str, float]
    params: dict[str, int]
    got: dict[str, dict[str, np.ndarray]]
    progress: Callable[[str], None]
    checked: Callable[[str], None]
    ran_s: float

    def finish(self, clock: PhaseClock) -> list[dict]:
        """Compare every element (in the open "check" phase); each output's record, in order."""
        started = time.perf_counter()
        checks = check_chunked(self.label, self.spec, self.reference, self.inputs, self.scalars, self.params,
                               self.got, clock)
        for v in self.got:
            self.checked(v)
        self.progress(f"{self.label} checked every element of {len(self.got)} variant(s): runs and copies back "
                      f"{self.ran_s:.2f} s, reference and comparison {time.perf_counter() - started:.2f} s")
        self.got = {}  # the host copies go as soon as they are compared
        return checks


def start_check(label: str, spec: MeasureSpec, calls: dict[str, list[Call]], ws: Workspace, gpu: GpuSession,
                reference: Callable, scalars: dict[str, float], params: dict[str, int], clock: PhaseClock,
                progress: Callable[[str], None], verify_chunking: bool = False,
                checked: Callable[[str], None] = lambda name: None,
                host: HostBuffers | None = None, variants: list[str] | None = None) -> PendingCheck:
    """The GPU half of an elementwise reference's check: test the promise (``verify_chunking``),
    then run every variant (or those named) once on poisoned buffers and copy its outputs to the
    host (into ``host``'s arrays, where given: only when ``finish`` comes before the next size)."""
    if verify_chunking:
        with clock.phase("reference"):
            verify_elementwise(label, spec, reference, ws.inputs, scalars, params)
    started = time.perf_counter()
    got = {}
    chosen = [v for v in spec.measured_variants if variants is None or v.name in variants]
    for slot, v in enumerate(chosen):
        progress(f"{label} running {v.name}")
        got[v.name] = run_variant(spec, v, calls[v.name], ws, gpu, f"{label} variant {v.name}", host, slot)
    return PendingCheck(label, spec, reference, dict(ws.inputs), scalars, dict(params), got, progress, checked,
                        time.perf_counter() - started)


def host_groups(spec: MeasureSpec, counts: dict[str, int], budget: int = HOST_BUDGET_BYTES) -> list[list[str]]:
    """The variants in spec order, grouped so that one group's outputs on the host stay within
    ``budget`` bytes (and a quarter of this host's memory); every group has at least one (pure but
    for the memory size)."""
    budget = min(budget, host_memory() // 4 or budget)
    per_variant = max(sum(counts[n] * np.dtype(NP_DTYPES[spec.buffers[n].dtype]).itemsize
                          for n in output_names(spec, v)) for v in spec.measured_variants)
    groups: list[list[str]] = []
    for v in spec.measured_variants:
        if groups and (len(groups[-1]) + 1) * per_variant <= budget:
            groups[-1].append(v.name)
        else:
            groups.append([v.name])
    return groups


def host_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def reference_chunk(reference: Callable, variant: MeasuredVariant, inputs: dict[str, np.ndarray],
                    scalars: dict[str, float], params: dict[str, int], start: int, stop: int, spec: MeasureSpec,
                    label: str) -> dict[str, np.ndarray]:
    """The reference's answer for elements [start, stop) of every input, checked for shape."""
    base, asked_params = ask(variant, params)
    sizes = {n: stop - start for n in output_names(spec)}
    try:
        answer = call_reference(reference, base, inputs, scalars, asked_params, sizes, start, stop)
    except Exception as err:
        raise reference_raised(label, err, f" on elements {start:,} to {stop:,} (it is called on chunks because "
                                           f"the spec says reference_elementwise: true)") from None
    return expected_outputs(answer, spec, f"{label} (elements {start:,} to {stop:,}, reference_elementwise)", sizes)


def check_chunked(label: str, spec: MeasureSpec, reference: Callable, inputs: dict[str, np.ndarray],
                  scalars: dict[str, float], params: dict[str, int], got: dict[str, dict[str, np.ndarray]],
                  clock: PhaseClock) -> list[dict]:
    """Compare every variant in ``got`` with the reference computed chunk by chunk on every core.

    The pass's wall time is split between "reference" and "check" in proportion to the thread
    time each took."""
    outputs = output_names(spec)
    tolerances = {o: spec.tolerance(o) for o in outputs}
    count = next(iter(next(iter(got.values())).values())).size
    started = time.perf_counter()

    measured = {v.name: v for v in spec.measured_variants}
    stand_in = {v: next(w for w in got if same_answer(reference, measured[w], measured[v])) for v in got}

    def work(start: int, stop: int) -> tuple[dict, float, float]:
        t0 = time.perf_counter()
        refs = {v: reference_chunk(reference, measured[v], inputs, scalars, params, start, stop, spec, label)
                for v in dict.fromkeys(stand_in.values())}
        t1 = time.perf_counter()
        parts = {(v, o): check_chunk(got[v][o][start:stop], refs[stand_in[v]][o], start,
                                     *tolerances[o]) for v in got for o in got[v]}
        return parts, t1 - t0, time.perf_counter() - t1

    answers = parallel.map_chunks(work, count)
    ref_s, cmp_s = sum(a[1] for a in answers), sum(a[2] for a in answers)
    if ref_s + cmp_s > 0:
        clock.attribute("reference", (time.perf_counter() - started) * ref_s / (ref_s + cmp_s))
    checks = []
    for v in got:
        for o in got[v]:
            result = merge_checks([a[0][(v, o)] for a in answers], count)
            if not result["ok"]:
                raise wrong_output(f"{label} variant {v}", o, result, spec)
            checks.append(result)
    return checks


def same_answer(reference: Callable, a: MeasuredVariant, b: MeasuredVariant) -> bool:
    """Whether the reference must answer ``a`` and ``b`` alike: it reads neither what tells them
    apart (the base name, where it never reads the variant; the point, where it never reads params)."""
    return (a.base == b.base or not reads_variant(reference)) and (a.point == b.point or not reads_point(reference))


def verify_elementwise(label: str, spec: MeasureSpec, reference: Callable, inputs: dict[str, np.ndarray],
                       scalars: dict[str, float], params: dict[str, int]) -> None:
    """Test the elementwise promise on the first ``VERIFY_ELEMENTS`` elements of ``inputs``: the
    reference in three uneven pieces must equal the reference over that whole prefix (to
    ``CHUNKING_RTOL``, NaN where NaN), for every variant it tells apart."""
    count = min(VERIFY_ELEMENTS, next(iter(inputs.values())).size) if inputs else 0
    if count < 3:
        return
    variants = spec.measured_variants
    asked = [v for i, v in enumerate(variants) if not any(same_answer(reference, w, v) for w in variants[:i])]
    cuts = [0, count // 3 + 1, (2 * count) // 3 + 1, count]
    for variant in asked:
        whole = reference_chunk(reference, variant, inputs, scalars, params, 0, count, spec, label)
        for start, stop in zip(cuts, cuts[1:]):
            piece = reference_chunk(reference, variant, inputs, scalars, params, start, stop, spec, label)
            for name, values in piece.items():
                same = np.isclose(values, whole[name][start:stop], rtol=CHUNKING_RTOL, atol=0.0, equal_nan=True)
                if not same.all():
                    i = int(np.argmin(same))
                    raise MeasurementError(
                        f"{label}: the spec says reference_elementwise: true, but the reference computed on "
                        f"elements {start:,} to {stop:,} differs from the reference computed on elements 0 to "
                        f"{count:,} at once: output {name}[{start + i}] is {values[i]!r} in the piece and {whole[name][start + i]!r} in the "
                        f"whole (variant {variant.name}). Its outputs depend on more than the same element of the "
                        f"inputs; remove reference_elementwise from the spec. Nothing was recorded.")
