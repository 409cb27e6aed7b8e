"""The spec's claims: what an entry expects of its figures, each kind's needs and words, and the
checks that tie claims (and ratios and metrics) to the variants and metrics a spec declares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from measure.typed import SchemaError, doc

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec

ARCH = re.compile(r"^sm_\d+a?$")


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
    "fraction_of_link": ("variant",),
    "overlap": ("variant",),
    "sass": ("variant",),
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
    "metric_matches": "declared `metric` of `variant` is within `tolerance` (relative) of its prediction, or "
                      "within `absolute` (in the metric's unit) where the author states one; a prediction of 0 "
                      "has no relative tolerance, so there `absolute` is needed (else `tolerance` is read as one)",
    "fraction_of_link": "the copies of `variant` (one direction) reach at least `at_least` (default 0.9) of the "
                        "link floor of that direction",
    "overlap": "`variant` (steps on several streams) hides at least `at_least` (or at most `at_most`) of its "
               "serial twin's time: 1 - time / serial time",
    "sass": "the compiled code of `variant`'s kernels (or of `kernel` alone), read on the node with cuobjdump "
            "-sass, has each instruction of `has`, none of `lacks`, and the counts `count` asks, e.g. "
            "{HMMA: \">= 1\"}; an instruction is an opcode with any modifiers it names (LDG.E.128); judged "
            "once per device, and not checked where the result holds no disassembly",
}
# The claims that compare one number with a bound: at_least by default, at_most on request.
BOUNDED_KINDS = ("fraction_of_floor", "overfetch", "fraction_of_roof", "launch_bound", "time_ratio", "metric_bound",
                 "fraction_of_link", "overlap")
# Bounded claims with no default bound: the author writes at_least or at_most.
EXPLICIT_BOUND_KINDS = ("time_ratio", "metric_bound", "overlap")
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
                  "time_ratio", "metric_bound", "metric_matches", "fraction_of_link", "overlap", "sass"] = doc(
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
        "prediction (relative; or within `absolute`, stated in the metric's unit); fraction_of_link: the copies of "
        "`variant` reach at least `at_least` of the link floor; overlap: `variant` hides at least `at_least` "
        "of its serial twin's time; sass: the compiled code of `variant` has the instructions of `has`, none "
        "of `lacks` and the counts of `count`. With `at_most`, the bounded "
        "claims claim an upper bound instead: the number stays at or below `at_most`")
    num: str | None = doc("for speedup_matches_bytes, speedup_matches_counted and time_ratio: a variant "
                          "(a swept base name applies at every point)", default=None)
    den: str | None = doc("for speedup_matches_bytes, speedup_matches_counted and time_ratio", default=None)
    variant: str | None = doc("for the claims about one variant", default=None)
    metric: str | None = doc("for metric_bound and metric_matches: a declared metric's name, or a kernel "
                             "attribute (registers, local_bytes, static_shared_bytes, dynamic_shared_bytes, "
                             "theoretical_occupancy, resident_warps)", default=None)
    tolerance: float = doc("relative tolerance, e.g. 0.1 for 10%", default=0.1)
    has: str | list[str] | None = doc(
        "for sass: the instruction(s) the compiled code must contain, e.g. LDGSTS or [LDG.E.128, STG.E.128] "
        "(an opcode, with any modifiers the instruction must carry)", default=None, max_items=16)
    lacks: str | list[str] | None = doc("for sass: the instruction(s) it must not contain, e.g. ATOMG", default=None,
                                        max_items=16)
    count: dict[str, str | int] | None = doc(
        "for sass: instruction counts, e.g. {HMMA: \">= 1\", REDUX: \"== 1\"} (>=, <=, ==, >, <; a bare number "
        "is exact), summed over the kernels judged", default=None, max_items=16)
    kernel: str | None = doc("for sass: judge this kernel of the variant only (default: all its kernels)",
                             default=None)
    absolute: float | None = doc(
        "for metric_matches: an absolute tolerance in the metric's unit, e.g. 0.05 conflicts per request; "
        "the claim holds within the larger of it and `tolerance` x the prediction. A prediction of 0 needs "
        "it (a relative tolerance of 0 is none); without it, `tolerance` is read as absolute there",
        default=None)
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
    def sass_has(self) -> tuple[str, ...]:
        return _patterns(self.has)

    @property
    def sass_lacks(self) -> tuple[str, ...]:
        return _patterns(self.lacks)

    def _validate_sass(self) -> None:
        from measure import sass
        keys = ("has", "lacks", "count", "kernel")
        if self.kind != "sass":
            for key in keys:
                if getattr(self, key) is not None:
                    raise SchemaError(key, f"only a sass claim takes {key}, not {self.kind}")
            return
        if self.has is None and self.lacks is None and self.count is None:
            raise SchemaError("has", "a sass claim needs has, lacks or count")
        for key, items in (("has", self.sass_has), ("lacks", self.sass_lacks), ("count", tuple(self.count or ()))):
            for item in items:
                if not sass.PATTERN.match(item):
                    raise SchemaError(key, f"expected a SASS opcode with optional modifiers, such as LDGSTS or "
                                           f"LDG.E.128, found {item!r}")
        for name, bound in (self.count or {}).items():
            try:
                sass.parse_count(bound)
            except ValueError as err:
                raise SchemaError(f"count.{name}", str(err)) from None
        both = set(self.sass_has) & set(self.sass_lacks)
        if both:
            raise SchemaError("lacks", f"{', '.join(sorted(both))} is both in has and in lacks")

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
        self._validate_sass()
        if self.absolute is not None:
            if self.kind != "metric_matches":
                raise SchemaError("absolute", f"only a metric_matches claim takes an absolute tolerance, "
                                              f"not {self.kind}")
            if not self.absolute >= 0:
                raise SchemaError("absolute", f"expected a tolerance of at least 0, found {self.absolute}")
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


def _patterns(value: str | tuple | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def unknown_variant(spec: MeasureSpec, name: str, names: list[str]) -> str:
    """Why ``name`` names no variant: a sweep point its variant does not have (with the points it
    has), or no variant at all."""
    base = name.split("[", 1)[0]
    if "[" in name and base in names:
        points = [v.name for v in spec.measured(base) if v.swept]
        if not points:
            return f"{base} has no sweep, so it has no point {name[len(base):]}; name it {base}"
        shown = ", ".join(points[:6]) + (", ..." if len(points) > 6 else "")
        return f"{base}'s sweep has no point {name[len(base):]}; its points are {shown}"
    return f"expected a variant name ({', '.join(names)}), found {name!r}"


def measured_names(spec: MeasureSpec, name: str) -> str:
    return ", ".join(v.name for v in spec.measured(name)[:2])


def check_claims(spec: MeasureSpec, params: set[str], names: list[str], every: set[str]) -> None:
    """Ratios, metrics and claims against the spec's variants (base and measured names ``every``),
    its declared metrics and its sweeps: a SchemaError under the key at fault."""
    measured = spec.measured_variants
    from measure.spec.sweep import pairs
    for what, items in (("ratios", spec.ratios), ("claims", [c for c in spec.claims if c.num is not None])):
        for i, item in enumerate(items):
            point = getattr(item, "point", None)
            if point is not None and not any(v.matches(point) for v in measured):
                continue  # named below, as a point no sweep has
            for key in ("num", "den"):
                if getattr(item, key) not in every:
                    raise SchemaError(f"{what}[{i}].{key}", unknown_variant(spec, getattr(item, key), names))
            if not pairs(spec, item.num, item.den, point):
                raise SchemaError(f"{what}[{i}]", f"{item.num} and {item.den} are swept over different names, "
                                                  f"so no point of one meets a point of the other; name "
                                                  f"measured variants such as {measured_names(spec, item.num)}")
    metric_names = [m.name for m in spec.metrics]
    if len(set(metric_names)) != len(metric_names):
        raise SchemaError("metrics", f"metric names must be unique, found {metric_names}")
    for mi, metric in enumerate(spec.metrics):
        if metric.name in ATTRIBUTE_METRICS:
            raise SchemaError(f"metrics[{mi}].name", f"{metric.name} is a kernel attribute, recorded "
                                                     f"without ncu; choose another name")
        for name in metric.predict or {}:
            if name not in every:
                raise SchemaError(f"metrics[{mi}].predict.{name}",
                                  f"expected a variant name ({', '.join(names)}), found {name!r}")
    for ci, claim in enumerate(spec.claims):
        if claim.size is not None and dict(claim.size) not in [dict(p) for p in spec.sizes]:
            raise SchemaError(f"claims[{ci}].size", f"expected one of the sizes, found {dict(claim.size)}")
        if claim.kind == "launch_bound" and spec.timing.clock != "both":
            raise SchemaError(f"claims[{ci}].kind", "a launch_bound claim needs timing.clock: both "
                                                    "(host and GPU time of the same region)")
        for key in ("num", "den", "variant"):
            value = getattr(claim, key)
            if value is not None and value not in every:
                raise SchemaError(f"claims[{ci}].{key}", unknown_variant(spec, value, names))
        if claim.metric is not None:
            known = metric_names + list(ATTRIBUTE_METRICS)
            if claim.metric not in known:
                raise SchemaError(f"claims[{ci}].metric", f"expected a declared metric or a kernel attribute "
                                                          f"({', '.join(known)}), found {claim.metric!r}")
            if claim.kind == "metric_matches" and claim.metric not in metric_names:
                raise SchemaError(f"claims[{ci}].metric", "metric_matches checks a declared metric's "
                                                          "prediction; kernel attributes have none")
            if claim.kind == "metric_matches":
                metric = spec.metrics[metric_names.index(claim.metric)]
                if not spec.predicted(metric, claim.variant):
                    raise SchemaError(f"claims[{ci}].variant", f"metric {metric.name} predicts nothing for "
                                                               f"{claim.variant}; add it to its predict")
        elif claim.kind in ("metric_bound", "metric_matches"):
            raise SchemaError(f"claims[{ci}].metric", f"required for a {claim.kind} claim")
        if claim.point is not None:
            chosen = [v for v in measured if v.matches(claim.point)]
            if not chosen:
                have: dict[str, set[int]] = {}
                for v in measured:
                    for k, value in v.point.items():
                        have.setdefault(k, set()).add(value)
                shown = "; ".join(f"{k}: {', '.join(map(str, sorted(vals)))}" for k, vals in have.items())
                raise SchemaError(f"claims[{ci}].point", f"no variant's sweep has the point {dict(claim.point)}; "
                                                         + (f"the sweeps have {shown}" if shown else "no variant is swept"))
        if claim.kind in ("fraction_of_link", "overlap"):
            _check_host_claim(spec, claim, ci)
        if claim.kind == "sass" and claim.kernel is not None:
            kernels = sorted({s.kernel for s in spec.variant(claim.variant).launches if s.kernel})
            if claim.kernel not in kernels:
                raise SchemaError(f"claims[{ci}].kernel", f"expected a kernel {claim.variant} launches "
                                                          f"({', '.join(kernels) or 'none'}), found {claim.kernel!r}")


def _check_host_claim(spec: MeasureSpec, claim: Claim, ci: int) -> None:
    """A fraction_of_link claim is about a variant whose copies go one way between host and device;
    an overlap claim about a variant whose steps run on more than one stream."""
    from measure.spec.steps import copy_direction, stream_name
    variant = spec.variant(claim.variant)
    if claim.kind == "fraction_of_link":
        ways = {copy_direction(spec, s) for s in variant.launches if s.is_copy} - {"d2d"}
        if len(ways) != 1:
            raise SchemaError(f"claims[{ci}].variant", f"a fraction_of_link claim needs a variant whose copies go "
                                                       f"one way between host and device; {variant.name} has "
                                                       f"{', '.join(sorted(ways)) or 'none'}")
    else:
        streams = {stream_name(s, i) for s in variant.launches for i in range(min(s.repeat, 32))}
        if len(streams) < 2:
            raise SchemaError(f"claims[{ci}].variant", f"an overlap claim needs a variant on several streams; "
                                                       f"{variant.name} runs on {', '.join(streams)}")
