"""The spec's expressions, checked at load time: names known, values in bounds, errors under their key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from measure import expr
from measure.spec.limits import DEVICE_NAMES, MAX_SHARED_BYTES, MAX_SIZE, NOMINAL_DEVICE
from measure.typed import SchemaError

if TYPE_CHECKING:
    from measure.spec.model import MeasureSpec


def check_values(spec: MeasureSpec, params: set[str]) -> None:
    """Evaluate the spec's expressions now, so that a bad one is an error under its key at load
    time rather than in `check`, a page or the harness: ``elements`` and every buffer's size at
    every point of the sweep (each a count of 1 to 2**40), and each distinct grid and integer
    argument expression at the headline and the largest point, for the first and the last
    repeat index, for every measured variant (each point of a sweep), with the device names bound
    to NOMINAL_DEVICE (bounded work: MAX_MEASURED_VARIANTS x MAX_LAUNCHES x (MAX_ARGS + 7) x 4
    evaluations at most; the harness still evaluates every size and repeat, on the real device,
    when it runs)."""
    swept = check_swept_buffers(spec)
    counts = [("elements", spec.elements)] + [(f"buffers.{n}.size", b.size) for n, b in spec.buffers.items()]
    largest = spec.sizes[0]
    most = -1
    for i, point in enumerate(spec.sizes):
        for key, text in counts:
            # a buffer sized by sweep names, at each point of the variants that use it (bounded:
            # MAX_MEASURED_VARIANTS points a buffer)
            name = key[len("buffers."):-len(".size")] if key != "elements" else None
            for sweep_point in swept.get(name, [{}]):
                where = f"sizes[{i}] {point_label(point)}" + (f", {point_label(sweep_point)}" if sweep_point else "")
                value = value_at(text, {**point, **sweep_point}, key, where)
                if not 1 <= value <= MAX_SIZE:
                    raise SchemaError(key, f"expression {text!r} gives {value:,} elements at {where}; "
                                           f"expected 1 to 2**40 ({MAX_SIZE:,})")
            if key == "elements" and value > most:
                largest, most = point, value
        if spec.reference_elementwise:
            _check_elementwise_counts(spec, point, f"sizes[{i}] {point_label(point)}")
    points = [dict(spec.headline)] + ([dict(largest)] if dict(largest) != dict(spec.headline) else [])
    seen: set[tuple[str, tuple]] = set()
    index = {v.name: i for i, v in enumerate(spec.variants)}
    for mv in spec.measured_variants:
        vi = index[mv.base]
        at = f" at {point_label(mv.point)}" if mv.point else ""
        try:
            options = mv.compile_options(NOMINAL_DEVICE)
        except expr.ExprError as err:
            raise SchemaError(f"variants[{vi}]", f"defines or maxrregcount: {err}{at}") from None
        for option in options:
            if option.startswith("-maxrregcount=") and not 16 <= int(option.split("=")[1]) <= 255:
                raise SchemaError(f"variants[{vi}].maxrregcount", f"expected 16 to 255 registers, found "
                                                                  f"{option.split('=')[1]}{at}")
        for key in ("bytes_per_elem", "useful_bytes_per_elem", "flops_per_elem"):
            if isinstance(getattr(mv.spec, key), str):
                for i, point in enumerate(spec.sizes):
                    try:
                        value = mv.per_elem(key, dict(point))
                    except expr.ExprError as err:
                        raise SchemaError(f"variants[{vi}].{key}", f"{err} (at sizes[{i}] {point_label(point)}{at})") \
                            from None
                    if not value >= 0:
                        raise SchemaError(f"variants[{vi}].{key}", f"gives {value} at sizes[{i}]; expected at least 0")
        for li, launch in enumerate(mv.launches):
            where = f"variants[{vi}].launches[{li}]"
            texts = [(f"{where}.grid[{gi}]", str(g)) for gi, g in enumerate(launch.grid)]
            texts += [(f"{where}.block[{bi}]", str(b)) for bi, b in enumerate(launch.block)]
            texts += [(f"{where}.shared", str(launch.shared))]
            texts += [(f"{where}.args[{ai}]", a) for ai, a in enumerate(launch.args)
                      if a not in spec.buffers and a not in spec.scalars and a not in spec.tensor_maps]
            if launch.is_copy:  # a copy's element count and offsets, each a whole number within its buffers
                texts = [(f"{where}.{k}", getattr(launch, k)) for k in ("count", "src_offset", "dst_offset")
                         if getattr(launch, k) is not None]
            elif launch.kernel is None:  # a prefetch or advise step: nothing to evaluate
                texts = []
            for point in points:
                env = mv.env(dict(point), NOMINAL_DEVICE)
                for repeat_index in sorted({0, launch.repeat - 1}):
                    for key, text in texts:
                        names = expr.names(text)
                        memo = (text, tuple(sorted((k, v) for k, v in env.items() if k in names)), repeat_index)
                        if memo in seen:
                            continue
                        seen.add(memo)
                        value_at(text, dict(env, i=repeat_index), key,
                                 f"{point_label(point)}{at}" + (f", i = {repeat_index}" if "i" in names else ""))
                if launch.kernel is None:
                    continue
                block = [value_at(str(b), dict(env, i=0), f"{where}.block[{bi}]", point_label(point) + at)
                         for bi, b in enumerate(launch.block)]
                threads = 1
                for b in block:
                    threads *= b
                if min(block) < 1 or threads > 1024:
                    raise SchemaError(f"{where}.block", f"gives {block}{at}; expected positive sizes with at "
                                                        f"most 1024 threads")
                shared = value_at(str(launch.shared), dict(env, i=0), f"{where}.shared", point_label(point) + at)
                if not 0 <= shared <= MAX_SHARED_BYTES:
                    raise SchemaError(f"{where}.shared", f"gives {shared:,} bytes{at}; expected 0 to "
                                                         f"{MAX_SHARED_BYTES:,}")


def check_swept_buffers(spec: MeasureSpec) -> dict[str, list[dict[str, int]]]:
    """Buffers whose size names sweep names (``n / block``: one output per block): each an output or
    scratch buffer on the device, used by at least one variant and sized by every variant that uses
    it, never under an elementwise reference.  Returns each such buffer's distinct sweep points."""
    params = set(spec.sizes[0])
    out: dict[str, list[dict[str, int]]] = {}
    for name, buf in spec.buffers.items():
        swept = expr.names(buf.size) - params
        if not swept:
            continue
        key = f"buffers.{name}.size"
        if buf.role == "input":
            raise SchemaError(key, f"an input's size stays over the size parameters ({', '.join(sorted(params))}): "
                                   f"every variant reads the same seeded draws; {', '.join(sorted(swept))} "
                                   f"may size an output or scratch buffer")
        if buf.location != "device":
            raise SchemaError(key, f"a {buf.location} host buffer's size stays over the size parameters")
        if spec.reference_elementwise:
            raise SchemaError(key, "an elementwise reference needs every output the size of the inputs; "
                                   "a buffer sized by sweep names cannot be one")
        users = [v for v in spec.measured_variants
                 if any(name in (*step.args, step.copy, step.to) for step in v.launches)]
        if not users:
            raise SchemaError(key, f"names {', '.join(sorted(swept))}, but no variant uses {name}")
        for v in users:
            if not swept <= set(v.point):
                missing = ", ".join(sorted(swept - set(v.point)))
                raise SchemaError(key, f"names {missing}, which variant {v.base} (it uses {name}) does not "
                                       f"sweep; size {name} by names every variant that uses it sweeps")
        distinct = dict.fromkeys(tuple((k, v.point[k]) for k in sorted(swept)) for v in users)
        out[name] = [dict(p) for p in distinct]
    return out


