"""Bytes from the spec alone: each buffer's bytes, a variant's working set, whether a size fits an arch."""

from __future__ import annotations

from typing import Iterator

from measure import expr
from measure.spec.checks import point_label
from measure.spec.model import MeasureSpec

DTYPE_BYTES = {"float32": 4, "float64": 8, "int32": 4, "float16": 2, "bfloat16": 2, "int8": 1}


class BufferSizeError(expr.ExprError):
    """A buffer's size expression that cannot be evaluated: the expression's own message, and
    ``buffer``, the name of the buffer, for callers that say which one."""

    def __init__(self, buffer: str, err: expr.ExprError) -> None:
        super().__init__(str(err))
        self.buffer = buffer


def buffer_bytes(spec: MeasureSpec, params: dict[str, int]) -> dict[str, int]:
    """Bytes of each of the spec's buffers at one size (``params``): pure arithmetic over the
    buffer size expressions, so sizes can be judged (working set, device memory) before any GPU.
    Raises BufferSizeError (an expr.ExprError) for an expression that cannot be evaluated."""
    return dict(iter_buffer_bytes(spec, params))


def iter_buffer_bytes(spec: MeasureSpec, params: dict[str, int]) -> Iterator[tuple[str, int]]:
    """``buffer_bytes`` one buffer at a time, in spec order, for a caller that checks each as it comes.
    A buffer sized by sweep names is counted at the largest point of the variants that use it
    (``buffer_count``): it is allocated once per size, at that count."""
    for name, buf in spec.buffers.items():
        try:
            count = buffer_count(spec, name, params)
        except expr.ExprError as err:
            raise BufferSizeError(name, err) from None
        yield name, count * DTYPE_BYTES[buf.dtype]


def swept_names(spec: MeasureSpec, name: str) -> set[str]:
    """The sweep names a buffer's size expression uses ({} for a buffer sized by the size alone)."""
    return expr.names(spec.buffers[name].size) - set(spec.sizes[0])


def users(spec: MeasureSpec, name: str) -> list:
    """The measured variants whose steps use buffer ``name`` (pass it, or copy from or to it)."""
    return [v for v in spec.measured_variants
            if any(name in (*step.args, step.copy, step.to) for step in v.launches)]


def buffer_count(spec: MeasureSpec, name: str, params: dict[str, int], variant=None) -> int:
    """Elements of buffer ``name`` at size ``params``: for ``variant`` (a measured variant), at its
    sweep point; without one, the allocation's count: a buffer sized by sweep names at the largest
    point of the variants that use it.  Raises expr.ExprError where the expression cannot be
    evaluated."""
    text = spec.buffers[name].size
    swept = swept_names(spec, name)
    if not swept:
        return expr.evaluate_int(text, dict(params))
    if variant is not None:
        return expr.evaluate_int(text, {**params, **variant.point})
    points = {tuple(sorted(v.point.items())) for v in users(spec, name) if swept <= set(v.point)}
    if not points:
        raise expr.ExprError(f"{text!r} names {', '.join(sorted(swept))}, which no variant that uses "
                             f"{name} sweeps")
    return max(expr.evaluate_int(text, {**params, **dict(point)}) for point in points)


def variant_counts(spec: MeasureSpec, variant, params: dict[str, int]) -> dict[str, int]:
    """Elements of each buffer as ``variant`` sees it at ``params``: a buffer sized by sweep names at
    the variant's point, one the variant's point does not size left out (it does not use it)."""
    out = {}
    for name in spec.buffers:
        if swept_names(spec, name) <= set(variant.point):
            out[name] = buffer_count(spec, name, params, variant)
    return out


def working_set_bytes(spec: MeasureSpec, params: dict[str, int]) -> int:
    """The most bytes any one variant's device buffers span at ``params``: the buffers its launches
    pass or its copies touch, each counted once (``buffer_bytes``); what a result's
    ``working_set_bytes`` records.  Host buffers never sit in the L2, so they are not counted."""
    sizes = {name: n for name, n in buffer_bytes(spec, params).items()
             if spec.buffers[name].location in ("device", "managed")}
    from measure.spec.hopper import step_buffers  # hopper imports sizes' module lazily too
    used = ({arg for launch in v.launches for arg in step_buffers(spec, launch) if arg in sizes}
            for v in spec.variants)
    return max((sum(sizes[name] for name in names) for names in used), default=0)


# Device memory of the largest GPU known for each architecture, in bytes: what a size's working set
# must fit for the entry's claim "this runs on sm_XX" to hold anywhere.  Conservative on purpose
# (the biggest card of the arch, the memory the vendor quotes), so a size flagged here fits no GPU
# of that arch; an arch not listed is not judged.  GB is 10**9 bytes, as vendors quote HBM.
GB = 10**9
LARGEST_GPU: dict[str, tuple[int, str]] = {
    "sm_60": (16 * GB, "Tesla P100"),
    "sm_61": (24 * GB, "Tesla P40"),
    "sm_70": (32 * GB, "Tesla V100 32 GB"),
    "sm_75": (48 * GB, "Quadro RTX 8000"),
    "sm_80": (80 * GB, "A100 80 GB"),
    "sm_86": (48 * GB, "RTX A6000"),
    "sm_87": (64 * GB, "Jetson AGX Orin 64 GB"),
    "sm_89": (48 * GB, "L40S"),
    "sm_90": (144 * GB, "GH200"),  # the H200 has 141 GB, the H100 80 or 94
    "sm_100": (192 * GB, "B200"),
    "sm_103": (288 * GB, "B300"),
    "sm_120": (96 * GB, "RTX PRO 6000 Blackwell"),
}


def fit_problems(spec: MeasureSpec) -> list[str]:
    """One sentence for each size whose working set (every buffer, as the harness allocates them;
    ``buffer_bytes``) cannot fit the device memory of the largest known GPU of an architecture the
    entry claims (``measure.archs``, LARGEST_GPU); empty when every size fits.  Pure: no GPU needed,
    for `glossary check` to warn before any measuring."""
    problems = []
    archs = list(dict.fromkeys(a.rstrip("a") for a in spec.archs))  # sm_90a is sm_90's memory
    for i, point in enumerate(spec.sizes):
        try:
            need = sum(n for name, n in buffer_bytes(spec, dict(point)).items()
                       if spec.buffers[name].location in ("device", "managed"))
        except expr.ExprError as err:
            problems.append(f"measure.sizes[{i}] {point_label(point)}: the working set cannot be worked out: {err}.")
            continue
        for arch in archs:
            known = LARGEST_GPU.get(arch)
            if known is not None and need > known[0]:
                memory, gpu = known
                problems.append(f"measure.sizes[{i}] {point_label(point)} needs a working set of {_bytes(need)}, "
                                f"more than the {_bytes(memory)} of the largest {arch} GPU ({gpu}); "
                                f"lower the size or drop {arch} from measure.archs.")
    return problems


def _bytes(count: int) -> str:
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count:,} bytes"

