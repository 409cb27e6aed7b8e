"""The Measured section's views and words, on the CPU: one number style, one name per variant,
the spread shown, which counters a table holds, a verdict line, boilerplate only where it applies."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from repository_build import render

from glossary.figures import bind, fmt
from glossary.figures.views import _ci_rel, device_views
from glossary.site.page import verdict_line
from glossary.verdicts import claims
from measure import store
from measure.results import Stats
from measure.spec import Claim

import real_glossary

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def entries():
    return real_glossary.entries()


@pytest.fixture(scope="module")
def fusion(entries):
    entry = entries["kernel-fusion"]
    recorded = {key: store.load_file(entry.folder / "results" / f"{key}.json") for key in ("nvidia-h200", "tesla-t4")}
    return entry, {v.key: v for v in device_views(entry, recorded)}


@pytest.fixture(scope="module")
def pages():
    return {slug: render(slug) for slug in ("kernel-fusion", "launch-overhead", "roofline", "memory-coalescing")}


# -- one name per variant ---------------------------------------------------------------------


def test_short_names_are_presentation_only(entries):
    from measure.results.identity import measured_part, measurement_fingerprint as fingerprint
    spec = entries["kernel-fusion"].meta.measure
    assert any(v.short for v in spec.variants)
    plain = dataclasses.replace(spec, variants=tuple(dataclasses.replace(v, short=None, label=v.name)
                                                     for v in spec.variants))
    assert fingerprint(plain, {"k.cu": b"x"}) == fingerprint(spec, {"k.cu": b"x"})
    assert measured_part({"variants": [{"name": "a", "label": "A", "short": "a"}]})["variants"] == [{"name": "a"}]


def test_rows_carry_the_label_and_its_short_form(fusion):
    _, views = fusion
    rows = {r.name: r for r in views["nvidia-h200"].headline.rows}
    assert rows["staged"].display == "staged chain, timed as one" and rows["staged"].short == "staged"
    assert rows["fused_vec4"].short == "fused vec4"
    assert [q.short for q in views["nvidia-h200"].headline.ratios] == ["staged / fused", "staged vec4 / fused vec4"]


def test_a_variant_without_a_short_form_uses_its_label(fusion):
    _, views = fusion
    row = dataclasses.replace(views["nvidia-h200"].headline.rows[0], short_label=None)
    assert row.short == row.display == "staged chain, timed as one"


# -- the spread and the samples ---------------------------------------------------------------


def test_the_ci_of_the_mean_comes_from_the_standard_deviation_and_the_median_from_the_sampler():
    st = Stats(n=25, mean=2.0, median=1.9, min=1.5, max=2.5, stdev=0.5, iqr=0.3)
    assert _ci_rel(st, "mean", 0.01) == pytest.approx(1.96 * 0.5 / 5 / 2.0)
    assert _ci_rel(st, "median", 0.01) == 0.01
    assert _ci_rel(st, "min", 0.01) is None


def _recorded_sizes() -> list[dict]:
    """kernel-fusion's committed H200 sizes, as the file holds them (the figures the page must show)."""
    return json.loads((ROOT / "entries" / "kernel-fusion" / "results" / "nvidia-h200.json").read_text())["sizes"]


def test_headline_rows_show_their_spread_and_sample_count(fusion, pages):
    _, views = fusion
    head = views["nvidia-h200"].headline
    row = head.rows[0]
    recorded = next(s for s in _recorded_sizes() if s["params"] == dict(head.params))
    assert row.samples == head.samples == recorded["sampling"]["samples"]
    # half the interval under the events' 0.5 µs resolution is said so, never as a percentage that reads as ±0%
    below = row.ci_rel * row.ms < 0.0005
    assert row.spread == "below the timer's resolution (0.5 µs)" if below else re.fullmatch(r"±[0-9.]+%", row.spread)
    assert any(re.fullmatch(r"±[0-9.]+%", r.spread) for r in head.rows)
    assert f"| {row.display} | {fmt.duration(row.ms)} | {row.spread} ({row.samples}) |" in pages["kernel-fusion"]


def test_the_measured_on_line_says_how_many_samples_each_size_took(fusion, pages):
    _, views = fusion
    first, second = ((s["sampling"]["samples"], s["elements"]) for s in _recorded_sizes()[:2])
    counts = f"({first[0]} at {first[1]:,}, {second[0]} at {second[1]:,}"
    assert views["nvidia-h200"].samples_text.startswith(f"the samples of each size {counts}")
    assert views["tesla-t4"].samples_text == "10 runs"  # imported without samples: the method's count
    page = pages["kernel-fusion"]
    assert f"Mean of the samples of each size {counts}" in page and "Mean of 10 runs after 3 warm-ups" in page
    assert "memory clock 3201 MHz" in page
    assert "Mean of 10 to 200" not in page


# -- one number style -------------------------------------------------------------------------


def test_a_time_reads_the_same_in_the_table_and_the_prose(fusion, pages):
    entry, views = fusion
    devices = tuple(views.values())
    text, problems = bind.render_body('{{ fig.ms("fused") }} {{ fig.gbps("fused") }} {{ fig.speedup("staged", "fused") }}',
                                      devices, {}, entry.meta.measure.variants)
    assert problems == []
    ms, gbps, speedup = re.findall(r">([^<]+)</span>", text)
    row = {r.name: r for r in views["nvidia-h200"].headline.rows}["fused"]
    assert ms == fmt.duration(row.ms) and gbps == fmt.rate(row.gbps) and speedup.endswith("×")
    page = pages["kernel-fusion"]
    assert f"| fused chain, one kernel | {ms} |" in page and f"**{speedup}** in time" in page
    assert f"{fmt.significant(row.gbps)} |" in page


