"""measure.spec's byte arithmetic (buffer_bytes, working_set_bytes) against literal specs and the
working sets the harness recorded in the committed result files."""

import json
from pathlib import Path

import pytest

from entry_files import front_matter_at
from measure import expr
from measure.spec import BufferSizeError, MeasureSpec, buffer_bytes, working_set_bytes
from measure.typed import load

ENTRIES = Path(__file__).resolve().parent.parent / "entries"


def _spec(**extra):
    data = {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"x": {"role": "input"}, "w": {"role": "input", "dtype": "float64", "size": "2 * n"},
                    "y": {"role": "output"}, "t": {"role": "scratch", "dtype": "int32", "size": "n + 1"}},
        "variants": [
            {"name": "one", "label": "one", "bytes_per_elem": 8,
             "launches": [{"kernel": "a", "grid": ["n"], "block": [256], "args": ["x", "y", "n"]},
                          {"kernel": "b", "grid": ["n"], "block": [256], "args": ["y", "x", "y"]}]},
            {"name": "two", "label": "two", "bytes_per_elem": 8,
             "launches": [{"kernel": "c", "grid": ["n"], "block": [256], "args": ["w", "t", "y", "n"]}]},
        ],
        "sizes": [{"n": 1000}], "headline": {"n": 1000},
    }
    return load(MeasureSpec, dict(data, **extra))


def test_buffer_bytes_per_dtype():
    assert buffer_bytes(_spec(), {"n": 1000}) == {"x": 4000, "w": 16000, "y": 4000, "t": 4004}


def test_working_set_is_the_largest_variant_with_each_buffer_once():
    # one: x and y (y passed twice counts once) = 8000; two: w, t and y = 24004
    assert working_set_bytes(_spec(), {"n": 1000}) == 16000 + 4004 + 4000


def test_a_size_that_cannot_be_evaluated_names_its_buffer():
    spec = _spec()
    with pytest.raises(BufferSizeError) as info:
        buffer_bytes(spec, {"m": 3})
    assert info.value.buffer == "x" and isinstance(info.value, expr.ExprError)
    with pytest.raises(expr.ExprError) as plain:
        expr.evaluate_int("n", {"m": 3})
    assert str(info.value) == str(plain.value)  # the expression's own message, unchanged


def _recorded():
    for path in sorted(ENTRIES.glob("*/results/*.json")):
        md = ENTRIES / f"{path.parent.parent.name}.md"
        spec = load(MeasureSpec, front_matter_at(md)["measure"], key="measure")
        for size in json.loads(path.read_text(encoding="utf-8")).get("sizes", []):
            if size.get("working_set_bytes") is not None:
                yield pytest.param(spec, size["params"], size["working_set_bytes"],
                                   id=f"{path.parent.parent.name}-{path.stem}-{size['params']}")


RECORDED = list(_recorded())


def test_some_result_records_a_working_set():
    assert RECORDED


@pytest.mark.parametrize("spec,params,recorded", RECORDED)
def test_working_set_matches_what_the_harness_recorded(spec, params, recorded):
    assert working_set_bytes(spec, params) == recorded
