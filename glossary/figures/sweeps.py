"""What issue 18's results add to the page model: launch-parameter sweeps, kernel attributes and
declared Nsight Compute metrics.

``glossary.figures.views`` builds its rows and sizes with these: ``RowExtras`` adds a row's sweep
point, launch attributes and metrics (a row without them is left exactly as it was), and the
mixins give ``VariantRow`` and ``SizeView`` what the tables, plots, figures and claims read.
Pure: no template, no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from glossary.figures import fmt
from measure import results
from measure.results import LaunchAttrs
from measure.spec import MeasureSpec
from measure.spec.sweep import point_name, point_words
from glossary.figures.attributes import ATTR_COLUMNS, AttrRow, attr_rows  # noqa: F401  re-exported

if TYPE_CHECKING:
    from glossary.figures.views import VariantRow


@dataclass(frozen=True)
class MetricRow:
    """A declared Nsight Compute metric of one variant at one size, with its prediction."""

    name: str
    label: str
    unit: str
    value: float
    pass_name: str  # "flushed" (caches flushed before every kernel) or "unflushed" (as timed)
    predicted: float | None = None
    metric: str | None = None  # the ncu metric
    per: str = "total"
    value_as_timed: float | None = None  # the unflushed pass's value, where recorded

    @property
    def as_timed(self) -> bool:
        return self.pass_name == "unflushed"


class RowKernelMixin:
    """A row's sweep point, kernel attributes (the largest resource use over its launches, the least
    occupancy) and declared metrics; ``VariantRow`` holds the fields."""

    base: str | None
    point: tuple
    launch_attrs: tuple
    metrics: tuple
    name: str

    @property
    def base_name(self) -> str:
        """The spec variant's name: the base of a sweep point, else the name itself."""
        return self.base or self.name

    @property
    def point_text(self) -> str:
        """'block 128, items 4': the sweep point in words ('' without a sweep)."""
        return point_words(dict(self.point))

    def metric(self, name: str) -> "MetricRow | None":
        """The declared metric ``name`` at this size, where counted."""
        for m in self.metrics:
            if m.name == name:
                return m
        return None

    # Kernel attributes over the variant's launches: the largest resource use, the least residency.

    def _most(self, attr: str) -> int | None:
        return max((getattr(a, attr) for a in self.launch_attrs), default=None)

    @property
    def registers(self) -> int | None:
        return self._most("registers")

    @property
    def local_bytes(self) -> int | None:
        return self._most("local_bytes")

    @property
    def static_shared_bytes(self) -> int | None:
        return self._most("static_shared_bytes")

    @property
    def dynamic_shared_bytes(self) -> int | None:
        return self._most("dynamic_shared_bytes")

    @property
    def max_threads_per_block(self) -> int | None:
        """The most threads a block may have, the least over the launches' kernels."""
        return min((a.max_threads_per_block for a in self.launch_attrs), default=None)

    @property
    def shared_bytes(self) -> int | None:
        """Static plus dynamic shared memory per block, the largest over the launches."""
        return max((a.static_shared_bytes + a.dynamic_shared_bytes for a in self.launch_attrs), default=None)

    @property
    def least_resident(self) -> LaunchAttrs | None:
        """The launch with the least theoretical occupancy (where recorded)."""
        rated = [a for a in self.launch_attrs if a.theoretical_occupancy is not None]
        return min(rated, key=lambda a: a.theoretical_occupancy) if rated else None

    @property
    def theoretical_occupancy(self) -> float | None:
        a = self.least_resident
        return a.theoretical_occupancy if a else None

    @property
    def resident_warps(self) -> int | None:
        """Resident warps per SM of the launch with the least occupancy."""
        a = self.least_resident
        return a.resident_warps_per_sm if a else None