def test_claim_numbers_use_the_number_style(fusion):
    entry, views = fusion
    spec = dataclasses.replace(entry.meta.measure, claims=(Claim(kind="fraction_of_floor", variant="fused_vec4",
                                                                 at_least=0.85),))
    (summary,) = claims.summarize(claims.evaluate(spec, views["nvidia-h200"]))
    numbers = summary.evaluated[0].numbers
    assert re.fullmatch(r"[0-9,]+ GB/s is \d+% of the [0-9,]+ GB/s floor", numbers), numbers
    assert summary.statement == "fused vec4 reaches at least 85% of the copy floor"


# -- which counters ---------------------------------------------------------------------------


def test_the_page_says_which_dram_count_each_table_shows(pages):
    page = pages["kernel-fusion"]
    assert "DRAM bytes counted with the caches flushed before every kernel" in page
    assert "The timed runs flush the L2 before each sample only" in page
    assert '??? note "DRAM bytes with the caches as the timed runs had them"' in page
    assert "with the caches as the timed runs had them (predicted in the header)" not in page
    assert "L2 flushed before each run" not in page


# -- verdict line, raw results ----------------------------------------------------------------


def test_each_device_tab_opens_with_a_verdict_line_and_the_raw_results(pages):
    page = pages["kernel-fusion"]
    assert re.search(r"\*\*4 of 5 claims hold, 1 fails as expected; fused vec4 runs at \d+% of the copy floor\.\*\* "
                     r"\[Raw results \(JSON\)\]\(kernel-fusion/results/nvidia-h200\.json\)", page)
    assert "**2 of 5 claims hold, 3 not evaluated here; staged / fused = 3.08× in time at 16,777,216 elements.**" \
        in page
    assert "(kernel-fusion/results/tesla-t4.json)" in page


def test_tally_counts_each_outcome():
    def summary(status, expected=None):
        return claims.ClaimSummary("c", status, (), (), expected_failure=expected)

    assert claims.tally([summary("holds")] * 3 + [summary("fails")]) == "3 of 4 claims hold, 1 fails"
    assert claims.tally([summary("holds"), summary("n/a")]) == "1 of 2 claims hold, 1 not evaluated here"
    assert claims.tally([summary("fails", "known")]) == "0 of 1 claim holds, 1 fails as expected"
    assert claims.tally([]) == ""


def test_verdict_line_falls_back_to_the_roofline_or_a_ratio(fusion):
    _, views = fusion
    t4 = views["tesla-t4"]
    assert verdict_line(t4, [], ["fused_vec4"]) == "staged / fused = 3.08× in time at 16,777,216 elements"
    assert verdict_line(t4, [], ["fused"]).startswith("fused runs at ")


# -- boilerplate only where it applies --------------------------------------------------------


def test_no_floor_or_byte_ratio_where_the_claims_do_not_use_them(pages):
    launch, roof = pages["launch-overhead"], pages["roofline"]
    assert "against a byte ratio" not in launch and "Against it:" not in launch
    assert "Against it:" not in roof
    assert "against a byte ratio of 3.00×" in pages["kernel-fusion"]


def test_not_evaluated_gives_one_reason_per_size(fusion):
    entry, views = fusion
    (summary, *_) = claims.summarize(claims.evaluate(entry.meta.measure, views["nvidia-h200"]))
    assert summary.skipped_note == "not evaluated at 1,048,576 and 4,194,304: working set under 4× the L2 (60 MiB)"
    assert "size(s)" not in summary.skipped_note


def test_unevaluated_claims_are_listed_in_one_line(pages):
    page = pages["kernel-fusion"]
    t4 = page[page.index('=== "Tesla T4'):]
    assert "Not evaluated on Tesla T4: staged vec4 / fused vec4 time ratio" in t4
    assert "| not evaluated |" not in t4


# -- failing claims explained -----------------------------------------------------------------


def test_a_failing_claim_says_where_and_why(fusion, pages):
    entry, views = fusion
    (summary, *_) = claims.summarize(claims.evaluate(entry.meta.measure, views["nvidia-h200"]))
    assert summary.status == "fails"
    first = summary.first_failure
    assert first is not None and first.elements == min(v.elements for v in summary.evaluated if v.failed)
    # the entry declares this failure (issue 32): the verdict gives its reason, the numbers still say where
    assert f"fails, as expected: {summary.expected_failure}" in " ".join(pages["kernel-fusion"].split())
    assert f"{fmt.fmt_int(first.elements)}: **fails**, {first.numbers}" in pages["kernel-fusion"]


def test_a_spread_below_the_event_timers_resolution_is_said_in_words():
    from glossary.figures.views import _spread

    # 0 exactly (a median of quantized samples) and 0.4 µs of 8.5 µs: below the 0.5 µs of CUDA events
    assert _spread(0.0, 0.0085, events=True) == "below the timer's resolution (0.5 µs)"
    assert _spread(0.4 / 8.5, 0.0085, events=True) == "below the timer's resolution (0.5 µs)"
    assert _spread(0.0031, 1.0, events=True) == "±0.31%"  # 3.1 µs of 1 ms: resolved
    assert _spread(0.0, 0.0085, events=False) == "±0%"  # a host clock's interval is its own
    assert _spread(None, 1.0, events=True) is None
