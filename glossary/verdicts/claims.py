"""Claims: an entry's expectations, checked against every device and size it was measured on.

A claim holds, fails, or cannot be evaluated (no counter data, a size the
claim is not about); every verdict carries the numbers that decide it.
"""

from __future__ import annotations

from dataclasses import dataclass

from glossary.figures import fmt
from glossary.figures.views import DeviceView, SizeView, VariantRow, counted_ratio
from glossary.verdicts.claim_kinds import (METRIC_JUDGES, NEW_KINDS, and_ as _and, describe_new, expand, reaches as _reaches,
                                           scope_note as _scope_note, time_ratio as _time_ratio)
from glossary.verdicts.host_claims import HOST_JUDGES, HOST_KINDS, describe_host
from glossary.verdicts.sass_claims import describe_sass, judge_sass
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
    size: str = ""  # the size as the page names it (SizeView.size_cell: '8192 × 8192'); '' for the element count

    @property
    def failed(self) -> bool:
        return self.status == "fails"

    @property
    def size_text(self) -> str:
        """Where the verdict was judged, as the page's sweep tables name the size."""
        return self.size or fmt.fmt_int(self.elements)


def describe(claim: Claim, spec: MeasureSpec) -> str:
    """The claim in words, e.g. 'staged / fused matches the byte ratio within 10%'."""
    tol = f"{100 * claim.tolerance:.0f}%"
    num, den, variant = (short_name(spec, n) for n in (claim.num, claim.den, claim.variant))
    if claim.kind in NEW_KINDS:
        return describe_new(claim, spec, num, den, variant) + _size_note(claim) + _scope_note(claim)
    if claim.kind in HOST_KINDS:
        return describe_host(claim, variant) + _size_note(claim) + _scope_note(claim)
    if claim.kind == "sass":
        return describe_sass(claim, variant) + _scope_note(claim)
    if claim.at_most is not None:
        return _describe_at_most(claim, variant) + _size_note(claim) + _scope_note(claim)
    text = {
        "speedup_matches_bytes": f"{num} / {den} time ratio matches the byte ratio within {tol}",
        "speedup_matches_counted": f"{num} / {den} time ratio matches the ratio of DRAM bytes "
                                   f"counted within {tol}",
        "counter_bytes_match": f"DRAM counter bytes of {variant} match the prediction within {tol}",
        "fraction_of_floor": f"{variant} reaches at least {100 * claim.lower:.0f}% of the copy floor",
        "overfetch": f"DRAM moves at least {claim.lower:g}× the useful bytes of {variant}",
        "fraction_of_roof": f"{variant} reaches at least {100 * claim.lower:.0f}% of the measured "
                            f"roofline at its intensity",
        "launch_bound": f"{variant} takes the host at least {claim.lower:g}× its GPU time",
    }[claim.kind]
    return text + _size_note(claim) + _scope_note(claim)


def _describe_at_most(claim: Claim, variant: str | None) -> str:
    return {
        "fraction_of_floor": f"{variant} stays at or below {100 * claim.at_most:.0f}% of the copy floor",
        "overfetch": f"DRAM moves at most {claim.at_most:g}× the useful bytes of {variant}",
        "fraction_of_roof": f"{variant} stays at or below {100 * claim.at_most:.0f}% of the measured "
                            f"roofline at its intensity",
        "launch_bound": f"{variant} takes the host at most {claim.at_most:g}× its GPU time",
    }[claim.kind]


def short_name(spec: MeasureSpec, name: str | None) -> str | None:
    """A variant as tight spaces name it: the spec's short form, else its label; a sweep point's
    with its point ('grid-stride copy, block 128') (pure)."""
    for v in spec.variants:
        if v.name == name:
            return v.short or v.label
    for v in spec.measured_variants:
        if v.name == name:
            return v.short or v.label
    return name


def _size_note(claim: Claim) -> str:
    return f" (at {fmt.params(dict(claim.size))})" if claim.size is not None else ""


