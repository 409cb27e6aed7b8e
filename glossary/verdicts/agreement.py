"""Agreement: does a re-measure of an entry on another node give the numbers its record publishes?

Every published number is compared, each with its own tolerance:

- each variant's time at each size (the statistic the method publishes; host time too, where
  the record has it);
- each counter reading (DRAM bytes per element and every declared metric, in both passes);
- each floor (the copy floor, the host link's two directions).

A number's *difference* is ``|reproduced / recorded - 1|``.  Numbers are grouped by the size's
regime: inside the L2 (working set at most the L2), between the L2 and 4x it, past 4x the L2,
or unclassified (no L2 or working set recorded; judged as the L2 regimes are).

Tolerances are declared, not invented.  The spec's ``measure.agreement`` states them per regime;
unset, a number past 4x the L2 may differ by what the harness's stopping rule promises for both
runs: each run's half 95% confidence interval of the region's median (``sampling.median_ci_rel``),
never less than that run's ``target_ci`` (the rule samples until it is within it, or says it
stopped early, in which case the wider interval recorded is the promise).  Under 4x the L2 that
default is widened by ``L2_WIDENING``: there re-measures of one card on the same node already
move by up to 2% where past 4x the L2 they stay within 0.5%
(``bench/results/h200-agreement-issue17.txt``).

Pure: two typed results and the spec in, an ``Agreement`` out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator

from glossary.figures import fmt
from measure.results import Result, Size
from measure.spec import MeasureSpec, working_set_bytes

PAST_L2_FACTOR = 4  # as glossary.verdicts.claims: "past the L2" is a working set of at least 4 L2s
L2_WIDENING = 4.0  # the default past-L2 tolerance times this, for sizes under 4x the L2
DEFAULT_TARGET_CI = 0.005  # measure.spec.Timing.target_ci's default, for a record that names none
REGIMES = ("past_l2", "between", "inside_l2", "unclassified")
REGIME_TEXT = {"past_l2": "past 4× the L2", "between": "between the L2 and 4× it", "inside_l2": "inside the L2",
               "unclassified": "with no L2 size recorded"}
_COPY_REGIONS = ("__vector_copy", "__memcpy_dtod")
_EPS = 1e-12  # a difference exactly at the tolerance agrees, whatever the float rounding


@dataclass(frozen=True)
class Number:
    """One published number, in the record and in the reproduction."""

    what: str  # "fused time", "copy floor", "fused DRAM B/elem (caches flushed)"
    kind: str  # time, counter, floor
    params: dict
    elements: int
    regime: str
    recorded: float
    reproduced: float | None  # None: the reproduction does not have it
    tolerance: float
    declared: bool  # the spec states the tolerance (else the stopping rule's default)

    @property
    def ratio(self) -> float | None:
        if self.reproduced is None:
            return None
        if self.recorded == 0:
            return 1.0 if self.reproduced == 0 else math.inf
        return self.reproduced / self.recorded

    @property
    def difference(self) -> float:
        ratio = self.ratio
        return math.inf if ratio is None else abs(ratio - 1)

    @property
    def ok(self) -> bool:
        return self.difference <= self.tolerance + _EPS

    @property
    def where(self) -> str:
        return f"{self.what} at {fmt.params(self.params)}"


@dataclass(frozen=True)
class RegimeSummary:
    regime: str
    count: int
    worst: float  # the largest difference
    worst_number: Number
    outside: tuple[Number, ...]
    tolerance_low: float
    tolerance_high: float

    @property
    def text(self) -> str:
        return REGIME_TEXT[self.regime]

    @property
    def tolerance_text(self) -> str:
        low, high = percent(self.tolerance_low), percent(self.tolerance_high)
        return low if low == high else f"{low} to {high}"


@dataclass(frozen=True)
class Agreement:
    """Every published number of a record against a reproduction's."""

    numbers: tuple[Number, ...]
    extra_sizes: tuple[str, ...] = field(default_factory=tuple)  # sizes the reproduction has and the record not

    @property
    def agrees(self) -> bool:
        return bool(self.numbers) and all(n.ok for n in self.numbers)

    @property
    def outside(self) -> tuple[Number, ...]:
        return tuple(n for n in self.numbers if not n.ok)

    def regimes(self) -> list[RegimeSummary]:
        """Per regime (past 4x the L2 first), the worst difference and the numbers outside."""
        out = []
        for regime in REGIMES:
            these = [n for n in self.numbers if n.regime == regime]
            if not these:
                continue
            worst = max(these, key=lambda n: n.difference)
            out.append(RegimeSummary(regime, len(these), worst.difference, worst, tuple(n for n in these if not n.ok),
                                     min(n.tolerance for n in these), max(n.tolerance for n in these)))
        return out

    def summary(self) -> str:
        """'every figure past 4× the L2 within 0.4%; inside the L2 within 3.1%' (the worst differences)."""
        return "; ".join(f"{'every figure ' if i == 0 else ''}{r.text} within {percent(r.worst)}"
                         for i, r in enumerate(self.regimes()))


