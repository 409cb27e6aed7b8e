"""The roofline of one size: the copy floor as the bandwidth ceiling and a compute ceiling that is not
the kernel under study (the spec's ``roof``: a peer measured in the same run, or a cited peak)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from glossary.figures.views import VariantRow


@dataclass(frozen=True)
class Roofline:
    """The measured roofline of one size: the copy floor as the bandwidth ceiling, a compute ceiling
    that is not the kernel under study's own rate (a peer measured in the same run, or a cited
    peak: ``source`` says which), and the ridge point between them."""

    bandwidth_gbps: float
    compute_gflops: float
    compute_variant: str  # the peer's short name, or the cited source's title
    source: str = "peer"  # "peer" (measured in the same run) or "cited"
    peer: str | None = None  # the peer's variant name, where measured

    @property
    def ridge(self) -> float:
        """FLOP per byte where the two ceilings meet."""
        return self.compute_gflops / self.bandwidth_gbps

    @property
    def compute_text(self) -> str:
        """Where the compute ceiling comes from, in words: 'a tuned peer measured in the same run
        (ILP 8)', 'a cited peak (NVIDIA H100 ... whitepaper)'."""
        if self.source == "cited":
            return f"a peak cited from {self.compute_variant}, not measured here"
        return f"the peer {self.compute_variant}, measured in the same run"

    def roof(self, intensity: float) -> float:
        """Attainable GFLOP/s at ``intensity`` FLOP/byte: min(bandwidth x intensity, compute)."""
        return min(self.bandwidth_gbps * intensity, self.compute_gflops)

    def fraction(self, row: "VariantRow") -> float | None:
        """The row's GFLOP/s over the roof at its intensity."""
        if row.gflops is None or row.intensity is None:
            return None
        return row.gflops / self.roof(row.intensity)

    def bound(self, row: "VariantRow") -> str | None:
        """'memory' left of the ridge, 'compute' right of it."""
        if row.intensity is None:
            return None
        return "memory" if row.intensity < self.ridge else "compute"


def roofline(rows: tuple["VariantRow", ...] | list["VariantRow"], floor_gbps: float | None,
             roof=None, sources=()) -> Roofline | None:
    """The roofline of a size, where variants report FLOPs, a copy floor was measured and the spec
    says where the compute ceiling comes from (``roof``: a peer variant, or a cited peak with the
    id of one of ``sources``).  Without ``roof`` there is no ceiling to draw: the best variant's own
    rate would put it at 100% of the roof by construction."""
    rated = [r for r in rows if r.gflops is not None]
    if not rated or not floor_gbps or roof is None:
        return None
    if roof.peak_tflops is not None:
        title = next((s.title for s in sources if s.id == roof.source), roof.source)
        return Roofline(bandwidth_gbps=floor_gbps, compute_gflops=1000 * roof.peak_tflops,
                        compute_variant=title, source="cited")
    peer = next((r for r in rated if r.name == roof.peer), None)
    if peer is None:
        return None
    return Roofline(bandwidth_gbps=floor_gbps, compute_gflops=peer.gflops, compute_variant=peer.short,
                    source="peer", peer=peer.name)
