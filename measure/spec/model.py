"""The spec's dataclasses: buffers, launches, variants, timing, ratios, claims, the spec itself.

Each ``validate`` checks its object's fields; the expression checks it calls live in
``measure.spec.checks``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from measure.spec.checks import check_expr, check_values
from measure.spec.limits import (DEVICE_NAMES, DTYPE_TOLERANCE, FILE_NAME, MAX_ARGS, MAX_BUFFERS, MAX_LAUNCHES, MAX_METRICS,
                                 MAX_REPEAT, MAX_RUNS, MAX_SIZE, MAX_SIZES, MAX_SWEEP_POINTS, MAX_SWEEP_VALUES,
                                 MAX_VARIANTS, MAX_WARMUPS, NVCC_FLAG, NVCC_FLAGS_SHOWN)
from measure.typed import SchemaError, doc

if TYPE_CHECKING:
    from measure.spec.sweep import MeasuredVariant

def measured_names(spec: "MeasureSpec", name: str) -> str:
    return ", ".join(v.name for v in spec.measured(name)[:2])


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NCU_METRIC = re.compile(r"^[a-z0-9_]+__[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")
ARCH = re.compile(r"^sm_\d+a?$")


@dataclass(frozen=True)
class Buffer:
    """A device buffer that the kernels read or write."""

    role: Literal["input", "output", "scratch"] = doc(
        "input: filled from the seeded generator; output: poisoned, then checked against the "
        "reference; scratch: intermediates, poisoned, never checked")
    dtype: Literal["float32", "float64", "int32", "float16", "bfloat16", "int8"] = doc(
        "element type; float16 and bfloat16 are drawn in float32 and rounded, int8 and int32 are the "
        "draws scaled (by 32 and 1000) and rounded", default="float32")
    size: str = doc("element count, an expression over the size parameters", default="n")
    init: Literal["normal", "uniform"] = doc(
        "input fill: standard normal, or uniform on [-1, 1)", default="normal")
    rtol: float | None = doc(
        "an output's per-element relative tolerance against the float64 reference; defaults to the "
        "data type's (float16 1e-3, bfloat16 8e-3, int8 0), else to measure.rtol", default=None)
    atol: float | None = doc(
        "an output's per-element absolute tolerance; defaults to the data type's (float16 1e-3, "
        "bfloat16 8e-3, int8 0), else to measure.atol", default=None)

    def validate(self) -> None:
        for key in ("rtol", "atol"):
            value = getattr(self, key)
            if value is not None and not value >= 0:
                raise SchemaError(key, f"expected a tolerance of at least 0, found {value}")
            if value is not None and self.role != "output":
                raise SchemaError(key, f"only an output is compared with the reference; {self.role} "
                                       f"buffers take no tolerance")


@dataclass(frozen=True)
class Scalar:
    """A kernel scalar argument with its type written out (a bare YAML number is float32 when it has
    a decimal point or exponent, int32 when it is an integer)."""

    value: float = doc("the value")
    type: Literal["float32", "float64", "int32", "int64"] = doc("the C type the kernel declares: float, "
                                                                "double, int, long long")

    def validate(self) -> None:
        if self.type.startswith("int"):
            if not float(self.value).is_integer():
                raise SchemaError("value", f"expected a whole number for a {self.type} scalar, found {self.value}")
            bits = 31 if self.type == "int32" else 63
            if not -2**bits <= self.value < 2**bits:
                raise SchemaError("value", f"{int(self.value):,} does not fit {self.type}")


@dataclass(frozen=True)
class Launch:
    """One kernel launch (or ``repeat`` identical launches) inside a variant."""

    kernel: str = doc("the __global__ function's name (declare it extern \"C\")")
    grid: list[str] = doc("grid dimensions (1 to 3): expressions over the size parameters, the variant's "
                          "sweep names and the device names")
    block: list[int | str] = doc("block dimensions (1 to 3): integers, or expressions over the size "
                                 "parameters, the sweep names and the device names; at most 1024 threads")
    args: list[str] = doc(
        "kernel arguments in order: a buffer name (its device pointer), a scalar name, or an "
        "integer expression over the size parameters, sweep names and device names (passed as "
        "`index_type`); inside a repeated launch, `i` is the repeat index", max_items=MAX_ARGS)
    repeat: int = doc("enqueue this launch this many times", default=1)
    shared: int | str = doc("dynamic shared memory per block, bytes: an integer or an expression (as for "
                            "block); past 48 KiB the kernel is opted in to the device's larger limit",
                            default=0)

    def validate(self) -> None:
        if not 1 <= len(self.grid) <= 3:
            raise SchemaError("grid", f"expected 1 to 3 dimensions, found {len(self.grid)}")
        if not 1 <= len(self.block) <= 3:
            raise SchemaError("block", f"expected 1 to 3 dimensions, found {len(self.block)}")
        fixed = [b for b in self.block if isinstance(b, int)]
        threads = 1
        for b in fixed:
            threads *= b
        if any(b < 1 for b in fixed) or threads > 1024:
            raise SchemaError("block", f"expected positive sizes with at most 1024 threads, found {list(self.block)}")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise SchemaError("repeat", f"expected 1 to {MAX_REPEAT:,} launches, found {self.repeat:,}")
        for i, text in enumerate(self.grid):
            check_expr(text, f"grid[{i}]")
        for i, text in enumerate(self.block):
            check_expr(str(text), f"block[{i}]")
        check_expr(str(self.shared), "shared")


@dataclass(frozen=True)
class Variant:
    """One version of the computation; its launches are timed as one region."""

    name: str = doc("identifier used by ratios, claims and bound figures, e.g. fused")
    label: str = doc("what the Measured table calls it, e.g. \"staged chain, timed as one\"")
    launches: list[Launch] = doc("the launches, in order", max_items=MAX_LAUNCHES)
    bytes_per_elem: float | str = doc(
        "predicted DRAM bytes moved per element (reads plus writes): a number, or an expression over "
        "the size parameters and sweep names, e.g. \"(2 * (m * k + k * n) + 4 * m * n) / (m * n * k)\"")
    useful_bytes_per_elem: float | str | None = doc(
        "bytes per element the computation needs, where DRAM moves more (coalescing); "
        "defaults to bytes_per_elem", default=None)
    flops_per_elem: float | str | None = doc("floating-point operations per element (a number or an "
                                             "expression); adds GFLOP/s", default=None)
    short: str | None = doc(
        "a short form of the label for tight spaces (sweep headers, plot legends), e.g. \"staged\"; "
        "defaults to the label; presentation only, not part of the measurement fingerprint", default=None)
    sweep: dict[str, list[int]] = doc(
        "launch parameters swept for this variant: names to lists of integers, e.g. {block: [128, 256]}; "
        "every point of the cross product is measured as its own variant, named copy[block=128], at "
        "every size; the names may be used in grid, block, shared, args, defines and maxrregcount",
        default_factory=dict, max_items=4)
    defines: dict[str, int | str] = doc(
        "preprocessor defines for this variant's build (-DNAME=VALUE): integers, or expressions over "
        "the sweep names and device names; variants with different defines compile as modules of "
        "their own", default_factory=dict, max_items=16)
    maxrregcount: int | str | None = doc(
        "register limit per thread for this variant's build (-maxrregcount=N): an integer or an "
        "expression over the sweep names", default=None)

    def validate(self) -> None:
        if not self.launches:
            raise SchemaError("launches", "expected at least one launch")
        for key in ("bytes_per_elem", "useful_bytes_per_elem", "flops_per_elem"):
            value = getattr(self, key)
            if isinstance(value, str):
                check_expr(value, key)
            elif value is not None and not value >= 0:  # "not >=" also catches NaN
                raise SchemaError(key, f"expected a number of at least 0, found {value}")
        points = 1
        for name, values in self.sweep.items():
            if not NAME.match(name):
                raise SchemaError(f"sweep.{name}", "expected a name of letters, digits and _")
            if not 1 <= len(values) <= MAX_SWEEP_VALUES:
                raise SchemaError(f"sweep.{name}", f"expected 1 to {MAX_SWEEP_VALUES} values, found {len(values)}")
            if len(set(values)) != len(values):
                raise SchemaError(f"sweep.{name}", f"expected distinct values, found {list(values)}")
            if any(abs(v) > 2**40 for v in values):
                raise SchemaError(f"sweep.{name}", "expected values within 2**40")
            points *= len(values)
        if points > MAX_SWEEP_POINTS:
            raise SchemaError("sweep", f"the sweep has {points:,} points; expected at most {MAX_SWEEP_POINTS}")
        for name, value in self.defines.items():
            if not NAME.match(name):
                raise SchemaError(f"defines.{name}", "expected a C identifier")
            check_expr(str(value), f"defines.{name}")
        if self.maxrregcount is not None:
            check_expr(str(self.maxrregcount), "maxrregcount")

    @property
    def useful_bytes(self) -> float | str:
        return self.bytes_per_elem if self.useful_bytes_per_elem is None else self.useful_bytes_per_elem


@dataclass(frozen=True)
class Metric:
    """An Nsight Compute metric recorded beside the DRAM bytes, in both counter passes."""

    name: str = doc("the id claims, tables and fig.metric use, e.g. conflicts")
    metric: str = doc("the ncu metric, e.g. l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum "
                      "(ncu --query-metrics lists them; an unknown one is refused on the node before timing)")
    label: str = doc("what the page calls it, e.g. \"bank conflicts per shared load\"")
    unit: str = doc("the unit of the normalised value, e.g. conflicts, %, bytes", default="")
    per: Literal["element", "launch", "request", "total", "average"] = doc(
        "how a variant's launches are combined: element, launch or request divide the sum over its "
        "launches by the elements, the launches or the sum of `request`; total is the sum; average is "
        "the mean over launches, repeats counted (for .pct, .ratio and .avg metrics)", default="total")
    request: str | None = doc("the ncu metric counting requests, the denominator of per: request", default=None)
    predict: dict[str, float] | None = doc(
        "the value the model predicts, by variant (a base name covers every point of its sweep); "
        "metric_matches claims check it", default=None)

    def validate(self) -> None:
        if not NAME.match(self.name):
            raise SchemaError("name", f"expected a name of letters, digits and _, found {self.name!r}")
        for key in ("metric", "request"):
            value = getattr(self, key)
            if value is not None and not NCU_METRIC.match(value):
                raise SchemaError(key, f"expected an ncu metric name such as dram__bytes_read.sum, found {value!r}")
        if (self.per == "request") != (self.request is not None):
            raise SchemaError("request", "per: request needs a request metric, and only it takes one")


@dataclass(frozen=True)
class Timing:
    """How the harness times each variant."""

    clock: Literal["device", "host", "both"] = doc(
        "device: CUDA events around the region; host: wall time of enqueue plus synchronize "
        "(launch-overhead entries); both: device samples as published, plus a host sample of each "
        "region (without the blocking kernel) taken right after it", default="device")
    blocking: bool = doc("enqueue each timed region behind a blocking kernel so host launch cost "
                         "stays out of device time", default=True)
    l2_flush: bool = doc("read a buffer of twice the L2 before every sample (cold, clean caches)", default=True)
    warmups: int = doc("untimed runs before sampling", default=3)
    runs: int = doc("the fewest timed samples per variant", default=10)
    max_runs: int = doc("keep sampling past runs, up to this many, until every region's median is "
                        "known to within target_ci (nvbench's stopping rule); set it to runs for a "
                        "fixed count", default=200)
    target_ci: float = doc("stop sampling once the 95% confidence interval of each region's median is "
                           "within +/- this fraction of the median", default=0.005)
    max_seconds: float = doc("wall-clock cap on sampling one size, whatever the interval", default=30.0)
    statistic: Literal["mean", "median", "min"] = doc("the statistic the page publishes", default="mean")

    def validate(self) -> None:
        if self.clock == "host" and self.blocking:
            raise SchemaError("blocking", "a blocking kernel cannot be used with clock: host "
                                          "(host time is what is measured); set blocking: false")
        if self.runs < 1:
            raise SchemaError("runs", f"expected at least 1 timed run, found {self.runs}")
        if self.warmups < 0:
            raise SchemaError("warmups", f"expected 0 or more warm-up runs, found {self.warmups}")
        if self.warmups > MAX_WARMUPS:
            raise SchemaError("warmups", f"expected at most {MAX_WARMUPS:,} warm-up runs, found {self.warmups:,}")
        if self.max_runs < self.runs:
            raise SchemaError("max_runs", f"expected max_runs >= runs ({self.runs}), found {self.max_runs}")
        if self.max_runs > MAX_RUNS:
            raise SchemaError("max_runs", f"expected at most {MAX_RUNS:,} samples per variant, found {self.max_runs:,}")
        if not 0 < self.target_ci < 1:
            raise SchemaError("target_ci", f"expected a fraction between 0 and 1, found {self.target_ci}")
        if not self.max_seconds > 0:
            raise SchemaError("max_seconds", f"expected a positive number of seconds, found {self.max_seconds}")


@dataclass(frozen=True)
class Ratio:
    """A ratio the page shows: time of ``num`` over time of ``den``, beside its byte ratio."""

    num: str = doc("the slower variant's name")
    den: str = doc("the faster variant's name")


CLAIM_NEEDS = {
    "speedup_matches_bytes": ("num", "den"),
    "speedup_matches_counted": ("num", "den"),
    "counter_bytes_match": ("variant",),
    "fraction_of_floor": ("variant",),
    "overfetch": ("variant",),
    "fraction_of_roof": ("variant",),
    "launch_bound": ("variant",),
    "time_ratio": ("num", "den"),
    "metric_bound": ("variant", "metric"),
    "metric_matches": ("variant", "metric"),
}
# What each claim kind claims, in words (the reference's table; Claim.kind's doc says it in one breath).
CLAIM_DOCS = {
    "speedup_matches_bytes": "time(num) / time(den) is within `tolerance` (relative) of the predicted byte ratio",
    "speedup_matches_counted": "time(num) / time(den) is within `tolerance` of the ratio of DRAM bytes the "
                               "counters saw",
    "counter_bytes_match": "the DRAM bytes the counters saw for `variant` are within `tolerance` of its prediction",
    "fraction_of_floor": "`variant` reaches at least `at_least` (default 0.9) of the copy floor",
    "overfetch": "the DRAM bytes counted for `variant` are at least `at_least` times its useful bytes",
    "fraction_of_roof": "`variant` reaches at least `at_least` of the measured roofline at its arithmetic intensity",
    "launch_bound": "the host time of `variant` is at least `at_least` times its GPU time (needs timing.clock: both)",
    "time_ratio": "time(num) / time(den) is at least `at_least` or at most `at_most` (one is required)",
    "metric_bound": "`metric` of `variant` (a declared metric or a kernel attribute) is at least `at_least` or at "
                    "most `at_most` (one is required)",
    "metric_matches": "declared `metric` of `variant` is within `tolerance` of its prediction: relative, or "
                      "absolute where the prediction is under 1",
}
# The claims that compare one number with a bound: at_least by default, at_most on request.
BOUNDED_KINDS = ("fraction_of_floor", "overfetch", "fraction_of_roof", "launch_bound", "time_ratio", "metric_bound")
# Bounded claims with no default bound: the author writes at_least or at_most.
EXPLICIT_BOUND_KINDS = ("time_ratio", "metric_bound")
# The lower bound of the older bounded claims where none is written.
DEFAULT_AT_LEAST = 0.9
# What a metric claim may name besides a declared metric: the kernel attributes of the variant's
# launches (the largest over its launches; occupancy the smallest), recorded at every size.
ATTRIBUTE_METRICS = {
    "registers": "registers per thread",
    "local_bytes": "local (spill) memory per thread, bytes",
    "static_shared_bytes": "static shared memory per block, bytes",
    "dynamic_shared_bytes": "dynamic shared memory per block, bytes",
    "theoretical_occupancy": "resident warps per SM over the most an SM holds, a fraction",
    "resident_warps": "resident warps per SM the launch allows",
}


@dataclass(frozen=True)
class Claim:
    """An expectation the build checks against every device and size."""

    kind: Literal["speedup_matches_bytes", "speedup_matches_counted", "counter_bytes_match",
                  "fraction_of_floor", "overfetch", "fraction_of_roof", "launch_bound",
                  "time_ratio", "metric_bound", "metric_matches"] = doc(
        "speedup_matches_bytes: time(num)/time(den) within `tolerance` (relative) of the predicted "
        "byte ratio; speedup_matches_counted: the same against the ratio of DRAM bytes the counters "
        "saw; counter_bytes_match: DRAM counter bytes of `variant` within `tolerance` of its "
        "prediction; fraction_of_floor: `variant` reaches at least `at_least` of the copy floor; "
        "overfetch: DRAM counter bytes of `variant` are at least `at_least` times its useful bytes; "
        "fraction_of_roof: `variant` reaches at least `at_least` of the measured roofline at its "
        "arithmetic intensity; launch_bound: host time of `variant` is at least `at_least` times "
        "its GPU time (needs timing.clock: both); time_ratio: time(num)/time(den) is at least "
        "`at_least` (or at most `at_most`); metric_bound: `metric` of `variant` is at least `at_least` "
        "(or at most `at_most`); metric_matches: `metric` of `variant` is within `tolerance` of its "
        "prediction (relative, or absolute where the prediction is under 1). With `at_most`, the bounded "
        "claims claim an upper bound instead: the number stays at or below `at_most`")
    num: str | None = doc("for speedup_matches_bytes, speedup_matches_counted and time_ratio: a variant "
                          "(a swept base name applies at every point)", default=None)
    den: str | None = doc("for speedup_matches_bytes, speedup_matches_counted and time_ratio", default=None)
    variant: str | None = doc("for the claims about one variant", default=None)
    metric: str | None = doc("for metric_bound and metric_matches: a declared metric's name, or a kernel "
                             "attribute (registers, local_bytes, static_shared_bytes, dynamic_shared_bytes, "
                             "theoretical_occupancy, resident_warps)", default=None)
    tolerance: float = doc("relative tolerance, e.g. 0.1 for 10%", default=0.1)
    at_least: float | None = doc("for fraction_of_floor and fraction_of_roof (e.g. 0.9; the default), "
                                 "overfetch and launch_bound (a factor, e.g. 2), time_ratio and metric_bound "
                                 "(which need it or at_most)", default=None)
    at_most: float | None = doc(
        "turns fraction_of_floor, fraction_of_roof, overfetch or launch_bound into an upper bound: "
        "the number stays at or below this (e.g. 0.75: a kernel stays under 75% of the roof); "
        "at_least is then not used", default=None)
    sizes: Literal["all", "past_l2"] = doc(
        "which sizes the claim is about: all, or only those whose working set is past 4x the L2",
        default="past_l2")
    size: dict[str, int] | None = doc(
        "judge only this point of the sweep (one of measure.sizes), e.g. {chunk: 1024}", default=None)
    point: dict[str, int] | None = doc(
        "judge only these values of the variants' launch-parameter sweep, e.g. {block: 256}", default=None)
    archs: list[str] | None = doc(
        "judge only on these architectures, e.g. [sm_90]; elsewhere the verdict says the claim does not "
        "apply there", default=None)
    devices: list[str] | None = doc(
        "judge only on these GPUs, by name as recorded, e.g. [NVIDIA H200]", default=None)
    expected_failure: str | None = doc(
        "why this claim is expected to fail (a sentence the reviewer signs, shown beside the verdict); "
        "without it a failing claim keeps the entry off the site", default=None)

    @property
    def lower(self) -> float:
        """The lower bound a bounded claim checks (``at_least``, else DEFAULT_AT_LEAST)."""
        return DEFAULT_AT_LEAST if self.at_least is None else self.at_least

    def applies_to(self, gpu: str | None, arch: str | None) -> str | None:
        """None where the claim is judged on this device; else why not, in words."""
        if self.archs is not None and (arch or "").rstrip("a") not in {a.rstrip("a") for a in self.archs}:
            return f"the claim is about {', '.join(self.archs)} only; this is {arch or 'an unknown arch'}"
        if self.devices is not None and gpu not in self.devices:
            return f"the claim is about {', '.join(self.devices)} only"
        return None

    def validate(self) -> None:
        if not self.tolerance >= 0:
            raise SchemaError("tolerance", f"expected a relative tolerance of at least 0, found {self.tolerance}")
        if self.at_least is not None and not self.at_least > 0 and self.kind not in ("metric_bound",):
            raise SchemaError("at_least", f"expected a number above 0, found {self.at_least}")
        if self.kind in EXPLICIT_BOUND_KINDS and self.at_least is None and self.at_most is None:
            raise SchemaError("at_least", f"a {self.kind} claim needs at_least or at_most")
        if self.at_least is not None and self.kind not in BOUNDED_KINDS:
            raise SchemaError("at_least", f"only {', '.join(BOUNDED_KINDS)} claims take a bound, not {self.kind}")
        for i, arch in enumerate(self.archs or ()):
            if not ARCH.match(arch):
                raise SchemaError(f"archs[{i}]", f"expected an arch such as sm_90, found {arch!r}")
        if self.at_most is not None:
            if self.kind not in BOUNDED_KINDS:
                raise SchemaError("at_most", f"only {', '.join(BOUNDED_KINDS)} claims take an upper bound, "
                                             f"not {self.kind}")
            if not self.at_most > 0 and self.kind != "metric_bound":
                raise SchemaError("at_most", f"expected a number above 0, found {self.at_most}")
        if self.expected_failure is not None and len(self.expected_failure.split()) < 3:
            raise SchemaError("expected_failure", f"expected a sentence saying why the claim fails, "
                                                  f"found {self.expected_failure!r}")
        for key in CLAIM_NEEDS[self.kind]:
            if getattr(self, key) is None:
                raise SchemaError(key, f"required for a {self.kind} claim")


@dataclass(frozen=True)
class MeasureSpec:
    """The measurement spec of an entry."""

    sources: list[str] = doc("CUDA source files, relative to the entry's folder entries/<slug>/")
    reference: str = doc(
        "Python file (relative to entries/<slug>/) defining reference(variant, inputs, scalars, "
        "params) -> {output name: float64 array}")
    buffers: dict[str, Buffer] = doc("device buffers by name", max_items=MAX_BUFFERS)
    variants: list[Variant] = doc("the versions compared, in table order", max_items=MAX_VARIANTS)
    sizes: list[dict[str, int]] = doc(
        "size parameters, one mapping per point of the sweep, e.g. {n: 16777216}; each at most 2**40",
        max_items=MAX_SIZES)
    headline: dict[str, int] = doc("the size the page leads with; one of sizes")
    archs: list[str] = doc("architectures the kernels claim, e.g. [sm_75, sm_90]; each is compiled in CI")
    nvcc_flags: list[str] = doc("nvcc options (the arch is added per device)",
                                default_factory=lambda: ("-std=c++17", "-O3"))
    elements: str = doc("what one 'element' is, an expression over the size parameters", default="n")
    index_type: Literal["int32", "int64"] = doc("type of integer launch arguments", default="int64")
    scalars: dict[str, int | float | Scalar] = doc(
        "kernel scalar arguments by name: a YAML number with a decimal point or exponent is float32 "
        "(2.5, 1.0e-3), an integer is int32 (4), and {value: 5, type: int64} writes the type out "
        "(float32, float64, int32, int64)", default_factory=dict)
    timing: Timing = doc("how samples are taken", default_factory=Timing)
    ratios: list[Ratio] = doc("time ratios to show beside their byte ratios", default_factory=tuple)
    claims: list[Claim] = doc("expectations checked on every device and size", default_factory=tuple)
    rtol: float = doc("per-element relative tolerance against the float64 reference", default=1e-5)
    atol: float = doc("per-element absolute tolerance against the float64 reference", default=1e-6)
    seed: int = doc("seed of the input generator", default=20260901)
    reference_elementwise: bool = doc(
        "the reference's output element i depends only on element i of every input (and on the "
        "scalars and size parameters): the harness then computes it chunk by chunk on every core, "
        "after testing the promise at the smallest size; every input and output must have the same "
        "element count", default=False)
    counters: bool = doc("run an Nsight Compute pass for DRAM bytes where ncu is available", default=True)
    metrics: list[Metric] = doc("Nsight Compute metrics recorded beside the DRAM bytes, with their "
                                "normalisation and predictions", default_factory=tuple, max_items=MAX_METRICS)
    counter_sizes: Literal["headline", "all"] = doc(
        "where the counter pass runs: the headline size only, or every size of the sweep "
        "(to see the L2 regime in bytes)", default="headline")

    def validate(self) -> None:
        if not self.sources:
            raise SchemaError("sources", "expected at least one CUDA source file")
        for key, name in [(f"sources[{i}]", n) for i, n in enumerate(self.sources)] + [("reference", self.reference)]:
            if not FILE_NAME.match(name):
                raise SchemaError(key, f"expected a file name relative to the entry's folder (letters, digits, "
                                       f"'.', '_', '-', '/'), found {name!r}")
        for i, flag in enumerate(self.nvcc_flags):
            if not NVCC_FLAG.match(flag):
                raise SchemaError(f"nvcc_flags[{i}]", f"expected an optimisation or code-generation option "
                                  f"({NVCC_FLAGS_SHOWN}), found {flag!r}; options that name files, hosts "
                                  f"compilers or programs are not accepted from an entry")
        if not self.variants:
            raise SchemaError("variants", "expected at least one variant")
        if not self.sizes:
            raise SchemaError("sizes", "expected at least one size")
        for i, arch in enumerate(self.archs):
            if not (arch.startswith("sm_") and arch[3:].rstrip("a").isdigit()):
                raise SchemaError(f"archs[{i}]", f"expected an arch such as sm_90, found {arch!r}")
        params = set(self.sizes[0])
        for i, point in enumerate(self.sizes):
            if set(point) != params:
                raise SchemaError(f"sizes[{i}]", f"expected the parameters {sorted(params)}, found {sorted(point)}")
            for name, value in point.items():
                if value < 1:
                    raise SchemaError(f"sizes[{i}].{name}", f"expected a size of at least 1, found {value}")
                if value > MAX_SIZE:
                    raise SchemaError(f"sizes[{i}].{name}", f"expected at most 2**40 ({MAX_SIZE:,}) elements, "
                                                            f"found {value:,}; a size counts elements, and "
                                                            f"no GPU holds more")
        for key in ("rtol", "atol"):
            if not getattr(self, key) >= 0:
                raise SchemaError(key, f"expected a tolerance of at least 0, found {getattr(self, key)}")
        if dict(self.headline) not in [dict(p) for p in self.sizes]:
            raise SchemaError("headline", f"expected one of the sizes, found {dict(self.headline)}")
        check_expr(self.elements, "elements", params)
        for name, buf in self.buffers.items():
            check_expr(buf.size, f"buffers.{name}.size", params)
        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise SchemaError("variants", f"variant names must be unique, found {names}")
        clash = set(self.buffers) & set(self.scalars)
        if clash:
            raise SchemaError("scalars", f"{sorted(clash)} name both a buffer and a scalar")
        for name, value in self.scalars.items():
            if isinstance(value, int) and not -2**31 <= value < 2**31:
                raise SchemaError(f"scalars.{name}", f"{value:,} does not fit int32, the type of a bare integer; "
                                                     f"write {{value: {value}, type: int64}}")
        flag_defines = {f[2:].split("=")[0] for f in self.nvcc_flags if f.startswith("-D")}
        taken = params | set(self.buffers) | set(self.scalars) | set(DEVICE_NAMES) | {"i"}
        for vi, variant in enumerate(self.variants):
            for name in variant.sweep:
                if name in taken:
                    raise SchemaError(f"variants[{vi}].sweep.{name}", "this name is taken (a size parameter, "
                                      "buffer, scalar, device name or i); choose another")
            swept = set(variant.sweep)
            launch_names = params | swept | set(DEVICE_NAMES) | {"i"}
            for key in ("bytes_per_elem", "useful_bytes_per_elem", "flops_per_elem"):
                value = getattr(variant, key)
                if isinstance(value, str):
                    check_expr(value, f"variants[{vi}].{key}", params | swept)
            for name, value in variant.defines.items():
                check_expr(str(value), f"variants[{vi}].defines.{name}", swept | set(DEVICE_NAMES),
                           hint="an expression over the sweep and device names")
            both = flag_defines & set(variant.defines)
            if both:
                raise SchemaError(f"variants[{vi}].defines", f"{', '.join(sorted(both))} is also defined in "
                                                             f"measure.nvcc_flags; define it in one place")
            if variant.maxrregcount is not None and any(f.startswith("-maxrregcount") for f in self.nvcc_flags):
                raise SchemaError(f"variants[{vi}].maxrregcount", "measure.nvcc_flags sets -maxrregcount for every "
                                                                  "variant already; set it in one place")
            if variant.maxrregcount is not None:
                check_expr(str(variant.maxrregcount), f"variants[{vi}].maxrregcount", swept | set(DEVICE_NAMES),
                           hint="an expression over the sweep and device names")
            for li, launch in enumerate(variant.launches):
                where = f"variants[{vi}].launches[{li}]"
                for ai, arg in enumerate(launch.args):
                    if arg in self.buffers or arg in self.scalars:
                        continue
                    check_expr(arg, f"{where}.args[{ai}]", launch_names,
                               hint="a buffer, a scalar or an expression over the size parameters, sweep "
                                    "names and device names")
                for gi, text in enumerate(launch.grid):
                    check_expr(text, f"{where}.grid[{gi}]", launch_names)
                for bi, text in enumerate(launch.block):
                    check_expr(str(text), f"{where}.block[{bi}]", launch_names - {"i"})
                check_expr(str(launch.shared), f"{where}.shared", launch_names - {"i"})
        measured = self.measured_variants
        every = {v.name for v in measured} | set(names)
        for ri, ratio in enumerate(self.ratios):
            for key in ("num", "den"):
                if getattr(ratio, key) not in every:
                    raise SchemaError(f"ratios[{ri}].{key}", f"expected a variant name ({', '.join(names)}), "
                                                            f"found {getattr(ratio, key)!r}")
        from measure.spec.sweep import pairs
        for what, items in (("ratios", self.ratios), ("claims", [c for c in self.claims if c.num is not None])):
            for i, item in enumerate(items):
                point = getattr(item, "point", None)
                if point is not None and not any(v.matches(point) for v in measured):
                    continue  # named below, as a point no sweep has
                if not pairs(self, item.num, item.den, point):
                    raise SchemaError(f"{what}[{i}]", f"{item.num} and {item.den} are swept over different names, "
                                                      f"so no point of one meets a point of the other; name "
                                                      f"measured variants such as {measured_names(self, item.num)}")
        metric_names = [m.name for m in self.metrics]
        if len(set(metric_names)) != len(metric_names):
            raise SchemaError("metrics", f"metric names must be unique, found {metric_names}")
        for mi, metric in enumerate(self.metrics):
            if metric.name in ATTRIBUTE_METRICS:
                raise SchemaError(f"metrics[{mi}].name", f"{metric.name} is a kernel attribute, recorded "
                                                         f"without ncu; choose another name")
            for name in metric.predict or {}:
                if name not in every:
                    raise SchemaError(f"metrics[{mi}].predict.{name}",
                                      f"expected a variant name ({', '.join(names)}), found {name!r}")
        check_values(self, params)
        for ci, claim in enumerate(self.claims):
            if claim.size is not None and dict(claim.size) not in [dict(p) for p in self.sizes]:
                raise SchemaError(f"claims[{ci}].size", f"expected one of the sizes, found {dict(claim.size)}")
            if claim.kind == "launch_bound" and self.timing.clock != "both":
                raise SchemaError(f"claims[{ci}].kind", "a launch_bound claim needs timing.clock: both "
                                                        "(host and GPU time of the same region)")
            for key in ("num", "den", "variant"):
                value = getattr(claim, key)
                if value is not None and value not in every:
                    raise SchemaError(f"claims[{ci}].{key}", f"expected a variant name ({', '.join(names)}), "
                                                            f"found {value!r}")
            if claim.metric is not None:
                known = metric_names + list(ATTRIBUTE_METRICS)
                if claim.metric not in known:
                    raise SchemaError(f"claims[{ci}].metric", f"expected a declared metric or a kernel attribute "
                                                              f"({', '.join(known)}), found {claim.metric!r}")
                if claim.kind == "metric_matches" and claim.metric not in metric_names:
                    raise SchemaError(f"claims[{ci}].metric", "metric_matches checks a declared metric's "
                                                              "prediction; kernel attributes have none")
                if claim.kind == "metric_matches":
                    metric = self.metrics[metric_names.index(claim.metric)]
                    if not self.predicted(metric, claim.variant):
                        raise SchemaError(f"claims[{ci}].variant", f"metric {metric.name} predicts nothing for "
                                                                   f"{claim.variant}; add it to its predict")
            elif claim.kind in ("metric_bound", "metric_matches"):
                raise SchemaError(f"claims[{ci}].metric", f"required for a {claim.kind} claim")
            if claim.point is not None:
                chosen = [v for v in measured if v.matches(claim.point)]
                if not chosen:
                    raise SchemaError(f"claims[{ci}].point", f"no variant's sweep has the point {dict(claim.point)}")

    @functools.cached_property
    def measured_variants(self) -> tuple[MeasuredVariant, ...]:
        """Every variant as measured: a swept one once per point of its sweep (``measure.spec.sweep``)."""
        from measure.spec.sweep import expand_variants
        return expand_variants(self)

    def measured(self, name: str) -> list[MeasuredVariant]:
        """The measured variants a name stands for: an expanded name itself, a base name every point."""
        exact = [v for v in self.measured_variants if v.name == name]
        return exact or [v for v in self.measured_variants if v.base == name]

    def predicted(self, metric: Metric, variant: str | None) -> dict[str, float]:
        """A metric's predictions by measured variant name, for the variants ``variant`` stands for."""
        out = {}
        for v in self.measured(variant) if variant else self.measured_variants:
            for key in (v.name, v.base):
                if metric.predict and key in metric.predict:
                    out[v.name] = metric.predict[key]
                    break
        return out

    def tolerance(self, buffer: str) -> tuple[float, float]:
        """An output's (rtol, atol): its own, else its data type's (DTYPE_TOLERANCE), else the spec's."""
        buf = self.buffers[buffer]
        rtol, atol = DTYPE_TOLERANCE.get(buf.dtype, (self.rtol, self.atol))
        return (rtol if buf.rtol is None else buf.rtol), (atol if buf.atol is None else buf.atol)

    def scalar(self, name: str) -> tuple[str, float]:
        """A scalar's (type, value): a bare float is float32, a bare integer int32."""
        value = self.scalars[name]
        if isinstance(value, Scalar):
            return value.type, value.value
        return ("int32" if isinstance(value, int) else "float32"), value

    def variant(self, name: str) -> Variant:
        """The spec's variant of this name (a swept variant's expanded name gives its base)."""
        for v in self.variants:
            if v.name == name:
                return v
        for v in self.measured_variants:
            if v.name == name:
                return v.spec
        raise KeyError(name)

