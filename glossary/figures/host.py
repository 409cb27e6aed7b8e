"""What issue 19's results add to the page model: copies against the link floor, steps on several
streams against their serial twin, variants replayed from a CUDA graph, and the host link.

``glossary.figures.views`` builds its rows and sizes with these: ``HostExtras`` adds a row's
copies, streams, overlap and graph (a row without them is left exactly as it was), and the
mixins give ``VariantRow``, ``SizeView`` and ``DeviceView`` what the tables, figures and claims
read.  Pure: no template, no I/O.
"""

from __future__ import annotations

import dataclasses

from measure import results
from measure.results.model import HostLink
from measure.results.sizes import GraphRecord, LinkFloor, Overlap

DIRECTIONS = ("h2d", "d2h", "d2d")
DIRECTION_WORDS = {"h2d": "host to device", "d2h": "device to host", "d2d": "device to device"}
LINK_DIRECTIONS = ("h2d", "d2h")  # the directions the link floor times


def floor_of(link: LinkFloor | None, direction: str | None) -> float | None:
    """The link floor's GB/s in ``direction`` (h2d or d2h); None for d2d or without a floor (pure)."""
    if link is None or direction not in LINK_DIRECTIONS:
        return None
    return link.h2d_gbps if direction == "h2d" else link.d2h_gbps


class RowHostMixin:
    """A row's copies, streams and graph; ``VariantRow`` holds the fields."""

    copies: tuple
    copy_bytes: tuple  # (direction, bytes) in one region, h2d, d2h, d2d order
    streams: int | None
    overlap: Overlap | None
    graph: GraphRecord | None
    link_floor_gbps: float | None
    ms: float
    launches: int | None

    @property
    def has_copies(self) -> bool:
        return bool(self.copies) or any(b for _, b in self.copy_bytes)

    @property
    def copy_directions(self) -> tuple[str, ...]:
        """The directions the variant copies in (bytes above 0), h2d, d2h, d2d order."""
        moved = dict(self.copy_bytes)
        if not moved:
            for c in self.copies:
                moved[c.direction] = moved.get(c.direction, 0) + c.bytes
        return tuple(d for d in DIRECTIONS if moved.get(d))

    @property
    def link_direction(self) -> str | None:
        """The one direction the variant's copies go; or, where some stay on the device, the one way the
        others cross the host link (as measure.spec.claims judges a fraction_of_link claim's variant)."""
        found = self.copy_directions
        if len(found) == 1:
            return found[0]
        host = [d for d in found if d in LINK_DIRECTIONS]
        return host[0] if len(host) == 1 else None

    @property
    def link_all(self) -> bool:
        """Whether the copies cross the link both ways, so the link rate is of all their bytes together."""
        return self.link_direction is None and len(self.copy_directions) > 1

    @property
    def link_partial(self) -> bool:
        """Whether the link rate is of one direction's copies while others stay on the device."""
        return self.link_direction is not None and len(self.copy_directions) > 1

    @property
    def link_label(self) -> str:
        """What the link rate counts, where not simply every copy: ' (all copies)', ' (host to device)'."""
        if self.link_all:
            return " (all copies)"
        return f" ({DIRECTION_WORDS[self.link_direction]})" if self.link_partial else ""

    @property
    def directions_text(self) -> str:
        """'host to device', or 'host to device, device to host' where the copies go several ways."""
        return ", ".join(DIRECTION_WORDS[d] for d in self.copy_directions) or "–"

    @property
    def link_bytes(self) -> int | None:
        """Bytes copied in one region: the link direction's (``link_direction``), else every copy's."""
        moved = dict(self.copy_bytes) or {d: sum(c.bytes for c in self.copies if c.direction == d) for d in DIRECTIONS}
        ways = (self.link_direction,) if self.link_direction else self.copy_directions
        return sum(moved.get(d, 0) for d in ways) or None

    @property
    def link_gbps(self) -> float | None:
        """Bytes copied over the variant's time, GB/s (10^9 bytes per second)."""
        moved = self.link_bytes
        return moved / self.ms / 1e6 if moved and self.ms else None

    @property
    def of_link(self) -> float | None:
        """The link rate over the link floor of its direction (copies one way, h2d or d2h)."""
        rate = self.link_gbps
        if rate is None or self.link_direction is None or not self.link_floor_gbps:
            return None
        return rate / self.link_floor_gbps

    @property
    def serial_ms(self) -> float | None:
        return self.overlap.serial_ms if self.overlap else None

    @property
    def overlap_fraction(self) -> float | None:
        """The share of the serial twin's time the streams hid: 1 - time / serial time."""
        return self.overlap.fraction if self.overlap else None

    @property
    def kernels(self) -> int | None:
        """Kernel launches in the region: its launches less its copies."""
        if self.launches is None:
            return None
        return self.launches - sum(c.copies for c in self.copies)

    @property
    def graph_nodes(self) -> int | None:
        return self.graph.nodes if self.graph else None

    @property
    def graph_instantiate_ms(self) -> float | None:
        return self.graph.instantiate_ms if self.graph else None

    @property
    def graph_instantiations(self) -> int | None:
        """Timed instantiations behind ``graph_instantiate_ms`` (after a warm-up); None where the
        record holds the first call's time alone (results before GRAPH_INSTANTIATION)."""
        samples = self.graph.instantiate_samples_ms if self.graph else None
        return len(samples) if samples else None

    @property
    def graph_instantiations_text(self) -> str:
        n = self.graph_instantiations
        return f"the median of {n} timed instantiations" if n else ""

    @property
    def graph_launch_us(self) -> float | None:
        """The host's time for one cuGraphLaunch call, µs (median over the replays)."""
        return self.graph.host_launch_us if self.graph else None

    @property
    def graph_per_kernel_us(self) -> float | None:
        """The host's time for one replay over the graph's kernel nodes, µs."""
        if self.graph_launch_us is None or not self.kernels:
            return None
        return self.graph_launch_us / self.kernels


