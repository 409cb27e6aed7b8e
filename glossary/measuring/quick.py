"""An author's quick look (`glossary try`): one size, no counters, nothing recorded.

The spec is cut down to one size (the headline, or the one asked for) with the counter pass
off; the harness checks every output element and times as always, and the figures go to the
terminal only: a published figure still comes only from a full measurement on the node.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from measure import stats
from measure.results import Result
from measure.spec import MeasureSpec


class QuickError(ValueError):
    """The size asked for cannot be measured; the message says why."""


def parse_size(pairs: tuple[str, ...] | list[str]) -> dict[str, int]:
    """['n=1048576'] -> {'n': 1048576}; QuickError names a pair that is not NAME=INTEGER."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            out[name.strip()] = int(value.replace("_", "").replace(",", ""))
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise QuickError(f"--size {pair!r}: expected NAME=INTEGER, e.g. n=1048576")
    return out


def quick_spec(spec: MeasureSpec, size: dict[str, int] | None = None) -> MeasureSpec:
    """``spec`` at one size (its headline, with ``size``'s values over it) and without counters."""
    point = dict(spec.headline, **(size or {}))
    unknown = sorted(set(point) - set(spec.headline))
    if unknown:
        raise QuickError(f"--size {', '.join(unknown)}: not a size parameter of this entry "
                         f"(its sizes have {', '.join(sorted(spec.headline))})")
    return dataclasses.replace(spec, sizes=[point], headline=point, counters=False)


@dataclass(frozen=True)
class Row:
    variant: str
    ms: float
    gbps: float
    of_floor: float | None


def rows(result: Result) -> list[Row]:
    """The table of the one size measured: each variant's time, GB/s and share of the copy floor."""
    size = result.sizes[0]
    stat = result.method.statistic
    floor = size.copy_floor.gbps if size.copy_floor else None
    table = []
    for name, var in size.variants.items():
        ms = getattr(var.stats, stat)
        rate = stats.gbps((var.useful_bytes_per_elem or var.bytes_per_elem) * size.elements, ms)
        table.append(Row(name, ms, rate, rate / floor if floor else None))
    return table


def ratios(spec: MeasureSpec, table: list[Row]) -> list[tuple[str, str, float, float]]:
    """(num, den, time ratio, byte ratio) of the spec's ratios, from the table."""
    by_name = {r.variant: r for r in table}
    out = []
    for ratio in spec.ratios:
        if ratio.num in by_name and ratio.den in by_name:
            num, den = spec.variant(ratio.num), spec.variant(ratio.den)
            out.append((ratio.num, ratio.den, by_name[ratio.num].ms / by_name[ratio.den].ms,
                        num.bytes_per_elem / den.bytes_per_elem if den.bytes_per_elem else float("nan")))
    return out
