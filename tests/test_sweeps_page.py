"""Issue 18 on the page: launch-parameter sweeps, kernel attributes, declared metrics, the new
claim kinds and their scope.

A FIXTURE entry (written here, in a temporary project: never under entries/) sweeps two
variants over ``block``, keeps one unswept, declares an Nsight Compute metric with
predictions and makes claims of the new kinds, one of them scoped to another arch.  Its
results are hand-built test data (not published figures) in the harness's layout: expanded
variant names, base and point, launch attributes, declared metrics in both counter passes.
They load through ``measure.results``' model like any recorded result.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from page_fixture import fixture_entry, fixture_view, render, table_after, write_fixture
from glossary.figures import bind
from glossary.figures.views import device_views
from glossary.site import plots
from glossary.verdicts import claims

import real_glossary

SLUG = "sweep-fixture"
BLOCKS = (128, 256, 512)
SMALL, BIG = 1 << 20, 1 << 26
L2 = 50 << 20

ENTRY = """\
---
title: Sweep fixture
summary: A fixture entry that sweeps the block size of two copies and counts their load sectors.
measure:
  sources: [k.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1048576}, {n: 67108864}]
  headline: {n: 67108864}
  buffers: {src: {role: input}, dst: {role: output}}
  variants:
    - name: copy
      label: grid-stride copy
      short: copy
      sweep: {block: [128, 256, 512]}
      bytes_per_elem: 8
      launches: [{kernel: copy, grid: ["sm_count * 4"], block: ["block"], shared: "block * 4", args: [src, dst, n]}]
    - name: vec
      label: vectorised grid-stride copy
      short: vec4
      sweep: {block: [128, 256, 512]}
      bytes_per_elem: 8
      launches: [{kernel: vec, grid: ["sm_count * 4"], block: ["block"], args: [src, dst, n]}]
    - name: plain
      label: one thread per element
      bytes_per_elem: 8
      launches: [{kernel: plain, grid: ["ceil(n / 256)"], block: [256], args: [src, dst, n]}]
  metrics:
    - name: sectors
      metric: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
      label: sectors per load request
      unit: sectors
      per: request
      request: l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
      predict: {copy: 4, "vec[block=256]": 16}
  ratios: [{num: copy, den: vec}]
  claims:
    - {kind: time_ratio, num: copy, den: vec, at_least: 1.05}
    - {kind: metric_bound, metric: registers, variant: copy, at_most: 32, sizes: all}
    - {kind: metric_bound, metric: theoretical_occupancy, variant: vec, point: {block: 256}, at_least: 0.5}
    - {kind: metric_matches, metric: sectors, variant: copy, tolerance: 0.1}
    - {kind: time_ratio, num: plain, den: copy, at_least: 1, archs: [sm_100]}
    - {kind: metric_bound, metric: sectors, variant: "vec[block=128]", at_least: 8}
    - kind: metric_matches
      metric: sectors
      variant: vec
      point: {block: 256}
      tolerance: 0.01
      expected_failure: the fixture counts half a sector more than the model predicts
    - {kind: metric_bound, metric: local_bytes, variant: plain, at_most: 0, devices: [Fixture GPU], sizes: all}
