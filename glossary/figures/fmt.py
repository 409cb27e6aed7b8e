"""How values are written on a page: derived figures, numbers with their units, author text as inert text.

Everything a page shows beyond the raw samples is computed here, from the
recorded statistic and the byte predictions, never typed by hand; and every
author-written string reaches Markdown through ``plain_text``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from measure import stats, units


def gbps(bytes_per_elem: float, elements: int, ms: float) -> float:
    """Effective bandwidth in GB/s (1e9 bytes per second), per element as pages state it."""
    return stats.gbps(bytes_per_elem * elements, ms)


def gflops(flops_per_elem: float, elements: int, ms: float) -> float:
    """Arithmetic rate in GFLOP/s."""
    return stats.gflops(flops_per_elem * elements, ms)


def fmt_ms(ms: float) -> str:
    """Milliseconds: three decimals, or four significant digits below 0.1 ms."""
    if ms >= 0.1:
        return f"{ms:.3f}"
    digits = max(3, 3 - int(math.floor(math.log10(abs(ms)))) if ms else 3)
    return f"{ms:.{digits}f}"


# -- the site's one number style ---------------------------------------------------------------
# Every number a reader sees (tables, prose figures, claims, plot labels and hover titles,
# tooltips) goes through these, so one quantity reads the same everywhere on a page.

SIGNIFICANT = 4  # measured times and rates: four significant figures


def significant(value: float, digits: int = SIGNIFICANT) -> str:
    """``value`` to ``digits`` significant figures with thousands separators, never in exponent
    form: 2811.46 -> '2,811', 812.34 -> '812.3', 0.0123456 -> '0.01235' (pure)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:,.0f}" if value == 0 else str(value)
    magnitude = int(math.floor(math.log10(abs(value))))
    decimals = max(0, digits - 1 - magnitude)
    rounded = round(value, decimals)
    if rounded and int(math.floor(math.log10(abs(rounded)))) > magnitude:  # 9.9996 -> 10.00
        decimals = max(0, decimals - 1)
    return f"{value:,.{decimals}f}"


_TIME_UNITS = ((1e-6, "ns"), (1e-3, "µs"), (1.0, "ms"), (1e3, "s"))


def column_unit(values_ms) -> str | None:
    """The one time unit for a table column of ``values_ms``: the unit its largest value fits,
    where its smallest then reads 0.1 or more ('0.9210 µs' beside '2.104 µs', not '921.0 ns');
    None (each cell its own unit) where the column spans too far for one (pure)."""
    values = [abs(v) for v in values_ms if v is not None and math.isfinite(v) and v]
    if not values:
        return None
    unit = duration(max(values)).rsplit(" ", 1)[1]
    scale = dict((u, lim) for lim, u in _TIME_UNITS)[unit]
    return unit if min(values) / scale >= 0.1 else None


def duration(ms: float, unit: str | None = None) -> str:
    """A time in the unit that fits, to four significant figures: 0.0068 -> '6.800 µs',
    0.2421 -> '242.1 µs', 3.3407 -> '3.341 ms', 1234.5 -> '1.235 s'; in ``unit`` where given
    (a table column's, ``column_unit``): 0.000921, 'µs' -> '0.9210 µs' (pure)."""
    if unit is not None:
        return f"{significant(ms / dict((u, lim) for lim, u in _TIME_UNITS)[unit])} {unit}"
    scale, unit = _TIME_UNITS[0]
    for limit, name in _TIME_UNITS:
        if abs(ms) >= limit:
            scale, unit = limit, name
    text = significant(ms / scale)
    if text.replace(",", "").split(".")[0] in ("1000",) and unit != "s":  # 999.96 µs rounds up
        scale, unit = _TIME_UNITS[[u for _, u in _TIME_UNITS].index(unit) + 1]
        text = significant(ms / scale)
    return f"{text} {unit}"


def rate(value: float, unit: str = "GB/s") -> str:
    """A rate to four significant figures with its unit: '2,811 GB/s', '812.3 GFLOP/s' (pure)."""
    return f"{significant(value)} {unit}"


def flops(gflops: float) -> str:
    """An arithmetic rate, given in GFLOP/s, as every page writes one: in TFLOP/s, the one unit of
    FLOP rates in prose, tables, claims and plots, '70.09 TFLOP/s', '0.5120 TFLOP/s' (pure)."""
    return rate(gflops / 1000, "TFLOP/s")


def tflops_number(gflops: float) -> str:
    """A FLOP rate given in GFLOP/s as a table cell under a TFLOP/s header: '70.09' (pure)."""
    return significant(gflops / 1000)


def ratio(value: float) -> str:
    """A ratio of two measured figures, to three significant figures: '3.55×' (pure)."""
    return f"{significant(value, 3)}×"


