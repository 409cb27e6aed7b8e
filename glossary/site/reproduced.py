"""What a page says under a device's Measured table about other nodes' reproductions of its record.

Only reproductions that count (``glossary.verdicts.reproductions.Checked.counted``) appear: the
agreeing ones in one sentence ("Reproduced on 2 other H200 nodes: every figure past 4× the L2
within 0.4%; inside the L2 within 3.1%"), each disagreeing one in a warning of its own that names
the numbers outside their tolerance, and every one's node, date and environment in a details
block.  The record's figures above are never changed by any of it.  Pure: plain values out.
"""

from __future__ import annotations

from glossary.figures import fmt
from glossary.verdicts import agreement, reproductions
from measure.results import Result

SHOWN_OUTSIDE = 2  # numbers named per disagreeing reproduction, the worst first; the rest are counted
# (five made a 30-line warning at 420 px on cuda-graphs; the details block has the regimes)


def items(entry, records: dict[str, Result], checked) -> dict[str, dict]:
    """Device key -> what the template shows for its reproductions (devices without any left out)."""
    out: dict[str, dict] = {}
    for key in sorted({c.device for c in checked if c.counted}):
        these = [c for c in checked if c.counted and c.device == key]
        gpu = records[key].environment.gpu if key in records else key
        agreeing = [c for c in these if c.status == "agrees"]
        out[key] = {
            "sentence": _sentence(gpu, agreeing),
            "disagreeing": [_disagreeing(c) for c in these if c.status == "disagrees"],
            "rows": [_row(entry, records.get(key), c) for c in these],
        }
    return out


def _sentence(gpu: str, agreeing) -> str:
    if not agreeing:
        return ""
    model = gpu.removeprefix("NVIDIA ").strip() or gpu
    nodes = f"{len(agreeing)} other {model} node{'' if len(agreeing) == 1 else 's'}"
    return f"Reproduced on {nodes}: {worst_per_regime(a.agreement for a in agreeing)}"


def worst_per_regime(agreements) -> str:
    """The worst difference per regime over several reproductions, in the order past 4x the L2 first."""
    worst: dict[str, float] = {}
    for a in agreements:
        for g in a.regimes():
            worst[g.regime] = max(worst.get(g.regime, 0.0), g.worst)
    parts = [f"{agreement.REGIME_TEXT[r]} within {agreement.percent(worst[r])}" for r in agreement.REGIMES
             if r in worst]
    return "; ".join(("every figure " + p) if i == 0 else p for i, p in enumerate(parts))


def _disagreeing(c: reproductions.Checked) -> dict:
    outside = sorted(c.agreement.outside, key=lambda n: -n.difference)
    named = [f"{n.where}: {'not measured' if n.ratio is None else fmt.ratio(n.ratio) + ' of the record'} "
             f"(agreement expected within {agreement.percent(n.tolerance)})" for n in outside[:SHOWN_OUTSIDE]]
    if len(outside) > SHOWN_OUTSIDE:
        named.append(f"and {len(outside) - SHOWN_OUTSIDE} more")
    return {"node": c.node, "captured_on": c.captured_on, "count": len(outside), "total": len(c.agreement.numbers),
            "numbers": named}


def _row(entry, record: Result | None, c: reproductions.Checked) -> dict:
    env = c.result.environment
    claims_text = ""
    if record is not None:
        both = reproductions.claims_both(entry, c.device, record, c.result)
        judged = [(s, a, b) for s, a, b in both if a != "n/a" or b != "n/a"]
        same = sum(a == b for _, a, b in judged)
        claims_text = (f"{same} of {len(judged)} claim{'' if len(judged) == 1 else 's'} judged alike"
                       if judged else "no claim judged")
        claims_text += "".join(f"; {s}: {a} on the record, {b} here" for s, a, b in judged if a != b)
    return {
        "node": c.node, "signed_by": c.signer or c.node, "captured_on": c.captured_on,
        "verdict": "agrees" if c.status == "agrees" else "disagrees",
        "environment": ", ".join(part for part in (
            f"driver {env.driver}" if env.driver else "", f"CUDA {env.cuda_driver}" if env.cuda_driver else "",
            env.nvcc or "", f"harness {env.harness_version}" if env.harness_version else "",
            f"card {env.pci_bus_id}" if env.pci_bus_id else "", env.platform or "") if part),
        "regimes": "; ".join(f"{g.text}: worst {agreement.percent(g.worst)} of {g.count} "
                             f"(tolerance {g.tolerance_text})" for g in c.agreement.regimes()),
        "claims": claims_text,
    }
