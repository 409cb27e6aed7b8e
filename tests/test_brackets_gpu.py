"""Issue 32, item 5, on a GPU (marked gpu): the cuda-graphs entry's own kernels measured afresh at its
two smallest sizes keep host >= GPU in every host-timed row (behind the blocking kernel), and each
graph's instantiation is the median of its timed calls after a warm-up."""

from __future__ import annotations

import dataclasses
import statistics

import pytest

from glossary.figures import brackets
from glossary.figures.views import device_views
from measure import harness, results
from measure.harness.streams import INSTANTIATIONS

import real_glossary

pytestmark = pytest.mark.gpu


def test_launch_chains_keep_host_above_gpu_and_instantiation_is_a_statistic():
    entry = real_glossary.entries()["cuda-graphs"]
    spec = dataclasses.replace(entry.meta.measure, sizes=({"chunk": 1024}, {"chunk": 16384}), counters=False,
                               claims=())
    result = harness.measure_entry("cuda-graphs", entry.folder, spec, "sha256:test", progress=print)
    parsed = results.parse_measured(result)
    (view,) = device_views(dataclasses.replace(entry, meta=dataclasses.replace(entry.meta, measure=spec)),
                           {"gpu": parsed})
    checked = brackets.check(view, spec)
    for b in checked:
        print(f"{b.variant} at {b.elements}: host {1000 * b.host_ms:.2f} µs, GPU {1000 * b.gpu_ms:.2f} µs")
    assert checked and all(b.order == brackets.HOST_FIRST for b in checked)
    assert all(b.holds for b in checked), [b for b in checked if not b.holds]
    for size in result["sizes"]:
        for name, var in size["variants"].items():
            graph = var.get("graph")
            if graph:
                samples = graph["instantiate_samples_ms"]
                print(name, size["params"], "instantiations", samples)
                assert len(samples) == INSTANTIATIONS
                assert graph["instantiate_ms"] == pytest.approx(statistics.median(samples), abs=1e-4)


def test_pinned_copies_behind_the_blocking_kernel_keep_host_above_gpu():
    entry = real_glossary.entries()["pinned-memory"]
    sizes = ({"n": 16384}, {"n": 262144}, {"n": 4194304})
    spec = dataclasses.replace(entry.meta.measure, sizes=sizes, headline=sizes[-1], claims=())
    result = harness.measure_entry("pinned-memory", entry.folder, spec, "sha256:test", progress=print)
    (view,) = device_views(dataclasses.replace(entry, meta=dataclasses.replace(entry.meta, measure=spec)),
                           {"gpu": results.parse_measured(result)})
    checked = brackets.check(view, spec)
    for b in checked:
        print(f"{b.variant} at {b.elements}: {b.kind}, order {b.order}, host {1000 * b.host_ms:.2f} µs, "
              f"GPU {1000 * b.gpu_ms:.2f} µs")
    pinned = [b for b in checked if b.kind.startswith("pinned")]
    assert pinned and all(b.order == brackets.HOST_FIRST for b in pinned)
    assert all(b.holds for b in pinned), [b for b in pinned if not b.holds]
    assert all(b.order is None for b in checked if b.kind.startswith("pageable"))
