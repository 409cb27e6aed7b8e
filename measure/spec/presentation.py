"""Spec keys that decide how results are shown and judged, never what is measured: where a roofline's
compute ceiling comes from (``Roof``), what a page leads with (``QUANTITIES``) and how closely a
reproduction must agree (``Agreement``).  They stay out of the measurement fingerprint
(``measure.results.identity.PRESENTATION_KEYS``)."""

from __future__ import annotations

from dataclasses import dataclass

from measure.typed import SchemaError, doc


@dataclass(frozen=True)
class Roof:
    """Where a roofline's compute ceiling comes from: a peer measured in the same run, or a peak
    cited from one of the entry's sources; never the kernel under study's own rate."""

    peer: str | None = doc("a variant of this spec, a tuned peer measured in the same run, whose "
                           "FLOP rate at each size is the ceiling (the page calls it the peer)", default=None)
    peak_tflops: float | None = doc("a cited peak FLOP rate in TFLOP/s, e.g. 989.4; needs source",
                                    default=None)
    source: str | None = doc("the id of the entry's source the peak is cited from", default=None)

    def validate(self) -> None:
        if (self.peer is None) == (self.peak_tflops is None):
            raise SchemaError("peer", "expected exactly one of peer (a variant measured in the same run) "
                                      "or peak_tflops (a cited peak, with its source)")
        if self.peak_tflops is not None:
            if not self.peak_tflops > 0:
                raise SchemaError("peak_tflops", f"expected a positive TFLOP/s, found {self.peak_tflops}")
            if not self.source:
                raise SchemaError("source", "a cited peak names the id of the source it is cited from")
        elif self.source is not None:
            raise SchemaError("source", "only a cited peak (peak_tflops) takes a source")


# What a page leads with (the spec's `quantity`): the headline table's rate column and the first
# plot panel; "auto" works it out from the data (glossary.figures.quantity).
QUANTITIES = ("auto", "gbps", "tflops", "time")


@dataclass(frozen=True)
class Agreement:
    """How closely a reproduction on another node of the same model must agree with the record, per
    size regime (``glossary.verdicts.agreement``); presentation and verification only, never part of
    the measurement fingerprint.  Unset, each number's tolerance comes from the stopping rule."""

    past_l2: float | None = doc(
        "the largest difference, as a fraction (0.004 is 0.4%), of any number at a size whose working "
        "set is at least 4x the L2; default: the two runs' 95% confidence intervals of the statistic, "
        "each at least the stopping rule's target_ci", default=None)
    inside_l2: float | None = doc(
        "the same for sizes under 4x the L2 (inside it, or between it and 4x), where re-measures move by "
        "several percent; default: the past-L2 default widened (glossary.verdicts.agreement.L2_WIDENING)",
        default=None)

    def validate(self) -> None:
        for key in ("past_l2", "inside_l2"):
            value = getattr(self, key)
            if value is not None and not 0 < value < 1:
                raise SchemaError(key, f"expected a fraction between 0 and 1 (0.004 is 0.4%), found {value}")
