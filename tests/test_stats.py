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


def test_median_ci_from_order_statistics():
    # n = 100: j, k = 50 -+ 9.8 -> the 41st and 60th smallest (0-based 40 and 59)
    lo, hi = stats.median_ci(list(range(1, 101)))
    assert (lo, hi) == (41, 60)
    assert stats.median_ci([5.0]) == (5.0, 5.0)
    # ten samples: the interval is wide, from the 2nd to the 9th smallest
    assert stats.median_ci([float(v) for v in range(10, 0, -1)]) == (2.0, 9.0)
    assert stats.median_ci_rel([1.0] * 20) == 0.0
    assert abs(stats.median_ci_rel([float(v) for v in range(1, 101)]) - 9.5 / 50.5) < 1e-12


def test_sampling_stops_at_the_interval_the_cap_or_the_clock():
    from types import SimpleNamespace

    from measure.harness import sampling_done

    timing = SimpleNamespace(runs=10, max_runs=200, target_ci=0.005, max_seconds=30.0)
    tight = {"a": [1.0 + 0.0001 * (i % 3) for i in range(10)], "floor": [2.0] * 10}
    assert sampling_done(tight, timing, 9, 0.1) is None  # fewer than runs
    assert sampling_done(tight, timing, 10, 0.1).startswith("every median within +/-0.5%")
    loose = {"a": [1.0 + 0.05 * (i % 7) for i in range(50)], "floor": [2.0] * 50}
    assert sampling_done(loose, timing, 50, 1.0) is None  # keep going
    assert sampling_done(loose, timing, 200, 1.0).startswith("max_runs (200) reached")
    assert sampling_done(loose, timing, 50, 31.0).startswith("max_seconds (30 s) reached after 50 samples")
