"""A variant's launches as prepared pycuda calls: argument kinds, grids and integer arguments checked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measure import expr, occupancy, stats
from measure.harness.errors import MeasurementError
from measure.harness.workspace import Workspace
from measure.spec import MeasureSpec
from measure.spec.limits import SCALAR_TYPES
from measure.spec.steps import MAIN_STREAM, copy_direction, stream_name
from measure.spec.sweep import MeasuredVariant

INT_TYPECODE = {"int32": "i", "int64": "q"}
INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
DEFAULT_SHARED_LIMIT = 48 << 10  # dynamic shared memory a kernel takes without opting in


@dataclass
class Call:
    """One prepared kernel launch, with the stream it runs on and the steps it waits for."""
    kernel: str
    func: Any
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple
    shared: int = 0
    stream: str = MAIN_STREAM
    after: tuple[str, ...] = ()
    id: str | None = None
    ex: Any = None  # a cluster or tensor-map launch: measure.harness.hopper.ExLaunch

    def launch(self, stream: Any) -> None:
        """Enqueue the launch on ``stream``."""
        if self.ex is not None:
            self.ex(stream)
            return
        self.func.prepared_async_call(self.grid, self.block, stream, *self.args, shared_size=self.shared)


@dataclass
class CopyCall:
    """One prepared copy step: host to device, device to host or device to device."""
    direction: str                # h2d, d2h or d2d
    src: Any                      # a device pointer (int) or a host array view
    dst: Any
    nbytes: int
    label: str
    stream: str = MAIN_STREAM
    after: tuple[str, ...] = ()
    id: str | None = None
    kernel: None = None
    buffers: tuple[str, str] = ("", "")  # the spec's names of the source and destination buffers

    def launch(self, stream: Any) -> None:
        import pycuda.driver as drv
        if self.direction == "h2d":
            drv.memcpy_htod_async(self.dst, self.src, stream)
        elif self.direction == "d2h":
            drv.memcpy_dtoh_async(self.dst, self.src, stream)
        else:
            drv.memcpy_dtod_async(self.dst, self.src, self.nbytes, stream)


def arg_codes(spec: MeasureSpec, args: tuple[str, ...]) -> str:
    """The pycuda struct codes of a launch's arguments: P for a buffer, a scalar's own type, the
    index type for an integer expression."""
    codes = []
    for arg in args:
        if arg in spec.buffers:
            codes.append("P")
        elif arg in spec.tensor_maps:
            codes.append("T")  # a CUtensorMap by value, through cuLaunchKernelEx
        elif arg in spec.scalars:
            codes.append(SCALAR_TYPES[spec.scalar(arg)[0]])
        else:
            codes.append(INT_TYPECODE[spec.index_type])
    return "".join(codes)


def prepare_calls(spec: MeasureSpec, variant: MeasuredVariant, functions: dict[str, Any], ws: Workspace,
                  params: dict[str, int], prepared: dict[str, str], first_only: bool = False,
                  limits: dict[str, int] | None = None, gpu: Any = None,
                  cubins: dict[str, bytes] | None = None) -> list[Call]:
    """The variant's launches as prepared calls (repeats expanded; ``first_only`` keeps i = 0).

    ``functions`` are the variant's own (its module's); expressions bind the size parameters, the
    variant's sweep point and the device's ``limits``.  ``prepared`` maps each kernel to the
    argument kinds it was prepared with, across variants: a kernel launched with other kinds
    elsewhere is a MeasurementError, as is a block or shared memory the function cannot take.
    A launch in clusters or with a tensor map goes through cuLaunchKernelEx (``measure.harness.hopper``),
    which needs ``gpu`` and the variant's ``cubins``; prefetch and advise steps become their calls
    (``measure.harness.unified``).
    """
    lo, hi = INT_RANGE[spec.index_type]
    limits = limits or {}
    calls = []
    for li, launch in enumerate(variant.launches):
        where = f"variant {variant.name}, launch {li} ({launch.label})"
        if launch.is_copy:
            calls += _copy_calls(spec, variant, launch, ws, params, limits, where, first_only)
            continue
        if launch.kernel is None:  # a prefetch or advise step
            from measure.harness.unified import memory_calls
            calls += memory_calls(spec, launch, ws, first_only)
            continue
        typestring = arg_codes(spec, launch.args)
        from measure.harness.hopper import needs_ex
        ex = needs_ex(spec, launch)
        if ex and (gpu is None or not cubins or launch.kernel not in cubins):
            raise MeasurementError(f"{where}: a cluster or tensor-map launch needs the session and the cubin")
        if prepared.setdefault(launch.kernel, typestring) != typestring:
            raise MeasurementError(f"{where}: kernel {launch.kernel} is launched with argument kinds "
                                   f"{typestring} here and {prepared[launch.kernel]} elsewhere")
        func = functions[launch.kernel]
        if not ex:
            func.prepare(typestring)
        base_env = variant.env(params, limits)
        try:
            block = tuple(expr.evaluate_int(str(b), dict(base_env, i=0)) for b in launch.block)
            shared = expr.evaluate_int(str(launch.shared), dict(base_env, i=0))
        except expr.ExprError as err:
            raise MeasurementError(f"{where}: {err}") from None
        block = block + (1,) * (3 - len(block))
        _check_block(func, block, shared, limits, where)
        for i in range(1 if first_only else launch.repeat):
            env = dict(base_env, i=i)
            try:
                grid = tuple(expr.evaluate_int(str(g), env) for g in launch.grid) + (1,) * (3 - len(launch.grid))
                args = []
                for arg, code in zip(launch.args, typestring):
                    if code == "P":
                        args.append(int(ws.allocs[arg]))
                    elif code == "T":
                        args.append(arg)  # encoded by ex_launch
                    elif arg in spec.scalars:
                        kind, value = spec.scalar(arg)
                        args.append(float(value) if kind.startswith("float") else int(value))
                    else:
                        value = expr.evaluate_int(arg, env)
                        if not lo <= value <= hi:
                            raise MeasurementError(f"{where}: argument {arg!r} = {value} does not fit "
                                                   f"{spec.index_type}")
                        args.append(value)
            except expr.ExprError as err:
                raise MeasurementError(f"{where}: {err}") from None
            if min(grid) < 1 or grid[0] > 2**31 - 1 or max(grid[1:]) > 65535:
                raise MeasurementError(f"{where}: grid {grid} at {stats.size_label(params)} is outside "
                                       f"what CUDA launches")
            try:
                stream = stream_name(launch, i)
            except expr.ExprError as err:
                raise MeasurementError(f"{where}: stream: {err}") from None
            call = Call(launch.kernel, func, grid, block, tuple(args), shared, stream, tuple(launch.after), launch.id)
            if ex:
                from measure.harness.hopper import ex_launch
                call.ex = ex_launch(spec, gpu, launch, cubins[launch.kernel], grid, block, shared, args, typestring,
                                    env, ws, params, where)
            calls.append(call)
    return calls


def _copy_calls(spec: MeasureSpec, variant: MeasuredVariant, step: Any, ws: Workspace, params: dict[str, int],
                limits: dict[str, int], where: str, first_only: bool) -> list[CopyCall]:
    """A copy step's calls (repeats expanded): the element range of each, checked against both buffers."""
    direction = copy_direction(spec, step)
    itemsize = ws.itemsize(step.copy)
    out = []
    for i in range(1 if first_only else step.repeat):
        env = dict(variant.env(params, limits), i=i)
        try:
            src_off, dst_off = expr.evaluate_int(step.src_offset, env), expr.evaluate_int(step.dst_offset, env)
            # a buffer sized by the sweep holds this point's elements (ws.count_for), not the allocation's
            room = min(ws.count_for(spec, step.copy, variant) - src_off, ws.count_for(spec, step.to, variant) - dst_off)
            count = expr.evaluate_int(step.count, env) if step.count is not None else room
            stream = stream_name(step, i)
        except expr.ExprError as err:
            raise MeasurementError(f"{where}: {err}") from None
        if min(src_off, dst_off) < 0 or count < 1 or count > room:
            raise MeasurementError(f"{where}: {count:,} elements from {src_off:,} of {step.copy} "
                                   f"({ws.counts[step.copy]:,}) to {dst_off:,} of {step.to} ({ws.counts[step.to]:,}) "
                                   f"at {stats.size_label(params)} do not fit the buffers")
        out.append(CopyCall(direction, ws.view(step.copy, src_off, count), ws.view(step.to, dst_off, count),
                            count * itemsize, f"copy {step.copy} -> {step.to}", stream, tuple(step.after), step.id,
                            buffers=(step.copy, step.to)))
    return out


