"""Prose bound to data: figures in an entry's body written as template expressions.

An author writes ``{{ fig.speedup("staged", "fused") }}`` instead of typing
"3.08x".  The body is rendered through a sandboxed Jinja environment whose only
name is ``fig``: a read-only view of the entry's recorded results.  Each figure
renders with its unit and a tooltip saying where it was measured.

    fig                              the default device (the first one measured here,
                                     else the first imported) at its headline size
    fig.on("tesla-t4")               another device;  .at(n=16777216): another size
    fig.ms(v)  fig.gbps(v)  fig.speedup(a, b)  fig.byte_ratio(a, b)  fig.bytes(v)
    fig.counted(v)  fig.dram(v)  fig.floor()  fig.of_floor(v)  fig.elements()  fig.gpu()
    fig.l2()   fig.launch_us(v)

A figure that has no data (a device never measured, a size not swept) renders
as a visible "[no result: ...]" marker and is reported, so strict builds fail.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from glossary import figures
from glossary.pages import DeviceView, SizeView


class NoResult(Exception):
    """A bound figure with nothing recorded to bind to."""


@dataclass(frozen=True)
class Figure:
    """A number with its unit and provenance; renders as an annotated span."""

    text: str
    where: str

    def __str__(self) -> str:
        return f'<span class="glossary-figure" title="{html.escape(self.where)}">{html.escape(self.text)}</span>'

    def __html__(self) -> str:
        return str(self)


@dataclass
class Figures:
    """The ``fig`` object authors use in entry bodies."""

    devices: tuple[DeviceView, ...]
    bytes_by_variant: dict[str, float]
    device_key: str | None = None
    size: dict | None = None
    problems: list[str] = field(default_factory=list)

    # -- choosing what to bind to ----------------------------------------------

    def on(self, device_key: str) -> "Figures":
        return Figures(self.devices, self.bytes_by_variant, device_key, self.size, self.problems)

    def at(self, **params: int) -> "Figures":
        return Figures(self.devices, self.bytes_by_variant, self.device_key, params, self.problems)

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
        for row in size.rows:
            if row.name == variant:
                return device, size, row
        raise NoResult(f"no variant {variant!r} at this size")

    def _figure(self, text: str, device: DeviceView, size: SizeView) -> Figure:
        stat = device.method.get("statistic", "mean")
        return Figure(text, f"{device.gpu}, {figures.fmt_int(size.elements)} elements, {stat}, "
                            f"captured {device.captured_on}")

    # -- the figures ------------------------------------------------------------

    def ms(self, variant: str) -> Figure:
        device, size, row = self._row(variant)
        return self._figure(f"{figures.fmt_ms(row.ms)} ms", device, size)

    def launch_us(self, variant: str) -> Figure:
        device, size, row = self._row(variant)
        return self._figure(f"{row.ms * 1000:.1f} µs", device, size)

    def gbps(self, variant: str) -> Figure:
        device, size, row = self._row(variant)
        return self._figure(f"{row.gbps:.1f} GB/s", device, size)

    def speedup(self, num: str, den: str) -> Figure:
        device, size, a = self._row(num)
        _, _, b = self._row(den)
        return self._figure(f"{a.ms / b.ms:.2f}×", device, size)

    def floor(self) -> Figure:
        device, size = self._size()
        if size.copy_floor_gbps is None:
            raise NoResult("no copy floor recorded")
        return self._figure(f"{size.copy_floor_gbps:.1f} GB/s", device, size)

    def of_floor(self, variant: str) -> Figure:
        device, size, row = self._row(variant)
        if row.fraction_of_floor is None:
            raise NoResult("no copy floor recorded")
        return self._figure(f"{100 * row.fraction_of_floor:.0f}%", device, size)

    def counted(self, variant: str) -> Figure:
        device, size, row = self._row(variant)
        if row.counted_bytes_per_elem is None:
            raise NoResult(f"no DRAM counter data for {variant!r}")
        return self._figure(f"{row.counted_bytes_per_elem:.1f} B/elem", device, size)

    def dram(self, variant: str) -> Figure:
        """DRAM bytes per element with the caches as the timed runs had them (ncu, unflushed pass)."""
        device, size, row = self._row(variant)
        if row.dram_as_timed is None:
            raise NoResult(f"no unflushed DRAM counter data for {variant!r}")
        return self._figure(f"{row.dram_as_timed:.1f} B/elem", device, size)

    def elements(self) -> Figure:
        device, size = self._size()
        return self._figure(figures.fmt_int(size.elements), device, size)

    def gpu(self) -> str:
        return self._device().gpu

    def l2(self) -> Figure:
        device = self._device()
        if not device.l2_bytes:
            raise NoResult(f"{device.gpu} has no recorded L2 size")
        return Figure(figures.fmt_bytes(device.l2_bytes), f"{device.gpu}, from the device attributes")

    # Predictions come from the spec, not from a device.

    def bytes(self, variant: str) -> Figure:
        if variant not in self.bytes_by_variant:
            raise NoResult(f"no variant {variant!r} in the spec")
        return Figure(f"{figures.fmt_bpe(self.bytes_by_variant[variant])} B/elem", "predicted by the spec")

    def byte_ratio(self, num: str, den: str) -> Figure:
        for v in (num, den):
            if v not in self.bytes_by_variant:
                raise NoResult(f"no variant {v!r} in the spec")
        return Figure(f"{self.bytes_by_variant[num] / self.bytes_by_variant[den]:.2f}×", "predicted by the spec")


def _env() -> SandboxedEnvironment:
    return SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)


def render_body(body: str, devices: tuple[DeviceView, ...], bytes_by_variant: dict[str, float]) -> tuple[str, list[str]]:
    """Render the body's bound figures; returns (markdown, problems).

    A figure without data becomes "[no result: why]" in the text and a problem in
    the list; a template error (bad syntax, an unknown name) is a problem too and
    leaves the body unrendered.
    """
    if "{{" not in body and "{%" not in body:
        return body, []
    problems: list[str] = []
    fig = Figures(devices, dict(bytes_by_variant), problems=problems)
    env = _env()

    def guard(method):
        def call(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except NoResult as why:
                problems.append(str(why))
                return f"**[no result: {why}]**"
        return call

    env.globals["fig"] = _Guarded(fig, guard)
    try:
        return env.from_string(body).render(), problems
    except jinja2.TemplateError as err:
        line = getattr(err, "lineno", None)
        where = f" (body line {line})" if line else ""
        return body, [f"cannot render the body's figures{where}: {err}"]


class _Guarded:
    """Wraps Figures so that every method reports NoResult instead of raising it."""

    def __init__(self, fig: Figures, guard) -> None:
        self._fig = fig
        self._guard = guard

    def on(self, device_key: str) -> "_Guarded":
        return _Guarded(self._fig.on(device_key), self._guard)

    def at(self, **params: int) -> "_Guarded":
        return _Guarded(self._fig.at(**params), self._guard)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._guard(getattr(self._fig, name))