---
The copy at a block of 256 runs at {{ fig.gbps("copy[block=256]") }}, the same as
{{ fig.at(block=256).gbps("copy") }}; it holds {{ fig.registers("copy[block=256]") }},
{{ fig.shared_bytes("copy[block=256]") }} of shared memory and {{ fig.local_bytes("plain") }} of
local memory, for {{ fig.occupancy("copy[block=256]") }} occupancy
({{ fig.resident_warps("copy[block=256]") }}). Its loads take {{ fig.metric("copy[block=128]", "sectors") }}
against {{ fig.predicted("copy[block=128]", "sectors") }} predicted; the vectorised copy is
{{ fig.time_ratio("copy[block=512]", "vec[block=512]") }} faster at 512; plain reaches {{ fig.tflops("plain") }}.
"""

KERNEL = 'extern "C" __global__ void copy(const float* s, float* d, long long n) {}\n'
REFERENCE = "def reference(variant, inputs, scalars, params):\n    return {'dst': inputs['src']}\n"

# time per block size (ms) at the headline size: copy slows at 512, vec keeps up
COPY_MS = {128: 0.200, 256: 0.190, 512: 0.210}
VEC_MS = {128: 0.180, 256: 0.175, 512: 0.205}
PLAIN_MS = 0.230


def _attrs(kernel: str, block: int, regs: int, shared: int, occupancy: float, limit: str) -> dict:
    warps = int(64 * occupancy)
    return {"kernel": kernel, "grid": [528, 1, 1], "block": [block, 1, 1], "registers": regs,
            "static_shared_bytes": 0, "dynamic_shared_bytes": shared, "local_bytes": 0,
            "max_threads_per_block": 1024, "resident_blocks_per_sm": warps * 32 // block,
            "resident_warps_per_sm": warps, "max_warps_per_sm": 64, "theoretical_occupancy": occupancy,
            "occupancy_limit": limit, "occupancy_source": "driver"}


def _counters(n: int, sectors: float, unflushed_only: bool = False) -> dict:
    metric = {"value": sectors, "total": sectors * n / 32, "unit": "sectors", "per": "request",
              "requests": n / 32.0, "metric": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}
    flushed = {"dram_bytes_per_elem": 8.1, "metrics": {} if unflushed_only else {"sectors": metric}}
    return {"size": {"n": n}, "flushed": flushed,
            "unflushed": {"dram_bytes_per_elem": 8.0, "metrics": {"sectors": metric}}}


def _variant(ms: float, n: int, base: str | None, block: int | None, attrs: dict, sectors: float | None,
             unflushed_only: bool = False) -> dict:
    out = {"bytes_per_elem": 8, "samples_ms": [ms] * 10, "launches": 1,
           "stats": {"n": 10, "mean": ms, "median": ms, "min": ms, "max": ms, "stdev": ms * 0.01},
           "launch_attrs": [attrs]}
    if base is not None:
        out.update(base=base, point={"block": block})
    if sectors is not None:
        out["counters"] = _counters(n, sectors, unflushed_only)
    return out


def _size(n: int, scale: float, counted: bool) -> dict:
    variants = {}
    for b in BLOCKS:
        variants[f"copy[block={b}]"] = _variant(COPY_MS[b] * scale, n, "copy", b,
                                                _attrs("copy", b, 30 if b < 512 else 40, 4 * b, 1.0 if b < 512 else 0.75,
                                                       "warps" if b < 512 else "registers"),
                                                4.0 if counted else None)
    for b in BLOCKS:
        variants[f"vec[block={b}]"] = _variant(VEC_MS[b] * scale, n, "vec", b,
                                               _attrs("vec", b, 24, 0, 1.0 if b != 256 else 0.375, "warps"),
                                               16.5 if counted else None, unflushed_only=(b == 512))
    grid_limited = dict(_attrs("plain", 256, 16, 0, 0.5, "grid"), limit_blocks_per_sm=8, formula_blocks_per_sm=8,
                        resident_blocks_per_sm=4)  # the driver agrees with the formula; the grid gives 4
    plain = _variant(PLAIN_MS * scale, n, None, None, grid_limited,
                     4.0 if counted else None)
    plain["flops_per_elem"] = 2.0
    variants["plain"] = plain
    return {"params": {"n": n}, "elements": n, "working_set_bytes": 8 * n, "copy_floor": {"gbps": 4000.0},
            "sampling": {"samples": 10}, "variants": variants}


def fixture_result() -> dict:
    limits = {"sm_count": 132, "warp_size": 32, "max_threads_per_block": 1024, "max_threads_per_sm": 2048,
              "max_blocks_per_sm": 32, "smem_per_block": 49152, "smem_per_block_optin": 232448,
              "smem_per_sm": 233472, "regs_per_sm": 65536, "regs_per_block": 65536, "l2_bytes": L2}
    env = {"gpu": "Fixture GPU", "captured_at": "2026-12-01", "arch": "sm_90", "l2_bytes": L2, "sm_count": 132,
           "driver": "999.1", "cuda_driver": "13.0", "nvcc": "V13.0.1", "compile_command": "nvcc -O3 -arch=sm_90 k.cu",
           "limits": limits, "occupancy_source": "driver",
           "compile_commands": {"copy[block=128]": "nvcc -O3 -arch=sm_90 k.cu"}}
    return {"format": 1, "entry": SLUG, "device": "fixture-gpu", "status": "ok", "provenance": "measured",
            "fingerprint": "x", "environment": env,
            "method": {"statistic": "mean", "warmups": 1, "runs": 10, "timer": "cuda-events"},
            "counters": {"status": "ok", "size": {"n": BIG}},
            "sizes": [_size(SMALL, 1 / 64, counted=False), _size(BIG, 1.0, counted=True)]}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return write_fixture(tmp_path_factory.mktemp("sweeps"), SLUG, ENTRY, {"k.cu": KERNEL, "reference.py": REFERENCE},
                         fixture_result())


@pytest.fixture(scope="module")
def entry(project):
    return fixture_entry(project, SLUG)


@pytest.fixture(scope="module")
def view(entry):
    return fixture_view(entry, SLUG, fixture_result())


@pytest.fixture(scope="module")
def page(project) -> str:
    return render(project, SLUG)


# -- views -----------------------------------------------------------------------------------


def test_rows_of_a_sweep_carry_labels_base_point_attributes_and_metrics(view):
    head = view.headline
    rows = {r.name: r for r in head.rows}
    r = rows["copy[block=256]"]
    assert (r.label, r.short) == ("grid-stride copy, block 256", "copy, block 256")
    assert (r.base, dict(r.point), r.point_text) == ("copy", {"block": 256}, "block 256")
    assert (r.registers, r.shared_bytes, r.local_bytes, r.resident_warps) == (30, 1024, 0, 64)
    assert r.theoretical_occupancy == 1.0
    m = r.metric("sectors")
    assert (m.value, m.predicted, m.pass_name, m.unit) == (4.0, 4.0, "flushed", "sectors")
    # a prediction for one point only; the unflushed pass where the flushed one lacks the metric
    assert rows["vec[block=256]"].metric("sectors").predicted == 16
    assert rows["vec[block=128]"].metric("sectors").predicted is None
    assert rows["vec[block=512]"].metric("sectors").as_timed
    assert rows["plain"].base is None and rows["plain"].point == ()


def test_ratios_naming_swept_variants_pair_their_points(view):
    pairs = [(q.num, q.den) for q in view.headline.ratios]
    assert pairs == [(f"copy[block={b}]", f"vec[block={b}]") for b in BLOCKS]


def test_the_sweep_table_has_a_row_per_value_and_a_column_per_base(view):
    (table,) = view.headline.sweep_tables
    assert table.names == ("block",)
    assert [b for b, _ in table.bases] == ["copy", "vec"]
    assert [short for _, short in table.bases] == ["copy", "vec4"]
    assert [table.point_text(p) for p in table.points] == ["128", "256", "512"]
    assert (table.of, table.column("copy", "time")) == ("copy and vec4", "copy time")
    import dataclasses
    one = dataclasses.replace(table, bases=table.bases[:1])
    assert (one.of, one.column("copy", "time")) == ("copy", "time")  # one base: the caption names it


# -- the page ------------------------------------------------------------------------------


def test_the_page_shows_the_sweep_table_at_the_headline_size(page):
    rows = table_after(page, "Sweep of copy and vec4 over block at 67,108,864 elements")
    assert rows[0] == ["block", "copy time", "copy GB/s", "vec4 time", "vec4 GB/s"]
    assert [r[0] for r in rows[2:]] == ["128", "256", "512"]
    assert rows[3][1].startswith("190.0 µs ±")  # time with its confidence interval
    assert rows[3][2] == f"{8 * BIG / 0.190e-3 / 1e9:,.0f}"


def test_the_page_shows_kernel_attributes_with_occupancy_and_its_source(page):
    assert "resident blocks per SM from the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor)" in page
    rows = table_after(page, "Kernel attributes at 67,108,864 elements")
    # every row's answer is the driver's, as the caption says: no column repeats it; nor does
    # local/thread (0 B in every row), which the caption says once
    assert "The same for every kernel here: local/thread 0 B:" in page.replace("\u00a0", " ")  # no-break spaces (look32)
    assert rows[0] == ["version", "registers/thread", "shared/block",
                       "occupancy", "resident warps/SM", "limited by"]
    by_name = {r[0]: r for r in rows[2:]}
    assert by_name["copy, block 512"][1:] == ["40", "2 KiB dynamic", "75%", "48 of 64", "registers"]
    assert by_name["vec4, block 256"][3] == "38%"
    assert by_name["one thread per element"][3:6] == ["50%", "32 of 64", "grid (SM holds 8)"]


def test_the_page_shows_declared_metrics_with_their_predictions_and_pass(page):
    assert "`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`, per request" in page
    assert "(marked † where only the pass with the caches as timed has the metric)" in page
    rows = table_after(page, "Counted by Nsight Compute at 67,108,864 elements")
    assert rows[0] == ["version", "sectors per load request", "predicted"]
    by_name = {r[0]: r[1:] for r in rows[2:]}
    assert by_name["copy, block 128"] == ["4.000", "4.000"]
    assert by_name["vec4, block 256"] == ["16.50", "16.00"]
    assert by_name["vec4, block 512"] == ["16.50 †", "–"]  # from the pass as timed


def test_bound_figures_name_points_and_pick_them_with_at(page):
    assert "[no result" not in page
    figures = re.findall(r'<span class="glossary-figure" title="[^"]*">([^<]*)</span>', page)
    gbps = f"{8 * BIG / 0.190e-3 / 1e9:,.0f} GB/s"
    assert figures[:2] == [gbps, gbps]
    assert figures[2:9] == ["30 registers per thread", "1 KiB per block", "0 B per thread", "100%",
                            "64 warps per SM", "4.000 sectors", "4.000 sectors"]
    assert figures[9] == f"{0.210 / 0.205:.3g}×"
    assert figures[10] == f"{2 * BIG / 0.230e-3 / 1e12:.4g} TFLOP/s"


def test_a_swept_base_name_without_a_point_says_how_to_name_one(view, entry):
    spec = entry.meta.measure
    _, problems = bind.render_body('{{ fig.gbps("copy") }}', (view,), {}, spec.variants, spec=spec)
    assert problems == ["'copy' is swept over block: name a point, e.g. 'copy[block=128]', or choose it with "
                        "at(block=...)"]


# -- claims ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def verdicts(entry, view):
    return claims.summarize(claims.evaluate(entry.meta.measure, view))


def test_a_claim_naming_a_swept_variant_is_judged_at_every_point(verdicts):
    ratios = [c for c in verdicts if c.statement.startswith("copy, block")]
    assert [c.statement for c in ratios] == [f"copy, block {b} / vec4, block {b} time ratio is at least 1.05×"
                                             for b in BLOCKS]
    assert [c.status for c in ratios] == ["holds", "holds", "fails"]
    big = ratios[0].evaluated[0]
    assert big.elements == BIG and big.numbers == "time ratio 1.11× (200.0 µs against 180.0 µs)"
    # the small size's working set is under 4x the L2: not evaluated there, as for every claim
    assert "working set 8 MiB is under 4× the L2" in ratios[0].skipped[0].numbers


def test_metric_bounds_on_kernel_attributes(verdicts):
    regs = [c for c in verdicts if c.statement.startswith("registers per thread of")]
    assert [c.status for c in regs] == ["holds", "holds", "fails"]
    assert regs[2].statement == "registers per thread of copy, block 512 is at most 32"
    assert regs[2].evaluated[0].numbers == "registers per thread 40 against at most 32"
    (occ,) = [c for c in verdicts if c.statement.startswith("theoretical occupancy")]
    assert occ.statement == "theoretical occupancy of vec4, block 256 is at least 50%"
    assert occ.status == "fails" and occ.evaluated[0].numbers == "theoretical occupancy 38% against at least 50%"


def test_metric_matches_its_prediction(verdicts):
    matches = [c for c in verdicts if "matches its prediction" in c.statement and "of copy" in c.statement]
    assert [c.statement for c in matches] == [f"sectors per load request of copy, block {b} matches its "
                                              f"prediction (4.000 sectors predicted) within 10%" for b in BLOCKS]
    assert {c.status for c in matches} == {"holds"}
    assert matches[0].evaluated[0].numbers == ("counted 4.000 sectors (caches flushed) against 4.000 sectors "
                                               "predicted (off by 0 sectors; 0.4000 sectors allowed)")
    # no metric at the small size: n/a there, with the reason
    assert "no counter data for sectors" in matches[0].skipped[0].numbers or \
        "working set" in matches[0].skipped[0].numbers


def test_a_claim_scoped_to_another_arch_is_not_applicable_with_the_reason(verdicts, page):
    # out of scope: one line for the claim as written, not one per point
    scoped = [c for c in verdicts if c.statement.startswith("one thread per element")]
    assert [c.status for c in scoped] == ["n/a"]
    assert scoped[0].statement == "one thread per element / copy time ratio is at least 1× (on sm_100 only)"
    assert scoped[0].skipped_reasons == "the claim is about sm_100 only; this is sm_90"
    assert "the claim is about sm_100 only; this is sm_90" in page
    assert "**FAILS**" in page  # the failing points are shown as failing; the scoped claim never is
    assert not any(c.status == "fails" for c in scoped)


def test_a_declared_metric_bound_and_an_expected_mismatch(verdicts, page):
    (bound,) = [c for c in verdicts if c.statement.startswith("sectors per load request of vec4, block 128")]
    assert bound.statement == "sectors per load request of vec4, block 128 is at least 8 sectors"
    assert bound.status == "holds"
    assert bound.evaluated[0].numbers == "counted 16.50 sectors (caches flushed) against at least 8 sectors"
    (off,) = [c for c in verdicts if c.statement.startswith("sectors per load request of vec4, block 256")]
    assert off.statement == ("sectors per load request of vec4, block 256 matches its prediction (16.00 sectors predicted) "
                             "within 1%")
    assert off.status == "fails" and off.expected_failure
    assert off.evaluated[0].numbers == ("counted 16.50 sectors (caches flushed) against 16.00 sectors predicted "
                                        "(off by 0.5000 sectors; 0.1600 sectors allowed)")
    assert "fails, as expected: the fixture counts half a sector more" in page


def test_a_claim_scoped_to_this_device_is_judged(verdicts):
    (local,) = [c for c in verdicts if c.statement.startswith("local memory")]
    assert local.statement == "local memory per thread of one thread per element is at most 0 B (on Fixture GPU only)"
    assert local.status == "holds" and len(local.evaluated) == 2
    assert local.evaluated[0].numbers == "local memory per thread 0 B against at most 0 B"


# -- the plot --------------------------------------------------------------------------------


def test_the_plot_draws_gbps_against_the_sweep_on_a_log2_axis(view):
    svg = plots.device_svg(view).decode()
    assert "GB/s across block at 67,108,864 elements" in svg
    assert re.search(r"<title>grid-stride copy, block 256: 190.0 µs ±[0-9.]+% \(10 runs\), [0-9,]+ GB/s "
                     r"\(\d+% of the copy floor\)</title>", svg)
    assert "GB/s across the block sweep at 67,108,864 elements" in plots.alt_text(view)
    panel = plots._point_panel(view.headline, view.headline.sweep_tables[0])
    assert panel.xscale.log and [t for t, _ in panel.xticks] == [128.0, 256.0, 512.0]
    assert [s.label for s in panel.series] == ["copy", "vec4"]


def test_a_sweep_over_values_that_are_not_powers_of_two_is_linear(view):
    import dataclasses
    from glossary.figures.sweeps import sweep_tables
    rows = [dataclasses.replace(r, point=(("block", {128: 96, 256: 160, 512: 224}[dict(r.point)["block"]]),))
            for r in view.headline.rows if r.point]
    panel = plots._point_panel(view.headline, sweep_tables(rows)[0])
    assert not panel.xscale.log and panel.xticks is None  # the axis's own ticks: the values are uneven


def test_the_attributes_table_says_where_driver_and_formula_disagree():
    from glossary.figures.sweeps import AttrRow
    row = AttrRow("copy", "copy", 32, 0, 0, 0, 0.75, 48, 64, "registers", "driver", 5, 6)
    assert row.source_text == "driver (formula: 5 blocks)"
    assert AttrRow("copy", "copy", 32, 0, 0, 0, 0.75, 48, 64, "registers", "formula", None, 6).source_text == "formula"


# -- entries without the new features ----------------------------------------------------------


PLAIN = """\
---
title: Plain fixture
summary: A fixture entry without sweeps, kernel attributes or declared metrics.
measure:
  sources: [k.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1048576}, {n: 67108864}]
  headline: {n: 67108864}
  buffers: {src: {role: input}, dst: {role: output}}
  variants:
    - {name: copy, label: plain copy, bytes_per_elem: 8,
       launches: [{kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [src, dst, n]}]}
  claims:
    - {kind: fraction_of_floor, variant: copy, at_least: 0.5}
