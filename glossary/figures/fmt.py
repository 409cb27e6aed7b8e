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


def fmt_fixed(value: float, decimals: int = 1) -> str:
    return f"{value:,.{decimals}f}"


def fmt_int(value: int) -> str:
    return f"{value:,}"


def fmt_bytes(value: float) -> str:
    """A byte count in binary units: 50 MiB, 1 GiB (``measure.units.binary_bytes``)."""
    return units.binary_bytes(value)


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
    start = _BLOCK_START.match(text)
    if start:
        at = start.end() if start.group().isdigit() else 0  # "1." -> "1&#46;"
        text = f"{text[:at]}&#{ord(text[at])};{text[at + 1:]}"
    return text