class SizeSweepMixin:
    """The sweep tables, kernel attributes and declared metrics of one size; ``SizeView`` holds the rows."""

    rows: tuple

    @property
    def swept(self) -> bool:
        """Whether some variant here is a point of a launch-parameter sweep."""
        return any(r.point for r in self.rows)

    @property
    def sweep_tables(self) -> tuple["SweepTable", ...]:
        """The launch-parameter sweeps at this size: one table per set of sweep names."""
        return sweep_tables(self.rows)

    @property
    def has_attrs(self) -> bool:
        return any(r.launch_attrs for r in self.rows)

    @property
    def has_metrics(self) -> bool:
        return any(r.metrics for r in self.rows)

    @property
    def metric_columns(self) -> tuple["MetricRow", ...]:
        """One MetricRow per declared metric counted here (the first variant's), in spec order."""
        seen: dict[str, MetricRow] = {}
        for r in self.rows:
            for m in r.metrics:
                seen.setdefault(m.name, m)
        return tuple(seen.values())

    def metric_predicted(self, name: str) -> bool:
        return any(m.predicted is not None for r in self.rows for m in r.metrics if m.name == name)

    @property
    def metrics_as_timed(self) -> bool:
        """Whether some value here comes from the pass with the caches as timed (the flushed one lacked it)."""
        return any(m.as_timed for r in self.rows for m in r.metrics)

    @property
    def attr_rows(self) -> tuple["AttrRow", ...]:
        return attr_rows(self.rows)

    @property
    def attr_same(self) -> dict[str, str]:
        """The Kernel attributes columns whose value is the same in every row (of two or more),
        header -> that value: the table leaves them out and its lead sentence says them once."""
        rows = self.attr_rows
        if len(rows) < 2:
            return {}
        cells = {header: {getattr(a, name) for a in rows} for header, name in ATTR_COLUMNS}
        return {header: next(iter(values)) for header, values in cells.items() if len(values) == 1}

    @property
    def multi_launch_attrs(self) -> bool:
        """Whether some variant has several distinct launches (the attributes table then names kernels)."""
        return any(len(r.launch_attrs) > 1 for r in self.rows)


@dataclass(frozen=True)
class SweepTable:
    """A launch-parameter sweep at one size: a row per point, a column per base variant."""

    names: tuple[str, ...]  # the sweep names, e.g. ("block",)
    bases: tuple[tuple[str, str], ...]  # (base name, its short name) per column
    points: tuple[tuple[tuple[str, int], ...], ...]  # the rows, in sweep order
    cells: dict  # (point, base) -> VariantRow

    @property
    def header(self) -> str:
        return ", ".join(self.names)

    @property
    def of(self) -> str:
        """What the sweep is of, as the caption names it: 'copy' or 'copy and vec4'."""
        shorts = [short for _, short in self.bases]
        return shorts[0] if len(shorts) == 1 else ", ".join(shorts[:-1]) + " and " + shorts[-1]

    def column(self, short: str, what: str) -> str:
        """A column's header: 'time' where the table has one base variant, else 'copy time'."""
        return what if len(self.bases) == 1 else f"{short} {what}"

    def point_text(self, point: tuple[tuple[str, int], ...]) -> str:
        """A row's sweep values: '128' for one name, '128, 4' for several."""
        return ", ".join(fmt.fmt_int(v) for _, v in point)

    def cell(self, point, base: str) -> "VariantRow | None":
        return self.cells.get((point, base))


def sweep_tables(rows) -> tuple[SweepTable, ...]:
    """Group the swept rows by their sweep names (pure)."""
    groups: dict[tuple[str, ...], dict] = {}
    for r in rows:
        if not r.point:
            continue
        names = tuple(k for k, _ in r.point)
        g = groups.setdefault(names, {"bases": {}, "points": {}, "cells": {}})
        g["bases"].setdefault(r.base_name, _base_short(r))
        g["points"].setdefault(r.point, None)
        g["cells"][(r.point, r.base_name)] = r
    return tuple(SweepTable(names, tuple(g["bases"].items()), tuple(g["points"]), g["cells"])
                 for names, g in groups.items())


def _base_short(row: "VariantRow") -> str:
    """A sweep point's short name without its point: 'grid-stride copy, block 128' -> 'grid-stride copy'."""
    suffix = ", " + row.point_text
    return row.short[:-len(suffix)] if row.point and row.short.endswith(suffix) else row.short


