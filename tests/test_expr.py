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
