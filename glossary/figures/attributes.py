"""The Kernel attributes table's rows: one launch's registers, shared and local memory and
occupancy, each as the table writes it (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from glossary.figures import fmt


# The Kernel attributes columns that can repeat down a table: (header, AttrRow property).
ATTR_COLUMNS = (("registers/thread", "registers_text"), ("shared/block", "shared_text"),
                ("local/thread", "local_text"), ("occupancy", "occupancy_text"),
                ("resident warps/SM", "warps_text"), ("limited by", "limit_text"))


@dataclass(frozen=True)
class AttrRow:
    """One launch's kernel attributes as the Kernel attributes table shows them."""

    variant: str  # the variant's label
    kernel: str
    registers: int
    static_shared_bytes: int
    dynamic_shared_bytes: int
    local_bytes: int
    occupancy: float | None
    resident_warps: int | None
    max_warps: int | None
    limit: str | None
    source: str | None  # "driver" or "formula"
    formula_blocks: int | None  # the formula's resident blocks, where the driver answered otherwise
    resident_blocks: int | None
    limit_blocks: int | None = None  # where the grid limits: the blocks an SM could hold

    @property
    def limit_text(self) -> str:
        """'registers', or 'grid (SM holds 16)' where the launch has fewer blocks than an SM holds."""
        if self.limit == "grid" and self.limit_blocks is not None:
            return f"grid (SM holds {fmt.fmt_int(self.limit_blocks)})"
        return self.limit or "–"

    @property
    def registers_text(self) -> str:
        return fmt.fmt_int(self.registers)

    @property
    def local_text(self) -> str:
        return fmt.fmt_bytes(self.local_bytes)

    @property
    def occupancy_text(self) -> str:
        return fmt.percent(self.occupancy) if self.occupancy is not None else "–"

    @property
    def warps_text(self) -> str:
        """'64 of 64': resident warps per SM of the most it holds."""
        if self.resident_warps is None:
            return "–"
        most = f" of {fmt.fmt_int(self.max_warps)}" if self.max_warps else ""
        return fmt.fmt_int(self.resident_warps) + most

    @property
    def shared_bytes(self) -> int:
        return self.static_shared_bytes + self.dynamic_shared_bytes

    @property
    def shared_text(self) -> str:
        """'1 KiB', '1 KiB dynamic', '512 B static', '3 KiB (1 KiB static + 2 KiB dynamic)'."""
        static, dynamic = self.static_shared_bytes, self.dynamic_shared_bytes
        if static and dynamic:
            return (f"{fmt.fmt_bytes(self.shared_bytes)} ({fmt.fmt_bytes(static)} static + "
                    f"{fmt.fmt_bytes(dynamic)} dynamic)")
        if static or dynamic:
            return f"{fmt.fmt_bytes(static or dynamic)} {'static' if static else 'dynamic'}"
        return fmt.fmt_bytes(0)

    @property
    def source_text(self) -> str:
        """'driver', 'formula', or 'driver (formula: 12 blocks)' where the two disagree."""
        # where the grid limits, resident blocks are the grid's; the driver's answer is the SM's limit
        driver = self.limit_blocks if self.limit == "grid" and self.limit_blocks is not None else self.resident_blocks
        if self.source == "driver" and self.formula_blocks is not None and self.formula_blocks != driver:
            return f"driver (formula: {fmt.fmt_int(self.formula_blocks)} blocks)"
        return self.source or "–"


def attr_rows(rows) -> tuple[AttrRow, ...]:
    """Every row's launches as table rows (pure)."""
    return tuple(AttrRow(r.short, a.kernel, a.registers, a.static_shared_bytes, a.dynamic_shared_bytes,
                         a.local_bytes, a.theoretical_occupancy, a.resident_warps_per_sm, a.max_warps_per_sm,
                         a.occupancy_limit, a.occupancy_source, a.formula_blocks_per_sm, a.resident_blocks_per_sm,
                         a.limit_blocks_per_sm)
                 for r in rows for a in r.launch_attrs)
