"""The claim kinds of issue 18, and how a claim naming a swept variant stands for each of its points.

``time_ratio``: time(num) / time(den) is at least (or at most) a bound.  ``metric_bound``: a
declared Nsight Compute metric, or a kernel attribute (registers, local memory, shared memory,
theoretical occupancy, resident warps: the most over a variant's launches, occupancy and
resident warps the least), is at least (or at most) a bound.  ``metric_matches``: a declared
metric is within ``tolerance * |predicted|`` of the spec's prediction, or within the author's
``absolute`` tolerance (``allowed_off``).
``glossary.verdicts.claims`` judges every kind; this module holds these three and ``expand``.
"""

from __future__ import annotations

import dataclasses

from glossary.figures import fmt
from glossary.figures.views import SizeView, VariantRow
from measure.spec import Claim, MeasureSpec
from measure.spec.claims import ATTRIBUTE_METRICS
from measure.spec.sweep import pairs


NEW_KINDS = ("time_ratio", "metric_bound", "metric_matches")


def describe_new(claim: Claim, spec: MeasureSpec, num: str | None, den: str | None, variant: str | None) -> str:
    """time_ratio, metric_bound and metric_matches in words."""
    bound = (f"at most {_bound_text(claim, claim.at_most, spec)}" if claim.at_most is not None
             else f"at least {_bound_text(claim, claim.lower, spec)}")
    if claim.kind == "time_ratio":
        return f"{num} / {den} time ratio is {bound}"
    what = metric_label(spec, claim.metric)
    if claim.kind == "metric_bound":
        return f"{what} of {variant} is {bound}"
    predicted = spec.predicted(_metric(spec, claim.metric), claim.variant) if claim.variant else {}
    values = sorted(set(predicted.values()))
    unit = _metric(spec, claim.metric).unit
    told = f" ({and_([fmt.quantity(v, unit) for v in values])} predicted)" if values else ""
    within = f"{100 * claim.tolerance:.0f}%"
    if claim.absolute is not None:
        within += f" or {fmt.quantity(claim.absolute, unit)}"
    return f"{what} of {variant} matches its prediction{told} within {within}"


def _bound_text(claim: Claim, value: float, spec: MeasureSpec) -> str:
    """A claim's bound as written, with the unit of what it bounds: '1.05×', '50%', '4 sectors', '32'."""
    if claim.kind == "time_ratio":
        return f"{value:g}×"
    if claim.metric in _ATTRIBUTE_WORDS:
        return _attribute_text(claim.metric, value)
    declared = _metric(spec, claim.metric)
    unit = declared.unit if declared is not None else ""
    return f"{value:g}{unit}" if unit == "%" else f"{value:g} {unit}" if unit else f"{value:g}"


def _metric(spec: MeasureSpec, name: str | None):
    return next((m for m in spec.metrics if m.name == name), None)


def metric_label(spec: MeasureSpec, name: str | None) -> str:
    """A claim's metric in words: a declared metric's label, or the kernel attribute's description."""
    declared = _metric(spec, name)
    if declared is not None:
        return declared.label
    return _ATTRIBUTE_WORDS.get(name, ATTRIBUTE_METRICS.get(name, name or ""))


# Kernel attributes as a claim's statement names them (ATTRIBUTE_METRICS describes them at length).
_ATTRIBUTE_WORDS = {"registers": "registers per thread", "local_bytes": "local memory per thread",
                    "static_shared_bytes": "static shared memory per block",
                    "dynamic_shared_bytes": "dynamic shared memory per block",
                    "theoretical_occupancy": "theoretical occupancy", "resident_warps": "resident warps per SM"}
_BYTE_ATTRIBUTES = ("local_bytes", "static_shared_bytes", "dynamic_shared_bytes")


def _attribute_text(name: str, value: float) -> str:
    """A kernel attribute's value as the page writes it: '38%', '2 KiB', '40'."""
    if name == "theoretical_occupancy":
        return fmt.percent(value)
    if name in _BYTE_ATTRIBUTES:
        return fmt.fmt_bytes(value)
    return fmt.fmt_int(int(value)) if float(value).is_integer() else f"{value:g}"


def scope_note(claim: Claim) -> str:
    scope = [*(claim.devices or ()), *(claim.archs or ())]
    return f" (on {and_(list(scope))} only)" if scope else ""


