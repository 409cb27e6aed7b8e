"""measure.stats: pure functions, literal numbers."""

import math

import pytest

from measure import stats


def test_summarize_literal_samples():
    s = stats.summarize([4.0, 1.0, 3.0, 2.0])
    assert s["n"] == 4
    assert s["mean"] == 2.5
    assert s["median"] == 2.5
    assert s["min"] == 1.0 and s["max"] == 4.0
    # sample stdev of 1..4: sqrt(5/3)
    assert s["stdev"] == pytest.approx(math.sqrt(5 / 3))
    # numpy linear quantiles: q1 = 1.75, q3 = 3.25
    assert s["iqr"] == pytest.approx(1.5)


def test_summarize_odd_count_and_single_sample():
    s = stats.summarize([2.419, 2.401, 2.433])
    assert s["median"] == 2.419
    assert s["mean"] == pytest.approx(2.417666666666)
    one = stats.summarize([0.785])
    assert one == {"n": 1, "mean": 0.785, "median": 0.785, "min": 0.785, "max": 0.785,
                   "stdev": 0.0, "iqr": 0.0}


def test_summarize_refuses_empty_and_nan():
    with pytest.raises(ValueError, match="at least one"):
        stats.summarize([])
    with pytest.raises(ValueError, match="finite"):
        stats.summarize([1.0, float("nan")])


def test_pick_and_rates():
    s = stats.summarize([1.0, 2.0, 6.0])
    assert stats.pick(s, "mean") == 3.0
    assert stats.pick(s, "median") == 2.0
    assert stats.pick(s, "min") == 1.0
    with pytest.raises(ValueError, match="one of"):
        stats.pick(s, "p99")
    # the seed entry's T4 figures: 36 B/elem x 2^24 elements in 2.419 ms
    assert stats.gbps(36 * 16777216, 2.419) == pytest.approx(249.68, abs=0.01)
    assert stats.gbps(12 * 16777216, 0.785) == pytest.approx(256.47, abs=0.01)
    assert stats.gflops(2e9, 1.0) == 2000.0
    assert stats.bytes_per_elem(67_118_336 * 2 + 67_108_864, 16777216) == pytest.approx(12.0, abs=0.01)
    with pytest.raises(ValueError):
        stats.gbps(1, 0.0)
    with pytest.raises(ValueError):
        stats.bytes_per_elem(1, 0)


def test_size_label():
    assert stats.size_label({"n": 67108864}) == "n=67108864"
    assert stats.size_label({"rows": 2, "cols": 3}) == "rows=2,cols=3"