def quantity(value: float, unit: str = "") -> str:
    """A counted quantity with its unit, to four significant figures: '31.00 conflicts', '87.5%' (pure)."""
    text = significant(value)
    return text if not unit else f"{text}{unit}" if unit == "%" else f"{text} {unit}"


def percent(fraction: float) -> str:
    """A fraction as a whole percentage, or one decimal under 10%: '101%', '4.2%' (pure)."""
    pct = 100 * fraction
    return f"{pct:,.1f}%" if abs(pct) < 10 else f"{pct:,.0f}%"


def fmt_fixed(value: float, decimals: int = 1) -> str:
    return f"{value:,.{decimals}f}"


def fmt_int(value: int) -> str:
    return f"{value:,}"


# Parameters that name a matrix's dimensions: written as the reader writes a GEMM's size.
_DIMENSIONS = (("m", "n", "k"), ("rows", "cols"))


def is_dimensions(values: dict[str, int]) -> bool:
    """Whether ``values`` name a matrix's dimensions (m, n, k or rows, cols), in that order."""
    return tuple(values) in _DIMENSIONS


def params(values: dict[str, int]) -> str:
    """Problem-size or sweep parameters as a reader writes them (pure): 'n = 4,194,304',
    'chunk = 1,024 and n = 4,194,304'; a matrix's dimensions as '4096 × 4096 × 4096' (m, n, k)
    or '8192 × 8192' (rows, cols), the way a GEMM's size is quoted."""
    if is_dimensions(values):
        return " × ".join(str(v) for v in values.values())
    parts = [f"{k} = {fmt_int(v) if isinstance(v, int) else v}" for k, v in values.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def fmt_bytes(value: float) -> str:
    """A byte count in binary units: 50 MiB, 1 GiB (``measure.units.binary_bytes``); under a KiB
    with a thousands separator as every count ('1,016 B', not '1016 B'); and where one decimal
    would round a size under a MiB to a whole unit it is not ('16.0 KiB' beside '16 KiB'), the
    exact bytes ('16,392 B') (pure)."""
    text = units.binary_bytes(value)
    number = text.split(" ", 1)[0]
    if value < 1024 or (number.endswith(".0") and value == int(value) and value < 1 << 20):
        return f"{fmt_int(int(round(value)))} B"
    return text


def fmt_bpe1(value: float) -> str:
    """A counted byte count per element: one decimal, as every table and claim shows it."""
    return f"{value:,.1f}"


def fmt_bpe(value: float) -> str:
    """Bytes per element: whole numbers stay whole, measured ones get one decimal."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


# -- author text as inert Markdown ------------------------------------------------------------


# Syntax that makes markup inline: links and images ([ ]), attribute lists and template braces
# ({ }), code spans (a backtick of a value would pair with one the template opens), "*" emphasis
# (so {{ 7*7 }} shows as typed) and the escape itself.  "_" is left alone: identifiers such as
# chain_fused are everywhere, Python-Markdown does not emphasise inside words, and emphasis
# cannot inject anything.
_MARKDOWN_ACTIVE = re.compile(r"([\\`*{}\[\]])")
_EMPHASIS_UNDERSCORES = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
# What opens a block where a value starts a line: a heading, an admonition (!!!), details (???),
# a tab (===), a fence (~~~), a table row, a list item, a rule; the character is written as a
# numeric reference, which renders as itself.  ("<" and ">" are escaped anyway.)
_BLOCK_START = re.compile(r"[#!?=~|:]|[-+_](?= |[-+_ ]*$)|\d{1,9}(?=[.)](?: |$))")
# C0 and C1 controls (Python-Markdown's own placeholders are built from STX and ETX) and lone
# surrogates (no UTF-8 file can hold them).
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def one_line(value: Any) -> str:
    """The value as one line of text: whitespace runs collapsed, control characters dropped."""
    return CONTROLS.sub("", " ".join(str(value).split()))


def plain_text(value: Any) -> str:
    """Author-written text (a title, summary, name, label) as inert Markdown: shown as typed.

    HTML is escaped and link, attribute, code and ``*`` syntax backslash-escaped, so a <script>,
    a link, an attribute list ({: onclick=...}) or template braces render as the characters typed
    and never as markup; line breaks collapse and a leading block marker (#, !!!, -, 1.) is written
    as a character reference, so the text cannot open a block of its own.
    """
    text = one_line(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_ACTIVE.sub(r"\\\1", text)
    # an underscore run at a word's edge opens or closes emphasis (__launch_bounds__); one inside a
    # word (sm_90, wmma_f16) never does in Python-Markdown, so only edge runs are escaped
    text = _EMPHASIS_UNDERSCORES.sub(lambda m: m.group(0).replace("_", "\\_"), text)
    start = _BLOCK_START.match(text)
    if start:
        at = start.end() if start.group().isdigit() else 0  # "1." -> "1&#46;"
        text = f"{text[:at]}&#{ord(text[at])};{text[at + 1:]}"
    return text
