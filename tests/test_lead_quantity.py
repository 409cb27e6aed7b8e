"""Issue 32, items 2 and 3: each page leads with the quantity its claims are about (GB/s, TFLOP/s or
GPU µs per launch) and a roofline's compute ceiling is a peer measured in the same run or a cited
peak; both spec keys are presentation only.  Over the repository's own entries and results, and
literal rows."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from glossary.entries.model import measurement_fingerprint
from glossary.figures import quantity
from glossary.figures.views import VariantRow
from glossary.site import plots
from measure import store
from measure.results import staleness
from measure.spec.model import Roof
from measure.typed import SchemaError

import real_glossary

SVG_NS = "{http://www.w3.org/2000/svg}"
ENTRIES = real_glossary.entries()


def _view(slug: str, device: str = "nvidia-h200"):
    return real_glossary.view(slug, device)


def _row(name="a", gbps=100.0, gflops=None, launches=None, ms=1.0) -> VariantRow:
    return VariantRow(name=name, label=name, ms=ms, bytes_per_elem=8.0, gbps=gbps, gflops=gflops,
                      counted_bytes_per_elem=None, fraction_of_floor=None, samples=None, spread=None,
                      launches=launches)


def test_auto_follows_the_claims_then_the_data():
    lead = quantity.lead_quantity
    far = [_row(gbps=10.0, launches=4), _row("b", gbps=20.0, launches=4)]
    assert lead("auto", ["fraction_of_floor"], far, 4000.0) == "gbps"  # a claim about bytes wins
    assert lead("auto", ["launch_bound"], [_row(gbps=3900.0)], 4000.0) == "time"
    assert lead("auto", ["overlap"], [_row(gbps=3900.0)], 4000.0) == "time"
    assert lead("auto", [], far, 4000.0) == "time"  # bars under a tenth of the floor would be invisible
    assert lead("auto", [], [_row(gbps=60.0, gflops=70000.0)], 4000.0) == "tflops"
    assert lead("auto", [], [_row(gbps=3900.0, gflops=500.0)], 4000.0) == "gbps"  # at the floor: memory-bound
    assert lead("auto", [], [_row(gbps=3000.0)], 4000.0) == "gbps"
    assert lead("tflops", ["fraction_of_floor"], far, 4000.0) == "tflops"  # the spec's word is final


def test_time_is_per_launch_only_for_chains_of_launches():
    chain = [_row(launches=64, ms=0.1)]
    assert quantity.per_launch(chain) and quantity.value("time", chain[0]) == pytest.approx(100.0 / 64)
    assert quantity.unit("time", chain) == "GPU µs per launch"
    assert quantity.unit("time", [_row(ms=0.5)]) == "GPU µs" and quantity.value("time", _row(), False) == 1000.0
    assert quantity.value("tflops", _row(gflops=70180.0)) == pytest.approx(70.18)


@pytest.mark.parametrize("slug, lead", [("cuda-graphs", "time"), ("launch-overhead", "time"),
                                        ("tensor-cores", "tflops"), ("kernel-fusion", "gbps"),
                                        ("pinned-memory", "gbps")])
def test_the_repositorys_entries_lead_with_their_story(slug, lead):
    view = _view(slug)
    assert view.quantity == lead
    first = ET.fromstring(plots.device_svg(view)).iter(SVG_NS + "text")
    title = next(t.text for t in first if t.get("class") == "title")
    assert title.startswith(quantity.unit(lead, view.headline.rows)), title
    if lead != "gbps":
        # no GB/s bars against a floor thousands of times their length
        assert "GB/s" not in plots.alt_text(view).split(";")[0]


def test_quantity_and_roof_stay_out_of_the_fingerprint():
    for slug in ("tensor-cores", "roofline", "cuda-graphs"):
        entry = ENTRIES[slug]
        spec = entry.meta.measure
        before = measurement_fingerprint(entry)
        for change in ({"quantity": "gbps"}, {"quantity": "time"}, {"roof": Roof(peak_tflops=1.0, source="x")},
                       {"roof": None}):
            edited = dataclasses.replace(entry, meta=dataclasses.replace(entry.meta, measure=dataclasses.replace(spec, **change)))
            assert measurement_fingerprint(edited) == before, (slug, change)
        recorded = store.load_file(entry.folder / "results" / "nvidia-h200.json")
        if not any(v.graph for v in spec.variants):  # graph entries wait for GRAPH_INSTANTIATION (test_staleness)
            assert staleness(recorded, before) == "current"  # the keys committed with this change re-measure nothing


def test_the_roof_names_its_ceiling():
    tensor = _view("tensor-cores").headline.roofline
    assert tensor.source == "cited" and tensor.compute_gflops == pytest.approx(989400.0)
    assert "cited" in tensor.compute_text and "whitepaper" in tensor.compute_text
    # the wmma kernel is a few percent of a cited peak, never 100% of its own rate
    wmma = next(r for r in _view("tensor-cores").headline.rows if r.name == "wmma_f16")
    assert tensor.fraction(wmma) < 0.5
    roof = _view("roofline").headline.roofline
    assert roof.source == "peer" and roof.peer == "peak" and "measured in the same run" in roof.compute_text


def test_a_roof_takes_one_source():
    for bad, key in ((Roof(), "peer"), (Roof(peer="a", peak_tflops=1.0), "peer"),
                     (Roof(peak_tflops=1.0), "source"), (Roof(peak_tflops=-1.0, source="s"), "peak_tflops"),
                     (Roof(peer="a", source="s"), "source")):
        with pytest.raises(SchemaError) as info:
            bad.validate()
        assert key in str(info.value)
    Roof(peer="a").validate()
    Roof(peak_tflops=989.4, source="s").validate()


@pytest.mark.parametrize("slug", ["cuda-graphs", "launch-overhead"])
def test_a_launch_chain_keeps_its_speedup_panel_and_draws_time_per_launch_once(slug):
    titles = [p.title for p in plots.device_panels(_view(slug))]
    assert "Speedup across the size sweep" in titles and "Time per launch across the sweep" in titles
    assert not any(t.endswith("across the size sweep") and t.startswith("GPU µs") for t in titles)


def test_long_regions_are_shown_in_milliseconds():
    rows = [_row(ms=18.33), _row("b", ms=10.79)]
    assert quantity.in_ms(rows) and quantity.unit("time", rows) == "GPU ms"
    assert quantity.value("time", rows[0], False, True) == 18.33
    short = [_row(ms=0.5)]
    assert not quantity.in_ms(short) and quantity.unit("time", short) == "GPU µs"
    assert quantity.unit("time", [_row(ms=5.0, launches=64)]) == "GPU µs per launch"  # per launch stays in µs
