"""A variant's untimed setup (``measure.spec.setup``): its fills as memsets enqueued before each run.

``Fills.enqueue(stream)`` sets each filled buffer on the stream; the session enqueues it ahead of the
L2 flush and the blocking kernel (``GpuSession.sample``), the check runs it after the poison and
before the variant, and the counter pass before each variant's launches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measure.harness.workspace import Workspace
from measure.spec import MeasureSpec
from measure.spec.setup import fill_pattern
from measure.spec.sweep import MeasuredVariant


@dataclass(frozen=True)
class Fill:
    """One memset: ``count`` words of ``width`` bytes set to ``pattern`` at device pointer ``ptr``."""
    buffer: str
    ptr: int
    width: int
    pattern: int
    count: int


class Fills(list):
    """A measured variant's fills, in the order written."""

    def enqueue(self, stream: Any) -> None:
        import pycuda.driver as drv
        setters = {4: drv.memset_d32_async, 2: drv.memset_d16_async, 1: drv.memset_d8_async}
        for fill in self:
            setters[fill.width](fill.ptr, fill.pattern, fill.count, stream)

    def record(self) -> list[dict]:
        """What the result says of them: each buffer, the value's bit pattern, the bytes set."""
        return [{"buffer": f.buffer, "pattern": f"0x{f.pattern:0{2 * f.width}x}", "bytes": f.count * f.width}
                for f in self]


def variant_fills(spec: MeasureSpec, variant: MeasuredVariant, ws: Workspace) -> Fills | None:
    """The variant's fills over this size's buffers (every element its allocation holds), or None
    where it has none (pure but for reading the workspace's pointers)."""
    if not variant.spec.setup:
        return None
    out = Fills()
    for step in variant.spec.setup:
        buf = spec.buffers[step.fill]
        width, pattern = fill_pattern(buf.dtype, step.value)
        nbytes = ws.count_for(spec, step.fill, variant) * ws.itemsize(step.fill)
        out.append(Fill(step.fill, int(ws.allocs[step.fill]), width, pattern, nbytes // width))
    return out
