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


def median_ci(samples: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """A distribution-free ~95% confidence interval of the median, from order statistics.

    The interval runs from the j-th to the k-th smallest sample, with
    j, k = n/2 -+ z sqrt(n)/2 (the normal approximation to the binomial), clipped
    to the data; timing samples are skewed, so no normal model of the samples is assumed.
    """
    if not samples:
        raise ValueError("median_ci needs at least one sample")
    ordered = sorted(float(s) for s in samples)
    n = len(ordered)
    half = z * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half) - 1)
    return ordered[lo], ordered[max(lo, hi)]


def median_ci_rel(samples: Sequence[float]) -> float:
    """Half the width of ``median_ci`` over the median: 0.004 means the median is known to +/-0.4%."""
    lo, hi = median_ci(samples)
    ordered = sorted(samples)
    median = _quantile(ordered, 0.5)
    return (hi - lo) / 2 / median if median > 0 else math.inf


def mean_ci_rel(mean: float, stdev: float, n: int, z: float = 1.96) -> float:
    """Half the normal-approximation confidence interval of a mean (z s / sqrt(n)) over the mean."""
    return z * stdev / math.sqrt(n) / mean


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
