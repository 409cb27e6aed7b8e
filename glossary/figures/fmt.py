"""Derived figures: pure arithmetic over recorded results.

Everything a page shows beyond the raw samples is computed here, from the
recorded statistic and the byte predictions, never typed by hand.
"""

from __future__ import annotations

import math

from measure import stats, units


def gbps(bytes_per_elem: float, elements: int, ms: float) -> float:
    """Effective bandwidth in GB/s (1e9 bytes per second), per element as pages state it."""
    return stats.gbps(bytes_per_elem * elements, ms)


def gflops(flops_per_elem: float, elements: int, ms: float) -> float:
    """Arithmetic rate in GFLOP/s."""
    return stats.gflops(flops_per_elem * elements, ms)


def fmt_ms(ms: float) -> str:
    """Milliseconds: three decimals, or four significant digits below 0.1 ms."""
    if ms >= 0.1:
        return f"{ms:.3f}"
    digits = max(3, 3 - int(math.floor(math.log10(abs(ms)))) if ms else 3)
    return f"{ms:.{digits}f}"


def fmt_fixed(value: float, decimals: int = 1) -> str:
    return f"{value:,.{decimals}f}"


def fmt_int(value: int) -> str:
    return f"{value:,}"


def fmt_bytes(value: float) -> str:
    """A byte count in binary units: 50 MiB, 1 GiB (``measure.units.binary_bytes``)."""
    return units.binary_bytes(value)


def fmt_bpe(value: float) -> str:
    """Bytes per element: whole numbers stay whole, measured ones get one decimal."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
