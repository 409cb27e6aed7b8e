"""Quantities written in binary units (powers of 1024): the one formatter pages and messages use.

Bandwidths are decimal (GB/s, ``measure.stats``); sizes of memory are binary: 50 MiB of L2,
1 GiB a buffer.
"""

from __future__ import annotations

BINARY_PREFIXES = (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10))
BYTE_UNITS = {f"{prefix}iB": scale for prefix, scale in BINARY_PREFIXES} | {"B": 1}


def binary(value: float, unit: str = "B", sep: str = " ") -> str:
    """``value`` in the largest binary prefix it reaches, whole numbers whole, others to one decimal.

    Bytes (the default): binary(50 * 2**20) == "50 MiB", binary(1.5 * 2**30) == "1.5 GiB",
    binary(512) == "512 B".  A count (``unit=""``, ``sep=""``): binary(65536, "", "") == "64K",
    binary(512, "", "") == "512".
    """
    for prefix, scale in BINARY_PREFIXES:
        if value >= scale:
            shown = value / scale
            number = f"{shown:.0f}" if shown == int(shown) else f"{shown:.1f}"
            return f"{number}{sep}{prefix}{'i' if unit else ''}{unit}"
    return f"{value:.0f}{sep}{unit}" if unit else f"{value:.0f}"


def binary_bytes(value: float, unit: str | None = None, digits: int = 1) -> str:
    """A byte count in binary units: in the largest that it reaches (``binary``) unless ``unit``
    ("GiB", "MiB", "KiB" or "B") is given, then in that unit to ``digits`` decimals.

    binary_bytes(50 * 2**20) == "50 MiB"; binary_bytes(3 * 2**29, "GiB", 2) == "1.50 GiB".
    """
    if unit is None:
        return binary(value)
    return f"{value / BYTE_UNITS[unit]:.{digits}f} {unit}"