def expand(claim: Claim, spec: MeasureSpec) -> list[Claim]:
    """The claims ``claim`` stands for, one per measured variant (or pair) it names: a swept base
    name at every point of its sweep (``measure.spec.sweep.pairs`` for num and den), filtered by
    ``claim.point``.  A claim naming unswept variants is itself (pure)."""
    if claim.num is not None and claim.den is not None:
        found = pairs(spec, claim.num, claim.den, claim.point)
        if [(n.name, d.name) for n, d in found] == [(claim.num, claim.den)] and claim.point is None:
            return [claim]
        return [dataclasses.replace(claim, num=n.name, den=d.name, point=None) for n, d in found] or [claim]
    if claim.variant is not None:
        found = [v for v in spec.measured(claim.variant) if claim.point is None or v.matches(claim.point)]
        if [v.name for v in found] == [claim.variant] and claim.point is None:
            return [claim]
        return [dataclasses.replace(claim, variant=v.name, point=None) for v in found] or [claim]
    return [claim]


def reaches(value: float, claim: Claim) -> str:
    """The verdict of a bounded claim: at least ``at_least``, or at most ``at_most`` where given."""
    if claim.at_most is not None:
        return "holds" if value <= claim.at_most else "fails"
    return "holds" if value >= claim.lower else "fails"


def and_(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def time_ratio(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    num, den = rows.get(claim.num), rows.get(claim.den)
    if num is None or den is None:
        return "n/a", "a variant was not measured at this size"
    value = num.ms / den.ms
    return reaches(value, claim), f"time ratio {fmt.ratio(value)} ({fmt.duration(num.ms)} against {fmt.duration(den.ms)})"


# The attributes a metric claim may name, read off a row: the most over its launches, the least occupancy.
_ATTRIBUTE_ROW = {"registers": "registers", "local_bytes": "local_bytes", "static_shared_bytes": "static_shared_bytes",
                  "dynamic_shared_bytes": "dynamic_shared_bytes", "theoretical_occupancy": "theoretical_occupancy",
                  "resident_warps": "resident_warps"}


def _metric_value(claim: Claim, spec: MeasureSpec, row: VariantRow | None) -> tuple[float | None, str]:
    """The number a metric claim judges, and how the verdict writes it ('' and None where not recorded)."""
    if row is None:
        return None, "the variant was not measured at this size"
    name = claim.metric
    if name in _ATTRIBUTE_ROW:
        value = getattr(row, _ATTRIBUTE_ROW[name])
        if value is None:
            return None, "no kernel attributes recorded at this size"
        n = len(row.launch_attrs)
        over = "" if n == 1 else (f", the least over {n} launches" if name in ("theoretical_occupancy", "resident_warps")
                                  else f", the most over {n} launches")
        return value, f"{metric_label(spec, name)} {_attribute_text(name, value)}{over}"
    counted = row.metric(name)
    if counted is None:
        return None, f"no counter data for {name} at this size"
    caches = "caches as timed" if counted.as_timed else "caches flushed"
    return counted.value, f"counted {fmt.quantity(counted.value, counted.unit)} ({caches})"


def _metric_bound(claim: Claim, spec: MeasureSpec, rows: dict[str, VariantRow]) -> tuple[str, str]:
    value, text = _metric_value(claim, spec, rows.get(claim.variant))
    if value is None:
        return "n/a", text
    bound = claim.at_most if claim.at_most is not None else claim.lower
    side = "at most" if claim.at_most is not None else "at least"
    return reaches(value, claim), f"{text} against {side} {_bound_text(claim, bound, spec)}"


def _metric_matches(claim: Claim, spec: MeasureSpec, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    value, text = _metric_value(claim, spec, row)
    if value is None:
        return "n/a", text
    metric = _metric(spec, claim.metric)
    predicted = spec.predicted(metric, claim.variant).get(claim.variant) if metric else None
    if predicted is None:
        return "n/a", f"{claim.metric} predicts nothing for {claim.variant}"
    allowed = allowed_off(claim, predicted)
    off = abs(value - predicted)
    unit = metric.unit
    status = "holds" if off <= allowed else "fails"
    return status, (f"{text} against {fmt.quantity(predicted, unit)} predicted (off by {fmt.quantity(off, unit)}; "
                    f"{fmt.quantity(allowed, unit)} allowed)")


def allowed_off(claim: Claim, predicted: float) -> float:
    """How far a metric_matches claim lets the count be from ``predicted``: ``tolerance`` relative,
    or the author's ``absolute`` where that is larger.  A prediction of 0 has no relative tolerance:
    there ``absolute`` decides, else ``tolerance`` is read as absolute (pure)."""
    relative = claim.tolerance * abs(predicted)
    if claim.absolute is not None:
        return max(relative, claim.absolute)
    return relative if predicted != 0 else claim.tolerance


METRIC_JUDGES = {"metric_bound": _metric_bound, "metric_matches": _metric_matches}
