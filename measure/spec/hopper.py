"""Hopper's launch features in a spec: thread-block clusters, tensor maps for the TMA, and an L2
access-policy window (persistence).

* ``cluster: [x, y, z]`` on a kernel launch groups that many blocks into a cluster, launched
  through cuLaunchKernelEx with the cluster-dimension attribute; blocks of a cluster run at once
  on one GPC and can address each other's shared memory (distributed shared memory).  sm_90.
* ``measure.tensor_maps`` describes a buffer as a tiled tensor (cuTensorMapEncodeTiled); a launch
  argument naming one passes the 128-byte CUtensorMap by value, for a ``const __grid_constant__
  CUtensorMap`` parameter that the TMA's bulk copies read.  sm_90.
* ``l2_window`` on a variant sets an access-policy window on the stream its kernels run on
  (cuStreamSetAttribute): the window's lines persist in the L2's set-aside part.  sm_80.

Each is refused at load time for a spec that claims an architecture without it, and the harness
refuses it on such a device with the same reason (``requirements``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from measure import expr
from measure.spec.checks import check_expr, point_label
from measure.spec.limits import DEVICE_NAMES, NOMINAL_DEVICE
from measure.typed import SchemaError, doc

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec

# Blocks a cluster may hold without the non-portable opt-in (16 on an H100 with it).
MAX_CLUSTER_BLOCKS = 8
# cuTensorMapEncodeTiled's bounds: rank 1 to 5, each box dimension 1 to 256 elements, the inner
# box dimension and every stride a multiple of 16 bytes.
MAX_TENSOR_RANK = 5
MAX_BOX = 256
TMA_ALIGN = 16
SWIZZLE_BYTES = {"none": None, "32B": 32, "64B": 64, "128B": 128}
# The first architecture with each feature, and the words a refusal uses.
FEATURE_ARCH = {"cluster": (90, "thread-block clusters (and their distributed shared memory)"),
                "tensor_map": (90, "tensor maps (the tensor memory accelerator)"),
                "l2_window": (80, "L2 access-policy windows (persistence)")}


@dataclass(frozen=True)
class TensorMap:
    """A buffer seen as a tiled tensor for the TMA (cuTensorMapEncodeTiled), passed by value to a
    `const __grid_constant__ CUtensorMap` parameter."""

    buffer: str = doc("the device buffer the tensor lies in (its element type is the tensor's)")
    dims: list[str] = doc("the tensor's extents in elements, innermost (contiguous) first, e.g. [cols, rows]: "
                          "expressions over the size parameters; rank 1 to 5", max_items=MAX_TENSOR_RANK)
    box: list[int] = doc("the tile one bulk copy moves, in elements, innermost first, e.g. [32, 32]: each 1 to "
                         "256, the inner one a multiple of 16 bytes", max_items=MAX_TENSOR_RANK)
    swizzle: Literal["none", "32B", "64B", "128B"] = doc(
        "the shared-memory swizzle the copies write with (the inner box then spans at most that many bytes)",
        default="none")

    def validate(self) -> None:
        if not 1 <= len(self.dims) <= MAX_TENSOR_RANK:
            raise SchemaError("dims", f"expected 1 to {MAX_TENSOR_RANK} dimensions, found {len(self.dims)}")
        if len(self.box) != len(self.dims):
            raise SchemaError("box", f"expected one box extent per dimension ({len(self.dims)}), found {len(self.box)}")
        for i, b in enumerate(self.box):
            if not 1 <= b <= MAX_BOX:
                raise SchemaError(f"box[{i}]", f"expected 1 to {MAX_BOX} elements, found {b}")
        for i, d in enumerate(self.dims):
            check_expr(d, f"dims[{i}]")


@dataclass(frozen=True)
class L2Window:
    """An access-policy window on the stream a variant's kernels run on: accesses inside it are
    marked persisting (hit_ratio of them), so its lines stay in the L2's set-aside part."""

    buffer: str = doc("the device buffer the window starts at")
    bytes: str | None = doc("the window's length in bytes, an expression over the size parameters; default: "
                            "the whole buffer (the node clips it to the device's largest window)", default=None)
    hit_ratio: float = doc("the share of the window's accesses marked persisting (0 to 1): the set-aside L2 "
                           "over the window's bytes keeps persisting lines from evicting each other", default=1.0)
    set_aside: str | None = doc("L2 bytes set aside for persisting lines (cuCtxSetLimit), an expression over the "
                                "size parameters and l2_bytes; default: the device's most", default=None)

    def validate(self) -> None:
        if not 0 < self.hit_ratio <= 1:
            raise SchemaError("hit_ratio", f"expected a share above 0 and at most 1, found {self.hit_ratio}")
        if self.bytes is not None:
            check_expr(self.bytes, "bytes")
        if self.set_aside is not None:
            check_expr(self.set_aside, "set_aside")