def evaluate(spec: MeasureSpec, device: DeviceView) -> list[ClaimVerdict]:
    """Every claim of ``spec`` at every size ``device`` recorded; a claim naming a swept variant
    once per point it stands for (``expand``)."""
    out = []
    for written in spec.claims:
        # out of scope here: one line for the claim as written, not one per point it stands for
        scoped = written.applies_to(device.gpu, device.environment.arch) is not None
        for claim in [written] if scoped else expand(written, spec):
            statement = describe(claim, spec)
            if claim.kind == "sass":  # the compiled code is one per device, whatever the size
                scope = claim.applies_to(device.gpu, device.environment.arch)
                status, numbers = ("n/a", scope) if scope is not None else judge_sass(claim, device.sass)
                out.append(ClaimVerdict(claim, device.gpu, 0, status, statement, numbers))
                continue
            for size in device.sizes:
                out.append(_evaluate(claim, spec, device, size, statement))
    return out


def _evaluate(claim: Claim, spec: MeasureSpec, device: DeviceView, size: SizeView,
              statement: str | None = None) -> ClaimVerdict:
    statement = describe(claim, spec) if statement is None else statement

    def verdict(status: str, numbers: str) -> ClaimVerdict:
        return ClaimVerdict(claim, device.gpu, size.elements, status, statement, numbers, size.size_cell)

    scope = claim.applies_to(device.gpu, device.environment.arch)
    if scope is not None:
        return verdict("n/a", scope)
    if claim.size is not None and dict(claim.size) != dict(size.params):
        return verdict("n/a", f"the claim is about {fmt.params(dict(claim.size))} only")
    if claim.sizes == "past_l2" and device.l2_bytes and size.working_set_bytes:
        if size.working_set_bytes < PAST_L2_FACTOR * device.l2_bytes:
            return verdict("n/a", f"working set {fmt.fmt_bytes(size.working_set_bytes)} is under "
                                  f"{PAST_L2_FACTOR}× the L2 ({fmt.fmt_bytes(device.l2_bytes)})")
    if claim.kind in ("metric_bound", "metric_matches"):
        status, numbers = METRIC_JUDGES[claim.kind](claim, spec, {r.name: r for r in size.rows})
    else:
        status, numbers = _JUDGES[claim.kind](claim, size, {r.name: r for r in size.rows})
    return verdict(status, numbers)


def _within(off: float, claim: Claim) -> str:
    return "holds" if abs(off) <= claim.tolerance else "fails"


