"""Claims: an entry's expectations, checked against every device and size it was measured on.

A claim holds, fails, or cannot be evaluated (no counter data, a size the
claim is not about); every verdict carries the numbers that decide it.
"""

from __future__ import annotations

from dataclasses import dataclass

from glossary import figures
from glossary.pages import DeviceView, SizeView
from measure.spec import Claim, MeasureSpec

PAST_L2_FACTOR = 4  # a size is "past the L2" when its working set is at least this many L2s


@dataclass(frozen=True)
class ClaimVerdict:
    claim: Claim
    device: str
    elements: int
    status: str  # "holds", "fails" or "n/a"
    statement: str  # what is claimed, in words
    numbers: str  # the figures that decide it

    @property
    def failed(self) -> bool:
        return self.status == "fails"


def describe(claim: Claim, spec: MeasureSpec) -> str:
    """The claim in words, e.g. 'staged / fused matches the byte ratio within 10%'."""
    tol = f"{100 * claim.tolerance:.0f}%"
    if claim.kind == "speedup_matches_bytes":
        return f"{claim.num} / {claim.den} time ratio matches the byte ratio within {tol}"
    if claim.kind == "counter_bytes_match":
        return f"DRAM counter bytes of {claim.variant} match the prediction within {tol}"
    return f"{claim.variant} reaches at least {100 * claim.at_least:.0f}% of the copy floor"


def evaluate(spec: MeasureSpec, device: DeviceView) -> list[ClaimVerdict]:
    """Every claim of ``spec`` at every size ``device`` recorded."""
    out = []
    for claim in spec.claims:
        for size in device.sizes:
            out.append(_evaluate(claim, spec, device, size))
    return out


def _evaluate(claim: Claim, spec: MeasureSpec, device: DeviceView, size: SizeView) -> ClaimVerdict:
    statement = describe(claim, spec)

    def verdict(status: str, numbers: str) -> ClaimVerdict:
        return ClaimVerdict(claim, device.gpu, size.elements, status, statement, numbers)

    if claim.sizes == "past_l2" and device.l2_bytes and size.working_set_bytes:
        if size.working_set_bytes < PAST_L2_FACTOR * device.l2_bytes:
            return verdict("n/a", f"working set {figures.fmt_bytes(size.working_set_bytes)} is under "
                                  f"{PAST_L2_FACTOR}× the L2 ({figures.fmt_bytes(device.l2_bytes)})")
    rows = {r.name: r for r in size.rows}
    if claim.kind == "speedup_matches_bytes":
        num, den = rows.get(claim.num), rows.get(claim.den)
        if num is None or den is None:
            return verdict("n/a", "a variant was not measured at this size")
        speed = num.ms / den.ms
        predicted = num.bytes_per_elem / den.bytes_per_elem
        off = speed / predicted - 1
        return verdict("holds" if abs(off) <= claim.tolerance else "fails",
                       f"time ratio {speed:.2f} against byte ratio {predicted:.2f} ({off:+.1%})")
    if claim.kind == "counter_bytes_match":
        row = rows.get(claim.variant)
        if row is None or row.counted_bytes_per_elem is None:
            return verdict("n/a", "no DRAM counter data at this size")
        off = row.counted_bytes_per_elem / row.bytes_per_elem - 1
        return verdict("holds" if abs(off) <= claim.tolerance else "fails",
                       f"counted {row.counted_bytes_per_elem:.1f} B/elem against {figures.fmt_bpe(row.bytes_per_elem)} "
                       f"predicted ({off:+.1%})")
    row = rows.get(claim.variant)
    if row is None or row.fraction_of_floor is None:
        return verdict("n/a", "no copy floor recorded at this size")
    return verdict("holds" if row.fraction_of_floor >= claim.at_least else "fails",
                   f"{row.gbps:.1f} GB/s is {row.fraction_of_floor:.0%} of the {size.copy_floor_gbps:.1f} GB/s floor")


@dataclass(frozen=True)
class ClaimSummary:
    """One claim on one device, over all its sizes: the row the page shows."""

    statement: str
    status: str  # "fails" if any size fails, else "holds" if any holds, else "n/a"
    evaluated: tuple[ClaimVerdict, ...]
    skipped: tuple[ClaimVerdict, ...]

    @property
    def skipped_note(self) -> str:
        if not self.skipped:
            return ""
        reasons = sorted({"working set under " + v.numbers.split(" is under ")[-1] if " is under " in v.numbers
                          else v.numbers for v in self.skipped})
        return f"{len(self.skipped)} size(s) not evaluated: " + "; ".join(reasons)


def summarize(verdicts: list[ClaimVerdict]) -> list[ClaimSummary]:
    """Group one device's verdicts by claim, keeping the spec's order."""
    groups: dict[int, list[ClaimVerdict]] = {}
    order: list[int] = []
    for v in verdicts:
        key = id(v.claim)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(v)
    out = []
    for key in order:
        group = groups[key]
        evaluated = tuple(v for v in group if v.status != "n/a")
        status = ("fails" if any(v.failed for v in evaluated)
                  else "holds" if evaluated else "n/a")
        out.append(ClaimSummary(group[0].statement, status, evaluated,
                                tuple(v for v in group if v.status == "n/a")))
    return out
