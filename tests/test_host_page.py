"""Issue 19 on the page: copies against the link floor, steps on several streams against their
serial twin, variants replayed from a CUDA graph, the host link, their fig figures and the
claim kinds fraction_of_link and overlap.

A FIXTURE entry (written here, in a temporary project: never under entries/) copies between
pinned host buffers and the device: one way, both ways and on the device, in chunks on two
streams, and from a CUDA graph beside a plain launch timed with clock: both.  Its results are
hand-built test data (not published figures) in the harness's layout: copies, copy_bytes,
streams, overlap and graph per variant, link_floor per size and host_link in the environment.
They load through ``measure.results``' model like any recorded result.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from conftest import ROOT
from page_fixture import fixture_entry, fixture_view, render, table_after, write_fixture
from glossary.entries.model import parse_entry
from glossary.figures import bind
from glossary.figures.host import host_link_text
from glossary.figures.views import device_views
from glossary.verdicts import claims
from measure import results
from measure.results.model import HostLink
from measure.spec import Claim

SLUG = "host-fixture"
SMALL, BIG = 1 << 20, 1 << 24
MIB = 1 << 20
L2 = 50 << 20
H2D_FLOOR, D2H_FLOOR = 55.3, 52.1

ENTRY = """\
---
title: Host fixture
summary: A fixture entry that copies between pinned host buffers and the device, on streams and from a graph.
measure:
  sources: [k.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1048576}, {n: 16777216}]
  headline: {n: 16777216}
  buffers:
    h_x: {role: input, location: pinned}
    d_x: {role: input}
    x: {role: scratch}
    y: {role: output}
    h_y: {role: output, location: pinned}
  variants:
    - name: upload
      label: pinned host to device
      short: upload
      bytes_per_elem: 4
      launches: [{copy: h_x, to: y}]
    - name: inout
      label: in, kernel, out
      short: in-out
      bytes_per_elem: 8
      launches:
        - {copy: h_x, to: x}
        - {kernel: scale, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}
        - {copy: y, to: h_y}
    - name: staged
      label: in, then on the device
      short: staged
      bytes_per_elem: 8
      launches: [{copy: h_x, to: x}, {copy: x, to: y}]
    - name: ondevice
      label: device to device
      short: d2d
      bytes_per_elem: 8
      launches: [{copy: d_x, to: y}]
    - name: chunks
      label: four chunks on two streams
      short: chunks
      bytes_per_elem: 8
      launches:
        - {copy: h_x, to: y, count: "n // 4", src_offset: "i * (n // 4)", dst_offset: "i * (n // 4)", repeat: 4, stream: "s{i % 2}"}
    - name: graphed
      label: four kernels from a graph
      short: graph
      bytes_per_elem: 8
      graph: true
      launches:
        - {copy: h_x, to: x}
        - {kernel: scale, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n], repeat: 4}
        - {copy: y, to: h_y}
    - name: plain
      label: four plain launches
      short: plain
      bytes_per_elem: 8
      launches:
        - {copy: h_x, to: x}
        - {kernel: scale, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n], repeat: 4}
        - {copy: y, to: h_y}
  counters: false
  timing: {clock: both, warmups: 1, runs: 10}
  claims:
    - {kind: time_ratio, num: plain, den: graphed, at_least: 1, sizes: all}