def _check_block(func: Any, block: tuple[int, int, int], shared: int, limits: dict[str, int], where: str) -> None:
    """A block the function cannot run with is a MeasurementError naming the limit; dynamic shared
    memory past the default 48 KiB opts the function in to the device's larger limit."""
    threads = block[0] * block[1] * block[2]
    most = int(getattr(func, "max_threads_per_block", 1024))
    if threads > most:
        raise MeasurementError(f"{where}: a block of {threads} threads, but the compiled kernel takes at most "
                               f"{most} (its registers per thread: {getattr(func, 'num_regs', '?')})")
    static = int(getattr(func, "shared_size_bytes", 0))
    optin = limits.get("smem_per_block_optin", DEFAULT_SHARED_LIMIT)
    if static + shared > optin:
        raise MeasurementError(f"{where}: {static:,} bytes of static and {shared:,} of dynamic shared memory, "
                               f"more than the {optin:,} a block may use on this device")
    if shared > DEFAULT_SHARED_LIMIT - static:
        # To the most the device allows, not to this launch's bytes: every variant's calls are prepared
        # before any runs, and a function shared by variants (a sweep of shared memory) keeps one value.
        import pycuda.driver as drv
        func.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, optin - static)


def launch_attributes(calls: list[Call], limits: dict[str, int],
                      driver_blocks: Any = None) -> list[dict]:
    """One record per distinct launch of ``calls`` (a repeated launch once): the kernel's registers,
    shared and local memory, and the residency they allow on this device (``measure.occupancy``).
    ``driver_blocks(call)``, where given, is the driver's count of resident blocks, which is
    recorded beside the formula's and wins where they differ."""
    out, seen = [], set()
    for call in calls:
        if call.kernel is None:  # a copy: no kernel to describe
            continue
        key = (call.kernel, call.grid, call.block, call.shared, id(call.func))
        if key in seen:
            continue
        seen.add(key)
        f = call.func
        regs, static, local = int(f.num_regs), int(f.shared_size_bytes), int(f.local_size_bytes)
        threads = call.block[0] * call.block[1] * call.block[2]
        rec: dict[str, Any] = {
            "kernel": call.kernel, "grid": list(call.grid), "block": list(call.block),
            "registers": regs, "static_shared_bytes": static, "dynamic_shared_bytes": call.shared,
            "local_bytes": local, "max_threads_per_block": int(f.max_threads_per_block),
        }
        if {"max_threads_per_sm", "max_blocks_per_sm", "regs_per_sm", "regs_per_block", "smem_per_sm",
                "smem_per_block_optin"} <= set(limits):
            fit = occupancy.residency(threads, regs, static, call.shared, limits)
            rec.update(resident_blocks_per_sm=fit.blocks_per_sm, resident_warps_per_sm=fit.warps_per_sm,
                       max_warps_per_sm=fit.max_warps_per_sm, occupancy_limit=fit.limit,
                       occupancy_source="formula")
            blocks = driver_blocks(call) if driver_blocks is not None else None
            if blocks is not None:
                rec["formula_blocks_per_sm"] = fit.blocks_per_sm
                warps = -(-threads // limits.get("warp_size", 32))
                rec.update(resident_blocks_per_sm=blocks, resident_warps_per_sm=blocks * warps,
                           occupancy_source="driver")
            # A grid of fewer blocks than the SMs hold leaves them emptier than their limits allow.
            spread = -(-call.grid[0] * call.grid[1] * call.grid[2] // limits["sm_count"]) if "sm_count" in limits else None
            if spread is not None and spread < rec["resident_blocks_per_sm"]:
                warps = -(-threads // limits.get("warp_size", 32))
                rec.update(limit_blocks_per_sm=rec["resident_blocks_per_sm"], resident_blocks_per_sm=spread,
                           resident_warps_per_sm=spread * warps, occupancy_limit="grid")
            rec["theoretical_occupancy"] = rec["resident_warps_per_sm"] / fit.max_warps_per_sm
        out.append(rec)
    return out
