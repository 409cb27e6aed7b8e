"""The coalescing, roofline and launch-overhead entries (issue 10), on synthetic results.

Every result dict here is built in memory from literal numbers; nothing is written
into entries/.  The kernels themselves are compiled by tests/test_compile.py, which
covers every entry with a spec.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from glossary.figures import bind
from glossary.verdicts import claims, findings
from glossary.site import plots, render
from glossary.verdicts.gate import judge
from glossary.entries.model import load_entries
from glossary.figures.views import roofline
from measure.results import parse
from measure.spec import working_set_bytes
from glossary.entries.model import measurement_fingerprint
from glossary.site.page import PageModel
from measure import harness, store
from measure.spec import Claim

import real_glossary

ROOT = Path(__file__).resolve().parent.parent
L2 = 60 * 2**20  # the H200's L2, as the device attributes report it
NEW = ("memory-coalescing", "roofline", "launch-overhead")


@pytest.fixture(scope="module")
def entries():
    return real_glossary.entries()


def synthetic(entry, times: dict, *, floor: float = 4000.0, host: dict | None = None,
              counted: dict | None = None) -> dict:
    """A results dict for ``entry``: ``times[size_index][variant]`` ms; optional host ms and
    counted DRAM bytes per element in the same shape.  Current fingerprint, so never stale."""
    spec = entry.meta.measure
    sizes = []
    for i, params in enumerate(spec.sizes):
        from measure import expr
        elements = expr.evaluate_int(spec.elements, params)
        variants = {}
        for v in spec.variants:
            ms = times[i][v.name]
            rec = {"bytes_per_elem": v.bytes_per_elem, "useful_bytes_per_elem": v.useful_bytes,
                   "flops_per_elem": v.flops_per_elem, "launches": sum(l.repeat for l in v.launches),
                   "samples_ms": [ms, ms], "counters": None,
                   "stats": {"n": 2, "mean": ms, "median": ms, "min": ms, "max": ms, "stdev": 0.0, "iqr": 0.0}}
            if host:
                h = host[i][v.name]
                rec["host_samples_ms"] = [h, h]
                rec["host_stats"] = {"n": 2, "mean": h, "median": h, "min": h, "max": h, "stdev": 0.0, "iqr": 0.0}
            if counted and v.name in counted.get(i, {}):
                rec["counters"] = {"flushed": {"dram_bytes_per_elem": counted[i][v.name]}}
            variants[v.name] = rec
        sizes.append({"params": dict(params), "elements": elements,
                      "working_set_bytes": working_set_bytes(spec, params),
                      "copy_floor": {"gbps": floor}, "variants": variants})
    return {"format": store.RESULT_FORMAT, "entry": entry.slug, "device": "nvidia-h200", "status": "ok",
            "provenance": "measured", "fingerprint": measurement_fingerprint(entry),
            "environment": {"gpu": "NVIDIA H200", "l2_bytes": L2, "captured_at": "2026-11-29T12:00:00Z",
                            "driver": "test", "cuda_driver": "13.0", "nvcc": "V13.0.88", "compile_command": "nvcc (test)",
                            "sm_count": 132},
            "method": {"statistic": spec.timing.statistic, "runs": 2, "warmups": 0, "clock": spec.timing.clock,
                       "blocking": spec.timing.blocking, "l2_flush": spec.timing.l2_flush},
            "sizes": sizes}


def roof_times(entry, n: int = 67108864, slow: dict | None = None) -> dict:
    """ms per variant on an ideal roof of 4,000 GB/s and 60,000 GFLOP/s; ``slow`` overrides GFLOP/s."""
    out = {}
    for v in entry.meta.measure.variants:
        peak = (slow or {}).get(v.name, 60000.0)
        out[v.name] = max(v.bytes_per_elem * n / 4000e9, v.flops_per_elem * n / (peak * 1e9)) * 1e3
    return out


def page(entry, result) -> tuple[str, findings.Measured]:
    measured = findings.collect(entry, {"nvidia-h200": parse(result)})
    model = PageModel(entry=entry, verdict=judge(entry.meta.author, entry.meta.reviewer, ()),
                      devices=measured.devices, related=(), preview=True, body=measured.body,
                      claims=measured.claims, figure_problems=measured.figure_problems)
    env = render.make_env(ROOT / "templates")
    return render.render_entry(env, model), measured


# -- the entries as written --------------------------------------------------------------------


def test_the_new_entries_load_as_unsigned_drafts_and_link_both_ways(entries):
    for slug in NEW:
        meta = entries[slug].meta
        assert meta.author == "pending" and meta.reviewer == "pending"
        assert meta.measure is not None and meta.sources
        assert all(str(s.checked) == "2026-11-29" for s in meta.sources)
    fusion = entries["kernel-fusion"].meta.related
    assert "roofline" in fusion and "launch-overhead" in fusion
    assert "kernel-fusion" in entries["roofline"].meta.related
    assert "kernel-fusion" in entries["launch-overhead"].meta.related
    assert "roofline" in entries["memory-coalescing"].meta.related
    assert "memory-coalescing" in entries["roofline"].meta.related


def test_kernel_fusion_results_stay_current(entries):
    entry = entries["kernel-fusion"]
    recorded = store.load_results(entry.folder)["nvidia-h200"]
    assert recorded.fingerprint == measurement_fingerprint(entry)


@pytest.mark.parametrize("slug", ["memory-coalescing", "roofline"])
def test_claims_are_judged_past_four_l2s(entries, slug):
    spec = entries[slug].meta.measure
    assert working_set_bytes(spec, spec.headline) >= 4 * L2
    assert all(c.sizes == "past_l2" for c in spec.claims)


def test_the_roofline_sweep_crosses_the_ridge_of_any_plausible_card(entries):
    spec = entries["roofline"].meta.measure
    sweep = [v for v in spec.variants if v.name.startswith("k") and v.name[1:].isdigit()]
    intensities = sorted(v.flops_per_elem / v.bytes_per_elem for v in sweep)
    # The H200's datasheet ridge (about 67 TFLOP/s over 4.8 TB/s) is a lead, not a figure: cover 0.25..256.
    assert intensities[0] <= 0.25 and intensities[-1] >= 256
    assert [v.flops_per_elem for v in sweep] == [2 * 2**i for i in range(11)]
    # The 16-byte and ILP variants do what their dependent-chain twin does per element.
    for name in ("k1_vec4", "k16_vec4", "k1024_ilp4", "k1024_ilp8"):
        twin = spec.variant(name.split("_")[0])
        assert (spec.variant(name).flops_per_elem, spec.variant(name).bytes_per_elem) == \
            (twin.flops_per_elem, twin.bytes_per_elem)


def test_launch_overhead_times_both_clocks(entries):
    spec = entries["launch-overhead"].meta.measure
    assert spec.timing.clock == "both" and spec.timing.blocking and not spec.counters
    assert spec.variant("many").launches[0].repeat == 64


def test_roofline_reference_matches_its_closed_form_and_catches_a_missing_fma(entries):
    import importlib.util

    import numpy as np

    entry = entries["roofline"]
    mod_spec = importlib.util.spec_from_file_location("_roofline_ref", entry.folder / "reference.py")
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    spec = entry.meta.measure
    a, b = (float(np.float32(spec.scalars[k])) for k in ("a", "b"))
    x = np.linspace(-1, 1, 4097, dtype=np.float32)
    for k in (1, 64):
        y = x.copy()
        for _ in range(k):
            y = (y * np.float32(a) + np.float32(b)).astype(np.float32)
        ref = mod.reference(f"k{k}", {"x": x.astype(np.float64)}, {"a": a, "b": b}, {})["y"]
        assert harness.check_elements(y, ref, spec.rtol, spec.atol)["ok"]
        short = x.copy()
        for _ in range(k - 1):
            short = (short * np.float32(a) + np.float32(b)).astype(np.float32)
        assert not harness.check_elements(short, ref, spec.rtol, spec.atol)["ok"]
        for twin in (f"k{k}_vec4", f"k{k}_ilp8"):
            assert np.array_equal(mod.reference(twin, {"x": x.astype(np.float64)}, {"a": a, "b": b}, {})["y"], ref)


# -- page model, claims and figures on literal numbers --------------------------------------------


def test_roofline_takes_the_floor_and_the_best_gflops():
    from glossary.figures.views import VariantRow

    def row(name, ms, flops):
        return VariantRow(name=name, label=name, ms=ms, bytes_per_elem=8, gbps=0.0, gflops=flops,
                          counted_bytes_per_elem=None, fraction_of_floor=None, samples=None, spread=None,
                          flops_per_elem=None if flops is None else 8.0 * flops / 1000)
    from measure.spec.model import Roof

    rows = [row("lo", 1.0, 4000.0), row("hi", 1.0, 60000.0)]
    roof = roofline(rows, 4000.0, Roof(peer="hi"))
    assert roof.compute_variant == "hi" and roof.ridge == 15.0 and roof.source == "peer"
    assert roof.roof(1.0) == 4000.0 and roof.roof(100.0) == 60000.0
    assert roofline(rows, None, Roof(peer="hi")) is None and roofline([row("x", 1.0, None)], 4000.0, Roof(peer="x")) is None
    # no roof declared: no ceiling, never the best variant's own rate (it would be 100% of the roof by construction)
    assert roofline(rows, 4000.0) is None

    class Source:
        id, title = "paper", "A whitepaper"
    cited = roofline(rows, 4000.0, Roof(peak_tflops=120.0, source="paper"), [Source()])
    assert cited.source == "cited" and cited.compute_gflops == 120000.0 and cited.ridge == 30.0
    assert cited.compute_text == "a peak cited from A whitepaper, not measured here"


def test_new_claim_kinds_with_literal_numbers(entries):
    entry = entries["memory-coalescing"]
    result = synthetic(entry, [{"rows": 1.0, "rows_vec4": 0.8, "columns": 4.0, "columns_spread": 8.0}] * 3,
                       counted={1: {"rows": 8.0, "columns": 8.4, "columns_spread": 60.0}})
    (device,) = findings.collect(entry, {"nvidia-h200": parse(result)}).devices
    spec = dataclasses.replace(entry.meta.measure, claims=(
        Claim(kind="overfetch", variant="columns_spread", at_least=4),
        Claim(kind="speedup_matches_counted", num="columns_spread", den="rows", tolerance=0.1),
        Claim(kind="speedup_matches_counted", num="columns", den="rows", tolerance=0.25),
    ))
    by_claim = claims.summarize(claims.evaluate(spec, device))
    over, spread, cols = by_claim
    assert over.status == "holds" and over.evaluated[0].numbers == "counted 60.0 B/elem (caches flushed) for 8 useful (7.50×)"
    assert spread.status == "holds" and "counted byte ratio 7.50× (+6.7%)" in spread.evaluated[0].numbers
    assert cols.status == "fails" and "time ratio 4.00× against counted byte ratio 1.05×" in cols.evaluated[0].numbers
    # 4096² (128 MiB) is under 4 L2s; 16384² has no counters: neither is judged.
    assert "working set under" in over.skipped_note and "no DRAM counter data" in over.skipped_note


def test_fraction_of_roof_and_launch_bound_claims(entries):
    roof_entry = entries["roofline"]
    # k1_vec4 at the 4000 GB/s floor, peak at 60 TFLOP/s, k1024 at 45 TFLOP/s, k1024_ilp8 at 48.
    result = synthetic(roof_entry, [roof_times(roof_entry, slow={"k1024": 45000.0, "k1024_ilp8": 48000.0})],
                       floor=4000.0)
    (device,) = findings.collect(roof_entry, {"nvidia-h200": parse(result)}).devices
    verdicts = {v.claim.variant: v for v in claims.evaluate(roof_entry.meta.measure, device)}
    assert verdicts["k1_vec4"].status == "holds" and "100% of the roof's 1.000 TFLOP/s" in verdicts["k1_vec4"].numbers
    assert verdicts["k1024_ilp8"].status == "fails" and "80% of the roof's 60.00 TFLOP/s" in verdicts["k1024_ilp8"].numbers
    # k1024's claim is an upper bound (at_most 0.75): 75% of the roof is at the bound, so it holds.
    assert verdicts["k1024"].status == "holds" and "75% of the roof's 60.00 TFLOP/s (compute-bound; ridge 15.0 FLOP/B)" \
        in verdicts["k1024"].numbers
    assert verdicts["k1024"].statement == "1024 FMAs stays at or below 75% of the measured roofline at its intensity"
    result = synthetic(roof_entry, [roof_times(roof_entry, slow={"k1024": 46000.0})], floor=4000.0)
    (device,) = findings.collect(roof_entry, {"nvidia-h200": parse(result)}).devices
    verdicts = {v.claim.variant: v for v in claims.evaluate(roof_entry.meta.measure, device)}
    assert verdicts["k1024"].status == "fails" and "77% of the roof's" in verdicts["k1024"].numbers

    launch = entries["launch-overhead"]
    sizes = launch.meta.measure.sizes
    gpu = [{"many": 0.1 * (i + 1), "one": 0.01, "graph": 0.05} for i in range(len(sizes))]
    host = [{"many": 0.36, "one": 0.02, "graph": 0.06} for _ in sizes]
    result = synthetic(launch, gpu, host=host)
    (device,) = findings.collect(launch, {"nvidia-h200": parse(result)}).devices
    (summary,) = claims.summarize(claims.evaluate(launch.meta.measure, device))
    assert summary.status == "holds" and summary.evaluated[0].numbers == \
        "host 360.0 µs against GPU 100.0 µs (3.60×)"
    assert summary.skipped_note == "the claim is about chunk = 1,024 only"


def test_figures_for_the_new_shapes(entries):
    launch = entries["launch-overhead"]
    n_sizes = len(launch.meta.measure.sizes)
    gpu = [{"many": 0.1 * 2**i, "one": 0.01, "graph": 0.05 * 2**i} for i in range(n_sizes)]
    host = [{"many": 0.3584, "one": 0.02, "graph": 0.06} for _ in range(n_sizes)]
    _, measured = page(launch, synthetic(launch, gpu, host=host))
    devices = measured.devices
    text, problems = bind.render_body(
        '{{ fig.host_per_launch_us("many") }} {{ fig.per_launch_us("many") }} {{ fig.host_ms("many") }} '
        '{{ fig.crossover("many") }} {{ fig.launch_cost_us("many") }}', devices, {}, launch.meta.measure.variants)
    assert problems == []
    # 64 launches: 0.3584 ms host is 5.600 µs each; GPU 0.1 ms is 1.562 µs (1.5625 rounds to even); GPU time passes host at
    # 0.4 ms, the third size (chunk 16384).  Four significant figures, in the unit that fits.
    assert ">5.600 µs<" in text and ">1.562 µs<" in text and ">358.4 µs<" in text
    assert ">16,384 elements per launch<" in text

    roof = entries["roofline"]
    _, measured = page(roof, synthetic(roof, [roof_times(roof)]))
    text, problems = bind.render_body(
        '{{ fig.ridge() }} {{ fig.ceiling() }} {{ fig.gflops("k1") }} {{ fig.intensity("k1024") }} '
        '{{ fig.of_roof("k16") }}', measured.devices, {}, roof.meta.measure.variants)
    assert problems == []
    for shown in (">15.0 FLOP/B<", ">60.00 TFLOP/s<", ">1.000 TFLOP/s<", ">256 FLOP/B<", ">100%<"):
        assert shown in text


def test_figures_without_results_say_so(entries):
    for slug in NEW:
        entry = entries[slug]
        measured = findings.collect(entry, {})
        assert "[no result:" in measured.body
        # predictions from the spec still render without results
        assert "no variant" not in " ".join(measured.figure_problems)


# -- templates and plots --------------------------------------------------------------------------


def test_coalescing_page_shows_useful_moved_and_counted_bytes(entries):
    entry = entries["memory-coalescing"]
    result = synthetic(entry, [{"rows": 1.0, "rows_vec4": 0.8, "columns": 4.0, "columns_spread": 8.0}] * 3,
                       counted={1: {"rows": 8.0, "columns": 8.4, "columns_spread": 60.0}})
    text, measured = page(entry, result)
    # the synthetic rows share one spread and sample count: said once in the lead, not down a column
    assert "half its 95% confidence interval is below the timer's resolution (0.5 µs) for every version" in text or \
        "| version | time | ± 95% CI (runs) |" in text
    assert "| useful B/elem | predicted B/elem | counted B/elem | useful GB/s |" in text
    assert "| threads down a column, columns visited 8 apart | 8.000 ms | " in text
    assert " | 8 | 64 | 60.0 | 67.11 |" in text
    assert "columns 8 apart / rows = **8.00×** in time, against a byte ratio of 8.00× predicted and 7.50× counted" in text
    assert measured.figure_problems == ()
    assert "DRAM moves at least 4× the useful bytes of columns 8 apart" in text


def test_roofline_page_shows_ceilings_ridge_and_plot(entries):
    entry = entries["roofline"]
    slow = {"k64": 40000.0, "k128": 50000.0, "k256": 58000.0, "k512": 59000.0, "k1024": 55000.0,
            "k1024_ilp4": 59000.0, "k1024_ilp8": 59500.0}
    result = synthetic(entry, [roof_times(entry, slow=slow)])
    text, measured = page(entry, result)
    assert "ridge point is **15.0 FLOP/B**" in text
    assert "compute ceiling **60.00 TFLOP/s** (the peer peak, measured in the same run)" in text
    assert "the peer is at 100% of the roof by construction" in text
    assert "| 1024 FMAs per element | 256 | 55.00 | 60.00 | 92% | compute-bound |" in text
    assert "| 1 FMA per element | 0.250 | 1.000 | 1.000 | 100% | memory-bound |" in text
    (device,) = measured.devices
    svg = plots.device_svg(device)
    assert svg.startswith(b"<?xml") and b"<svg" in svg
    for text in (b"Roofline at", b"roof (copy floor; peer)", b"ridge 15.0 FLOP/B", b"TFLOP/s", b"arithmetic intensity"):
        assert text in svg
    assert b"GFLOP/s" not in svg
    assert "the roofline (TFLOP/s" in plots.alt_text(device)


def test_launch_page_shows_host_and_gpu_per_launch_and_plot(entries):
    entry = entries["launch-overhead"]
    n_sizes = len(entry.meta.measure.sizes)
    gpu = [{"many": 0.1 * 2**i, "one": 0.01 * 2**i, "graph": 0.05 * 2**i} for i in range(n_sizes)]
    host = [{"many": max(0.36, 0.1 * 2**i * 1.05), "one": 0.02, "graph": 0.06 * 2**i} for i in range(n_sizes)]
    text, measured = page(entry, synthetic(entry, gpu, host=host))
    assert "| elements | version | launches | host per launch | GPU per launch | launch-bound |" in text
    # The host's cost per launch is the least host time per launch, 0.36 ms / 64 = 5.625 µs.
    assert "| 65,536 | 64 launches | 64 | 5.625 µs | 1.562 µs | yes |" in text
    assert "| 1,048,576 | 64 launches | 64 | 6.563 µs | 6.250 µs | no |" in text
    assert "| 65,536 | 1 launch | 1 | 20.00 µs | 10.00 µs | yes |" in text
    assert "host wall time taken beside each sample" in text
    (device,) = measured.devices
    svg = plots.device_svg(device)
    assert svg.startswith(b"<?xml")
    for text in (b"Time per launch across the sweep", "µs per launch".encode(), b"64 launches: host",
                 b"64 launches: GPU", b"64 launches, one chunk each, host time at"):
        assert text in svg
    assert b"one: host" not in svg  # one launch per sample: host time per launch says nothing new
    assert "per launch" in plots.alt_text(device)


# -- the harness's clock: both ----------------------------------------------------------------------


class _FakeGpu:
    def __init__(self):
        self.calls = []

    def sample(self, enqueue, clock, blocking, l2_flush):
        self.calls.append((clock, blocking, l2_flush))
        return {"device": 1.0, "host": 3.0}[clock]


def test_clock_both_takes_a_device_then_a_host_sample():
    from measure.spec import Timing

    gpu = _FakeGpu()
    assert harness.sample_region(gpu, lambda: None, Timing(clock="both", blocking=True, l2_flush=False)) == (1.0, 3.0)
    assert gpu.calls == [("device", True, False), ("host", False, False)]
    gpu.calls.clear()
    assert harness.sample_region(gpu, lambda: None, Timing()) == (1.0, None)
    assert gpu.calls == [("device", True, True)]
    assert harness.host_part([]) == {}
    assert harness.host_part([2.0, 4.0])["host_stats"]["mean"] == 3.0


def test_launch_bound_claim_needs_both_clocks(tmp_path):
    from glossary.entries.model import EntryError

    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "k.cu").write_text("")
    (tmp_path / "t" / "r.py").write_text("")
    (tmp_path / "t.md").write_text("""---
