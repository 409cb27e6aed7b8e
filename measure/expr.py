"""A tiny, safe integer expression language for sizes, grids and launch arguments.

Specs say ``grid: ["ceil(n / 256)"]`` or ``size: "rows * cols"``.  Only
numbers, names bound by the caller, + - * / // % **, parentheses and the
functions ceil, floor, min and max are allowed: no attribute access, no calls
to anything else, no Python evaluation.
"""

from __future__ import annotations

import ast
import functools
import math
import operator

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS = {"ceil": math.ceil, "floor": math.floor, "min": min, "max": max}


class ExprError(ValueError):
    """An expression that cannot be parsed or evaluated."""


def parse(text: str) -> ast.Expression:
    """Parse and check ``text``; raises ExprError for anything outside the language."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ExprError(f"cannot parse expression {text!r}: {err.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.Load, ast.operator, ast.unaryop)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            continue
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Name)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            continue
        raise ExprError(f"expression {text!r} uses {type(node).__name__}, which is not allowed "
                        f"(allowed: numbers, names, + - * / // % **, {', '.join(_FUNCS)})")
    return tree


def names(text: str) -> frozenset[str]:
    """The free names in an expression (function names excluded); cached, since specs repeat
    the same few expressions across variants and entries."""
    return _names(text)


@functools.lru_cache(maxsize=4096)
def _names(text: str) -> frozenset[str]:
    tree = parse(text)
    funcs = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return frozenset({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - funcs)


def evaluate(text: str, env: dict[str, int | float]) -> int | float:
    """Evaluate an expression with the names in ``env``."""
    return _eval(parse(text).body, env, text)


def evaluate_int(text: str, env: dict[str, int | float]) -> int:
    """Evaluate an expression that must come out a whole number."""
    value = evaluate(text, env)
    if isinstance(value, float):
        if not value.is_integer():
            raise ExprError(f"expression {text!r} gives {value}, not a whole number (use ceil() or //)")
        value = int(value)
    return value


def _eval(node: ast.AST, env: dict, text: str):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ExprError(f"expression {text!r} names {node.id!r}, which is not defined "
                            f"(defined: {', '.join(sorted(env)) or 'nothing'})")
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env, text)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed in {text!r}")
        try:
            return op(_eval(node.left, env, text), _eval(node.right, env, text))
        except ZeroDivisionError:
            raise ExprError(f"division by zero in {text!r}") from None
    if isinstance(node, ast.Call):
        args = [_eval(a, env, text) for a in node.args]
        return _FUNCS[node.func.id](*args)
    raise ExprError(f"cannot evaluate {text!r}")
