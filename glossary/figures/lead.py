"""What a device tab leads with, as properties of ``DeviceView`` (issue 32): the lead quantity's unit,
the floors' note, the clocks in words, which regions waited behind the blocking kernel, and whether
"launch-bound" applies (pure)."""

from __future__ import annotations

from glossary.figures import floors, measured_on, quantity


class DeviceLeadMixin:
    """Needs ``quantity``, ``headline``, ``sizes``, ``method`` and ``environment`` (``DeviceView``)."""

    @property
    def lead_per_launch(self) -> bool:
        """Whether the lead quantity is time per launch (every headline variant a chain of launches)."""
        return self.quantity == "time" and quantity.per_launch(self.headline.rows if self.headline else ())

    @property
    def lead_unit(self) -> str:
        """The lead quantity's unit, as the first plot panel's axis names it."""
        return quantity.unit(self.quantity, self.headline.rows if self.headline else ())

    def floor_note(self, copy_floor: bool = True) -> str:
        """Why a claim at another size may quote another floor than the one shown (``floors``)."""
        return floors.floor_note(self.sizes, copy_floor)

    @property
    def clocks_text(self) -> str:
        """The clocks as a reader checks them (glossary.figures.measured_on)."""
        return measured_on.clocks_text(self.environment)

    @property
    def blocking_text(self) -> str:
        """Which host-timed regions waited behind the blocking kernel: 'all', 'none' or 'some'."""
        if self.method and self.method.blocking:
            return "all"
        timed = [r for s in self.sizes for r in s.rows if r.host_ms is not None]
        blocked = [r for r in timed if r.blocked]
        return "none" if not blocked else "all" if len(blocked) == len(timed) else "some"

    @property
    def has_kernel_rows(self) -> bool:
        """Whether some host-timed region launches kernels only (the rows "launch-bound" applies to)."""
        return any(r.host_ms is not None and not r.has_copies for s in self.sizes for r in s.rows)
