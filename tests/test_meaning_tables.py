"""Issue 32, item 6, on the CPU: the Kernel attributes table says once what every kernel shares,
instead of a column that repeats one value down every row."""

from __future__ import annotations

from pathlib import Path

import pytest
from repository_build import render

from glossary.figures.sweeps import ATTR_COLUMNS, AttrRow

ROOT = Path(__file__).resolve().parent.parent


def _row(kernel: str, registers: int, occupancy: float = 1.0) -> AttrRow:
    return AttrRow(variant="v", kernel=kernel, registers=registers, static_shared_bytes=0, dynamic_shared_bytes=0,
                   local_bytes=0, occupancy=occupancy, resident_warps=64, max_warps=64, limit="warps",
                   source="driver", formula_blocks=None, resident_blocks=8)


class _Size:
    """The part of a SizeView that ``attr_same`` reads."""

    def __init__(self, rows):
        self.attr_rows = tuple(rows)

    from glossary.figures.sweeps import SizeSweepMixin
    attr_same = SizeSweepMixin.attr_same


def test_columns_with_one_value_in_every_row_are_named_once():
    same = _Size([_row("a", 10), _row("b", 32, occupancy=0.5)]).attr_same
    assert same == {"shared/block": "0 B", "local/thread": "0 B", "resident warps/SM": "64 of 64", "limited by": "warps"}
    assert _Size([_row("a", 10)]).attr_same == {}  # one row: nothing repeats
    assert {h for h, _ in ATTR_COLUMNS} >= set(same)


@pytest.fixture(scope="module")
def fusion_page() -> str:
    return render("kernel-fusion")


def _attribute_tables(markdown: str) -> list[tuple[str, list[list[str]]]]:
    """Each Kernel attributes table: its lead sentence and its rows of cells."""
    found, lines = [], markdown.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("Kernel attributes at "):
            rows = []
            for row in lines[i + 1:]:
                if row.strip().startswith("|"):
                    rows.append([c.strip() for c in row.strip().strip("|").split("|")])
                elif row.strip() and rows:
                    break
            found.append((line.strip(), rows))
    return found


def test_kernel_fusion_attributes_repeat_no_column(fusion_page):
    tables = _attribute_tables(fusion_page)
    assert tables, "kernel-fusion's page has a Kernel attributes table"
    for lead, rows in tables:
        header, body = rows[0], [r for r in rows[2:]]
        assert len(body) > 1
        for k, name in enumerate(header):
            if name in ("version", "kernel"):
                continue
            assert len({r[k] for r in body}) > 1, f"column {name!r} repeats one value: say it in the lead"
        assert "The same for every kernel here: shared/block 0 B, local/thread 0 B" in lead.replace("\u00a0", " ")  # no-break spaces (look32)
