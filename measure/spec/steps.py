"""A variant's steps: kernel launches and copies, on named streams, with the events between them.

A step is a kernel launch (``kernel``) or a copy (``copy`` and ``to``): host to device, device to host
or device to device, decided by the buffers' locations.  Each step runs on a stream (``main``
unless named; ``s{i % 2}`` picks one per repeat) and may wait for earlier steps (``after``), on
whatever stream they ran.  ``check_steps`` ties steps to the spec's buffers at load time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from measure import expr
from measure.spec.checks import check_expr
from measure.spec.limits import DEVICE_NAMES, MAX_ARGS, MAX_REPEAT
from measure.spec import unified
from measure.typed import SchemaError, doc

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec

MAX_STREAMS = 8
MAIN_STREAM = "main"
# A stream name, or a name with one expression in braces: s{i % 2}.
STREAM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\{[^{}]{1,60}\})?$")


@dataclass(frozen=True)
class Launch:
    """One step of a variant (``repeat`` times): a kernel launch, or a copy between two buffers."""

    kernel: str | None = doc("the __global__ function's name (declare it extern \"C\"); or use copy", default=None)
    grid: list[int | str] = doc("grid dimensions (1 to 3): integers, or expressions over the size parameters, "
                                "the variant's sweep names and the device names", default_factory=tuple)
    block: list[int | str] = doc("block dimensions (1 to 3): integers, or expressions over the size "
                                 "parameters, the sweep names and the device names; at most 1024 threads",
                                 default_factory=tuple)
    args: list[str] = doc(
        "kernel arguments in order: a device buffer's name (its pointer), a scalar name, or an "
        "integer expression over the size parameters, sweep names and device names (passed as "
        "`index_type`); inside a repeated launch, `i` is the repeat index", max_items=MAX_ARGS,
        default_factory=tuple)
    repeat: int = doc("enqueue this step this many times", default=1)
    shared: int | str = doc("dynamic shared memory per block, bytes: an integer or an expression (as for "
                            "block); past 48 KiB the kernel is opted in to the device's larger limit",
                            default=0)
    copy: str | None = doc("a copy step: the source buffer (host to device, device to host or device to "
                           "device, from the buffers' locations)", default=None)
    to: str | None = doc("a copy step's destination buffer", default=None)
    count: str | None = doc("elements a copy moves, an expression (size, sweep and device names, i); "
                            "default: all of the smaller buffer past the offsets", default=None)
    src_offset: str = doc("first element of the source a copy reads (an expression, with i)", default="0")
    dst_offset: str = doc("first element of the destination a copy writes (an expression, with i)", default="0")
    stream: str = doc("the stream the step runs on: a name (main by default), or a name with an expression "
                      "in braces picking one per repeat, e.g. s{i % 2}; at most 8 streams a variant",
                      default=MAIN_STREAM)
    id: str | None = doc("a name for the step that `after` may refer to (a repeated step: its last "
                         "repeat)", default=None)
    after: list[str] = doc("steps (by id) this one waits for, on whatever stream they ran", default_factory=tuple)
    cluster: list[int | str] = doc(
        "thread-block cluster extents (one per grid dimension), e.g. [2, 1]: the blocks of a cluster run at once "
        "and share their shared memory (distributed shared memory); launched with cuLaunchKernelEx; sm_90",
        default_factory=tuple)
    prefetch: str | None = doc("a prefetch step: the managed buffer whose pages cuMemPrefetchAsync moves to "
                               "`location`, on the step's stream", default=None)
    advise: str | None = doc("an advise step: the managed buffer cuMemAdvise describes with `advice`", default=None)
    advice: Literal["read_mostly", "preferred_location", "accessed_by"] | None = doc(
        "an advise step's advice: read_mostly (read copies on every processor that reads), preferred_location "
        "(the pages' home), accessed_by (map the pages for that processor, no migration on its access)",
        default=None)
    location: Literal["device", "host"] | None = doc(
        "where a prefetch moves the pages, or the processor preferred_location and accessed_by name", default=None)

    @property
    def is_copy(self) -> bool:
        return self.copy is not None

    @property
    def label(self) -> str:
        if unified.is_memory_step(self):
            return unified.step_label(self)
        return self.kernel if self.kernel is not None else f"copy {self.copy} -> {self.to}"

    def validate(self) -> None:
        kinds = [k for k in ("kernel", "copy", "prefetch", "advise") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise SchemaError("kernel", "a step is a kernel launch (kernel), a copy (copy and to), a prefetch or an "
                                        "advise: one of them, not both")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise SchemaError("repeat", f"expected 1 to {MAX_REPEAT:,} launches, found {self.repeat:,}")
        if not STREAM.match(self.stream):
            raise SchemaError("stream", f"expected a stream name such as s1 or s{{i % 2}}, found {self.stream!r}")
        if unified.is_memory_step(self):
            unified.validate_memory_step(self)
            return
        if self.kernel is None and self.cluster:
            raise SchemaError("cluster", "only a kernel launch runs in clusters")
        for key in ("advice", "location"):
            if getattr(self, key) is not None:
                raise SchemaError(key, "only a prefetch or advise step takes advice and location")
        if self.is_copy:
            if self.to is None:
                raise SchemaError("to", "a copy step names its destination buffer")
            for key in ("grid", "block", "args"):
                if getattr(self, key):
                    raise SchemaError(key, "a copy step takes no grid, block or arguments")
            for key in ("count", "src_offset", "dst_offset"):
                if getattr(self, key) is not None:
                    check_expr(getattr(self, key), key)
            return
        for key in ("to", "count"):
            if getattr(self, key) is not None:
                raise SchemaError(key, "only a copy step takes to and count")
        if not 1 <= len(self.grid) <= 3:
            raise SchemaError("grid", f"expected 1 to 3 dimensions, found {len(self.grid)}")
        if not 1 <= len(self.block) <= 3:
            raise SchemaError("block", f"expected 1 to 3 dimensions, found {len(self.block)}")
        fixed = [b for b in self.block if isinstance(b, int)]
        threads = 1
        for b in fixed:
            threads *= b
        if any(b < 1 for b in fixed) or threads > 1024:
            raise SchemaError("block", f"expected positive sizes with at most 1024 threads, found {list(self.block)}")
        if any(isinstance(g, int) and g < 1 for g in self.grid):
            raise SchemaError("grid", f"expected positive sizes, found {list(self.grid)}")
        for i, text in enumerate(self.grid):
            check_expr(str(text), f"grid[{i}]")
        for i, text in enumerate(self.block):
            check_expr(str(text), f"block[{i}]")
        check_expr(str(self.shared), "shared")


def stream_name(step: Launch, i: int) -> str:
    """The stream a step's repeat ``i`` runs on: s{i % 2} at i = 3 is s1."""
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:\{([^{}]+)\})?", step.stream)
    if match is None or match.group(2) is None:
        return step.stream
    return f"{match.group(1)}{expr.evaluate_int(match.group(2), {'i': i})}"


