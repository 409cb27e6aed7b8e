"""Pure statistics and byte accounting for timing samples (no GPU, no numpy).

Everything here is tested with literal numbers in tests/test_stats.py.
"""

from __future__ import annotations

import math
from typing import Sequence

STATISTICS = ("mean", "median", "min")


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted data (numpy's default method)."""
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(samples: list[float]) -> dict:
    """Mean, median, min, max, sample standard deviation and IQR of ``samples``.

    ``stdev`` uses n-1 (0.0 for a single sample); ``iqr`` is q3 - q1 with
    linear interpolation.  Raises ValueError for no samples or a non-finite one,
    because a NaN must never reach a published table.
    """
    if not samples:
        raise ValueError("summarize needs at least one sample")
    values = [float(s) for s in samples]
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"samples must be finite numbers, found {values}")
    ordered = sorted(values)
    n = len(values)
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return {
        "n": n,
        "mean": mean,
        "median": _quantile(ordered, 0.5),
        "min": ordered[0],
        "max": ordered[-1],
        "stdev": math.sqrt(var),
        "iqr": _quantile(ordered, 0.75) - _quantile(ordered, 0.25),
    }


def pick(stats: dict, statistic: str) -> float:
    """The published statistic (mean, median or min) of a ``summarize`` result."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, found {statistic!r}")
    return float(stats[statistic])


def gbps(nbytes: float, ms: float) -> float:
    """Bandwidth in GB/s (10^9 bytes per second) of ``nbytes`` moved in ``ms`` milliseconds."""
    if ms <= 0:
        raise ValueError(f"a time must be positive to give a bandwidth, found {ms} ms")
    return nbytes / (ms * 1e-3) / 1e9


def gflops(flops: float, ms: float) -> float:
    """Rate in GFLOP/s of ``flops`` operations in ``ms`` milliseconds."""
    if ms <= 0:
        raise ValueError(f"a time must be positive to give a rate, found {ms} ms")
    return flops / (ms * 1e-3) / 1e9


def bytes_per_elem(nbytes: float, elements: int) -> float:
    """Bytes per element, e.g. DRAM counter bytes over the entry's element count."""
    if elements <= 0:
        raise ValueError(f"element count must be positive, found {elements}")
    return nbytes / elements


def size_label(params: dict[str, int]) -> str:
    """'n=67108864' or 'rows=4096,cols=4096' for progress lines and messages."""
    return ",".join(f"{k}={v}" for k, v in params.items())