def percent(fraction: float) -> str:
    """A difference as a percentage: two decimals under 1% ('0.42%'), else as the site writes them."""
    if math.isinf(fraction):
        return "missing"
    return f"{100 * fraction:.2f}%" if fraction < 0.01 else fmt.percent(fraction)


def compare(spec: MeasureSpec, record: Result, reproduction: Result) -> Agreement:
    """Every number ``record`` publishes against ``reproduction`` (both for one entry and device)."""
    declared = spec.agreement
    l2 = record.environment.l2_bytes
    again = {_key(s.params): s for s in reproduction.sizes}
    numbers: list[Number] = []
    for size in record.sizes:
        other = again.get(_key(size.params))
        ws = size.working_set_bytes or working_set_bytes(spec, size.params)
        regime = regime_of(ws, l2)
        for what, kind, was, now, spread in _pairs(record, size, reproduction, other, spec):
            default = _default(record, size, reproduction, other, spread)
            if regime != "past_l2":
                default *= L2_WIDENING
            stated = None
            if declared is not None:
                stated = declared.past_l2 if regime == "past_l2" else declared.inside_l2
            numbers.append(Number(what, kind, dict(size.params), size.elements, regime, was, now,
                                  stated if stated is not None else default, stated is not None))
    known = {_key(s.params) for s in record.sizes}
    extra = tuple(fmt.params(s.params) for s in reproduction.sizes if _key(s.params) not in known)
    return Agreement(tuple(numbers), extra)


def regime_of(working_set: int | None, l2: int | None) -> str:
    if not working_set or not l2:
        return "unclassified"
    if working_set >= PAST_L2_FACTOR * l2:
        return "past_l2"
    return "inside_l2" if working_set <= l2 else "between"


def _key(params) -> tuple:
    return tuple(sorted(dict(params).items()))


def _ci(result: Result, size: Size | None, regions: tuple[str, ...]) -> float:
    """One run's promise for a region: its recorded half 95% interval, at least its target_ci."""
    target = (result.method.target_ci if result.method and result.method.target_ci else None) or DEFAULT_TARGET_CI
    known = dict(size.sampling.median_ci_rel) if size is not None and size.sampling else {}
    recorded = [known[r] for r in regions if r in known]
    return max([target, *recorded])


def _default(record: Result, size: Size, reproduction: Result, other: Size | None, regions: tuple[str, ...]) -> float:
    return _ci(record, size, regions) + _ci(reproduction, other, regions)


def _pairs(record: Result, size: Size, reproduction: Result, other: Size | None,
           spec: MeasureSpec) -> Iterator[tuple[str, str, float, float | None, tuple[str, ...]]]:
    """(what, kind, recorded, reproduced, the sampled regions whose intervals bound it) for every
    number the record publishes at ``size``; a variant is named as the page's tight spaces name it."""
    from glossary.verdicts.claims import short_name

    stat = record.method.statistic if record.method else "mean"
    for key, var in size.variants.items():
        name = short_name(spec, key) or key
        again = other.variants.get(key) if other is not None else None
        for part, label in (("stats", "time"), ("host_stats", "host time")):
            st = getattr(var, part)
            value = getattr(st, stat) if st is not None else None
            if value is None:
                continue
            st2 = getattr(again, part) if again is not None else None
            yield f"{name} {label}", "time", value, getattr(st2, stat) if st2 is not None else None, (key,)
        counters = var.counters
        for pass_name, label in (("flushed", "caches flushed"), ("unflushed", "caches as timed")):
            cp = getattr(counters, pass_name) if counters is not None else None
            if cp is None:
                continue
            cp2 = getattr(again.counters, pass_name) if again is not None and again.counters is not None else None
            if cp.dram_bytes_per_elem is not None:
                yield (f"{name} DRAM B/elem ({label})", "counter", cp.dram_bytes_per_elem,
                       cp2.dram_bytes_per_elem if cp2 is not None else None, ())
            for metric, mv in sorted((cp.metrics or {}).items()):
                mv2 = (cp2.metrics or {}).get(metric) if cp2 is not None else None
                yield f"{name} {metric} ({label})", "counter", mv.value, mv2.value if mv2 is not None else None, ()
    if size.copy_floor is not None:
        floor2 = other.copy_floor if other is not None else None
        yield "copy floor", "floor", size.copy_floor.gbps, floor2.gbps if floor2 else None, _COPY_REGIONS
    if size.link_floor is not None:
        link2 = other.link_floor if other is not None else None
        for way, region in (("h2d", "__link_h2d"), ("d2h", "__link_d2h")):
            yield (f"link floor {way}", "floor", getattr(size.link_floor, f"{way}_gbps"),
                   getattr(link2, f"{way}_gbps") if link2 else None, (region,))