def _check_elementwise_counts(spec: MeasureSpec, point: dict, where: str) -> None:
    """Under reference_elementwise, every input and output has the same element count at ``point``."""
    counts = {name: value_at(buf.size, dict(point), f"buffers.{name}.size", where)
              for name, buf in spec.buffers.items() if buf.role in ("input", "output")}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{name} {count:,}" for name, count in counts.items())
        raise SchemaError("reference_elementwise", f"an elementwise reference needs every input and output "
                                                   f"to have the same element count, but at {where} they are: "
                                                   f"{shown}")


def point_label(point: dict) -> str:
    """{n: 1024, m: 2}: a point of the sweep as messages show it."""
    return "{" + ", ".join(f"{k}: {v}" for k, v in point.items()) + "}"


def value_at(text: str, env: dict, key: str, where: str) -> int:
    """``text`` evaluated in ``env``; a failure is a SchemaError under ``key`` that says ``where``."""
    try:
        return expr.evaluate_int(text, env)
    except expr.ExprError as err:
        raise SchemaError(key, f"{err} (at {where})") from None


def check_expr(text: str, key: str, allowed: set[str] | None = None, hint: str = "") -> None:
    """A SchemaError under ``key`` where ``text`` does not parse or names something outside ``allowed``."""
    try:
        free = expr.names(text)
    except expr.ExprError as err:
        raise SchemaError(key, str(err)) from None
    if allowed is not None and free - allowed:
        what = hint or "an expression over the size parameters"
        raise SchemaError(key, f"expected {what} ({', '.join(sorted(allowed))}), "
                               f"found unknown name(s) {', '.join(sorted(free - allowed))}")


