"""What every part shares: the entry measured, the goals, the check threshold, the statistics."""

from __future__ import annotations

import math

from measure import stats

SLUG = "kernel-fusion"
REL_L2_MAX = 1e-5              # float32 lands near 1e-7; an erf GELU would be about 1e-4 off
GOALS = {"floor_of_best_copy": 0.98, "fused_of_best_copy": 0.98, "fused_over_compile": 1.15,
         "median_drift": 0.01, "rel_iqr": 0.02}


def summary(samples_ms: list[float]) -> dict:
    """stats.summarize plus ``rel_iqr``, the IQR over the median."""
    st = stats.summarize(samples_ms)
    st["rel_iqr"] = st["iqr"] / st["median"] if st["median"] > 0 else math.inf
    return st


def relative_change(before: float, after: float) -> float:
    """(after - before) / before."""
    if before <= 0:
        raise ValueError(f"a relative change needs a positive starting value, found {before}")
    return (after - before) / before


def check_passes(rel_l2: float, nan: int) -> bool:
    """A contestant is timed only when no output is NaN and its rel. L2 error is at most REL_L2_MAX."""
    return nan == 0 and math.isfinite(rel_l2) and rel_l2 <= REL_L2_MAX


def select_sizes(sizes: list[dict], headline: dict, choice: str) -> list[dict]:
    """Sizes of the spec: "all", "headline", "upto-headline" (the spec's order), or comma-separated
    values of its one size parameter."""
    sizes = [dict(s) for s in sizes]
    if choice == "all":
        return sizes
    if choice == "headline":
        return [dict(headline)]
    if choice == "upto-headline":
        return sizes[:sizes.index(dict(headline)) + 1]
    keys = sorted(sizes[0])
    if len(keys) != 1:
        raise ValueError(f"sizes as numbers need a spec with one size parameter, this one has {keys}")
    try:
        return [{keys[0]: int(v)} for v in choice.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"expected all, headline, upto-headline or numbers like 1048576,67108864; "
                         f"found {choice!r}") from None
