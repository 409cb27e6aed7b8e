import pytest

from measure import expr


def test_evaluates_sizes_and_grids():
    assert expr.evaluate_int("ceil(n / 256)", {"n": 1000}) == 4
    assert expr.evaluate_int("rows * cols", {"rows": 3, "cols": 5}) == 15
    assert expr.names("ceil(rows * cols / 256) + i") == {"rows", "cols", "i"}


@pytest.mark.parametrize("text", ["__import__('os')", "n.real", "[n]", "lambda: 1", "open('f')"])
def test_refuses_anything_else(text):
    with pytest.raises(expr.ExprError):
        expr.evaluate(text, {"n": 1})


def test_whole_numbers_only():
    with pytest.raises(expr.ExprError, match="not a whole number"):
        expr.evaluate_int("n / 3", {"n": 10})


def test_unknown_name():
    with pytest.raises(expr.ExprError, match="names 'm'"):
        expr.evaluate("m", {"n": 1})


@pytest.mark.parametrize("text, fragment", [
    ("9 ** 9 ** 9", "raises 9 to the power 387,420,489; exponents may be at most 64"),
    ("n ** 65", "exponents may be at most 64"),
    ("2 ** 64 * 2", "beyond 2**64"),
    ("n * 1e30", "holds the number 1e+30"),
    ("1e400 - 1e400", "holds the number inf"),
    ("0.5 ** -2000", "overflows"),
    ("(0 - n) ** 0.5", "gives a complex number"),
    ("max(n)", "calls max() with 1 argument(s); it takes 2 to 8"),
    ("ceil()", "calls ceil() with 0 argument(s); it takes 1"),
    ("ceil(x=n)", "uses Call, which is not allowed"),
    ("True + n", "uses Constant, which is not allowed"),
    ("n" + "+n" * 40, "more than 40 terms and operators"),
    ("n" * 201, "is 201 characters long"),
])
def test_evaluation_is_bounded(text, fragment):
    with pytest.raises(expr.ExprError) as caught:
        expr.evaluate(text, {"n": 3})
    assert fragment in str(caught.value)
    assert repr(text[:40])[:-1] in str(caught.value)  # names the expression


def test_bounds_leave_real_expressions_alone():
    assert expr.evaluate_int("ceil(rows * cols / 256)", {"rows": 8192, "cols": 8192}) == 262144
    assert expr.evaluate_int("2 ** 40", {}) == 2**40
    assert expr.evaluate_int("i * (n // chunks)", {"i": 63, "n": 2**28, "chunks": 64}) == 63 * 2**22
    assert expr.evaluate_int("min(n, 4096) + max(n, 1, 2)", {"n": 10}) == 20
