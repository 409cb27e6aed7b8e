"""Launch-parameter sweeps: a variant with ``sweep`` measured once per point.

``expand_variants`` turns each spec variant into its measured variants: itself where it has no
sweep, else one per point of the cross product of its sweep lists, in the order written
(``copy[block=128]``, ``copy[block=256]``, ...).  A measured variant knows the names it binds in
expressions (the point), how its figures per element are worked out at a size, and the compile
options (defines, register limit) its module is built with.  Everything downstream (the
harness, the results file, claims and tables) sees the measured names; the reference is asked
about the base name, with the point among its ``params``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from measure import expr
from measure.spec.limits import MAX_MEASURED_VARIANTS
from measure.typed import SchemaError

if TYPE_CHECKING:
    from measure.spec.model import Launch, MeasureSpec, Variant


@dataclass(frozen=True)
class MeasuredVariant:
    """One variant as the harness measures it: a spec variant at one point of its sweep."""

    name: str                   # copy[block=128], or the spec name where there is no sweep
    base: str                   # the spec variant's name
    point: dict[str, int]       # the sweep values ({} without a sweep)
    label: str
    short: str | None
    spec: Variant = field(repr=False)

    @property
    def launches(self) -> tuple[Launch, ...]:
        return self.spec.launches

    @property
    def swept(self) -> bool:
        return bool(self.point)

    def matches(self, point: dict[str, int] | None) -> bool:
        """Whether this variant sits at ``point`` (every name given has that value)."""
        return point is None or (bool(self.point) and all(self.point.get(k) == v for k, v in point.items()))

    def env(self, params: dict[str, int], limits: dict[str, int] | None = None) -> dict[str, int]:
        """The names a launch expression binds: the size parameters, the point, the device's limits."""
        return {**(limits or {}), **params, **self.point}

    def per_elem(self, key: str, params: dict[str, int]) -> float | None:
        """``bytes_per_elem``, ``useful_bytes_per_elem`` or ``flops_per_elem`` at a size, as a number."""
        value = self.spec.useful_bytes if key == "useful_bytes_per_elem" else getattr(self.spec, key)
        if value is None or not isinstance(value, str):
            return None if value is None else float(value)
        return float(expr.evaluate(value, {**params, **self.point}))

    def compile_options(self, limits: dict[str, int]) -> tuple[str, ...]:
        """The nvcc options of this variant's own build: -D defines and -maxrregcount, evaluated."""
        env = {**limits, **self.point}
        out = [f"-D{name}={expr.evaluate_int(str(value), env)}" for name, value in self.spec.defines.items()]
        if self.spec.maxrregcount is not None:
            out.append(f"-maxrregcount={expr.evaluate_int(str(self.spec.maxrregcount), env)}")
        return tuple(out)


def point_name(base: str, point: dict[str, int]) -> str:
    """copy[block=128,items=4]: the name of a variant at a point of its sweep."""
    return f"{base}[{','.join(f'{k}={v}' for k, v in point.items())}]" if point else base


def point_words(point: dict[str, int]) -> str:
    """'block 128, items 4': a point as labels show it."""
    return ", ".join(f"{k} {v:,}" for k, v in point.items())


def expand_variants(spec: MeasureSpec) -> tuple[MeasuredVariant, ...]:
    """Every spec variant at every point of its sweep, in spec order; a SchemaError where the
    variants measured would pass MAX_MEASURED_VARIANTS."""
    out: list[MeasuredVariant] = []
    for v in spec.variants:
        names = list(v.sweep)
        combos = itertools.product(*(v.sweep[n] for n in names)) if names else [()]
        for values in combos:
            point = dict(zip(names, values))
            suffix = f", {point_words(point)}" if point else ""
            out.append(MeasuredVariant(point_name(v.name, point), v.name, point, v.label + suffix,
                                       (v.short + suffix) if v.short else None, v))
            if len(out) > MAX_MEASURED_VARIANTS:
                raise SchemaError("variants", f"the sweeps make more than {MAX_MEASURED_VARIANTS} measured "
                                              f"variants; sweep fewer values")
    return tuple(out)


def pairs(spec: MeasureSpec, num: str, den: str,
          point: dict[str, int] | None = None) -> list[tuple[MeasuredVariant, MeasuredVariant]]:
    """The (num, den) measured pairs a ratio or claim between two names stands for: at the same
    point where both are swept over the same names, each point against the other where one is."""
    nums = [v for v in spec.measured(num) if v.matches(point) or not v.swept]
    dens = [v for v in spec.measured(den) if v.matches(point) or not v.swept]
    if len(nums) > 1 and len(dens) > 1:
        by_point = {tuple(sorted(d.point.items())): d for d in dens}
        return [(n, by_point[key]) for n in nums if (key := tuple(sorted(n.point.items()))) in by_point]
    return [(n, d) for n in nums for d in dens]
