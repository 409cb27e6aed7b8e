"""The ``fig`` figures of a variant's kernels: their attributes (registers, shared and local memory,
block limit, occupancy) and the Nsight Compute metrics the spec declares, with their predictions.

A mixin of ``glossary.figures.fig.Figures``: it uses that class's lookups (``_value``, ``_row``,
``_name``, ``spec``)."""

from __future__ import annotations

from glossary.figures import fmt
from glossary.figures.figure import Figure, NoResult
from glossary.figures.sweeps import prediction


class KernelFigures:
    """Kernel attributes and declared metrics (the most over a variant's launches; occupancy the least)."""

    def _kernel(self, variant: str, attr: str, text) -> Figure:
        device, size, value = self._value(variant, attr, f"no kernel attributes recorded for {variant!r}")
        return Figure(text(value), f"{device.gpu}, kernel attributes at {size.label}, "
                                   f"captured {device.captured_on}")

    def registers(self, variant: str) -> Figure:
        """Registers per thread of the loaded kernel (the most over the variant's launches)."""
        return self._kernel(variant, "registers", lambda v: f"{fmt.fmt_int(v)} registers per thread")

    def local_bytes(self, variant: str) -> Figure:
        """Local (spill) memory per thread (the most over the variant's launches)."""
        return self._kernel(variant, "local_bytes", lambda v: f"{fmt.fmt_bytes(v)} per thread")

    def shared_bytes(self, variant: str) -> Figure:
        """Shared memory per block, static plus dynamic (the most over the variant's launches)."""
        return self._kernel(variant, "shared_bytes", lambda v: f"{fmt.fmt_bytes(v)} per block")

    def static_shared_bytes(self, variant: str) -> Figure:
        """Static shared memory per block, as compiled (the most over the variant's launches)."""
        return self._kernel(variant, "static_shared_bytes", lambda v: f"{fmt.fmt_bytes(v)} per block")

    def dynamic_shared_bytes(self, variant: str) -> Figure:
        """Dynamic shared memory per block, as launched (the most over the variant's launches)."""
        return self._kernel(variant, "dynamic_shared_bytes", lambda v: f"{fmt.fmt_bytes(v)} per block")

    def max_threads(self, variant: str) -> Figure:
        """The most threads a block of the loaded kernel may have (the least over the variant's launches)."""
        return self._kernel(variant, "max_threads_per_block", lambda v: f"{fmt.fmt_int(v)} threads per block")

    def occupancy(self, variant: str) -> Figure:
        """Theoretical occupancy, percent: resident warps over the most an SM holds (the least over launches)."""
        return self._kernel(variant, "theoretical_occupancy", fmt.percent)

    def resident_warps(self, variant: str) -> Figure:
        """Resident warps per SM the launch allows (the launch with the least occupancy)."""
        return self._kernel(variant, "resident_warps", lambda v: f"{fmt.fmt_int(v)} warps per SM")

    def metric(self, variant: str, name: str) -> Figure:
        """A declared Nsight Compute metric (measure.metrics) as the spec normalises it, with its unit."""
        device, size, row = self._row(variant)
        m = row.metric(name)
        if m is None:
            raise NoResult(f"no counter data for metric {name!r} of {row.name!r} at this size")
        caches = "caches as the timed runs had them" if m.as_timed else "caches flushed before every kernel"
        return Figure(fmt.quantity(m.value, m.unit), f"{device.gpu}, {m.label}, Nsight Compute with the {caches}, "
                                                     f"{size.label}, captured {device.captured_on}")

    def predicted(self, variant: str, name: str) -> Figure:
        """A declared metric's prediction for the variant (the spec's predict)."""
        try:
            metric, value = prediction(self.spec, self._name(variant), name)
        except LookupError as why:
            raise NoResult(str(why)) from None
        return Figure(fmt.quantity(value, metric.unit), f"{metric.label}, predicted by the spec")
