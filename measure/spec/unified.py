"""Unified memory in a spec: managed buffers, where their pages are before each sample, and the
prefetch and advise steps that move or describe them.

A buffer with ``location: managed`` is one allocation (cuMemAllocManaged) that the host and the
device both address; the driver moves its pages on demand (a page fault on first touch) or when
told to (a ``prefetch`` step, cuMemPrefetchAsync).  Before every sample, and before the check's
run, the harness puts each managed buffer's pages where the variant's ``resident`` says (the host
by default, so a kernel's first touch faults inside the timed region; ``device`` prefetches them
outside it) and clears every advice, so each sample starts from the same state.  An ``advise``
step (cuMemAdvise: read_mostly, preferred_location, accessed_by) is a host call made as the
variant is enqueued, before the steps after it run.

``check_managed`` ties these to the spec at load time, including the bound on managed bytes:
an oversubscribed managed allocation can stall the GPU for minutes, so a spec asking for more
than MAX_MANAGED_BYTES at any size is refused (the node also refuses a size past half the free
device memory before allocating).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from measure import expr, units
from measure.spec.checks import point_label
from measure.typed import SchemaError

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec
    from measure.spec.steps import Launch

ADVICE = ("read_mostly", "preferred_location", "accessed_by")
PLACES = ("device", "host")
# Managed bytes at one size, at most: far below the memory of any card that runs managed memory
# with prefetch (16 GB and up) and of the node's host, which holds the pages before each sample.
MAX_MANAGED_BYTES = 8 << 30
# On the node: managed bytes at most this share of the device memory free when a size is allocated.
MANAGED_DEVICE_SHARE = 0.5
# The oldest architecture with demand paging of managed memory and cuMemPrefetchAsync (Pascal).
MANAGED_MIN_ARCH = 60


def arch_number(arch: str) -> int:
    """sm_90a -> 90."""
    return int(arch[3:].rstrip("a"))


def is_memory_step(step: Launch) -> bool:
    """A prefetch or advise step (no kernel, no copy)."""
    return step.prefetch is not None or step.advise is not None


def step_label(step: Launch) -> str:
    if step.prefetch is not None:
        return f"prefetch {step.prefetch} -> {step.location}"
    return f"advise {step.advise} {step.advice}" + (f" {step.location}" if step.location else "")


def validate_memory_step(step: Launch) -> None:
    """A prefetch or advise step's own keys (the buffers are checked against the spec later)."""
    if step.prefetch is not None and step.advise is not None:
        raise SchemaError("prefetch", "a step prefetches or advises, not both")
    for key in ("grid", "block", "args", "cluster"):
        if getattr(step, key):
            raise SchemaError(key, "a prefetch or advise step takes no grid, block, cluster or arguments")
    for key in ("to", "count"):
        if getattr(step, key) is not None:
            raise SchemaError(key, "only a copy step takes to and count")
    if step.prefetch is not None:
        if step.advice is not None:
            raise SchemaError("advice", "only an advise step takes advice")
        if step.location is None:
            raise SchemaError("location", "a prefetch step names where the pages go: location: device or host")
        return
    if step.advice is None:
        raise SchemaError("advice", f"an advise step names its advice ({', '.join(ADVICE)})")
    if step.advice == "read_mostly" and step.location is not None:
        raise SchemaError("location", "read_mostly applies to every processor; it takes no location")
    if step.advice != "read_mostly" and step.location is None:
        raise SchemaError("location", f"{step.advice} names a processor: location: device or host")
    if step.repeat != 1:
        raise SchemaError("repeat", "advice is a setting, not work: an advise step runs once (repeat: 1)")


def managed_buffers(spec: MeasureSpec) -> list[str]:
    return [name for name, buf in spec.buffers.items() if buf.location == "managed"]


def check_managed(spec: MeasureSpec, params: set[str]) -> None:
    """Managed buffers against the steps and variants that use them, at load time: prefetch and
    advise name a managed buffer, a copy step never does, ``resident`` names managed buffers, a
    graph holds no memory step, every claimed arch pages managed memory, and the managed bytes at
    every size stay within MAX_MANAGED_BYTES."""
    managed = set(managed_buffers(spec))
    for vi, variant in enumerate(spec.variants):
        for name in variant.resident:
            if name not in managed:
                raise SchemaError(f"variants[{vi}].resident.{name}",
                                  f"expected a managed buffer ({', '.join(sorted(managed)) or 'none declared'}), "
                                  f"found {name!r}; only a managed buffer's pages have a place to start from")
        for li, step in enumerate(variant.launches):
            where = f"variants[{vi}].launches[{li}]"
            if step.is_copy and managed & {step.copy, step.to}:
                raise SchemaError(f"{where}.copy", "a managed buffer moves by prefetch steps or by the kernels' "
                                                   "own page faults; it takes no copy step")
            if not is_memory_step(step):
                continue
            key, name = ("prefetch", step.prefetch) if step.prefetch is not None else ("advise", step.advise)
            if name not in managed:
                raise SchemaError(f"{where}.{key}", f"expected a managed buffer ({', '.join(sorted(managed)) or 'none declared: set location: managed on one'}), "
                                                    f"found {name!r}")
            if variant.graph:
                raise SchemaError(f"variants[{vi}].graph", "a CUDA graph cannot hold an advise step, and this harness "
                                                           "does not capture prefetches; set graph: false")
            if step.stream != "main" and key == "advise":
                raise SchemaError(f"{where}.stream", "advice is a host call, not stream work: leave stream unset")
    if not managed:
        return
    old = [a for a in spec.archs if arch_number(a) < MANAGED_MIN_ARCH]
    if old:
        raise SchemaError("archs", f"managed buffers ({', '.join(sorted(managed))}) need demand paging and "
                                   f"prefetch (sm_60 and newer); {', '.join(old)} lacks them")
    from measure.spec.sizes import DTYPE_BYTES  # sizes imports the model, which imports this module
    for i, point in enumerate(spec.sizes):
        total, biggest, most = 0, "", -1
        for name in sorted(managed):
            buf = spec.buffers[name]
            try:
                count = expr.evaluate_int(buf.size, dict(point))
            except expr.ExprError:
                return  # check_values names the expression
            nbytes = count * DTYPE_BYTES[buf.dtype]
            total += nbytes
            if nbytes > most:
                biggest, most = name, nbytes
        if total > MAX_MANAGED_BYTES:
            gib = lambda n: units.binary_bytes(n, "GiB", digits=1)  # noqa: E731
            raise SchemaError(f"buffers.{biggest}", f"the managed buffers at sizes[{i}] {point_label(point)} take "
                              f"{gib(total)}, more than the {gib(MAX_MANAGED_BYTES)} a spec may ask for: an "
                              f"oversubscribed managed allocation can stall the GPU, so managed memory stays well "
                              f"below any card's free memory; lower the size")

