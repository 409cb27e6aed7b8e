"""A variant's launches as prepared pycuda calls: argument kinds, grids and integer arguments checked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measure import expr, stats
from measure.harness.errors import MeasurementError
from measure.harness.workspace import Workspace
from measure.spec import MeasureSpec, Variant

INT_TYPECODE = {"int32": "i", "int64": "q"}
INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


@dataclass
class Call:
    """One prepared kernel launch."""
    kernel: str
    func: Any
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple

    def launch(self, stream: Any) -> None:
        """Enqueue the launch on ``stream``."""
        self.func.prepared_async_call(self.grid, self.block, stream, *self.args)


def prepare_calls(spec: MeasureSpec, variant: Variant, functions: dict[str, Any], ws: Workspace,
                  params: dict[str, int], prepared: dict[str, str], first_only: bool = False) -> list[Call]:
    """The variant's launches as prepared calls (repeats expanded; ``first_only`` keeps i = 0).

    ``prepared`` maps each kernel to the argument kinds it was prepared with, across variants:
    a kernel launched with other kinds elsewhere is a MeasurementError.
    """
    int_code = INT_TYPECODE[spec.index_type]
    lo, hi = INT_RANGE[spec.index_type]
    calls = []
    for li, launch in enumerate(variant.launches):
        where = f"variant {variant.name}, launch {li} ({launch.kernel})"
        codes, fixed = [], []
        for arg in launch.args:
            if arg in spec.buffers:
                codes.append("P")
            elif arg in spec.scalars:
                codes.append("f")
            else:
                codes.append(int_code)
            fixed.append(arg)
        typestring = "".join(codes)
        if prepared.setdefault(launch.kernel, typestring) != typestring:
            raise MeasurementError(f"{where}: kernel {launch.kernel} is launched with argument kinds "
                                   f"{typestring} here and {prepared[launch.kernel]} elsewhere")
        func = functions[launch.kernel]
        func.prepare(typestring)
        block = tuple(launch.block) + (1,) * (3 - len(launch.block))
        for i in range(1 if first_only else launch.repeat):
            env = dict(params, i=i)
            try:
                grid = tuple(expr.evaluate_int(g, env) for g in launch.grid) + (1,) * (3 - len(launch.grid))
                args = []
                for arg, code in zip(fixed, codes):
                    if code == "P":
                        args.append(int(ws.allocs[arg]))
                    elif code == "f":
                        args.append(float(spec.scalars[arg]))
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
            calls.append(Call(launch.kernel, func, grid, block, tuple(args)))
    return calls