def step_streams(step: Launch) -> set[str]:
    """The streams a step's repeats run on (the first 4 x MAX_STREAMS repeats: enough to see more
    than MAX_STREAMS); raises expr.ExprError for a stream expression that cannot be evaluated."""
    if "{" not in step.stream:
        return {step.stream}
    return {stream_name(step, i) for i in range(min(step.repeat, 4 * MAX_STREAMS))}


def copy_direction(spec: MeasureSpec, step: Launch) -> str:
    """h2d, d2h or d2d, from the locations of a copy's buffers."""
    src, dst = (spec.buffers[step.copy].location != "device"), (spec.buffers[step.to].location != "device")
    return {(True, False): "h2d", (False, True): "d2h", (False, False): "d2d"}.get((src, dst), "h2h")


def check_steps(spec: MeasureSpec, params: set[str]) -> None:
    """Each variant's steps against the spec's buffers: a copy between two buffers of one type, never
    host to host; kernels given device buffers only; streams at most MAX_STREAMS a variant; `after`
    naming earlier steps; a graph capturing no pageable copy (CUDA cannot capture one)."""
    names = params | set(DEVICE_NAMES) | {"i"}
    for vi, variant in enumerate(spec.variants):
        ids: set[str] = set()
        streams: set[str] = set()
        names_here = names | set(variant.sweep)
        for li, step in enumerate(variant.launches):
            where = f"variants[{vi}].launches[{li}]"
            for ai, arg in enumerate(step.args):
                if arg in spec.buffers and spec.buffers[arg].location not in ("device", "managed"):
                    raise SchemaError(f"{where}.args[{ai}]", f"{arg} is a {spec.buffers[arg].location} host buffer; "
                                                             f"a kernel reads device buffers (copy it first)")
            if step.is_copy:
                for key in ("copy", "to"):
                    if getattr(step, key) not in spec.buffers:
                        raise SchemaError(f"{where}.{key}", f"expected a buffer ({', '.join(spec.buffers)}), "
                                                            f"found {getattr(step, key)!r}")
                src, dst = spec.buffers[step.copy], spec.buffers[step.to]
                if src.dtype != dst.dtype:
                    raise SchemaError(f"{where}.to", f"{step.copy} holds {src.dtype} and {step.to} {dst.dtype}; "
                                                     f"a copy moves bytes between buffers of one type")
                if copy_direction(spec, step) == "h2h":
                    raise SchemaError(f"{where}.to", "a copy from host to host is not a GPU step")
                if variant.graph and "pageable" in (src.location, dst.location):
                    raise SchemaError(f"variants[{vi}].graph", "a CUDA graph cannot capture a copy from or to "
                                                               "pageable memory; use a pinned buffer")
                for key in ("count", "src_offset", "dst_offset"):
                    if getattr(step, key) is not None:
                        check_expr(getattr(step, key), f"{where}.{key}", names_here)
            if "{" in step.stream:
                check_expr(step.stream[step.stream.index("{") + 1:-1], f"{where}.stream", {"i"},
                           hint="an expression over the repeat index i")
            try:
                streams |= step_streams(step)
            except expr.ExprError as err:
                raise SchemaError(f"{where}.stream", str(err)) from None
            for name in step.after:
                if name not in ids:
                    raise SchemaError(f"{where}.after", f"expected the id of an earlier step, found {name!r}")
            if step.id is not None:
                if step.id in ids:
                    raise SchemaError(f"{where}.id", f"{step.id!r} names an earlier step already")
                ids.add(step.id)
        outputs = {n for n, b in spec.buffers.items() if b.role == "output"}
        from measure.spec.hopper import step_buffers
        touched = {arg for step in variant.launches for arg in step_buffers(spec, step)}
        if outputs and not outputs & touched:
            raise SchemaError(f"variants[{vi}]", f"{variant.name} writes none of the outputs "
                                                 f"({', '.join(sorted(outputs))}): nothing of it could be checked")
        pageable = copies_pageable(spec, variant)
        if pageable and spec.timing.blocking:
            raise SchemaError("timing.blocking", f"{variant.name} copies from or to pageable memory, which "
                                                 f"the host waits for: it would wait behind the blocking kernel "
                                                 f"until that times out; set timing.blocking: false")
        if len(streams) > MAX_STREAMS:
            raise SchemaError(f"variants[{vi}]", f"the steps use {len(streams)} streams; at most {MAX_STREAMS}")


def copies_pageable(spec: "MeasureSpec", variant) -> bool:
    """Whether a variant copies from or to pageable memory: the host stages such a copy itself, so
    it cannot wait behind the blocking kernel."""
    return any(s.is_copy and "pageable" in (spec.buffers[s.copy].location, spec.buffers[s.to].location)
               for s in variant.launches)


def blocked_variants(spec: "MeasureSpec") -> set[str]:
    """The measured variants queued behind the blocking kernel although timing.blocking is off:
    with timing.block_where_possible, every one that copies no pageable memory (pure)."""
    if spec.timing.blocking or not spec.timing.block_where_possible:
        return set()
    return {v.name for v in spec.measured_variants if not copies_pageable(spec, v)}