---
The upload reaches {{ fig.link_gbps("upload") }}, {{ fig.of_link("upload") }} of the
{{ fig.link_floor() }} link floor ({{ fig.link_floor("d2h") }} back) over {{ fig.host_link() }};
in and out together move {{ fig.link_gbps("inout") }}. On {{ fig.streams("chunks") }} the chunks
hide {{ fig.overlap("chunks") }} of their {{ fig.serial_ms("chunks") }} serial time. The graph of
{{ fig.graph_nodes("graphed") }} replays in {{ fig.graph_launch_us("graphed") }} of host time,
{{ fig.graph_per_kernel_us("graphed") }} per kernel.
"""

KERNEL = 'extern "C" __global__ void scale(const float* x, float* y, long long n) {}\n'
REFERENCE = "def reference(variant, inputs, scalars, params):\n    return {'y': inputs['h_x'], 'h_y': inputs['h_x']}\n"

# times at the headline size (ms), and what each variant copies in one region
MS = {"upload": 1.40, "inout": 2.60, "staged": 1.70, "ondevice": 1.50, "chunks": 1.60, "graphed": 1.30, "plain": 1.35}
SERIAL_MS = 2.50
GRAPH = {"nodes": 6, "instantiate_ms": 0.042, "host_launch_us": 2.4, "replays": 50}
PLAIN_HOST_MS = 1.40  # the plain variant's host wall time, over its 6 launches


def _copies(name: str, n: int) -> list[dict]:
    b = 4 * n
    return {
        "upload": [{"src": "h_x", "dst": "y", "direction": "h2d", "bytes": b, "copies": 1}],
        "inout": [{"src": "h_x", "dst": "x", "direction": "h2d", "bytes": b, "copies": 1},
                  {"src": "y", "dst": "h_y", "direction": "d2h", "bytes": b, "copies": 1}],
        "staged": [{"src": "h_x", "dst": "x", "direction": "h2d", "bytes": b, "copies": 1},
                   {"src": "x", "dst": "y", "direction": "d2d", "bytes": b, "copies": 1}],
        "ondevice": [{"src": "d_x", "dst": "y", "direction": "d2d", "bytes": b, "copies": 1}],
        "chunks": [{"src": "h_x", "dst": "y", "direction": "h2d", "bytes": b, "copies": 4}],
        "graphed": [{"src": "h_x", "dst": "x", "direction": "h2d", "bytes": b, "copies": 1},
                    {"src": "y", "dst": "h_y", "direction": "d2h", "bytes": b, "copies": 1}],
        "plain": [{"src": "h_x", "dst": "x", "direction": "h2d", "bytes": b, "copies": 1},
                  {"src": "y", "dst": "h_y", "direction": "d2h", "bytes": b, "copies": 1}],
    }[name]


def _variant(name: str, n: int, scale: float) -> dict:
    ms = MS[name] * scale
    copies = _copies(name, n)
    moved: dict[str, int] = {}
    for c in copies:
        moved[c["direction"]] = moved.get(c["direction"], 0) + c["bytes"]
    launches = sum(c["copies"] for c in copies) + (1 if name == "inout" else 4 if name in ("graphed", "plain") else 0)
    out = {"bytes_per_elem": 8, "samples_ms": [ms] * 10, "launches": launches,
           "stats": {"n": 10, "mean": ms, "median": ms, "min": ms, "max": ms, "stdev": ms * 0.01},
           "copies": copies, "copy_bytes": moved}
    if name == "chunks":
        out.update(streams=3, overlap={"serial_ms": SERIAL_MS * scale, "fraction": 1 - MS["chunks"] / SERIAL_MS})
    if name == "graphed":
        out["graph"] = dict(GRAPH)
    if name == "plain":
        host = PLAIN_HOST_MS * scale
        out.update(host_samples_ms=[host] * 10,
                   host_stats={"n": 10, "mean": host, "median": host, "min": host, "max": host})
    return out


def _size(n: int, scale: float) -> dict:
    return {"params": {"n": n}, "elements": n, "working_set_bytes": 16 * n, "copy_floor": {"gbps": 4000.0},
            "link_floor": {"h2d_gbps": H2D_FLOOR, "d2h_gbps": D2H_FLOOR, "bytes": 256 * MIB, "stat": "mean"},
            "sampling": {"samples": 10}, "variants": {name: _variant(name, n, scale) for name in MS}}


def fixture_result(host_link: dict | None = None) -> dict:
    env = {"gpu": "Fixture GPU", "captured_at": "2026-12-01", "arch": "sm_90", "l2_bytes": L2, "sm_count": 132,
           "driver": "999.1", "cuda_driver": "13.0", "nvcc": "V13.0.1", "compile_command": "nvcc -O3 -arch=sm_90 k.cu",
           "host_link": host_link or {"kind": "pcie", "pcie_gen": 5, "pcie_width": 16, "pcie_gen_max": 5,
                                      "pcie_width_max": 16},
           "pinned_limit_bytes": None}
    return {"format": 1, "entry": SLUG, "device": "fixture-gpu", "status": "ok", "provenance": "measured",
            "fingerprint": "x", "environment": env,
            "method": {"statistic": "mean", "warmups": 1, "runs": 10, "timer": "cuda-events", "clock": "both"},
            "sizes": [_size(SMALL, 1 / 16), _size(BIG, 1.0)]}


def _write(tmp: Path, slug: str, text: str, data: dict) -> Path:
    return write_fixture(tmp, slug, text, {"k.cu": KERNEL, "reference.py": REFERENCE}, data)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return _write(tmp_path_factory.mktemp("host"), SLUG, ENTRY, fixture_result())


@pytest.fixture(scope="module")
def entry(project):
    return fixture_entry(project, SLUG)


@pytest.fixture(scope="module")
def view(entry):
    return fixture_view(entry, SLUG, fixture_result())


@pytest.fixture(scope="module")
def page(project) -> str:
    return render(project, SLUG)


def _gbps(nbytes: int, ms: float) -> float:
    return nbytes / ms / 1e6


# -- views -----------------------------------------------------------------------------------


def test_rows_carry_copies_streams_overlap_and_graph(view):
    rows = {r.name: r for r in view.headline.rows}
    up = rows["upload"]
    assert (up.copy_directions, up.link_direction, up.link_all, up.link_bytes) == (("h2d",), "h2d", False, 4 * BIG)
    assert up.link_gbps == pytest.approx(_gbps(4 * BIG, MS["upload"]))
    assert up.link_floor_gbps == H2D_FLOOR and up.of_link == pytest.approx(up.link_gbps / H2D_FLOOR)
    both = rows["inout"]
    assert (both.copy_directions, both.link_direction, both.link_all, both.link_bytes) == (("h2d", "d2h"), None, True,
                                                                                          8 * BIG)
    assert both.of_link is None and both.directions_text == "host to device, device to host"
    staged = rows["staged"]  # the h2d copy crosses the link, the d2d one stays on the device
    assert (staged.link_direction, staged.link_partial, staged.link_all, staged.link_bytes) == ("h2d", True, False,
                                                                                              4 * BIG)
    assert staged.link_floor_gbps == H2D_FLOOR and staged.link_label == " (host to device)"
    d2d = rows["ondevice"]
    assert (d2d.link_direction, d2d.link_floor_gbps, d2d.of_link) == ("d2d", None, None)
    chunks = rows["chunks"]
    assert (chunks.streams, chunks.serial_ms, chunks.kernels) == (3, SERIAL_MS, 0)
    assert chunks.overlap_fraction == pytest.approx(1 - MS["chunks"] / SERIAL_MS)
    g = rows["graphed"]
    assert (g.graph_nodes, g.kernels, g.graph_launch_us) == (6, 4, 2.4)
    assert g.graph_per_kernel_us == pytest.approx(0.6)
    assert view.headline.link_floor.h2d_gbps == H2D_FLOOR
    assert [r.name for r in view.headline.plain_launch_rows] == ["plain"]


def test_the_host_link_in_words():
    assert host_link_text(HostLink(kind="pcie", pcie_gen=5, pcie_width=16, pcie_gen_max=5, pcie_width_max=16)) == \
        "PCIe Gen5 x16"
    assert host_link_text(HostLink(kind="pcie", pcie_gen=1, pcie_width=16, pcie_gen_max=5, pcie_width_max=16)) == \
        "PCIe Gen1 x16 (Gen5 x16 at most)"
    assert host_link_text(HostLink(kind="nvlink-c2c")) == "NVLink-C2C"
    assert host_link_text(HostLink(kind="unknown")) == ""
    assert host_link_text(None) == ""


# -- the page ------------------------------------------------------------------------------


def test_the_measured_on_line_names_the_host_link(page):
    line = next(x for x in page.splitlines() if "warm-up" in x)
    assert line.rstrip().endswith("; host link PCIe Gen5 x16.")


def test_an_nvlink_c2c_host_link(tmp_path):
    project = _write(tmp_path, SLUG, ENTRY, fixture_result({"kind": "nvlink-c2c"}))
    text = render(project, SLUG)
    assert "; host link NVLink-C2C." in text
    assert "over <span" in text and ">NVLink-C2C</span>" in text


def test_the_link_floor_sentence(page):
    assert ("Link floor, measured in the same run: **55.30 GB/s** host to device, **52.10 GB/s** device to host "
            "(pinned, 256 MiB copies).") in page


def test_the_copies_table(page):
    rows = table_after(page, "Copies at 16,777,216 elements")
    assert rows[0] == ["version", "direction", "bytes", "time", "link GB/s", "of link floor"]
    by_name = {r[0]: r[1:] for r in rows[2:]}
    assert list(by_name) == ["pinned host to device", "in, kernel, out", "in, then on the device", "device to device",
                             "four chunks on two streams", "four kernels from a graph", "four plain launches"]
    up = _gbps(4 * BIG, MS["upload"])
    assert by_name["pinned host to device"] == ["host to device", "64 MiB", "1.400 ms", f"{up:.2f}",
                                                f"{100 * up / H2D_FLOOR:.0f}%"]
    both = _gbps(8 * BIG, MS["inout"])
    assert by_name["in, kernel, out"] == ["host to device, device to host", "128 MiB", "2.600 ms",
                                          f"{both:.2f} (all copies)", "–"]
    staged = _gbps(4 * BIG, MS["staged"])
    assert by_name["in, then on the device"] == ["host to device, device to device", "64 MiB", "1.700 ms",
                                                 f"{staged:.2f} (host to device)", f"{100 * staged / H2D_FLOOR:.0f}%"]
    assert by_name["device to device"][0] == "device to device" and by_name["device to device"][-1] == "–"


def test_the_streams_table(page):
    rows = table_after(page, "Streams at 16,777,216 elements")
    assert rows[0] == ["version", "streams", "time", "serial time", "overlap"]
    assert rows[2:] == [["four chunks on two streams", "3", "1.600 ms", "2.500 ms", "36%"]]


def test_the_graphs_table_and_the_plain_launches_beside_it(page):
    rows = table_after(page, "CUDA graphs at 16,777,216 elements")
    assert rows[0] == ["version", "nodes", "instantiation", "host per replay", "kernels", "host per kernel node"]
    assert rows[2:] == [["four kernels from a graph", "6", "42.00 µs", "2.400 µs", "4", "600.0 ns"]]
    # the plain launch's cost: its least host time per launch across the sweep (the small size's)
    assert ("Beside them, the host's **cost per plain launch**: each plain version's least host per launch (enqueue "
            "and synchronize, over the launches) across the sweep, where the wait for the GPU counts least: plain "
            f"{1000 * PLAIN_HOST_MS / 16 / 6:.2f} µs.") in page
    # the two host figures per launch, each with its definition; no internal key in prose
    assert "**Host per replay** is the cuGraphLaunch call alone (its enqueue, the median over the replays, no " \
           "synchronize)" in page and "it is not the **host per launch**" in page
    assert "timing.clock" not in page
    # a fixture recorded before GRAPH_INSTANTIATION: its one instantiation is said to be the first call
    assert "instantiated once (a single call, the first, so it carries first-use costs)" in page


def test_every_host_figure_binds(page):
    assert "[no result" not in page
    figures = re.findall(r'<span class="glossary-figure" title="[^"]*">([^<]*)</span>', page)
    up = _gbps(4 * BIG, MS["upload"])
    both = _gbps(8 * BIG, MS["inout"])
    assert figures == [f"{up:.2f} GB/s", f"{100 * up / H2D_FLOOR:.0f}%", "55.30 GB/s", "52.10 GB/s", "PCIe Gen5 x16",
                       f"{both:.2f} GB/s (all copies)", "3 streams", "36%", "2.500 ms", "6 nodes", "2.400 µs",
                       "600.0 ns"]


def test_figures_without_the_data_say_why(view, entry):
    spec = entry.meta.measure
    body = ('{{ fig.overlap("upload") }} {{ fig.graph_nodes("plain") }} {{ fig.of_link("inout") }} '
            '{{ fig.of_link("ondevice") }} {{ fig.link_floor("d2d") }} {{ fig.streams("upload") }}')
    _, problems = bind.render_body(body, (view,), {}, spec.variants, spec=spec)
    assert problems == [
        "no serial twin recorded for 'upload' (its steps run on one stream)",
        "'plain' was not replayed from a CUDA graph (graph: true)",
        "the copies of 'inout' cross the link both ways; the link floor is one direction's",
        "no link floor for the copies of 'ondevice' (device to device)",
        "expected a direction of the link floor, h2d or d2h, found 'd2d'",
        "'upload' ran on one stream"]


# -- claims ----------------------------------------------------------------------------------


def _judge(entry, view, *written: Claim):
    spec = dataclasses.replace(entry.meta.measure, claims=tuple(written))
    return claims.summarize(claims.evaluate(spec, view))


def test_fraction_of_link_claims(entry, view):
    up = _gbps(4 * BIG, MS["upload"])
    reach, stay, mixed, d2d, staged = _judge(
        entry, view, Claim(kind="fraction_of_link", variant="upload", at_least=0.8, sizes="all"),
        Claim(kind="fraction_of_link", variant="upload", at_most=0.5, sizes="all"),
        Claim(kind="fraction_of_link", variant="inout", at_least=0.5, sizes="all"),
        Claim(kind="fraction_of_link", variant="ondevice", at_least=0.5, sizes="all"),
        Claim(kind="fraction_of_link", variant="staged", at_least=0.5, sizes="all"))
    assert reach.statement == "upload reaches at least 80% of the link floor"
    assert reach.status == "holds"
    big = [v for v in reach.evaluated if v.elements == BIG][0]
    assert big.numbers == (f"{up:.2f} GB/s host to device is {100 * up / H2D_FLOOR:.0f}% of the 55.30 GB/s "
                           f"link floor")
    assert stay.statement == "upload stays at or below 50% of the link floor" and stay.status == "fails"
    assert mixed.status == "n/a" and mixed.skipped_reasons == ("its copies cross the link both ways; the link floor "
                                                               "is one direction's")
    assert d2d.status == "n/a" and "stay on the device" in d2d.skipped_reasons
    rate = _gbps(4 * BIG, MS["staged"])
    assert staged.status == "holds" and [v.numbers for v in staged.evaluated if v.elements == BIG] == [
        f"{rate:.2f} GB/s host to device is {100 * rate / H2D_FLOOR:.0f}% of the 55.30 GB/s link floor"]


def test_overlap_claims(entry, view):
    hides, at_most, single = _judge(
        entry, view, Claim(kind="overlap", variant="chunks", at_least=0.25, sizes="all"),
        Claim(kind="overlap", variant="chunks", at_most=0.2, sizes="all"),
        Claim(kind="overlap", variant="upload", at_least=0.1, sizes="all"))
    assert hides.statement == "the streams of chunks hide at least 25% of its serial time"
    assert hides.status == "holds"
    big = [v for v in hides.evaluated if v.elements == BIG][0]
    assert big.numbers == "overlap 36%: 1.600 ms on 3 streams against 2.500 ms serial"
    assert at_most.statement == "the streams of chunks hide at most 20% of its serial time"
    assert at_most.status == "fails"
    assert single.status == "n/a"
    assert single.skipped_reasons == "no serial twin recorded at this size (the steps run on one stream)"


def test_existing_claim_kinds_are_judged_as_before(entry, view):
    (ratio,) = _judge(entry, view, *entry.meta.measure.claims)
    assert ratio.statement == "plain / graph time ratio is at least 1×" and ratio.status == "holds"


def test_the_page_shows_the_claims(page):
    assert "| plain / graph time ratio is at least 1× | holds |" in page


# -- results without the host fields ----------------------------------------------------------


PLAIN = """\
---
title: Plain fixture
summary: A fixture entry without host buffers, streams or graphs.
measure:
  sources: [k.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1048576}, {n: 16777216}]
  headline: {n: 16777216}
  buffers: {src: {role: input}, dst: {role: output}}
  variants:
    - {name: copy, label: plain copy, bytes_per_elem: 8,
       launches: [{kernel: scale, grid: ["ceil(n / 256)"], block: [256], args: [src, dst, n]}]}
  claims:
    - {kind: fraction_of_floor, variant: copy, at_least: 0.5}