class SizeHostMixin:
    """The copies, streams and graph tables of one size; ``SizeView`` holds the rows and link floor."""

    rows: tuple
    link_floor: LinkFloor | None

    @property
    def plot_floor(self) -> tuple[float | None, str]:
        """The floor a plot of this size draws, and its name: the link floor where every variant's
        bytes cross the host link (the link, not DRAM, is what they can hope for), of the one way
        they go or the faster where both; else the copy floor."""
        ways = [set(r.copy_directions) & {"h2d", "d2h"} for r in self.rows]
        if self.link_floor is not None and ways and all(ways):
            both = set().union(*ways)
            link = self.link_floor
            value = link.h2d_gbps if both == {"h2d"} else link.d2h_gbps if both == {"d2h"} else \
                max(link.h2d_gbps, link.d2h_gbps)
            return value, "link floor"
        return self.copy_floor_gbps, "copy floor"

    @property
    def copy_rows(self) -> tuple:
        return tuple(r for r in self.rows if r.has_copies)

    @property
    def overlap_rows(self) -> tuple:
        return tuple(r for r in self.rows if r.overlap is not None)

    @property
    def graph_rows(self) -> tuple:
        return tuple(r for r in self.rows if r.graph is not None)

    @property
    def graph_kernels_differ(self) -> bool:
        """Whether some graph holds nodes other than kernels (copies, events), so the table needs a
        kernels column beside the nodes; where every node is a kernel it would repeat the count."""
        return any(r.kernels != r.graph_nodes for r in self.graph_rows)

    @property
    def plain_launch_rows(self) -> tuple:
        """Variants launched as plain kernels (no graph) whose host time was taken (timing.clock: both)."""
        return tuple(r for r in self.rows if r.graph is None and r.host_us_per_launch is not None and r.kernels)


def host_link_text(link: HostLink | None) -> str:
    """The host link in words: 'PCIe Gen5 x16', 'PCIe Gen1 x16 (Gen5 x16 at most)' where NVML read
    it below its most, 'NVLink-C2C'; '' where unknown (pure)."""
    if link is None or link.kind == "unknown":
        return ""
    if link.kind == "nvlink-c2c":
        return "NVLink-C2C"

    def words(gen: int | None, width: int | None) -> str:
        return " ".join(p for p in (f"Gen{gen}" if gen else "", f"x{width}" if width else "") if p)

    now = words(link.pcie_gen, link.pcie_width)
    most = words(link.pcie_gen_max or link.pcie_gen, link.pcie_width_max or link.pcie_width)
    text = f"PCIe {now}".strip()
    return f"{text} ({most} at most)" if now and most != now else text


class HostExtras:
    """What issue 19's results add to a row: copies, streams, overlap and graph.  Rows of variants
    without them are built exactly as before (the fields keep their defaults)."""

    def __init__(self, link: LinkFloor | None) -> None:
        self.link = link

    def add(self, row, var: results.Variant):
        if var.unified_memory is not None:
            row = dataclasses.replace(row, unified_memory=var.unified_memory)
        if not (var.copies or var.copy_bytes or var.streams or var.overlap or var.graph):
            return row
        moved = tuple((d, var.copy_bytes[d]) for d in DIRECTIONS if d in (var.copy_bytes or {}))
        row = dataclasses.replace(row, copies=tuple(var.copies or ()), copy_bytes=moved, streams=var.streams,
                                  overlap=var.overlap, graph=var.graph)
        return dataclasses.replace(row, link_floor_gbps=floor_of(self.link, row.link_direction))


# PCIe per-lane signalling (GT/s) and line-code efficiency by generation, from the PCI-SIG base
# specifications: what a link of that generation and width can carry per direction at most,
# before packet headers.  Generation 6 uses PAM4 with FLIT mode (242 data bytes in 256).
PCIE_LANE_GT = {1: (2.5, 8 / 10), 2: (5.0, 8 / 10), 3: (8.0, 128 / 130), 4: (16.0, 128 / 130),
                5: (32.0, 128 / 130), 6: (64.0, 242 / 256)}


def pcie_rate(link: HostLink | None) -> tuple[float, str] | None:
    """The nominal per-direction rate of a recorded PCIe link in GB/s, and how it is worked out
    ('32 GT/s x 16 lanes x 128/130 / 8'); None where the link is not PCIe or its generation is
    unknown (pure).  The link as negotiated is used; its most where NVML read it idle and lower."""
    if link is None or link.kind != "pcie":
        return None
    gen = link.pcie_gen_max or link.pcie_gen
    width = link.pcie_width_max or link.pcie_width
    if gen not in PCIE_LANE_GT or not width:
        return None
    gt, code = PCIE_LANE_GT[gen]
    num, den = {8 / 10: (8, 10), 128 / 130: (128, 130), 242 / 256: (242, 256)}[code]
    return gt * width * code / 8, f"{gt:g} GT/s × {width} lanes × {num}/{den} ÷ 8 bits"
