"""The ``fig`` object: the figures an entry's body can bind to its recorded results.

An author writes ``{{ fig.speedup("staged", "fused") }}`` instead of typing
"3.08x" (``glossary.figures.bind`` renders the body).  ``fig`` is a read-only
view of the entry's recorded results; each figure renders with its unit and a
tooltip saying where it was measured.

    fig                              the default device (the first one measured here,
                                     else the first imported) at its headline size
    fig.on("tesla-t4")               another device;  .at(n=16777216): another size
    fig.ms(v)  fig.gbps(v)  fig.speedup(a, b)  fig.byte_ratio(a, b)  fig.bytes(v)
    fig.counted(v)  fig.dram(v)  fig.floor()  fig.of_floor(v)  fig.elements()  fig.gpu()
    fig.l2()   fig.launch_us(v)
    coalescing:  fig.useful(v)  fig.overfetch(v)  fig.counted_ratio(a, b)
    roofline:    fig.gflops(v)  fig.intensity(v)  fig.ceiling()  fig.ridge()  fig.of_roof(v)
    kernels:     fig.registers(v)  fig.local_bytes(v)  fig.shared_bytes(v)  fig.occupancy(v)  fig.resident_warps(v)
    metrics:     fig.metric(v, name)  fig.predicted(v, name)  fig.time_ratio(a, b)  fig.tflops(v)
    launches:    fig.host_ms(v)  fig.per_launch_us(v)  fig.host_per_launch_us(v)  fig.launch_cost_us(v)
                 fig.crossover(v): the least work per launch where GPU time per launch reaches the
                 host's cost per launch (its least host time per launch in the sweep)
    host side:   fig.link_gbps(v)  fig.link_floor("h2d"|"d2h")  fig.of_link(v)  fig.host_link()
                 fig.streams(v)  fig.overlap(v)  fig.serial_ms(v)
                 fig.graph_nodes(v)  fig.graph_launch_us(v)  fig.graph_per_kernel_us(v)

A swept variant is named by its point, ``fig.gbps("copy[block=128]")``, or the point is picked
as a size is: ``fig.at(block=128).gbps("copy")`` (a point chosen stays when a later ``at`` picks a size).

A figure that has no data (a device never measured, a size not swept) raises
NoResult; the body renders it as a visible "[no result: ...]" marker and reports it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from glossary.figures import fmt
from glossary.figures.figure import Figure, NoResult
from glossary.figures.host_figures import HostFigures
from glossary.figures.kernel_figures import KernelFigures
from glossary.figures.sweeps import measured_name, split_point
from glossary.figures.views import DeviceView, SizeView
# Text from result files or an author's arguments lands in the body, which is verbatim Markdown:
# it goes in as the entry template's values do, as inert text.
from glossary.figures.fmt import plain_text
from measure import expr
from measure.spec import MeasureSpec, Variant


__all__ = ["Figure", "Figures", "NoResult"]

_NO_HOST = "no host time recorded for {!r} (timing.clock: both)"
@dataclass
class Figures(KernelFigures, HostFigures):
    """The ``fig`` object authors use in entry bodies."""

    devices: tuple[DeviceView, ...]
    bytes_by_variant: dict[str, float]
    device_key: str | None = None
    size: dict | None = None
    problems: list[str] = field(default_factory=list)
    variants: dict[str, Variant] = field(default_factory=dict)  # the spec's, for predictions
    spec: MeasureSpec | None = None  # for swept variants' names and declared metrics
    point: dict | None = None  # sweep values chosen with at(block=128)

    # -- choosing what to bind to ----------------------------------------------

    def on(self, device_key: str) -> "Figures":
        """The same figures on another device, by its key, e.g. fig.on("tesla-t4")."""
        return dataclasses.replace(self, device_key=device_key)

    def at(self, **params: int) -> "Figures":
        """The same figures at another point of measure.sizes, e.g. fig.at(n=16777216), or of a sweep, fig.at(block=128)."""
        size, point = split_point(self.variants, params)
        if not point:
            return dataclasses.replace(self, size=params)
        return dataclasses.replace(self, size=size or self.size, point={**(self.point or {}), **point})

    def _device(self) -> DeviceView:
        usable = [d for d in self.devices if d.status == "ok"]
        if self.device_key is None:
            if not usable:
                raise NoResult("no device has recorded results")
            return usable[0]
        for d in usable:
            if d.key == self.device_key:
                return d
        raise NoResult(f"no results for device {self.device_key!r} "
                       f"(recorded: {', '.join(d.key for d in usable) or 'none'})")

    def _size(self) -> tuple[DeviceView, SizeView]:
        device = self._device()
        if self.size is None:
            head = device.headline
            if head is None:
                raise NoResult(f"{device.gpu} recorded no sizes")
            return device, head
        for s in device.sizes:
            if s.params == self.size:
                return device, s
        raise NoResult(f"{device.gpu} has no results at {self.size}")

    def _row(self, variant: str):
        device, size = self._size()
        name = self._name(variant)
        for row in size.rows:
            if row.name == name:
                return device, size, row
        raise NoResult(f"no variant {name!r} at this size")

    def _name(self, variant: str) -> str:
        try:
            return measured_name(self.variants, self.point, variant)
        except LookupError as why:
            raise NoResult(str(why)) from None

    def _value(self, variant: str, attr: str, why: str) -> tuple[DeviceView, SizeView, float]:
        """A row's derived value, or NoResult(why) where it was not recorded."""
        device, size, row = self._row(variant)
        value = getattr(row, attr)
        if value is None:
            raise NoResult(why)
        return device, size, value

    def _figure(self, text: str, device: DeviceView, size: SizeView) -> Figure:
        stat = device.method.statistic if device.method else "mean"
        return Figure(text, f"{device.gpu}, {size.label}, {stat}, "
                            f"captured {device.captured_on}")

    # -- the figures ------------------------------------------------------------

    def ms(self, variant: str) -> Figure:
        """The variant's time (the published statistic), in the unit that fits."""
        device, size, row = self._row(variant)
        return self._figure(fmt.duration(row.ms), device, size)

    def launch_us(self, variant: str) -> Figure:
        """The variant's time, as fig.ms gives it (named for launch-overhead entries)."""
        device, size, row = self._row(variant)
        return self._figure(fmt.duration(row.ms), device, size)

    def gbps(self, variant: str) -> Figure:
        """The variant's useful bytes per second, in GB/s."""
        device, size, row = self._row(variant)
        return self._figure(fmt.rate(row.gbps), device, size)

    def speedup(self, num: str, den: str) -> Figure:
        """time(num) / time(den)."""
        device, size, a = self._row(num)
        _, _, b = self._row(den)
        return self._figure(fmt.ratio(a.ms / b.ms), device, size)

    def floor(self) -> Figure:
        """The copy floor: the best GB/s of a float4 copy kernel and cuMemcpyDtoD, timed in the same run."""
        device, size = self._size()
        if size.copy_floor_gbps is None:
            raise NoResult("no copy floor recorded")
        return self._figure(fmt.rate(size.copy_floor_gbps), device, size)

    def of_floor(self, variant: str) -> Figure:
        """The variant's GB/s as a percentage of the copy floor."""
        device, size, row = self._row(variant)
        if row.fraction_of_floor is None:
            raise NoResult("no copy floor recorded")
        return self._figure(fmt.percent(row.fraction_of_floor), device, size)

    def counted(self, variant: str) -> Figure:
        """DRAM bytes per element the counters saw, with the caches flushed before every kernel."""
        device, size, row = self._row(variant)
        if row.counted_bytes_per_elem is None:
            raise NoResult(f"no DRAM counter data for {variant!r}")
        return self._figure(f"{fmt.fmt_bpe1(row.counted_bytes_per_elem)} B/elem", device, size)

    def dram(self, variant: str) -> Figure:
        """DRAM bytes per element with the caches as the timed runs had them (ncu, unflushed pass)."""
        device, size, row = self._row(variant)
        if row.dram_as_timed is None:
            raise NoResult(f"no unflushed DRAM counter data for {variant!r}")
        return self._figure(f"{fmt.fmt_bpe1(row.dram_as_timed)} B/elem", device, size)

    def elements(self) -> Figure:
        """The elements at this size (the spec's elements expression): the recorded count where a
        device measured it, else the spec's own arithmetic at the size (the headline by default)."""
        try:
            device, size = self._size()
        except NoResult:
            if self.spec is None:
                raise
            params = dict(self.size) if self.size is not None else dict(self.spec.headline)
            try:
                count = expr.evaluate_int(self.spec.elements, params)
            except expr.ExprError as why:
                raise NoResult(f"elements at {fmt.params(params)}: {why}") from None
            return Figure(fmt.fmt_int(count), f"from the spec (measure.elements) at {fmt.params(params)}")
        return self._figure(fmt.fmt_int(size.elements), device, size)

    def gpu(self) -> str:
        """The device's name."""
        return plain_text(self._device().gpu)

    def l2(self) -> Figure:
        """The device's L2 cache size, from the device attributes."""
        device = self._device()
        if not device.l2_bytes:
            raise NoResult(f"{device.gpu} has no recorded L2 size")
        return Figure(fmt.fmt_bytes(device.l2_bytes), f"{device.gpu}, from the device attributes")

    def useful(self, variant: str) -> Figure:
        """Bytes per element the computation needs (the spec's useful_bytes_per_elem)."""
        spec = self._spec_variant(variant)
        if isinstance(spec.useful_bytes, str) or spec.sweep:
            device, size, row = self._row(variant)
            return self._predicted_at(f"{fmt.fmt_bpe(row.useful_bytes)} B/elem", size)
        return Figure(f"{fmt.fmt_bpe(spec.useful_bytes)} B/elem", "predicted by the spec")

    def overfetch(self, variant: str) -> Figure:
        """DRAM bytes counted per useful byte."""
        device, size, value = self._value(variant, "overfetch", f"no DRAM counter data for {variant!r}")
        return self._figure(fmt.ratio(value), device, size)

    def counted_ratio(self, num: str, den: str) -> Figure:
        """The ratio of DRAM bytes the counters saw for two variants."""
        device, size, a = self._row(num)
        _, _, b = self._row(den)
        if a.counted_bytes_per_elem is None or not b.counted_bytes_per_elem:
            raise NoResult(f"no DRAM counter data for {num!r} and {den!r}")
        return self._figure(fmt.ratio(a.counted_bytes_per_elem / b.counted_bytes_per_elem), device, size)

    def gflops(self, variant: str) -> Figure:
        """The variant's FLOP rate (needs flops_per_elem), in TFLOP/s as every page writes one."""
        device, size, value = self._value(variant, "gflops", f"{variant!r} has no flops_per_elem")
        return self._figure(fmt.flops(value), device, size)

    def intensity(self, variant: str) -> Figure:
        """FLOP per predicted DRAM byte (from the spec)."""
        spec = self._spec_variant(variant)
        if not spec.flops_per_elem:
            raise NoResult(f"{variant!r} has no flops_per_elem")
        if isinstance(spec.flops_per_elem, str) or isinstance(spec.bytes_per_elem, str) or spec.sweep:
            device, size, value = self._value(variant, "intensity", f"{variant!r} has no flops_per_elem")
            return self._predicted_at(f"{fmt.significant(value, 3)} FLOP/B", size)
        return Figure(f"{fmt.significant(spec.flops_per_elem / spec.bytes_per_elem, 3)} FLOP/B", "predicted by the spec")

    def _roofline(self):
        device, size = self._size()
        if size.roofline is None:
            raise NoResult("no roofline at this size (no FLOP rate, no copy floor, or no measure.roof saying where the compute ceiling comes from)")
        return device, size, size.roofline

    def ceiling(self) -> Figure:
        """The roofline's compute ceiling: the peer's FLOP rate measured in the same run, or the cited peak."""
        device, size, roof = self._roofline()
        return self._figure(fmt.flops(roof.compute_gflops), device, size)

    def ridge(self) -> Figure:
        """The ridge point, compute ceiling over the copy floor, in FLOP per byte."""
        device, size, roof = self._roofline()
        return self._figure(f"{fmt.significant(roof.ridge, 3)} FLOP/B", device, size)

    def of_roof(self, variant: str) -> Figure:
        """The variant's GFLOP/s as a percentage of the measured roofline at its intensity."""
        device, size, roof = self._roofline()
        _, _, row = self._row(variant)
        fraction = roof.fraction(row)
        if fraction is None:
            raise NoResult(f"{variant!r} has no flops_per_elem")
        return self._figure(fmt.percent(fraction), device, size)

    def host_ms(self, variant: str) -> Figure:
        """Host wall time of the variant's timed region (needs timing.clock: both)."""
        device, size, value = self._value(variant, "host_ms", _NO_HOST.format(variant))
        return self._figure(fmt.duration(value), device, size)

    def per_launch_us(self, variant: str) -> Figure:
        """GPU time per launch."""
        device, size, value = self._value(variant, "gpu_us_per_launch", f"no launch count recorded for {variant!r}")
        return self._figure(fmt.duration(value / 1000), device, size)

    def host_per_launch_us(self, variant: str) -> Figure:
        """Host time per launch."""
        device, size, value = self._value(variant, "host_us_per_launch", _NO_HOST.format(variant))
        return self._figure(fmt.duration(value / 1000), device, size)

    def launch_cost_us(self, variant: str) -> Figure:
        """The host's cost per launch: the least host time per launch across the sweep."""
        device = self._device()
        cost = device.launch_cost_us(variant)
        if cost is None:
            raise NoResult(_NO_HOST.format(variant))
        return Figure(fmt.duration(cost / 1000), f"{device.gpu}, least host time per launch across the sweep, "
                                          f"captured {device.captured_on}")

    def crossover(self, variant: str) -> Figure:
        """The least work per launch, across the sweep, at which ``variant`` stops being launch-bound."""
        device = self._device()
        timed = [(s, r) for s in device.sizes for r in s.rows
                 if r.name == variant and device.launch_bound(r) is not None]
        if not timed:
            raise NoResult(_NO_HOST.format(variant))
        for size, row in sorted(timed, key=lambda sr: sr[0].elements):
            if not device.launch_bound(row):
                per = size.elements // (row.launches or 1)
                return self._figure(f"{fmt.fmt_int(per)} elements per launch", device, size)
        raise NoResult(f"{variant!r} is launch-bound at every size of the sweep")

    def time_ratio(self, num: str, den: str) -> Figure:
        """time(num) / time(den), as fig.speedup gives it."""
        return self.speedup(num, den)

    def tflops(self, variant: str) -> Figure:
        """The variant's TFLOP/s (needs flops_per_elem)."""
        device, size, value = self._value(variant, "gflops", f"{variant!r} has no flops_per_elem")
        return self._figure(fmt.flops(value), device, size)

    # Predictions come from the spec; one written as an expression is the results' figure at the size.

    def _spec_variant(self, variant: str) -> Variant:
        found = self.variants.get(variant) or next((v.spec for v in (self.spec.measured_variants if self.spec else ())
                                                    if v.name == variant), None)
        if found is None:
            raise NoResult(f"no variant {variant!r} in the spec")
        return found

    def _predicted_at(self, text: str, size: SizeView) -> Figure:
        return Figure(text, f"predicted by the spec at {size.label}")

    def _bytes(self, variant: str) -> tuple[float, SizeView | None]:
        value = self.bytes_by_variant.get(variant)
        if isinstance(value, (int, float)):
            return value, None
        self._spec_variant(variant)  # NoResult for a name the spec does not have
        return self._row(variant)[2].bytes_per_elem, self._size()[1]

    def bytes(self, variant: str) -> Figure:
        """Predicted DRAM bytes per element (the spec's bytes_per_elem)."""
        value, size = self._bytes(variant)
        text = f"{fmt.fmt_bpe(value)} B/elem"
        return self._predicted_at(text, size) if size else Figure(text, "predicted by the spec")

    def byte_ratio(self, num: str, den: str) -> Figure:
        """Predicted bytes per element of num over those of den."""
        (a, at_a), (b, at_b) = self._bytes(num), self._bytes(den)
        text = fmt.ratio(a / b)
        return self._predicted_at(text, at_a or at_b) if at_a or at_b else Figure(text, "predicted by the spec")
