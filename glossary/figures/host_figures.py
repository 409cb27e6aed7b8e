"""The ``fig`` figures of a variant's host side: its copies against the link floor, its streams
against their serial twin, the CUDA graph it was replayed from, and the host link.

A mixin of ``glossary.figures.fig.Figures``: it uses that class's lookups (``_value``, ``_row``,
``_size``, ``_device``, ``_figure``)."""

from __future__ import annotations

from glossary.figures import fmt
from glossary.figures.figure import Figure, NoResult
from glossary.figures.host import DIRECTION_WORDS, LINK_DIRECTIONS, floor_of, host_link_text, pcie_rate

_NO_COPIES = "no copies recorded for {!r}"
_NO_OVERLAP = "no serial twin recorded for {!r} (its steps run on one stream)"
_NO_GRAPH = "{!r} was not replayed from a CUDA graph (graph: true)"


def _unified(row, variant: str):
    """A row's unified-memory counts, or NoResult saying why there are none."""
    counts = row.unified_memory
    if counts is None:
        raise NoResult(f"no unified-memory counts recorded for {variant!r} (no managed buffer, or not the headline size)")
    if counts.unavailable is not None or counts.gpu_page_faults is None:
        raise NoResult(f"CUPTI gave no unified-memory counts for {variant!r}: {counts.unavailable or 'none recorded'}")
    return counts


class HostFigures:
    """Copies, streams and graphs (issue 19's results)."""

    def link_gbps(self, variant: str) -> Figure:
        """Bytes the variant copies over its time, GB/s: one direction's where its copies cross the link one way, else all."""
        device, size, row = self._row(variant)
        if row.link_gbps is None:
            raise NoResult(_NO_COPIES.format(variant))
        return self._figure(fmt.rate(row.link_gbps) + row.link_label, device, size)

    def link_floor(self, direction: str = "h2d") -> Figure:
        """The link floor: pinned copies' best GB/s host to device ("h2d") or device to host ("d2h"), timed in the same run."""
        if direction not in LINK_DIRECTIONS:
            raise NoResult(f"expected a direction of the link floor, h2d or d2h, found {direction!r}")
        device, size = self._size()
        rate = floor_of(size.link_floor, direction)
        if rate is None:
            raise NoResult("no link floor recorded (the entry has no host buffers)")
        return self._figure(fmt.rate(rate), device, size)

    def of_link(self, variant: str) -> Figure:
        """The variant's link GB/s as a percentage of the link floor of its copies' one direction."""
        device, size, row = self._row(variant)
        if row.of_link is None:
            if row.link_gbps is None:
                raise NoResult(_NO_COPIES.format(variant))
            if row.link_direction is None:
                raise NoResult(f"the copies of {variant!r} cross the link both ways; the link floor is one direction's")
            raise NoResult(f"no link floor for the copies of {variant!r} ({DIRECTION_WORDS[row.link_direction]})")
        return self._figure(fmt.percent(row.of_link), device, size)

    def overlap(self, variant: str) -> Figure:
        """The share of the serial twin's time the variant's streams hid, percent (1 - time / serial time)."""
        device, size, value = self._value(variant, "overlap_fraction", _NO_OVERLAP.format(variant))
        return self._figure(fmt.percent(value), device, size)

    def serial_ms(self, variant: str) -> Figure:
        """The serial twin's time: the variant's steps in order on one stream, timed in the same run."""
        device, size, value = self._value(variant, "serial_ms", _NO_OVERLAP.format(variant))
        return self._figure(fmt.duration(value), device, size)

    def streams(self, variant: str) -> Figure:
        """The streams the variant's steps ran on (recorded where more than one)."""
        device, size, value = self._value(variant, "streams", f"{variant!r} ran on one stream")
        return self._figure(f"{fmt.fmt_int(value)} streams", device, size)

    def graph_launch_us(self, variant: str) -> Figure:
        """The host's time for one cuGraphLaunch of the variant's graph (median over the replays)."""
        device, size, value = self._value(variant, "graph_launch_us", _NO_GRAPH.format(variant))
        return self._figure(fmt.duration(value / 1000), device, size)

    def graph_per_kernel_us(self, variant: str) -> Figure:
        """The host's time for one replay of the variant's graph over its kernel nodes."""
        device, size, value = self._value(variant, "graph_per_kernel_us", _NO_GRAPH.format(variant))
        return self._figure(fmt.duration(value / 1000), device, size)

    def graph_nodes(self, variant: str) -> Figure:
        """The nodes of the CUDA graph the variant's steps were captured into."""
        device, size, value = self._value(variant, "graph_nodes", _NO_GRAPH.format(variant))
        return self._figure(f"{fmt.fmt_int(value)} node{'s' if value != 1 else ''}", device, size)

    def page_faults(self, variant: str) -> Figure:
        """GPU page faults of one untimed run of the variant (CUPTI's unified-memory counters; managed buffers)."""
        device, size, row = self._row(variant)
        counts = _unified(row, variant)
        return self._figure(f"{fmt.fmt_int(counts.gpu_page_faults)} GPU page faults", device, size)

    def migrated(self, variant: str, direction: str = "h2d") -> Figure:
        """Bytes the driver migrated in one untimed run of the variant, to the GPU ("h2d") or the host ("d2h")."""
        if direction not in LINK_DIRECTIONS:
            raise NoResult(f"expected a direction, h2d or d2h, found {direction!r}")
        device, size, row = self._row(variant)
        counts = _unified(row, variant)
        value = counts.bytes_htod if direction == "h2d" else counts.bytes_dtoh
        return self._figure(fmt.fmt_bytes(value), device, size)

    def host_link(self) -> Figure:
        """The GPU's link to the host as NVML reported it: 'PCIe Gen5 x16' or 'NVLink-C2C'."""
        device = self._device()
        text = host_link_text(device.environment.host_link)
        if not text:
            raise NoResult(f"{device.gpu} has no recorded host link")
        return Figure(text, f"{device.gpu}, host link as NVML reported it, captured {device.captured_on}")

    def link_rate(self) -> Figure:
        """The nominal rate of the recorded PCIe link, per direction: the PCIe specification's, not a measurement."""
        device = self._device()
        rate = pcie_rate(device.environment.host_link)
        if rate is None:
            raise NoResult(f"{device.gpu} has no recorded PCIe link of a known generation")
        value, how = rate
        return Figure(fmt.rate(value, "GB/s"), f"nominal rate of {host_link_text(device.environment.host_link)} per "
                                               f"direction ({how}), from the PCIe specification; not a measurement")

    def of_link_rate(self, variant: str) -> Figure:
        """The variant's link GB/s as a share of the link's nominal rate (fig.link_rate)."""
        device, size, value = self._value(variant, "link_gbps", _NO_COPIES.format(variant))
        rate = pcie_rate(device.environment.host_link)
        if rate is None:
            raise NoResult(f"{device.gpu} has no recorded PCIe link of a known generation")
        return self._figure(fmt.percent(value / rate[0]), device, size)
