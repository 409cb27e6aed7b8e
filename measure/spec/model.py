"""The spec's dataclasses: buffers, launches, variants, timing, ratios, claims, the spec itself.

Each ``validate`` checks its object's fields; the expression checks it calls live in
``measure.spec.checks``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from measure.spec.checks import check_expr, check_values
from measure.spec.limits import (FILE_NAME, MAX_ARGS, MAX_BUFFERS, MAX_LAUNCHES, MAX_REPEAT, MAX_RUNS,
                                 MAX_SIZE, MAX_SIZES, MAX_VARIANTS, MAX_WARMUPS, NVCC_FLAG, NVCC_FLAGS_SHOWN)
from measure.typed import SchemaError, doc


@dataclass(frozen=True)
class Buffer:
    """A device buffer that the kernels read or write."""

    role: Literal["input", "output", "scratch"] = doc(
        "input: filled from the seeded generator; output: poisoned, then checked against the "
        "reference; scratch: intermediates, poisoned, never checked")
    dtype: Literal["float32", "float64", "int32"] = doc("element type", default="float32")
    size: str = doc("element count, an expression over the size parameters", default="n")
    init: Literal["normal", "uniform"] = doc(
        "input fill: standard normal, or uniform on [-1, 1)", default="normal")


@dataclass(frozen=True)
class Launch:
    """One kernel launch (or ``repeat`` identical launches) inside a variant."""

    kernel: str = doc("the __global__ function's name (declare it extern \"C\")")
    grid: list[str] = doc("grid dimensions, expressions over the size parameters (1 to 3)")
    block: list[int] = doc("block dimensions (1 to 3)")
    args: list[str] = doc(
        "kernel arguments in order: a buffer name (its device pointer), a scalar name, or an "
        "integer expression over the size parameters (passed as `index_type`); inside a repeated "
        "launch, `i` is the repeat index", max_items=MAX_ARGS)
    repeat: int = doc("enqueue this launch this many times", default=1)

    def validate(self) -> None:
        if not 1 <= len(self.grid) <= 3:
            raise SchemaError("grid", f"expected 1 to 3 dimensions, found {len(self.grid)}")
        if not 1 <= len(self.block) <= 3:
            raise SchemaError("block", f"expected 1 to 3 dimensions, found {len(self.block)}")
        threads = 1
        for b in self.block:
            threads *= b
        if any(b < 1 for b in self.block) or threads > 1024:
            raise SchemaError("block", f"expected positive sizes with at most 1024 threads, found {list(self.block)}")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise SchemaError("repeat", f"expected 1 to {MAX_REPEAT:,} launches, found {self.repeat:,}")
        for i, text in enumerate(self.grid):
            check_expr(text, f"grid[{i}]")


@dataclass(frozen=True)
class Variant:
    """One version of the computation; its launches are timed as one region."""

    name: str = doc("identifier used by ratios, claims and bound figures, e.g. fused")
    label: str = doc("what the Measured table calls it, e.g. \"staged chain, timed as one\"")
    launches: list[Launch] = doc("the launches, in order", max_items=MAX_LAUNCHES)
    bytes_per_elem: float = doc("predicted DRAM bytes moved per element (reads plus writes)")
    useful_bytes_per_elem: float | None = doc(
        "bytes per element the computation needs, where DRAM moves more (coalescing); "
        "defaults to bytes_per_elem", default=None)
    flops_per_elem: float | None = doc("floating-point operations per element; adds GFLOP/s", default=None)
    short: str | None = doc(
        "a short form of the label for tight spaces (sweep headers, plot legends), e.g. \"staged\"; "
        "defaults to the label; presentation only, not part of the measurement fingerprint", default=None)

    def validate(self) -> None:
        if not self.launches:
            raise SchemaError("launches", "expected at least one launch")
        for key in ("bytes_per_elem", "useful_bytes_per_elem", "flops_per_elem"):
            value = getattr(self, key)
            if value is not None and not value >= 0:  # "not >=" also catches NaN
                raise SchemaError(key, f"expected a number of at least 0, found {value}")

    @property
    def useful_bytes(self) -> float:
        return self.bytes_per_elem if self.useful_bytes_per_elem is None else self.useful_bytes_per_elem


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
}
# The claims that compare one number with a bound: at_least by default, at_most on request.
BOUNDED_KINDS = ("fraction_of_floor", "overfetch", "fraction_of_roof", "launch_bound")


@dataclass(frozen=True)
class Claim:
    """An expectation the build checks against every device and size."""

    kind: Literal["speedup_matches_bytes", "speedup_matches_counted", "counter_bytes_match",
                  "fraction_of_floor", "overfetch", "fraction_of_roof", "launch_bound"] = doc(
        "speedup_matches_bytes: time(num)/time(den) within `tolerance` (relative) of the predicted "
        "byte ratio; speedup_matches_counted: the same against the ratio of DRAM bytes the counters "
        "saw; counter_bytes_match: DRAM counter bytes of `variant` within `tolerance` of its "
        "prediction; fraction_of_floor: `variant` reaches at least `at_least` of the copy floor; "
        "overfetch: DRAM counter bytes of `variant` are at least `at_least` times its useful bytes; "
        "fraction_of_roof: `variant` reaches at least `at_least` of the measured roofline at its "
        "arithmetic intensity; launch_bound: host time of `variant` is at least `at_least` times "
        "its GPU time (needs timing.clock: both). With `at_most`, those four claim an upper bound "
        "instead: the number stays at or below `at_most`")
    num: str | None = doc("for speedup_matches_bytes and speedup_matches_counted", default=None)
    den: str | None = doc("for speedup_matches_bytes and speedup_matches_counted", default=None)
    variant: str | None = doc("for the claims about one variant", default=None)
    tolerance: float = doc("relative tolerance, e.g. 0.1 for 10%", default=0.1)
    at_least: float = doc("for fraction_of_floor and fraction_of_roof (e.g. 0.9), overfetch and "
                          "launch_bound (a factor, e.g. 2)", default=0.9)
    at_most: float | None = doc(
        "turns fraction_of_floor, fraction_of_roof, overfetch or launch_bound into an upper bound: "
        "the number stays at or below this (e.g. 0.75: a kernel stays under 75% of the roof); "
        "at_least is then not used", default=None)
    sizes: Literal["all", "past_l2"] = doc(
        "which sizes the claim is about: all, or only those whose working set is past 4x the L2",
        default="past_l2")
    size: dict[str, int] | None = doc(
        "judge only this point of the sweep (one of measure.sizes), e.g. {chunk: 1024}", default=None)
    expected_failure: str | None = doc(
        "why this claim is expected to fail (a sentence the reviewer signs, shown beside the verdict); "
        "without it a failing claim keeps the entry off the site", default=None)

    def validate(self) -> None:
        if not self.tolerance >= 0:
            raise SchemaError("tolerance", f"expected a relative tolerance of at least 0, found {self.tolerance}")
        if not self.at_least > 0:
            raise SchemaError("at_least", f"expected a number above 0, found {self.at_least}")
        if self.at_most is not None:
            if self.kind not in BOUNDED_KINDS:
                raise SchemaError("at_most", f"only {', '.join(BOUNDED_KINDS)} claims take an upper bound, "
                                             f"not {self.kind}")
            if not self.at_most > 0:
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
    scalars: dict[str, float] = doc("float32 kernel arguments by name", default_factory=dict)
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
        for vi, variant in enumerate(self.variants):
            for li, launch in enumerate(variant.launches):
                for ai, arg in enumerate(launch.args):
                    if arg in self.buffers or arg in self.scalars:
                        continue
                    check_expr(arg, f"variants[{vi}].launches[{li}].args[{ai}]", params | {"i"},
                               hint="a buffer, a scalar or an expression over the size parameters")
                for gi, text in enumerate(launch.grid):
                    check_expr(text, f"variants[{vi}].launches[{li}].grid[{gi}]", params | {"i"})
        for ri, ratio in enumerate(self.ratios):
            for key in ("num", "den"):
                if getattr(ratio, key) not in names:
                    raise SchemaError(f"ratios[{ri}].{key}", f"expected a variant name ({', '.join(names)}), "
                                                            f"found {getattr(ratio, key)!r}")
        check_values(self, params)
        for ci, claim in enumerate(self.claims):
            if claim.size is not None and dict(claim.size) not in [dict(p) for p in self.sizes]:
                raise SchemaError(f"claims[{ci}].size", f"expected one of the sizes, found {dict(claim.size)}")
            if claim.kind == "launch_bound" and self.timing.clock != "both":
                raise SchemaError(f"claims[{ci}].kind", "a launch_bound claim needs timing.clock: both "
                                                        "(host and GPU time of the same region)")
            for key in ("num", "den", "variant"):
                value = getattr(claim, key)
                if value is not None and value not in names:
                    raise SchemaError(f"claims[{ci}].{key}", f"expected a variant name ({', '.join(names)}), "
                                                            f"found {value!r}")

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

