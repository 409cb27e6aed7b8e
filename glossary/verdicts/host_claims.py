"""The claim kinds of issue 19: ``fraction_of_link`` (a variant's link GB/s against the link floor
of its copies' direction) and ``overlap`` (the share of its serial twin's time a multi-stream
variant's streams hid), each at least ``at_least`` (or at most ``at_most``).

``glossary.verdicts.claims`` judges every kind; this module holds these two: their words and
their judges.  Neither needs more of a claim than ``variant`` and a bound.
"""

from __future__ import annotations

from glossary.figures import fmt
from glossary.figures.host import DIRECTION_WORDS
from glossary.figures.views import SizeView, VariantRow
from glossary.verdicts.claim_kinds import reaches
from measure.spec import Claim

HOST_KINDS = ("fraction_of_link", "overlap")


def _bound(claim: Claim) -> tuple[str, float]:
    return ("at most", claim.at_most) if claim.at_most is not None else ("at least", claim.lower)


def describe_host(claim: Claim, variant: str | None) -> str:
    """fraction_of_link and overlap in words."""
    side, value = _bound(claim)
    if claim.kind == "fraction_of_link":
        if claim.at_most is not None:
            return f"{variant} stays at or below {fmt.percent(value)} of the link floor"
        return f"{variant} reaches at least {fmt.percent(value)} of the link floor"
    return f"the streams of {variant} hide {side} {fmt.percent(value)} of its serial time"


def _of_link(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    if row is None:
        return "n/a", "the variant was not measured at this size"
    if row.link_gbps is None:
        return "n/a", "no copies recorded at this size"
    if row.link_direction is None:
        return "n/a", "its copies cross the link both ways; the link floor is one direction's"
    if row.link_direction not in ("h2d", "d2h"):
        return "n/a", "its copies stay on the device; the link floor is the host link's"
    if row.of_link is None:
        return "n/a", "no link floor recorded at this size"
    return (reaches(row.of_link, claim),
            f"{fmt.rate(row.link_gbps)} {DIRECTION_WORDS[row.link_direction]} is {fmt.percent(row.of_link)} "
            f"of the {fmt.rate(row.link_floor_gbps)} link floor")


def _overlap(claim: Claim, size: SizeView, rows: dict[str, VariantRow]) -> tuple[str, str]:
    row = rows.get(claim.variant)
    if row is None:
        return "n/a", "the variant was not measured at this size"
    if row.overlap_fraction is None:
        return "n/a", "no serial twin recorded at this size (the steps run on one stream)"
    return (reaches(row.overlap_fraction, claim),
            f"overlap {fmt.percent(row.overlap_fraction)}: {fmt.duration(row.ms)} on "
            f"{row.streams or 'several'} streams against {fmt.duration(row.serial_ms)} serial")


HOST_JUDGES = {"fraction_of_link": _of_link, "overlap": _overlap}