---
A copy.
"""
NEW_SECTIONS = ("Sweep of ", "Kernel attributes at", "Counted by Nsight Compute at", "GB/s across block")


def test_results_without_sweeps_attributes_or_metrics_show_none_of_the_new_sections(tmp_path):
    data = fixture_result()
    for size in data["sizes"]:
        v = size["variants"]["plain"]
        for key in ("launch_attrs", "flops_per_elem"):
            v.pop(key, None)
        v.get("counters", {}).get("flushed", {}).pop("metrics", None)
        v.get("counters", {}).get("unflushed", {}).pop("metrics", None)
        size["variants"] = {"copy": v}
    project = write_fixture(tmp_path, "plain-fixture", PLAIN, {"k.cu": KERNEL, "reference.py": REFERENCE}, data)
    text = render(project, "plain-fixture")
    assert "| plain copy |" in text
    for marker in NEW_SECTIONS:
        assert marker not in text, marker
    view = fixture_view(fixture_entry(project, "plain-fixture"), "plain-fixture", data)
    assert "GB/s across block" not in plots.device_svg(view).decode()


def test_imported_figures_without_the_new_fields_show_none_of_the_new_sections():
    from repository_build import render
    text = render("kernel-fusion")
    t4 = text[text.index('=== "Tesla T4'):]
    for marker in NEW_SECTIONS:
        assert marker not in t4, marker


def test_rows_without_the_new_features_keep_their_defaults():
    from measure import store
    entry = real_glossary.entries()["kernel-fusion"]
    recorded = {"tesla-t4": store.load_file(entry.folder / "results" / "tesla-t4.json")}
    for size in device_views(entry, recorded)[0].sizes:
        assert not size.swept and not size.has_attrs and not size.has_metrics
        for r in size.rows:
            assert (r.base, r.point, r.launch_attrs, r.metrics) == (None, (), (), ())