---
A copy.
"""
HOST_SECTIONS = ("Link floor", "Copies at", "Streams at", "CUDA graphs at", "host link", "plain launches at")


def _strip_host(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    data["environment"].pop("host_link")
    data["environment"].pop("pinned_limit_bytes")
    for size in data["sizes"]:
        size.pop("link_floor")
        v = size["variants"]["upload"]
        for key in ("copies", "copy_bytes", "streams", "overlap", "graph"):
            v.pop(key, None)
        size["variants"] = {"copy": v}
    return data


def test_results_without_the_host_fields_show_none_of_the_host_sections(tmp_path):
    text = render(_write(tmp_path, "plain-fixture", PLAIN, _strip_host(fixture_result())), "plain-fixture")
    assert "| plain copy |" in text
    for marker in HOST_SECTIONS:
        assert marker not in text, marker


def test_rows_without_the_host_fields_are_built_exactly_as_before(tmp_path):
    from glossary.figures.views import VariantRow, SizeView
    project = _write(tmp_path, "plain-fixture", PLAIN, _strip_host(fixture_result()))
    entry = parse_entry(project / "entries" / "plain-fixture.md", project / "entries")
    data = json.loads((project / "entries" / "plain-fixture" / "results" / "fixture-gpu.json").read_text())
    view = device_views(entry, {"fixture-gpu": results.parse(data)})[0]
    host_fields = {"copies", "copy_bytes", "streams", "overlap", "graph", "link_floor_gbps"}
    defaults = {f.name: f.default for f in dataclasses.fields(VariantRow) if f.name in host_fields}
    assert set(defaults) == host_fields
    for size in view.sizes:
        assert size.link_floor is None and not (size.copy_rows or size.overlap_rows or size.graph_rows)
        for r in size.rows:
            assert {k: getattr(r, k) for k in host_fields} == defaults
    assert view.host_link_text == ""
    assert "link_floor" in {f.name for f in dataclasses.fields(SizeView)}


def test_copies_without_a_link_floor_leave_out_its_column(tmp_path):
    data = fixture_result()
    for size in data["sizes"]:
        size["link_floor"] = None
    text = render(_write(tmp_path, SLUG, ENTRY, data), SLUG)
    rows = table_after(text, "Copies at 16,777,216 elements")
    assert rows[0] == ["version", "direction", "bytes", "time", "link GB/s"]
    assert "Link floor, measured" not in text and "set against the link floor" not in text
    assert "[no result: no link floor recorded (the entry has no host buffers)]" in text


def test_committed_entries_show_none_of_the_host_sections():
    """A recorded entry without the host fields (the site's pages are compared whole with
    bench/compare_sites.py)."""
    from repository_build import render
    text = render("kernel-fusion")
    for marker in HOST_SECTIONS:
        assert marker not in text, marker


def test_the_verdict_line_names_the_link_floor_where_a_link_claim_is_about_a_variant(view):
    from glossary.site.page import verdict_line
    up = _gbps(4 * BIG, MS["upload"])
    assert verdict_line(view, [], [], ["upload"]) == f"upload runs at {100 * up / H2D_FLOOR:.0f}% of the link floor"
    assert verdict_line(view, [], [], ["inout"]) == verdict_line(view, [], [])  # no one-way rate: as without it


def test_the_graphs_table_drops_the_kernels_column_where_every_node_is_a_kernel(view):
    """The fixture's graph holds copies beside its kernels, so it keeps the column; the real
    cuda-graphs entry's graphs are kernels only, and its table says so in the nodes header."""
    assert view.headline.graph_kernels_differ
    real = render(ROOT, "cuda-graphs")
    header = table_after(real, "CUDA graphs at")[0]
    assert header == ["version", "nodes (all kernels)", "instantiation", "host per replay", "host per kernel node"]
