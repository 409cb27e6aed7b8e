"""Untimed setup steps: what a variant's buffers are set to before each of its samples.

A variant's ``setup`` lists fills (``{fill: hist, value: 0}``): before every run of the variant (the
check's run, each warm-up, each sample, the counter pass's run) the harness sets every element of
the buffer to the value, on the session's stream, ahead of the L2 flush and the blocking kernel, so
neither the fill nor its writes are in the timed region.  A histogram or an atomic reduction thus
times its kernel alone, not the zeroing kernel it would otherwise launch itself.

``check_setup`` ties the fills to the spec at load time; ``fill_pattern`` is the memset a fill
becomes (pure: the harness only enqueues it).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from measure.typed import SchemaError, doc

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec

MAX_SETUP = 8  # fills per variant: each is a memset before every sample
_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int8": (-128, 127)}


@dataclass(frozen=True)
class Setup:
    """An untimed step before each run of a variant: every element of a buffer set to one value."""

    fill: str = doc("the buffer to fill: an output or scratch buffer on the device (an input keeps the "
                    "seeded draws the reference is given)")
    value: float = doc("the value every element is set to, in the buffer's type: 0 for a histogram or an "
                       "atomic sum, -inf for a max; a float64 buffer takes 0 (or another value whose two "
                       "32-bit halves are equal)", default=0.0)


def fill_pattern(dtype: str, value: float) -> tuple[int, int]:
    """(width in bytes, bit pattern) of the memset that sets every element of a ``dtype`` buffer to
    ``value``: float32 and int32 4 bytes, float16 and bfloat16 2, int8 1, float64 as two equal 32-bit
    words (pure).  A ValueError says why a value cannot be written that way."""
    if dtype in _INT_RANGE:
        lo, hi = _INT_RANGE[dtype]
        if not float(value).is_integer() or not lo <= value <= hi:
            raise ValueError(f"expected a whole number from {lo:,} to {hi:,} for an {dtype} buffer, found {value}")
        width = 4 if dtype == "int32" else 1
        return width, int(value) & ((1 << (8 * width)) - 1)
    if dtype == "float32":
        return 4, struct.unpack("<I", struct.pack("<f", value))[0]
    if dtype == "float16":
        try:
            return 2, struct.unpack("<H", struct.pack("<e", value))[0]
        except OverflowError:
            raise ValueError(f"{value} is past float16's range (65,504)") from None
    if dtype == "bfloat16":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        if math.isnan(value):
            return 2, 0x7FC0
        return 2, ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest, ties to even
    if dtype == "float64":
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        if bits >> 32 != bits & 0xFFFFFFFF:
            raise ValueError(f"a float64 fill is a 32-bit memset, so it takes 0 (or a value whose two halves "
                             f"are equal), not {value}; keep the buffer float32, or zero it")
        return 4, bits & 0xFFFFFFFF
    raise ValueError(f"no fill for data type {dtype}")


def check_setup(spec: MeasureSpec) -> None:
    """Each variant's fills against the spec's buffers: an output or scratch buffer on the device that
    one of the variant's steps uses, named once, with a value its type can hold."""
    for vi, variant in enumerate(spec.variants):
        if len(variant.setup) > MAX_SETUP:
            raise SchemaError(f"variants[{vi}].setup", f"expected at most {MAX_SETUP} fills, found {len(variant.setup)}")
        used = {arg for step in variant.launches for arg in (*step.args, step.copy, step.to) if arg}
        seen: set[str] = set()
        for si, step in enumerate(variant.setup):
            where = f"variants[{vi}].setup[{si}]"
            buf = spec.buffers.get(step.fill)
            if buf is None:
                raise SchemaError(f"{where}.fill", f"expected a buffer ({', '.join(spec.buffers)}), found {step.fill!r}")
            if buf.role == "input":
                raise SchemaError(f"{where}.fill", f"{step.fill} is an input: it holds the seeded draws the "
                                                   f"reference is given; fill an output or scratch buffer")
            if buf.location != "device":
                raise SchemaError(f"{where}.fill", f"{step.fill} is a {buf.location} host buffer; a fill is a "
                                                   f"device memset (fill the device buffer the copies reach)")
            if step.fill not in used:
                raise SchemaError(f"{where}.fill", f"none of {variant.name}'s steps uses {step.fill}, so the "
                                                   f"fill would do nothing")
            if step.fill in seen:
                raise SchemaError(f"{where}.fill", f"{step.fill} is filled twice; fill it once")
            seen.add(step.fill)
            try:
                fill_pattern(buf.dtype, step.value)
            except ValueError as err:
                raise SchemaError(f"{where}.value", str(err)) from None
