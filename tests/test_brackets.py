"""Issue 32, item 5: what the host and GPU columns bracket, per direction and kind, and the order
that must hold between them (glossary.figures.brackets), over the repository's recorded results
and literal rows; "launch-bound" is never said of a copy; a graph's instantiation is a statistic
after a warm-up where the record has one."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from glossary.figures import brackets
from measure.results.sizes import CopyStep, GraphRecord

import real_glossary

ENTRIES = real_glossary.entries()


def _view(slug: str):
    return ENTRIES[slug], real_glossary.view(slug)


def _copy(direction: str, src: str, dst: str) -> CopyStep:
    return CopyStep(src=src, dst=dst, direction=direction, bytes=1 << 20, copies=1)


def test_each_kind_is_named_from_its_steps_and_host_memory():
    locations = {"h": "pinned", "p": "pageable", "d": "device"}
    row = SimpleNamespace(copies=(_copy("h2d", "p", "d"),), launches=1)
    assert brackets.kind(row, locations) == "pageable H2D"
    assert brackets.kind(SimpleNamespace(copies=(_copy("d2h", "d", "h"),), launches=1), locations) == "pinned D2H"
    assert brackets.kind(SimpleNamespace(copies=(), launches=64), locations) == "kernels"
    mixed = SimpleNamespace(copies=(_copy("h2d", "h", "d"), _copy("d2h", "d", "h")), launches=3)
    assert brackets.kind(mixed, locations) == "copies and kernels"
    assert set(brackets.ENQUEUE_WAITS) >= {"pinned H2D", "pinned D2H", "pageable H2D", "pageable D2H", "kernels"}
    assert "before its DMA lands" in brackets.ENQUEUE_WAITS["pageable H2D"]
    assert "cannot return before the data is on the host" in brackets.ENQUEUE_WAITS["pageable D2H"]


def test_behind_a_blocking_kernel_the_host_brackets_the_gpu():
    def one(host_us, gpu_us):
        return brackets.Bracket(1024, "v", "kernels", brackets.order("kernels", True), host_us / 1000, gpu_us / 1000)
    assert one(11.2, 2.1).holds and one(105.5, 110.1).holds  # within the release and 5% of the region
    assert not one(13.1, 26.8).holds  # a GPU time twice the host's cannot be behind a blocking kernel
    # without one, no order holds by construction (the events take in the host's enqueue)
    assert brackets.order("pinned H2D", False) is None and brackets.order("pageable D2H", False) is None
    assert brackets.Bracket(1, "v", "pinned H2D", None, 0.013, 0.027).holds is None


@pytest.mark.parametrize("slug", ["cuda-graphs", "launch-overhead"])
def test_the_recorded_launch_chains_keep_host_above_gpu(slug):
    entry, view = _view(slug)
    checked = brackets.check(view, entry.meta.measure)
    assert checked and all(b.order == brackets.HOST_FIRST and b.holds for b in checked), \
        [b for b in checked if not b.holds]
    assert view.brackets.startswith("Host ≥ GPU, which must hold behind a blocking kernel")


def test_pinned_memory_orders_its_blocked_copies_and_says_why_the_pageable_have_no_order():
    entry, view = _view("pinned-memory")
    checked = brackets.check(view, entry.meta.measure)
    assert {b.kind for b in checked} == {"pinned H2D", "pageable H2D", "pinned D2H", "pageable D2H"}
    # the pinned copies wait behind the blocking kernel (timing.block_where_possible): host >= GPU
    # holds in every recorded row; the pageable ones cannot wait, so their columns have no order
    pinned = [b for b in checked if b.kind.startswith("pinned")]
    assert pinned and all(b.order == brackets.HOST_FIRST and b.holds for b in pinned), [b for b in pinned if not b.holds]
    assert all(b.order is None for b in checked if b.kind.startswith("pageable"))
    assert view.brackets.startswith("Host ≥ GPU, which must hold behind a blocking kernel") \
        and f"holds in {len(pinned)} of {len(pinned)} rows" in view.brackets


def test_a_copy_is_never_launch_bound():
    _, view = _view("pinned-memory")
    rows = [r for s in view.sizes for r in s.rows]
    assert rows and all(r.has_copies and view.launch_bound(r) is None for r in rows)
    assert not view.has_kernel_rows
    _, graphs = _view("cuda-graphs")
    assert graphs.has_kernel_rows and any(graphs.launch_bound(r) for s in graphs.sizes for r in s.rows)


def test_the_page_says_what_each_column_brackets():
    from repository_build import render

    page = render("pinned-memory")
    lead = next(line for line in page.splitlines() if "Host and GPU time per launch" in line)
    assert "**Host per launch** is the wall time from just before the enqueue to the return of cuStreamSynchronize" in lead
    assert "a pageable copy cannot wait behind one (the host stages it), so its start event fires as soon as it is recorded" in lead
    assert "a pageable host-to-device copy returns once the source is staged, possibly before its DMA lands" in lead
    assert "a pageable device-to-host copy cannot return before the data is on the host" in lead
    table = page[page.index(lead):].split("\n\n")[1]
    assert "launch-bound" not in table and "launch-bound" not in lead


def test_instantiation_after_a_warm_up_is_said_so():
    from glossary.figures.host import RowHostMixin

    class Row(RowHostMixin):
        def __init__(self, graph):
            self.graph = graph
    first = Row(GraphRecord(nodes=4, instantiate_ms=0.3856))
    assert first.graph_instantiations is None and first.graph_instantiations_text == ""
    stat = Row(GraphRecord(nodes=4, instantiate_ms=0.0626, instantiate_samples_ms=[0.07, 0.06, 0.0626, 0.061, 0.065]))
    assert stat.graph_instantiations == 5 and stat.graph_instantiations_text == "the median of 5 timed instantiations"


def test_block_where_possible_blocks_the_variants_that_can_wait():
    from measure.spec.model import Timing
    from measure.spec.steps import blocked_variants
    from measure.typed import SchemaError

    spec = ENTRIES["pinned-memory"].meta.measure
    assert spec.timing.block_where_possible and not spec.timing.blocking
    assert blocked_variants(spec) == {"pinned_h2d", "pinned_d2h"}  # the pageable copies cannot wait
    assert blocked_variants(ENTRIES["cuda-graphs"].meta.measure) == set()  # blocking already: nothing to add
    for bad in (Timing(blocking=True, block_where_possible=True),
                Timing(blocking=False, clock="host", block_where_possible=True)):
        with pytest.raises(SchemaError, match="block_where_possible"):
            bad.validate()


def test_a_row_blocked_where_possible_must_keep_host_above_gpu():
    entry, view = _view("pinned-memory")
    rows = {r.name: r for r in view.headline.rows}
    blocked = dataclasses.replace(view.headline, rows=tuple(
        dataclasses.replace(r, blocked=True) if r.name.startswith("pinned") else r for r in rows.values()))
    mixed = dataclasses.replace(view, sizes=(blocked,))
    checked = {b.variant: b for b in brackets.check(mixed, entry.meta.measure)}
    assert checked["pinned_h2d"].order == brackets.HOST_FIRST and checked["pageable_h2d"].order is None
    assert mixed.blocking_text == "some"


def test_take_samples_queues_only_the_named_regions_behind_the_blocking_kernel():
    from measure.harness.sampling import take_samples
    from measure.spec.model import Timing

    class Gpu:
        calls: list = []

        def sample(self, enqueue, clock, blocking, l2_flush):
            self.calls.append((enqueue.__name__, clock, blocking))
            return 1.0

    class Nvml:
        def sm_clock_mhz(self):
            return None

        def throttle_reasons(self):
            return []

    def pinned():
        pass

    def pageable():
        pass

    gpu = Gpu()
    timing = Timing(clock="both", blocking=False, block_where_possible=True, warmups=0, runs=1, max_runs=1)
    take_samples(gpu, {"pinned": pinned, "pageable": pageable}, timing, Nvml(), ["pinned"], "t", lambda s: None,
                 blocked={"pinned"})
    assert ("pinned", "device", True) in gpu.calls and ("pageable", "device", False) in gpu.calls
    assert all(not blocking for _, clock, blocking in gpu.calls if clock == "host")  # the host clock never blocks


@pytest.mark.parametrize("slug", ["pinned-memory", "cuda-graphs", "streams-overlap"])
def test_every_table_starts_a_block_of_its_own(slug):
    """A table right under a paragraph line is read by Markdown as more of the paragraph (the host
    and GPU table once was): every table follows a blank line."""
    from repository_build import render

    lines = render(slug).splitlines()
    glued = [(i, lines[i - 1][:60]) for i in range(1, len(lines)) if lines[i].strip().startswith("|")
             and lines[i - 1].strip() and not lines[i - 1].strip().startswith("|")]
    assert glued == []
