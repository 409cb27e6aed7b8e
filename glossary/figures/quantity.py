"""What a page leads with: the quantity an entry's claims are about (issue 32, item 2).

    gbps    GB/s against the copy or link floor: bytes are the story (a memory-bound kernel, a copy)
    tflops  TFLOP/s: a compute-bound kernel
    time    µs per launch (per kernel node, for a graph): a chain of launches the host paces

The spec's ``quantity`` says which; ``auto`` (the default) works it out from the spec's claims and
the headline's data (``lead_quantity``).  Presentation only: the key stays out of the measurement
fingerprint (``measure.results.identity.PRESENTATION_KEYS``), so choosing it re-measures nothing.
"""

from __future__ import annotations

from typing import Iterable

# Claims about bytes: a page that makes one leads with GB/s against the floor it judges against.
BYTE_CLAIMS = frozenset({"fraction_of_floor", "fraction_of_link", "speedup_matches_bytes",
                         "counter_bytes_match", "overfetch"})
# Claims about time itself (the host's pace, streams overlapping): a page that makes one leads with
# time, per launch where its variants are chains of launches.
TIME_CLAIMS = frozenset({"launch_bound", "overlap"})
# Below this share of the floor, GB/s bars are invisible against it: bytes are not the story.
FAR_BELOW_FLOOR = 0.1
# A kernel with FLOPs whose best variant moves less than this share of the floor is compute-bound.
COMPUTE_BOUND = 0.5

UNITS = {"gbps": "GB/s", "tflops": "TFLOP/s", "time": "GPU µs"}


def lead_quantity(declared: str, claim_kinds: Iterable[str], rows, floor: float | None = None) -> str:
    """The quantity a page leads with (pure).

    ``declared`` is the spec's ``quantity``; ``claim_kinds`` its claims' kinds; ``rows`` the
    headline size's variant rows (``VariantRow``) and ``floor`` their plot floor's GB/s.  For
    ``auto``: a claim about bytes gives gbps; a claim about launches gives time; FLOPs declared for
    every variant with the best of them under half the floor gives tflops; every variant below a
    tenth of the floor gives time (its GB/s bars would be invisible); else gbps."""
    if declared != "auto":
        return declared
    kinds = set(claim_kinds)
    rows = list(rows)
    if kinds & BYTE_CLAIMS or not rows:
        return "gbps"
    if kinds & TIME_CLAIMS:
        return "time"
    shares = [r.gbps / floor if floor else None for r in rows]
    known = [s for s in shares if s is not None]
    if all(r.gflops is not None for r in rows) and (not known or max(known) < COMPUTE_BOUND):
        return "tflops"
    if known and len(known) == len(shares) and max(known) < FAR_BELOW_FLOOR:
        return "time"
    return "gbps"


def per_launch(rows) -> bool:
    """Whether time is shown per launch: every variant a chain of kernel launches (no copies: a
    copy is not a launch the host paces)."""
    rows = list(rows)
    return bool(rows) and all(r.launches and not r.has_copies for r in rows)


def in_ms(rows) -> bool:
    """Whether regions that are not chains of launches are shown in ms: where one takes a millisecond
    or more (streams of copies and kernels), so an axis reads 18.33, not 18,329."""
    rows = list(rows)
    return not per_launch(rows) and any(r.ms >= 1.0 for r in rows)


def value(quantity: str, row, each_launch: bool = True, millis: bool = False) -> float | None:
    """A row's figure in the lead quantity's unit: GB/s, TFLOP/s, or GPU time: µs per launch where
    ``each_launch``, else the timed region's, in ms where ``millis`` (``in_ms``), else µs (pure)."""
    if quantity == "tflops":
        return row.gflops / 1000 if row.gflops is not None else None
    if quantity == "time":
        if each_launch and row.launches:
            return row.gpu_us_per_launch
        return row.ms if millis else 1000 * row.ms
    return row.gbps


def unit(quantity: str, rows, millis: bool | None = None) -> str:
    """The axis's and column's unit: 'GB/s', 'TFLOP/s', 'GPU µs per launch', or 'GPU µs' ('GPU ms'
    where ``in_ms``) for regions that are not chains of launches."""
    rows = list(rows)
    if quantity != "time":
        return UNITS[quantity]
    if per_launch(rows):
        return "GPU µs per launch"
    return "GPU ms" if (in_ms(rows) if millis is None else millis) else "GPU µs"


def title(quantity: str, rows, where: str) -> str:
    """A panel's title: 'GPU µs per launch at 1,024 elements (a graph's per kernel node)' (pure)."""
    rows = list(rows)
    text = f"{unit(quantity, rows)} {where}"
    if quantity == "time" and per_launch(rows) and any(getattr(r, "graph", None) is not None for r in rows):
        text += " (a graph's per kernel node)"
    return text
