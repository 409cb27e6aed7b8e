"""A tiny, safe integer expression language for sizes, grids and launch arguments.

Specs say ``grid: ["ceil(n / 256)"]`` or ``size: "rows * cols"``.  Only
numbers, names bound by the caller, + - * / // % **, parentheses and the
functions ceil, floor, min and max are allowed: no attribute access, no calls
to anything else, no Python evaluation.

Evaluation is bounded work: an expression is short and shallow, every value it
computes (operands, intermediates and the result) stays within ``MAX_MAGNITUDE``,
and an exponent within ``MAX_EXPONENT``, so ``9 ** 9 ** 9`` is an error naming the
expression, not an hour of big-integer arithmetic.
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
# How many arguments each function takes: (fewest, most).  min(5) would be a TypeError
# ('int' object is not iterable) reaching the user as a traceback.
_ARITY = {"ceil": (1, 1), "floor": (1, 1), "min": (2, 8), "max": (2, 8)}

# A size, grid or argument expression is a formula of a few terms ("ceil(rows * cols / 256)" is
# 23 characters); anything longer is generated or hostile, and its parse and walk cost grows with it.
MAX_EXPR_CHARS = 200
# Terms, operators and calls (syntax-tree expression nodes): "ceil(rows * cols / 256)" has 7; the
# cap bounds the evaluation's recursion depth and work whatever the nesting ("-(-(-(n)))" is 4).
MAX_EXPR_NODES = 40
# Every value an expression computes, intermediates included: 2**64 is past any element count,
# byte count, grid or index a GPU takes (sizes themselves are capped at 2**40 by the spec), and
# arithmetic on numbers this size is instant.  A product of two such numbers (2**128) is computed
# once and refused; it never feeds a further multiplication.
MAX_MAGNITUDE = 2**64
# An exponent above 64 takes any base other than 0, 1 and -1 past MAX_MAGNITUDE; refusing it
# before computing is what keeps 9 ** 387420489 (a 370-million-digit integer) from being computed.
MAX_EXPONENT = 64


class ExprError(ValueError):
    """An expression that cannot be parsed or evaluated."""


def parse(text: str) -> ast.Expression:
    """Parse and check ``text``; raises ExprError for anything outside the language."""
    return _parse(text)


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> ast.Expression:
    if not isinstance(text, str):
        raise ExprError(f"expected an expression as text, found {type(text).__name__}")
    if len(text) > MAX_EXPR_CHARS:
        raise ExprError(f"expression {_shown(text)} is {len(text):,} characters long; an expression may have "
                        f"at most {MAX_EXPR_CHARS} (write the size as a formula of a few terms)")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ExprError(f"cannot parse expression {text!r}: {err.msg}") from None
    except (MemoryError, RecursionError, ValueError):  # the parser's own nesting limits
        raise ExprError(f"cannot parse expression {text!r}: it nests too deeply") from None
    count = 0
    for node in ast.walk(tree):
        count += isinstance(node, ast.expr)
        if count > MAX_EXPR_NODES:
            raise ExprError(f"expression {text!r} has more than {MAX_EXPR_NODES} terms and operators; "
                            f"simplify it")
        if isinstance(node, (ast.Expression, ast.Load, ast.operator, ast.unaryop)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            if not (math.isfinite(node.value) and abs(node.value) <= MAX_MAGNITUDE):
                raise ExprError(f"expression {text!r} holds the number {_num(node.value)}, beyond "
                                f"{_num(MAX_MAGNITUDE)} (2**64), the largest value an expression may use")
            continue
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            continue
        if isinstance(node, (ast.BinOp, ast.Name)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS \
                and not node.keywords:
            low, high = _ARITY[node.func.id]
            if not low <= len(node.args) <= high:
                takes = f"{low}" if low == high else f"{low} to {high}"
                raise ExprError(f"expression {text!r} calls {node.func.id}() with {len(node.args)} argument(s); "
                                f"it takes {takes}")
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
    """Evaluate an expression with the names in ``env``.

    Raises ExprError for a name that is not defined, a division by zero, or a value past
    MAX_MAGNITUDE (or an exponent past MAX_EXPONENT) anywhere in the computation."""
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
        return _bounded(env[node.id], text, f"{node.id} = ")
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env, text)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed in {text!r}")
        left, right = _eval(node.left, env, text), _eval(node.right, env, text)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT and abs(left) > 1:
            raise ExprError(f"expression {text!r} raises {_num(left)} to the power {_num(right)}; exponents "
                            f"may be at most {MAX_EXPONENT} (the result would pass 2**64)")
        try:
            value = op(left, right)
        except ZeroDivisionError:
            raise ExprError(f"division by zero in {text!r}") from None
        except OverflowError:
            raise ExprError(f"expression {text!r} overflows: {_num(left)} {_OP_SIGN[type(node.op)]} "
                            f"{_num(right)} is beyond 2**64") from None
        return _bounded(value, text, "")
    if isinstance(node, ast.Call):
        args = [_eval(a, env, text) for a in node.args]
        try:
            value = _FUNCS[node.func.id](*args)
        except (OverflowError, ValueError, TypeError) as err:
            raise ExprError(f"expression {text!r}: {node.func.id}() cannot take {args}: {err}") from None
        return _bounded(value, text, "")
    raise ExprError(f"cannot evaluate {text!r}")


_OP_SIGN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
            ast.Pow: "**"}
# The language in words, for the authors' reference (measure.spec.docgen): each operator's sign, and
# each function with the fewest and most arguments it takes.
OPERATORS = tuple(_OP_SIGN[op] for op in _BINOPS)
FUNCTIONS = {name: _ARITY[name] for name in _FUNCS}


def _bounded(value, text: str, what: str):
    """``value`` if it is a finite real number within MAX_MAGNITUDE; ExprError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExprError(f"expression {text!r} gives {what}{_num(value)}, which is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExprError(f"expression {text!r} gives {what}{value}, which is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise ExprError(f"expression {text!r} computes {what}{_num(value)}, beyond 2**64 "
                        f"({_num(MAX_MAGNITUDE)}), the largest value an expression may reach")
    return value


def _num(value) -> str:
    """A number as a message shows it: short, whatever its size (str() of a huge int is itself slow)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) < 10**21:
            return f"{value:,}"
        return f"about 2**{value.bit_length() - 1}" if value > 0 else f"about -2**{value.bit_length() - 1}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, complex):
        return "a complex number"
    return type(value).__name__


def _shown(text: str) -> str:
    return repr(text[:40] + "...") if len(text) > 40 else repr(text)