title: T
summary: S
measure:
  sources: [k.cu]
  reference: r.py
  archs: [sm_90]
  sizes: [{n: 1024}]
  headline: {n: 1024}
  buffers: {x: {role: output}}
  variants:
    - {name: a, label: a, bytes_per_elem: 4, launches: [{kernel: k, grid: ["1"], block: [32], args: [x]}]}
  claims: [{kind: launch_bound, variant: a, at_least: 2}]
---
""")
    with pytest.raises(EntryError, match="claims\\[0\\].kind.*clock: both"):
        load_entries(tmp_path)


def test_the_real_site_builds_in_preview(tmp_path_factory):
    from serving import shared_preview

    site = shared_preview(tmp_path_factory)  # the test run's one preview build, which must exit 0
    for slug in NEW:
        html = (site / slug / "index.html").read_text(encoding="utf-8")
        assert "Not measured yet" not in html and "NVIDIA H200" in html and "[no result" not in html
    fusion = (site / "kernel-fusion" / "index.html").read_text(encoding="utf-8")
    assert 'href="../roofline/"' in fusion and 'href="../launch-overhead/"' in fusion
    # "Where you meet this": each of fusion's days links exactly the other entries that list that day,
    # whichever entries the glossary holds (no test pins the set of entries)
    import re

    lessons = fusion[fusion.index('id="where-you-meet-this"'):fusion.index('id="sources"')]
    others = real_glossary.entries()
    for day in (30, 39, 49):
        item = lessons[lessons.index(f"Day {day},"):].split("</li>")[0]
        meet = {slug for slug, e in others.items() if slug != "kernel-fusion" and any(l.day == day for l in e.meta.lessons)}
        linked = set(re.findall(r'href="\.\./([a-z0-9-]+)/"', item))
        assert linked <= meet and (linked == meet or " more." in item), day
        assert ("also meets" in item) == bool(meet)
    assert "roofline" in {s for s, e in others.items() if any(l.day == 49 for l in e.meta.lessons)}


def test_at_most_is_an_upper_bound_only_for_bounded_claims():
    from measure.typed import SchemaError

    Claim(kind="fraction_of_floor", variant="rows", at_most=0.5).validate()
    with pytest.raises(SchemaError) as err:
        Claim(kind="speedup_matches_bytes", num="a", den="b", at_most=2.0).validate()
    assert err.value.key == "at_most" and "not speedup_matches_bytes" in str(err.value)
    with pytest.raises(SchemaError) as err:
        Claim(kind="overfetch", variant="a", at_most=0.0).validate()
    assert "expected a number above 0, found 0.0" in str(err.value)