def _speedup_bytes(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    num, den = rows.get(claim.num), rows.get(claim.den)
    if num is None or den is None:
        return "n/a", "a variant was not measured at this size"
    speed = num.ms / den.ms
    predicted = num.bytes_per_elem / den.bytes_per_elem
    off = speed / predicted - 1
    return _within(off, claim), f"time ratio {fmt.ratio(speed)} against byte ratio {fmt.ratio(predicted)} ({off:+.1%})"


def _speedup_counted(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    num, den = rows.get(claim.num), rows.get(claim.den)
    if num is None or den is None:
        return "n/a", "a variant was not measured at this size"
    moved = counted_ratio(num, den)
    if moved is None:
        return "n/a", "no DRAM counter data at this size"
    speed = num.ms / den.ms
    off = speed / moved - 1
    return _within(off, claim), f"time ratio {fmt.ratio(speed)} against counted byte ratio {fmt.ratio(moved)} ({off:+.1%})"


def _row_with(claim: Claim, rows: dict[str, VariantRow], attr: str) -> VariantRow | None:
    """The claim's variant at this size, where it has ``attr``; else None (the claim is n/a there)."""
    row = rows.get(claim.variant)
    return row if row is not None and getattr(row, attr) is not None else None


def _counter_bytes(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = _row_with(claim, rows, "counted_bytes_per_elem")
    if row is None:
        return "n/a", "no DRAM counter data at this size"
    off = row.counted_bytes_per_elem / row.bytes_per_elem - 1
    return _within(off, claim), (f"counted {fmt.fmt_bpe1(row.counted_bytes_per_elem)} B/elem (caches flushed) against "
                                 f"{fmt.fmt_bpe(row.bytes_per_elem)} predicted ({off:+.1%})")


def _of_floor(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = _row_with(claim, rows, "fraction_of_floor")
    if row is None:
        return "n/a", "no copy floor recorded at this size"
    return (_reaches(row.fraction_of_floor, claim),
            f"{fmt.rate(row.gbps)} is {fmt.percent(row.fraction_of_floor)} of the {fmt.rate(size.copy_floor_gbps)} floor")


def _overfetch(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = _row_with(claim, rows, "overfetch")
    if row is None:
        return "n/a", "no DRAM counter data at this size"
    return (_reaches(row.overfetch, claim),
            f"counted {fmt.fmt_bpe1(row.counted_bytes_per_elem)} B/elem (caches flushed) for {fmt.fmt_bpe(row.useful_bytes)} useful "
            f"({fmt.ratio(row.overfetch)})")


def _of_roof(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    roof = size.roofline
    fraction = roof.fraction(row) if roof is not None and row is not None else None
    if fraction is None:
        return "n/a", "no roofline at this size (no FLOP rate, no copy floor, or no measure.roof saying where the compute ceiling comes from)"
    return (_reaches(fraction, claim),
            f"{fmt.flops(row.gflops)} at {fmt.significant(row.intensity, 3)} FLOP/B is {fmt.percent(fraction)} "
            f"of the roof's {fmt.flops(roof.roof(row.intensity))} ({roof.bound(row)}-bound; "
            f"ridge {fmt.significant(roof.ridge, 3)} FLOP/B)")


def _launch_bound(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    if row is None or row.host_ms is None:
        return "n/a", "no host time recorded at this size"
    factor = row.host_ms / row.ms
    return (_reaches(factor, claim),
            f"host {fmt.duration(row.host_ms)} against GPU {fmt.duration(row.ms)} ({fmt.ratio(factor)})")


_JUDGES = {
    "speedup_matches_bytes": _speedup_bytes,
    "speedup_matches_counted": _speedup_counted,
    "counter_bytes_match": _counter_bytes,
    "fraction_of_floor": _of_floor,
    "overfetch": _overfetch,
    "fraction_of_roof": _of_roof,
    "launch_bound": _launch_bound,
    "time_ratio": _time_ratio,
    **HOST_JUDGES,
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
        """Which sizes were not evaluated and why, one reason per size: sizes that share a reason
        are listed together ('not evaluated at 1,048,576 and 4,194,304: working set …')."""
        if not self.skipped:
            return ""
        by_reason: dict[str, list[str]] = {}
        for v in self.skipped:
            reason = "working set under " + v.numbers.split(" is under ")[-1] if " is under " in v.numbers else v.numbers
            by_reason.setdefault(reason, []).append(v.size_text)
        # a claim about one size is not "not evaluated" at the others: it says what it is about
        return "; ".join(reason if reason.startswith("the claim is about") else
                         f"not evaluated at {_and(sizes)}: {reason}" for reason, sizes in by_reason.items())

    @property
    def skipped_reasons(self) -> str:
        """Why a claim evaluated nowhere was not: the one reason, or each reason with its sizes."""
        by_reason: dict[str, list[str]] = {}
        for v in self.skipped:
            by_reason.setdefault(v.numbers, []).append(v.size_text)
        if len(by_reason) == 1:
            return next(iter(by_reason))
        return "; ".join(f"at {_and(sizes)}: {reason}" for reason, sizes in by_reason.items())

    @property
    def first_failure(self) -> "ClaimVerdict | None":
        """The smallest size where the claim fails: its numbers explain the verdict."""
        failed = [v for v in self.evaluated if v.failed]
        return min(failed, key=lambda v: v.elements) if failed else None


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


def tally(summaries: list[ClaimSummary]) -> str:
    """The claims of one device in a few words: '3 of 4 claims hold', '2 of 5 claims hold, 3 not
    evaluated here', '3 of 5 claims hold, 1 fails, 1 fails as expected' (pure)."""
    if not summaries:
        return ""
    total = len(summaries)
    holds = sum(c.status == "holds" for c in summaries)
    expected = sum(c.status == "fails" and bool(c.expected_failure) for c in summaries)
    fails = sum(c.status == "fails" for c in summaries) - expected
    unjudged = total - holds - fails - expected
    text = f"{holds} of {total} claim{'s' if total != 1 else ''} hold{'s' if total == 1 else ''}"
    if fails:
        text += f", {fails} fail{'s' if fails == 1 else ''}"
    if expected:
        text += f", {expected} fail{'s' if expected == 1 else ''} as expected"
    return text + (f", {unjudged} not evaluated here" if unjudged else "")