def check_variants(spec: MeasureSpec, params: set[str]) -> None:
    """The names each variant's expressions may use (size parameters, its sweep, the device names,
    ``i``), its sweep names against every other name, and its own build options against the spec's."""
    for name, value in spec.scalars.items():
        if isinstance(value, int) and not -2**31 <= value < 2**31:
            raise SchemaError(f"scalars.{name}", f"{value:,} does not fit int32, the type of a bare integer; "
                                                 f"write {{value: {value}, type: int64}}")
    flag_defines = {f[2:].split("=")[0] for f in spec.nvcc_flags if f.startswith("-D")}
    taken = params | set(spec.buffers) | set(spec.scalars) | set(DEVICE_NAMES) | {"i"}
    for vi, variant in enumerate(spec.variants):
        for name in variant.sweep:
            if name in taken:
                raise SchemaError(f"variants[{vi}].sweep.{name}", "this name is taken (a size parameter, "
                                  "buffer, scalar, device name or i); choose another")
        swept = set(variant.sweep)
        launch_names = params | swept | set(DEVICE_NAMES) | {"i"}
        for key in ("bytes_per_elem", "useful_bytes_per_elem", "flops_per_elem"):
            value = getattr(variant, key)
            if isinstance(value, str):
                check_expr(value, f"variants[{vi}].{key}", params | swept)
        for name, value in variant.defines.items():
            check_expr(str(value), f"variants[{vi}].defines.{name}", swept | set(DEVICE_NAMES),
                       hint="an expression over the sweep and device names")
        both = flag_defines & set(variant.defines)
        if both:
            raise SchemaError(f"variants[{vi}].defines", f"{', '.join(sorted(both))} is also defined in "
                                                         f"measure.nvcc_flags; define it in one place")
        if variant.maxrregcount is not None and any(f.startswith("-maxrregcount") for f in spec.nvcc_flags):
            raise SchemaError(f"variants[{vi}].maxrregcount", "measure.nvcc_flags sets -maxrregcount for every "
                                                              "variant already; set it in one place")
        if variant.maxrregcount is not None:
            check_expr(str(variant.maxrregcount), f"variants[{vi}].maxrregcount", swept | set(DEVICE_NAMES),
                       hint="an expression over the sweep and device names")
        for li, launch in enumerate(variant.launches):
            where = f"variants[{vi}].launches[{li}]"
            for ai, arg in enumerate(launch.args):
                if arg in spec.buffers or arg in spec.scalars or arg in spec.tensor_maps:
                    continue
                check_expr(arg, f"{where}.args[{ai}]", launch_names,
                           hint="a buffer, a scalar or an expression over the size parameters, sweep "
                                "names and device names")
            for gi, text in enumerate(launch.grid):
                check_expr(str(text), f"{where}.grid[{gi}]", launch_names)
            for bi, text in enumerate(launch.block):
                check_expr(str(text), f"{where}.block[{bi}]", launch_names - {"i"})
            check_expr(str(launch.shared), f"{where}.shared", launch_names - {"i"})