def uses(spec: MeasureSpec) -> dict[str, str]:
    """The Hopper features a spec uses, each with the key of its first use."""
    out: dict[str, str] = {}
    for vi, variant in enumerate(spec.variants):
        if variant.l2_window is not None:
            out.setdefault("l2_window", f"variants[{vi}].l2_window")
        for li, step in enumerate(variant.launches):
            if step.cluster:
                out.setdefault("cluster", f"variants[{vi}].launches[{li}].cluster")
            for ai, arg in enumerate(step.args):
                if arg in spec.tensor_maps:
                    out.setdefault("tensor_map", f"variants[{vi}].launches[{li}].args[{ai}]")
    if spec.tensor_maps:
        out.setdefault("tensor_map", "tensor_maps")
    return out


def requirements(spec: MeasureSpec, arch: str) -> list[str]:
    """Why the spec cannot run on ``arch``: one sentence per feature it lacks (empty where it runs)."""
    number = int(arch[3:].rstrip("a"))
    out = []
    for feature, key in uses(spec).items():
        least, words = FEATURE_ARCH[feature]
        if number < least:
            out.append(f"{words} ({key}) need sm_{least} or newer; {arch} lacks them")
    return out


def check_hopper(spec: MeasureSpec, params: set[str]) -> None:
    """Clusters, tensor maps and L2 windows against the spec, at load time: each claimed arch has
    them, clusters tile the grid and hold at most MAX_CLUSTER_BLOCKS blocks, a tensor map lies inside
    its device buffer with strides of whole 16-byte units, a window on a device buffer of the variant's
    single stream."""
    for arch in spec.archs:
        for feature, key in uses(spec).items():
            least, words = FEATURE_ARCH[feature]
            if int(arch[3:].rstrip("a")) < least:
                raise SchemaError(key, f"{words} need sm_{least} or newer; {arch} lacks them: drop {arch} from "
                                       f"measure.archs, or this launch feature")
    for name, tm in spec.tensor_maps.items():
        where = f"tensor_maps.{name}"
        if name in spec.buffers or name in spec.scalars:
            raise SchemaError(where, f"{name!r} names a buffer or a scalar too; choose another name")
        if tm.buffer not in spec.buffers:
            raise SchemaError(f"{where}.buffer", f"expected a buffer ({', '.join(spec.buffers)}), found {tm.buffer!r}")
        buf = spec.buffers[tm.buffer]
        if buf.location != "device":
            raise SchemaError(f"{where}.buffer", f"the TMA reads device memory; {tm.buffer} is {buf.location}")
        for i, d in enumerate(tm.dims):
            check_expr(d, f"{where}.dims[{i}]", params)
        from measure.spec.sizes import DTYPE_BYTES  # sizes imports the model, which imports this module
        item = DTYPE_BYTES[buf.dtype]
        if tm.box[0] * item % TMA_ALIGN:
            raise SchemaError(f"{where}.box[0]", f"the inner box is {tm.box[0] * item} bytes; the TMA needs a "
                                                 f"multiple of {TMA_ALIGN}")
        swizzle = SWIZZLE_BYTES[tm.swizzle]
        if swizzle is not None and tm.box[0] * item > swizzle:
            raise SchemaError(f"{where}.box[0]", f"the inner box is {tm.box[0] * item} bytes, more than the "
                                                 f"{swizzle} a {tm.swizzle} swizzle spans")
        for i, point in enumerate(spec.sizes):
            try:
                dims = [expr.evaluate_int(d, dict(point)) for d in tm.dims]
                count = expr.evaluate_int(buf.size, dict(point))
            except expr.ExprError as err:
                raise SchemaError(f"{where}.dims", f"{err} (at sizes[{i}] {point_label(point)})") from None
            span = 1
            for d in dims:
                span *= d
            if min(dims) < 1 or span > count:
                raise SchemaError(f"{where}.dims", f"{dims} at sizes[{i}] {point_label(point)} spans {span:,} "
                                                   f"elements; {tm.buffer} holds {count:,}")
            stride = item
            for k, d in enumerate(dims[:-1]):
                stride *= d
                if stride % TMA_ALIGN:
                    raise SchemaError(f"{where}.dims[{k}]", f"the stride of dimension {k + 1} is {stride:,} bytes at "
                                      f"sizes[{i}] {point_label(point)}; the TMA needs a multiple of {TMA_ALIGN}")
    for vi, variant in enumerate(spec.variants):
        window = variant.l2_window
        if window is not None:
            where = f"variants[{vi}].l2_window"
            if window.buffer not in spec.buffers or spec.buffers[window.buffer].location != "device":
                raise SchemaError(f"{where}.buffer", f"expected a device buffer, found {window.buffer!r}")
            if variant.graph:
                raise SchemaError(f"{where}", "a window is set on the stream, not captured in a graph; set graph: false")
            if any(step.stream != "main" for step in variant.launches):
                raise SchemaError(f"{where}", "the window is set on the main stream; keep the variant's steps there")
            for key in ("bytes", "set_aside"):
                text = getattr(window, key)
                if text is not None:
                    check_expr(text, f"{where}.{key}", params | ({"l2_bytes"} if key == "set_aside" else set()))
        for li, step in enumerate(variant.launches):
            if not step.cluster:
                continue
            where = f"variants[{vi}].launches[{li}].cluster"
            if step.kernel is None:
                raise SchemaError(where, "only a kernel launch runs in clusters")
            if len(step.cluster) != len(step.grid):
                raise SchemaError(where, f"expected one cluster extent per grid dimension ({len(step.grid)}), "
                                         f"found {len(step.cluster)}")
            names = params | set(variant.sweep) | set(DEVICE_NAMES)
            for ci, c in enumerate(step.cluster):
                check_expr(str(c), f"{where}[{ci}]", names)
            point = next((mv.point for mv in spec.measured_variants if mv.base == variant.name), {})
            env = {**NOMINAL_DEVICE, **dict(spec.headline), **point, "i": 0}
            try:
                cluster = [expr.evaluate_int(str(c), env) for c in step.cluster]
                grid = [expr.evaluate_int(g, env) for g in step.grid]
            except expr.ExprError as err:
                raise SchemaError(where, f"{err} (at the headline size)") from None
            blocks = 1
            for c in cluster:
                blocks *= c
            if min(cluster) < 1 or blocks > MAX_CLUSTER_BLOCKS:
                raise SchemaError(where, f"gives {cluster}: expected 1 to {MAX_CLUSTER_BLOCKS} blocks a cluster "
                                         f"(the portable size)")
            for d, (g, c) in enumerate(zip(grid, cluster)):
                if g % c:
                    raise SchemaError(where, f"the grid's dimension {d} ({g:,} at the headline size) is not a multiple "
                                             f"of the cluster's ({c}); clusters must tile the grid")


def step_buffers(spec: MeasureSpec, step) -> set[str]:
    """The buffers a step touches: its buffer arguments, the buffers of its tensor-map arguments, a
    copy's source and destination, a prefetch's or advice's buffer."""
    out = {a for a in (*step.args, step.copy, step.to, step.prefetch, step.advise) if a in spec.buffers}
    out |= {spec.tensor_maps[a].buffer for a in step.args if a in spec.tensor_maps}
    return out
