"""What the recorded results say about an entry, in sentences: one list for the build's
WARNINGs and for `glossary check`, so the two never disagree."""

from __future__ import annotations

from dataclasses import dataclass

from glossary import bind, claims, pages
from glossary.claims import ClaimVerdict
from glossary.model import Entry
from glossary.pages import DeviceView


@dataclass(frozen=True)
class Measured:
    """What an entry's recorded results give its page: device views, the body with its
    figures bound, the figures that found no data, and every claim's verdict."""

    devices: tuple[DeviceView, ...]
    body: str
    figure_problems: tuple[str, ...]
    claims: tuple[ClaimVerdict, ...]

    def findings(self, entry: Entry) -> list[tuple[str, str]]:
        return measurement_findings(entry, self.devices, self.figure_problems, self.claims)


def collect(entry: Entry, results: dict[str, dict]) -> Measured:
    """Derive everything the results say about ``entry`` (the build and `glossary check` share this)."""
    devices = tuple(pages.device_views(entry, results))
    spec = entry.meta.measure
    predicted = {v.name: v.bytes_per_elem for v in spec.variants} if spec else {}
    body, problems = bind.render_body(entry.body, devices, predicted, spec.variants if spec else ())
    verdicts = tuple(v for d in devices for v in claims.evaluate(spec, d)) if spec else ()
    return Measured(devices, body, tuple(problems), verdicts)


def measurement_findings(entry: Entry, devices: tuple[DeviceView, ...] | list[DeviceView],
                         figure_problems: tuple[str, ...] | list[str],
                         claim_verdicts: tuple[ClaimVerdict, ...] | list[ClaimVerdict]) -> list[tuple[str, str]]:
    """(area, message) for every warning the results raise: missing, stale or failed
    measurements, bound figures without data, and claims that fail."""
    out = []
    if entry.meta.measure is not None and not any(d.status == "ok" for d in devices):
        out.append(("results", "has a measurement spec but no recorded results; measure it on the "
                               "verification node (mkdocs build there, or glossary measure)"))
    for d in devices:
        if d.stale:
            out.append(("results", f"results for {d.gpu} (captured {d.captured_on}) are stale: the spec, kernels "
                                   f"or harness changed since; re-measure on the verification node"))
        if d.status != "ok":
            out.append(("results", f"the measurement on {d.gpu} failed: {d.error}"))
    out += [("figures", why if why.startswith(("the body", "cannot render")) else f"a bound figure has no data: {why}")
            for why in figure_problems]
    out += [("claims", f"claim fails on {v.device} at {v.elements:,} elements: {v.statement}: {v.numbers}")
            for v in claim_verdicts if v.failed]
    return out
