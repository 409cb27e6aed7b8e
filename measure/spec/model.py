"""The spec's dataclasses: buffers, launches, variants, timing, ratios, claims, the spec itself.

Each ``validate`` checks its object's fields; the expression checks it calls live in
``measure.spec.checks``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from measure.spec.checks import check_expr, check_values, check_variants
from measure.spec.claims import (ATTRIBUTE_METRICS, BOUNDED_KINDS, CLAIM_DOCS, CLAIM_NEEDS,  # noqa: F401 -- re-exported
                                 DEFAULT_AT_LEAST, EXPLICIT_BOUND_KINDS, Claim, check_claims)
from measure.spec.steps import Launch, check_steps  # noqa: F401 -- Launch re-exported
from measure.spec.setup import MAX_SETUP, Setup, check_setup
from measure.spec.hopper import L2Window, TensorMap, check_hopper
from measure.spec.unified import check_managed
from measure.spec.limits import (DTYPE_TOLERANCE, FILE_NAME, MAX_BUFFERS, MAX_LAUNCHES, MAX_METRICS,
                                 MAX_RUNS, MAX_SIZE, MAX_SIZES, MAX_SWEEP_POINTS, MAX_SWEEP_VALUES,
                                 MAX_VARIANTS, MAX_WARMUPS, NVCC_FLAG, NVCC_FLAGS_SHOWN)
from measure.spec.presentation import QUANTITIES, Agreement, Roof  # noqa: F401 -- re-exported
from measure.spec.timing import Timing  # noqa: F401 -- re-exported
from measure.typed import SchemaError, doc

if TYPE_CHECKING:
    from measure.spec.sweep import MeasuredVariant

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NCU_METRIC = re.compile(r"^[a-z0-9_]+__[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")


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
    location: Literal["device", "pinned", "pageable", "managed"] = doc(
        "where the buffer lives: device memory, page-locked (pinned) host memory, ordinary pageable "
        "host memory, or managed (unified) memory that host and device both address; host buffers are "
        "filled, poisoned and checked as device ones are, and reach the device only through copy steps; "
        "kernels read managed buffers directly, their pages moving on first touch or by prefetch steps",
        default="device")
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
    graph: bool = doc("capture the variant's steps once into a CUDA graph (through cuda-bindings) and time "
                      "its replay; the record keeps the graph's nodes, its instantiation time and the host "
                      "cost of each replay", default=False)
    maxrregcount: int | str | None = doc(
        "register limit per thread for this variant's build (-maxrregcount=N): an integer or an "
        "expression over the sweep names", default=None)
    setup: list[Setup] = doc(
        "untimed fills before each run of the variant (the check's, every warm-up and sample, the "
        "counter pass's): e.g. [{fill: hist, value: 0}] zeroes an output that atomics accumulate into; "
        "enqueued ahead of the L2 flush and the blocking kernel, so neither the fill nor its writes "
        "are timed", default_factory=tuple, max_items=MAX_SETUP)
    resident: dict[str, Literal["host", "device"]] = doc(
        "where each managed buffer's pages are before every sample, outside the timed region: host (the "
        "default: the kernels' first touch migrates them inside it) or device (prefetched before it)",
        default_factory=dict)
    l2_window: L2Window | None = doc("an L2 access-policy window on the stream this variant's kernels run on "
                                     "(persistence; sm_80)", default=None)

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
class Ratio:
    """A ratio the page shows: time of ``num`` over time of ``den``, beside its byte ratio."""

    num: str = doc("the slower variant's name")
    den: str = doc("the faster variant's name")


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
    quantity: Literal["auto", "gbps", "tflops", "time"] = doc(
        "what the page leads with, the quantity the claims are about: gbps (GB/s against the copy or link "
        "floor, where bytes are the story), tflops (compute-bound kernels), time (µs per launch, or per kernel "
        "node of a graph); auto works it out from the claims and data; presentation only", default="auto")
    roof: Roof | None = doc("where the roofline's compute ceiling comes from (a peer variant or a cited "
                            "peak); without it the page draws no roofline; presentation only", default=None)
    counter_sizes: Literal["headline", "all"] = doc(
        "where the counter pass runs: the headline size only, or every size of the sweep "
        "(to see the L2 regime in bytes)", default="headline")
    agreement: Agreement | None = doc(
        "the agreement a reproduction (`glossary reproduce` on another node) must reach with the record, "
        "per size regime; a presentation key: changing it leaves every result current", default=None)
    tensor_maps: dict[str, TensorMap] = doc(
        "tensor maps for the TMA by name: a launch argument naming one passes it by value "
        "(`const __grid_constant__ CUtensorMap`); sm_90", default_factory=dict, max_items=8)

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
        swept = {n for v in self.variants for n in v.sweep}
        for name, buf in self.buffers.items():
            check_expr(buf.size, f"buffers.{name}.size", params | swept,
                       hint="an expression over the size parameters and the sweep names")
        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise SchemaError("variants", f"variant names must be unique, found {names}")
        clash = set(self.buffers) & set(self.scalars)
        if clash:
            raise SchemaError("scalars", f"{sorted(clash)} name both a buffer and a scalar")
        check_managed(self, params)
        check_variants(self, params)
        check_steps(self, params)
        check_setup(self)
        check_hopper(self, params)
        measured = self.measured_variants
        every = {v.name for v in measured} | set(names)
        for ri, ratio in enumerate(self.ratios):
            for key in ("num", "den"):
                if getattr(ratio, key) not in every:
                    raise SchemaError(f"ratios[{ri}].{key}", f"expected a variant name ({', '.join(names)}), "
                                                            f"found {getattr(ratio, key)!r}")
        if self.roof is not None and self.roof.peer is not None and self.roof.peer not in every:
            raise SchemaError("roof.peer", f"expected a variant name ({', '.join(names)}), found {self.roof.peer!r}")
        check_claims(self, params, names, every)
        check_values(self, params)
        from measure.spec.budget import check_budget  # it reads sizes, which imports this module
        check_budget(self)

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

