"""Claims: an entry's expectations, checked against every device and size it was measured on.

A claim holds, fails, or cannot be evaluated (no counter data, a size the
claim is not about); every verdict carries the numbers that decide it.
"""

from __future__ import annotations

from dataclasses import dataclass

from glossary.figures import fmt
from glossary.figures.views import DeviceView, SizeView, VariantRow, counted_ratio
from measure import stats
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
    if claim.at_most is not None:
        return _describe_at_most(claim) + _size_note(claim)
    text = {
        "speedup_matches_bytes": f"{claim.num} / {claim.den} time ratio matches the byte ratio within {tol}",
        "speedup_matches_counted": f"{claim.num} / {claim.den} time ratio matches the ratio of DRAM bytes "
                                   f"counted within {tol}",
        "counter_bytes_match": f"DRAM counter bytes of {claim.variant} match the prediction within {tol}",
        "fraction_of_floor": f"{claim.variant} reaches at least {100 * claim.at_least:.0f}% of the copy floor",
        "overfetch": f"DRAM moves at least {claim.at_least:g}× the useful bytes of {claim.variant}",
        "fraction_of_roof": f"{claim.variant} reaches at least {100 * claim.at_least:.0f}% of the measured "
                            f"roofline at its intensity",
        "launch_bound": f"{claim.variant} takes the host at least {claim.at_least:g}× its GPU time",
    }[claim.kind]
    return text + _size_note(claim)


def _describe_at_most(claim: Claim) -> str:
    return {
        "fraction_of_floor": f"{claim.variant} stays at or below {100 * claim.at_most:.0f}% of the copy floor",
        "overfetch": f"DRAM moves at most {claim.at_most:g}× the useful bytes of {claim.variant}",
        "fraction_of_roof": f"{claim.variant} stays at or below {100 * claim.at_most:.0f}% of the measured "
                            f"roofline at its intensity",
        "launch_bound": f"{claim.variant} takes the host at most {claim.at_most:g}× its GPU time",
    }[claim.kind]


def _size_note(claim: Claim) -> str:
    return f" (at {stats.size_label(dict(claim.size))})" if claim.size is not None else ""


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

    if claim.size is not None and dict(claim.size) != dict(size.params):
        return verdict("n/a", f"the claim is about {stats.size_label(dict(claim.size))} only")
    if claim.sizes == "past_l2" and device.l2_bytes and size.working_set_bytes:
        if size.working_set_bytes < PAST_L2_FACTOR * device.l2_bytes:
            return verdict("n/a", f"working set {fmt.fmt_bytes(size.working_set_bytes)} is under "
                                  f"{PAST_L2_FACTOR}× the L2 ({fmt.fmt_bytes(device.l2_bytes)})")
    status, numbers = _JUDGES[claim.kind](claim, size, {r.name: r for r in size.rows})
    return verdict(status, numbers)


def _within(off: float, claim: Claim) -> str:
    return "holds" if abs(off) <= claim.tolerance else "fails"


def _reaches(value: float, claim: Claim) -> str:
    """The verdict of a bounded claim: at least ``at_least``, or at most ``at_most`` where given."""
    if claim.at_most is not None:
        return "holds" if value <= claim.at_most else "fails"
    return "holds" if value >= claim.at_least else "fails"


def _speedup_bytes(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    num, den = rows.get(claim.num), rows.get(claim.den)
    if num is None or den is None:
        return "n/a", "a variant was not measured at this size"
    speed = num.ms / den.ms
    predicted = num.bytes_per_elem / den.bytes_per_elem
    off = speed / predicted - 1
    return _within(off, claim), f"time ratio {speed:.2f} against byte ratio {predicted:.2f} ({off:+.1%})"


def _speedup_counted(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    num, den = rows.get(claim.num), rows.get(claim.den)
    if num is None or den is None:
        return "n/a", "a variant was not measured at this size"
    moved = counted_ratio(num, den)
    if moved is None:
        return "n/a", "no DRAM counter data at this size"
    speed = num.ms / den.ms
    off = speed / moved - 1
    return _within(off, claim), f"time ratio {speed:.2f} against counted byte ratio {moved:.2f} ({off:+.1%})"


def _row_with(claim: Claim, rows: dict[str, VariantRow], attr: str) -> VariantRow | None:
    """The claim's variant at this size, where it has ``attr``; else None (the claim is n/a there)."""
    row = rows.get(claim.variant)
    return row if row is not None and getattr(row, attr) is not None else None


def _counter_bytes(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = _row_with(claim, rows, "counted_bytes_per_elem")
    if row is None:
        return "n/a", "no DRAM counter data at this size"
    off = row.counted_bytes_per_elem / row.bytes_per_elem - 1
    return _within(off, claim), (f"counted {row.counted_bytes_per_elem:.1f} B/elem against "
                                 f"{fmt.fmt_bpe(row.bytes_per_elem)} predicted ({off:+.1%})")


def _of_floor(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = _row_with(claim, rows, "fraction_of_floor")
    if row is None:
        return "n/a", "no copy floor recorded at this size"
    return (_reaches(row.fraction_of_floor, claim),
            f"{row.gbps:.1f} GB/s is {row.fraction_of_floor:.0%} of the {size.copy_floor_gbps:.1f} GB/s floor")


def _overfetch(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = _row_with(claim, rows, "overfetch")
    if row is None:
        return "n/a", "no DRAM counter data at this size"
    return (_reaches(row.overfetch, claim),
            f"counted {row.counted_bytes_per_elem:.1f} B/elem for {fmt.fmt_bpe(row.useful_bytes)} useful "
            f"({row.overfetch:.2f}×)")


def _of_roof(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    roof = size.roofline
    fraction = roof.fraction(row) if roof is not None and row is not None else None
    if fraction is None:
        return "n/a", "no roofline at this size (no GFLOP/s or no copy floor)"
    return (_reaches(fraction, claim),
            f"{row.gflops:.1f} GFLOP/s at {row.intensity:.3g} FLOP/B is {fraction:.0%} of the roof's "
            f"{roof.roof(row.intensity):.1f} ({roof.bound(row)}-bound; ridge {roof.ridge:.3g} FLOP/B)")


def _launch_bound(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    if row is None or row.host_ms is None:
        return "n/a", "no host time recorded at this size"
    factor = row.host_ms / row.ms
    return (_reaches(factor, claim),
            f"host {fmt.fmt_ms(row.host_ms)} ms against GPU {fmt.fmt_ms(row.ms)} ms ({factor:.2f}×)")


_JUDGES = {
    "speedup_matches_bytes": _speedup_bytes,
    "speedup_matches_counted": _speedup_counted,
    "counter_bytes_match": _counter_bytes,
    "fraction_of_floor": _of_floor,
    "overfetch": _overfetch,
    "fraction_of_roof": _of_roof,
    "launch_bound": _launch_bound,
}


@dataclass(frozen=True)
class ClaimSummary:
    """One claim on one device, over all its sizes: the row the page shows."""

    statement: str
    status: str  # "fails" if any size fails, else "holds" if any holds, else "n/a"
    evaluated: tuple[ClaimVerdict, ...]
    skipped: tuple[ClaimVerdict, ...]
    expected_failure: str | None = None  # the entry's reason, signed by its reviewer, where it fails on purpose

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
                                tuple(v for v in group if v.status == "n/a"),
                                expected_failure=group[0].claim.expected_failure))
    return out