class RowExtras:
    """What issue 18's results add to a row: its sweep point, kernel attributes and declared metrics.
    Rows of variants without them are built exactly as before (the fields keep their defaults)."""

    def __init__(self, spec: MeasureSpec | None) -> None:
        self.spec = spec
        self.bases = {v.name: (v.base, tuple(v.point.items())) for v in spec.measured_variants if v.point} if spec else {}
        self.metrics = tuple(spec.metrics) if spec else ()
        self.predicted = {m.name: spec.predicted(m, None) for m in self.metrics} if spec else {}

    def add(self, row, var: results.Variant) -> "VariantRow":
        base, point = self.bases.get(row.name, (None, ()))
        if var.base is not None:
            base, point = var.base, tuple((var.point or {}).items())
        values = self._metrics(row.name, var) if self.metrics else ()
        attrs = tuple(var.launch_attrs or ())
        if base is None and not attrs and not values:
            return row
        return dataclasses.replace(row, base=base, point=point, launch_attrs=attrs, metrics=values)

    def _metrics(self, name: str, var: results.Variant) -> tuple[MetricRow, ...]:
        counters = var.counters
        if counters is None:
            return ()
        out = []
        for m in self.metrics:
            found = {p: (getattr(counters, p).metrics or {}).get(m.name) if getattr(counters, p) else None
                     for p in ("flushed", "unflushed")}
            pass_name = "flushed" if found["flushed"] is not None else "unflushed"  # flushed, where it has it
            value = found[pass_name]
            if value is not None:
                timed = found["unflushed"]
                out.append(MetricRow(m.name, m.label, value.unit or m.unit, value.value, pass_name,
                                     self.predicted[m.name].get(name), m.metric, m.per,
                                     timed.value if timed is not None else None))
        return tuple(out)



def occupancy_note(device) -> str:
    """Where resident blocks per SM came from, in words: the driver, or the formula and why."""
    source = device.environment.occupancy_source
    if source is None:
        seen = {a.occupancy_source for s in device.sizes for r in s.rows for a in r.launch_attrs if a.occupancy_source}
        source = " and ".join(sorted(seen)) if seen else None
    if not source:
        return "resident blocks per SM not recorded"
    if source == "driver":
        return "resident blocks per SM from the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor)"
    if source.startswith("formula"):
        return "resident blocks per SM from the occupancy formula (measure.occupancy)" + source[len("formula"):]
    return f"resident blocks per SM from {source}"


def measured_name(variants: dict, point: dict | None, variant: str) -> str:
    """The measured name a figure's variant stands for: a swept base name at the point chosen with
    ``fig.at(block=128)``; a LookupError, saying how to name a point, where none was chosen."""
    spec = variants.get(variant)
    if spec is None or not spec.sweep:
        return variant
    chosen = {k: v for k, v in (point or {}).items() if k in spec.sweep}
    if set(chosen) != set(spec.sweep):
        example = point_name(variant, {k: vals[0] for k, vals in spec.sweep.items()})
        raise LookupError(f"{variant!r} is swept over {', '.join(spec.sweep)}: name a point, e.g. {example!r}, "
                          f"or choose it with at({', '.join(f'{k}=...' for k in spec.sweep)})")
    return point_name(variant, {k: chosen[k] for k in spec.sweep})


def split_point(variants: dict, params: dict) -> tuple[dict, dict]:
    """``fig.at``'s arguments as (size parameters, sweep values), by the sweep names the spec uses."""
    swept = {k for v in variants.values() for k in v.sweep}
    return ({k: v for k, v in params.items() if k not in swept}, {k: v for k, v in params.items() if k in swept})


def prediction(spec: MeasureSpec | None, variant: str, name: str):
    """(the declared metric, its prediction for the measured variant), or a LookupError saying which is missing."""
    metric = next((m for m in spec.metrics if m.name == name), None) if spec else None
    if metric is None:
        raise LookupError(f"no metric {name!r} in the spec")
    value = spec.predicted(metric, variant).get(variant)
    if value is None:
        raise LookupError(f"metric {name!r} predicts nothing for {variant!r}")
    return metric, value
