"""One number style for the whole site (issue 20): glossary.figures.fmt, pure."""

import pytest

from glossary.figures import fmt


@pytest.mark.parametrize("ms, shown", [
    (0.0068, "6.800 µs"), (0.2421, "242.1 µs"), (3.3407, "3.341 ms"), (21.3, "21.30 ms"),
    (0.99996, "1.000 ms"), (0.0000213, "21.30 ns"), (2500.0, "2.500 s"), (0.000999996, "1.000 µs"),
])
def test_a_time_is_written_in_the_unit_that_fits(ms, shown):
    assert fmt.duration(ms) == shown


@pytest.mark.parametrize("value, shown", [(2811.46, "2,811"), (812.34, "812.3"), (0.0123456, "0.01235"),
                                          (9.99996, "10.00"), (123456.7, "123,457"), (0, "0")])
def test_significant_figures_with_thousands_separators(value, shown):
    assert fmt.significant(value) == shown


def test_rates_ratios_and_percentages():
    assert fmt.rate(4401.2) == "4,401 GB/s" and fmt.rate(812.34, "GFLOP/s") == "812.3 GFLOP/s"
    assert fmt.ratio(3.5512) == "3.55×" and fmt.ratio(12.345) == "12.3×"
    assert fmt.percent(1.0123) == "101%" and fmt.percent(0.042) == "4.2%"
