"""What one entry's measurement costs at worst, from the spec alone: host memory, launches,
sampling time and the size of its result file, each refused at load time past its bound in
``measure.spec.limits``.

The per-key bounds (sizes, variants, repeats, runs) keep each number sane; their products are
what a node pays.  ``check_budget`` runs last in ``MeasureSpec.validate``, once every expression
is known to evaluate; each refusal names the key that makes the cost big and what to change.
Pure and bounded: a few arithmetic passes over the sizes and measured variants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from measure import expr, units
from measure.spec.checks import point_label
from measure.spec import limits, unified
from measure.spec.limits import (CHECK_HOST_BUDGET_BYTES, MAX_HOST_BUFFER_BYTES, MAX_MEASURE_LAUNCHES, MAX_RESULT_BYTES,
                                 MAX_SAMPLING_SECONDS, RESULT_BYTES_FIXED, RESULT_BYTES_PER_LAUNCH,
                                 RESULT_BYTES_PER_LAUNCH_METRIC, RESULT_BYTES_PER_SAMPLE, RESULT_BYTES_PER_SIZE,
                                 RESULT_BYTES_PER_VARIANT)
from measure.spec.sizes import DTYPE_BYTES, iter_buffer_bytes
from measure.spec.steps import step_streams
from measure.typed import SchemaError

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec
    from measure.spec.sweep import MeasuredVariant

# The copy floor's regions (a float4 copy, cuMemcpyDtoD), and the link floor's where there are host
# buffers (host to device, device to host): sampled beside the variants, their samples kept.
COPY_FLOOR_REGIONS = 2
LINK_FLOOR_REGIONS = 2
# What a key's factor is compared with to say which one makes a cost big: a generous real entry.
TYPICAL = {"sizes": 8, "runs": 203, "steps": 64, "variants": 16}


def host_buffer_bytes(spec: MeasureSpec, params: dict[str, int]) -> dict[str, int]:
    """Bytes of each host buffer (pinned or pageable) at one size, in spec order."""
    return {name: n for name, n in iter_buffer_bytes(spec, params)
            if spec.buffers[name].location in ("pinned", "pageable")}


def host_copy_bytes(spec: MeasureSpec, nbytes: dict[str, int]) -> int:
    """Host memory the check holds beside the buffers at a size whose buffers take ``nbytes``: the
    seeded copy of every input, and then either (the whole reference) every input and the expected
    and received outputs in float64, or (reference_elementwise) the variants' outputs, at most
    CHECK_HOST_BUDGET_BYTES at once (pure)."""
    items = {name: DTYPE_BYTES[buf.dtype] for name, buf in spec.buffers.items()}
    inputs = [n for n, b in spec.buffers.items() if b.role == "input"]
    outputs = [n for n, b in spec.buffers.items() if b.role == "output"]
    held = sum(nbytes[n] for n in inputs)
    if spec.reference_elementwise:
        from measure.spec.hopper import step_buffers
        touched = [{a for step in v.launches for a in step_buffers(spec, step)} for v in spec.measured_variants]
        one = max(sum(nbytes[n] for n in outputs if n in names) for names in touched)  # a group holds one at least
        return held + min(one * len(spec.measured_variants), max(CHECK_HOST_BUDGET_BYTES, one))
    as_float64 = sum(nbytes[n] // items[n] * 8 for n in inputs) + 2 * sum(nbytes[n] // items[n] * 8 for n in outputs)
    return held + as_float64


def run_steps(variant: MeasuredVariant) -> int:
    """Launches and copies one run of a variant enqueues: every step's repeats (a graph: its nodes),
    and the memsets of its untimed setup (``measure.spec.setup``)."""
    return sum(step.repeat for step in variant.launches) + len(variant.spec.setup)


def regions(spec: MeasureSpec, variant: MeasuredVariant) -> int:
    """Regions a variant is sampled as each round: itself, a serial twin where its steps use several
    streams (not in a graph), and each of those twice under clock: both (device, then host)."""
    streams: set[str] = set()
    for step in variant.launches:
        streams |= step_streams(step)
    twin = 2 if len(streams) > 1 and not variant.spec.graph else 1
    return twin * (2 if spec.timing.clock == "both" else 1)


def launch_budget(spec: MeasureSpec) -> int:
    """Launches the measurement may enqueue at worst: every size x every measured variant x the
    steps of one run x (warm-ups and max_runs rounds of each region, plus the check's one run)."""
    rounds = spec.timing.warmups + spec.timing.max_runs
    return len(spec.sizes) * sum(run_steps(v) * (rounds * regions(spec, v) + 1) for v in spec.measured_variants)


def sampling_seconds(spec: MeasureSpec) -> float:
    """The longest sampling may take: timing.max_seconds per size (the round that passes it aside)."""
    return len(spec.sizes) * spec.timing.max_seconds


def result_bytes(spec: MeasureSpec) -> int:
    """An upper estimate of the bytes of the result file the harness writes: every sample it keeps
    (max_runs of every region at every size) and the records around them (``limits``' RESULT_BYTES_*)."""
    per_launch = RESULT_BYTES_PER_LAUNCH + RESULT_BYTES_PER_LAUNCH_METRIC * len(spec.metrics)
    floors = COPY_FLOOR_REGIONS + (LINK_FLOOR_REGIONS if any(b.location != "device" for b in spec.buffers.values())
                                   else 0)
    per_size = RESULT_BYTES_PER_SIZE + RESULT_BYTES_PER_SAMPLE * spec.timing.max_runs * floors
    for v in spec.measured_variants:
        per_size += (RESULT_BYTES_PER_VARIANT + per_launch * len(v.launches)
                     + RESULT_BYTES_PER_SAMPLE * spec.timing.max_runs * regions(spec, v))
    return RESULT_BYTES_FIXED + len(spec.sizes) * per_size


@dataclass(frozen=True)
class Factor:
    key: str            # the spec key, relative to measure:
    value: int
    typical: int
    words: str          # how the message shows it

    @property
    def weight(self) -> float:
        return self.value / self.typical


def _factors(spec: MeasureSpec, with_steps: bool) -> list[Factor]:
    """The spec's factors of a cost, each with the key that sets it, heaviest first."""
    timing = spec.timing
    out = [Factor("sizes", len(spec.sizes), TYPICAL["sizes"], f"{len(spec.sizes)} sizes (measure.sizes)"),
           Factor("timing.max_runs", timing.warmups + timing.max_runs, TYPICAL["runs"],
                  (f"{timing.warmups:,} warm-ups + " if with_steps else "") +
                  f"up to {timing.max_runs:,} samples (measure.timing.max_runs)")]
    measured = spec.measured_variants
    swept = max(range(len(spec.variants)), key=lambda i: len(spec.measured(spec.variants[i].name)))
    out.append(Factor(f"variants[{swept}].sweep" if spec.variants[swept].sweep else "variants", len(measured),
                      TYPICAL["variants"], f"{len(measured)} measured variants (measure.variants and their sweeps)"))
    if with_steps:
        vi, heavy = max(enumerate(spec.variants), key=lambda iv: sum(s.repeat for s in iv[1].launches))
        li, step = max(enumerate(heavy.launches), key=lambda ls: ls[1].repeat)
        steps = sum(s.repeat for s in heavy.launches)
        what = f"a graph of {steps:,} nodes" if heavy.graph else f"{steps:,} launches"
        key = f"variants[{vi}].launches[{li}].repeat" if step.repeat > 1 else f"variants[{vi}].launches"
        out.append(Factor(key, steps, TYPICAL["steps"],
                          f"{heavy.name}'s run of {what} (measure.{key} {step.repeat:,} "
                          f"x {len(heavy.launches)} steps)"))
    return sorted(out, key=lambda f: -f.weight)


def check_budget(spec: MeasureSpec) -> None:
    """A SchemaError, under the key that makes it big, where the spec's worst case passes a bound:
    host buffers at a size, launches, sampling seconds, the result file's bytes."""
    for i, point in enumerate(spec.sizes):
        try:
            host = host_buffer_bytes(spec, dict(point))
        except expr.ExprError:
            return  # check_values named the expression already
        if sum(host.values()) > MAX_HOST_BUFFER_BYTES:
            big = max(host, key=host.__getitem__)
            shown = ", ".join(f"{name} {_gib(n)} {spec.buffers[name].location}" for name, n in host.items())
            raise SchemaError(f"buffers.{big}", f"the host buffers at sizes[{i}] {point_label(point)} need "
                              f"{_gib(sum(host.values()))} of host memory ({shown}), more than the "
                              f"{_gib(MAX_HOST_BUFFER_BYTES)} any verification node can spare; lower the size, "
                              f"or keep {big} on the device (location: device)")
    launches = launch_budget(spec)
    if launches > MAX_MEASURE_LAUNCHES:
        factors = _factors(spec, with_steps=True)
        per_round = sum(run_steps(v) for v in spec.measured_variants)
        raise SchemaError(factors[0].key, f"one measurement could enqueue {launches:,} launches (graph nodes "
                          f"count each; {per_round:,} a round of every measured variant), more than the "
                          f"{MAX_MEASURE_LAUNCHES:,} it may: "
                          f"{'; '.join(f.words for f in factors)}; lower measure.{factors[0].key} first")
    seconds = sampling_seconds(spec)
    if seconds > MAX_SAMPLING_SECONDS:
        raise SchemaError("timing.max_seconds", f"sampling could take {len(spec.sizes)} sizes x "
                          f"{spec.timing.max_seconds:g} s (measure.timing.max_seconds) = {seconds:,.0f} s, more "
                          f"than {MAX_SAMPLING_SECONDS:,} s (two thirds of the 1,800 s deadline per entry); lower "
                          f"measure.timing.max_seconds, or measure fewer sizes")
    estimate = result_bytes(spec)
    if estimate > MAX_RESULT_BYTES // 2:
        factors = _factors(spec, with_steps=False)
        raise SchemaError(factors[0].key, f"the result file could be {_mb(estimate)}, more than the "
                          f"{_mb(MAX_RESULT_BYTES // 2)} a spec may ask for (half the reader's "
                          f"{_mb(MAX_RESULT_BYTES)} limit): every sample is kept, and there could be "
                          f"{'; '.join(f.words for f in factors)}; lower measure.{factors[0].key} first")


def _gib(n: int) -> str:
    return units.binary_bytes(n, "GiB", digits=1)


def _mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def limit_rows() -> list[list[str]]:
    """The bounds as the authors' reference lists them (what, bound), from ``limits``."""
    gib = lambda n: f"{n / 2**30:g} GiB"  # noqa: E731
    mb = lambda n: f"{n / 2**20:g} MB"  # noqa: E731
    return [
        ["`sizes`", f"at most {limits.MAX_SIZES} points, each parameter at most 2**40"],
        ["`variants`", f"at most {limits.MAX_VARIANTS}, and {limits.MAX_MEASURED_VARIANTS} measured variants with "
                       f"their sweeps ({limits.MAX_SWEEP_VALUES} values a name, {limits.MAX_SWEEP_POINTS} points a variant)"],
        ["`variants[].launches`", f"at most {limits.MAX_LAUNCHES} steps a variant, each `repeat` at most "
                                  f"{limits.MAX_REPEAT:,}"],
        ["`timing.warmups`, `timing.max_runs`", f"at most {limits.MAX_WARMUPS:,} and {limits.MAX_RUNS:,}"],
        ["host buffers (`location: pinned` or `pageable`)",
         f"at most {gib(limits.MAX_HOST_BUFFER_BYTES)} together at any size; on the node, the host buffers and "
         f"the check's host copies of inputs and outputs may use at most {limits.HOST_MEMORY_SHARE:.0%} of the "
         f"memory the machine has available, or the size fails before anything is allocated"],
        ["managed buffers (`location: managed`)",
         f"at most {gib(unified.MAX_MANAGED_BYTES)} together at any size; on the node, at most "
         f"{unified.MANAGED_DEVICE_SHARE:.0%} of the device memory free when the size is allocated"],
        ["launches of one measurement",
         f"at most {limits.MAX_MEASURE_LAUNCHES:,} in the worst case: sizes x measured variants x the steps of "
         f"one run (repeats counted, a graph's nodes each) x (warm-ups + `max_runs` + the check's run) x the "
         f"regions each is timed as (`clock: both` twice; several streams add a serial twin)"],
        ["sampling time", f"sizes x `timing.max_seconds` at most {limits.MAX_SAMPLING_SECONDS:,} s"],
        ["the result file", f"an upper estimate (every sample kept, {limits.RESULT_BYTES_PER_SAMPLE} bytes each, "
                            f"and the records around them) at most {mb(limits.MAX_RESULT_BYTES // 2)}, half the "
                            f"{mb(limits.MAX_RESULT_BYTES)} the reader accepts; a larger result is never "
                            f"written (the measurement fails, the last good result is kept)"],
    ]
