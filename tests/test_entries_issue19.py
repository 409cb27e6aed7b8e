"""The issue-19 entries (pinned memory, streams overlap, CUDA graphs) and launch-overhead's graph
variant, on the CPU: no GPU, no pycuda, and not through the spec model (host buffers, copy steps,
streams and graphs are issue 19's design, which measure/ implements).

For each entry: the reference's outputs against a NumPy emulation of what the copies and kernels
compute (float32 rounding step by step), the front-matter's own arithmetic (copy bytes, sizes
from 64 KiB to 128 MiB, chunks that tile the array, streams per variant, the ideal overlap the
claims are bounded by, checked with a small pipeline simulation), the configuration budget, the
figures the prose binds, and the kernels compiled for every arch the entries claim.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from entry_files import ENTRIES, check_unsigned_and_files, f32, front_matter, reference_of, split, within
from measure.expr import evaluate_int

NEW = ("pinned-memory", "streams-overlap", "cuda-graphs")
MAX_CONFIGS = 30        # sizes x variants, per entry
MAX_STREAMS = 8         # per variant (the design's bound)
KIB, MIB, GIB = 2**10, 2**20, 2**30
# Nominal H200 figures for the balance arithmetic (not measurements): PCIe Gen5 x16 after
# encoding, and FP32 FMAs per second (132 SMs x 128 lanes x 1.98 GHz).
PCIE5_X16_GBPS = 32 * 16 / 8 * 128 / 130
H200_FMA_PER_S = 132 * 128 * 1.98e9
# The host figures, named here as well as read from fig: a binding to one of them must not pass
# only because some other figure exists.
DESIGN_FIGURES = {"link_gbps", "link_floor", "of_link", "overlap", "serial_ms", "graph_launch_us",
                  "graph_per_kernel_us", "host_link"}


def location(m: dict, name: str) -> str:
    return m["buffers"][name].get("location", "device")


def direction(m: dict, step: dict) -> str:
    src = "d" if location(m, step["copy"]) == "device" else "h"
    dst = "d" if location(m, step["to"]) == "device" else "h"
    if src == dst == "h":
        raise AssertionError(f"a host-to-host copy is not a step: {step}")
    return f"{src}2{dst}"


def size_of(m: dict, buffer: str, params: dict) -> int:
    return evaluate_int(m["buffers"][buffer].get("size", "n"), params)


def repeats(step: dict) -> range:
    return range(int(step.get("repeat", 1)))


def copy_span(m: dict, step: dict, params: dict, i: int) -> tuple[int, int, int]:
    """(src_offset, dst_offset, count) of one repeat of a copy step, as the design defines them."""
    env = {**params, "i": i}
    src_off = evaluate_int(str(step.get("src_offset", 0)), env)
    dst_off = evaluate_int(str(step.get("dst_offset", 0)), env)
    if "count" in step:
        count = evaluate_int(str(step["count"]), env)
    else:
        count = min(size_of(m, step["copy"], params) - src_off, size_of(m, step["to"], params) - dst_off)
    return src_off, dst_off, count


def stream_of(step: dict, i: int) -> str:
    name = step.get("stream", "main")
    return re.sub(r"\{([^}]*)\}", lambda g: str(evaluate_int(g.group(1), {"i": i})), name)


# -- the front-matter, as written against the design -------------------------------------------

@pytest.mark.parametrize("slug", NEW + ("launch-overhead",))
def test_front_matter_basics(slug):
    fm = check_unsigned_and_files(slug)
    for source in fm["sources"]:
        assert source["url"].startswith("https://") and source["note"]
    m = fm["measure"]
    assert len(m["sizes"]) * len(m["variants"]) <= MAX_CONFIGS


@pytest.mark.parametrize("slug", NEW + ("launch-overhead",))
def test_steps_follow_the_design(slug):
    """A step is a kernel xor a copy (with `to`); copies join buffers of one dtype and stay inside
    both buffers at every repeat and size; `after` names an id; at most 8 streams per variant."""
    m = front_matter(slug)["measure"]
    for v in m["variants"]:
        ids = {s["id"] for s in v["launches"] if "id" in s}
        streams = set()
        for step in v["launches"]:
            assert ("kernel" in step) != ("copy" in step), step
            assert ("to" in step) == ("copy" in step), step
            for dep in step.get("after", []):
                assert dep in ids, (v["name"], dep)
            streams |= {stream_of(step, i) for i in repeats(step)}
            if "copy" not in step:
                continue
            src, dst = m["buffers"][step["copy"]], m["buffers"][step["to"]]
            assert src.get("dtype", "float32") == dst.get("dtype", "float32")
            direction(m, step)
            for params in m["sizes"]:
                for i in repeats(step):
                    so, do, count = copy_span(m, step, params, i)
                    assert count > 0 and so >= 0 and do >= 0
                    assert so + count <= size_of(m, step["copy"], params)
                    assert do + count <= size_of(m, step["to"], params)
        assert len(streams) <= MAX_STREAMS, (v["name"], streams)
        assert isinstance(v.get("graph", False), bool)


@pytest.mark.parametrize("slug", NEW + ("launch-overhead",))
def test_claims_and_ratios_name_variants_and_sizes(slug):
    m = front_matter(slug)["measure"]
    names = {v["name"] for v in m["variants"]}
    for ratio in m.get("ratios", []):
        assert {ratio["num"], ratio["den"]} <= names
    for claim in m["claims"]:
        for key in ("num", "den", "variant"):
            if key in claim:
                assert claim[key] in names, claim
        if "size" in claim:
            assert claim["size"] in m["sizes"], claim
            assert claim.get("sizes") == "all", "a claim at one size must not also be limited to past-L2 sizes"
        assert ("at_least" in claim) != ("at_most" in claim) or claim["kind"] not in ("time_ratio", "overlap")


# -- the prose binds figures, never types a measured number -----------------------------------

FIG_CALL = re.compile(r"\{\{\s*fig((?:\.at\([^)]*\))?)\.(\w+)\(([^)]*)\)\s*\}\}")


def _fig_methods() -> set[str]:
    from glossary.figures.fig import Figures
    return {n for n in dir(Figures) if not n.startswith("_")}


@pytest.mark.parametrize("slug", NEW + ("launch-overhead",))
def test_prose_binds_known_figures_of_known_variants(slug):
    fm, body = split(slug)
    m = fm["measure"]
    names = {v["name"] for v in m["variants"]}
    known = _fig_methods() | DESIGN_FIGURES
    calls = FIG_CALL.findall(body)
    assert calls, "the prose binds no figures"
    assert len(calls) == body.count("{{"), "a binding the pattern does not read"
    for at, method, args in calls:
        assert method in known, method
        if method not in ("link_floor",):
            for arg in re.findall(r'"([^"]*)"', args):
                assert arg in names, (method, arg)
        if at:
            point = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", at)}
            assert point in m["sizes"], at
    for at, method, args in calls:
        if method == "link_floor":
            assert args.strip('"') in ("h2d", "d2h")


@pytest.mark.parametrize("slug", NEW + ("launch-overhead",))
def test_prose_links_name_entries_that_exist(slug):
    for target in re.findall(r"\]\(([\w-]+)\.md\)", split(slug)[1]):
        assert (ENTRIES / f"{target}.md").exists(), target


MEASURED_UNIT = re.compile(r"\d[\d,.]*\s*(GB/s|TB/s|µs|us|ms|ns|%|×)")


@pytest.mark.parametrize("slug", NEW + ("launch-overhead",))
def test_prose_types_no_measured_number(slug):
    """Outside bindings, the only rates typed are the PCIe specification's (64 and 63 GB/s)."""
    body = re.sub(r"\{\{.*?\}\}", "", split(slug)[1], flags=re.S)
    typed = [m.group(0) for m in MEASURED_UNIT.finditer(body)]
    assert set(typed) <= {"64 GB/s", "63 GB/s"}, typed


# -- pinned memory ------------------------------------------------------------------------------

def test_pinned_sizes_span_64_kib_to_128_mib_of_float32():
    # issue 34: the 1 GiB size took two thirds of the entry's verification; 128 MiB reaches the link floor
    m = front_matter("pinned-memory")["measure"]
    sizes = [s["n"] * 4 for s in m["sizes"]]
    assert min(sizes) == 64 * KIB and max(sizes) == GIB // 8 and sizes == sorted(sizes)
    assert len(m["sizes"]) == 6 and m["headline"] == {"n": GIB // 8 // 4}


def test_pinned_variants_are_one_copy_each_of_every_direction_and_location():
    m = front_matter("pinned-memory")["measure"]
    seen = {}
    for v in m["variants"]:
        (step,) = v["launches"]
        assert "copy" in step and "kernel" not in step
        d = direction(m, step)
        host = step["copy"] if d == "h2d" else step["to"]
        seen[(d, location(m, host))] = v["name"]
        assert m["buffers"][step["to"]]["role"] == "output"
        assert m["buffers"][step["copy"]]["role"] == "input"
        for params in m["sizes"]:   # the whole buffer: bytes = n x 4 = bytes_per_elem x elements
            _, _, count = copy_span(m, step, params, 0)
            assert count * 4 == v["bytes_per_elem"] * evaluate_int(m["elements"], params)
    assert set(seen) == {(d, loc) for d in ("h2d", "d2h") for loc in ("pinned", "pageable")}
    assert seen[("h2d", "pinned")] == "pinned_h2d" and seen[("d2h", "pageable")] == "pageable_d2h"
    written = {v["launches"][0]["to"] for v in m["variants"]}
    assert written == {n for n, b in m["buffers"].items() if b["role"] == "output"}


def test_pinned_timing_keeps_pageable_copies_out_from_behind_the_blocking_kernel():
    timing = front_matter("pinned-memory")["measure"]["timing"]
    assert timing["blocking"] is False and timing["clock"] == "both"


def test_pinned_reference_is_the_copy_the_steps_make():
    m = front_matter("pinned-memory")["measure"]
    ref = reference_of("pinned-memory")
    n = 4096
    rng = np.random.default_rng(19)
    host = {name: f32(rng.standard_normal(n)) for name, b in m["buffers"].items() if b["role"] == "input"}
    inputs = {k: v.astype(np.float64) for k, v in host.items()}
    for v in m["variants"]:
        step = v["launches"][0]
        out = ref.reference(v["name"], inputs, {}, {"n": n})
        assert set(out) == {name for name, b in m["buffers"].items() if b["role"] == "output"}
        assert all(a.shape == (n,) and a.dtype == np.float64 for a in out.values())
        emulated = host[step["copy"]].copy()           # cudaMemcpy: the bytes, unchanged
        assert np.array_equal(emulated.astype(np.float64), out[step["to"]]), v["name"]


def test_pinned_claims_judge_pinned_links_past_16_mib_and_pageable_ratios_at_large_sizes():
    m = front_matter("pinned-memory")["measure"]
    links = [c for c in m["claims"] if c["kind"] == "fraction_of_link"]
    assert {c["variant"] for c in links} == {"pinned_h2d", "pinned_d2h"}
    for c in links:
        assert c["size"]["n"] * 4 >= 16 * MIB and 0.7 <= c["at_least"] < 1
    judged = {c["size"]["n"] for c in links}
    assert judged == {s["n"] for s in m["sizes"] if s["n"] * 4 >= 16 * MIB}
    ratios = [c for c in m["claims"] if c["kind"] == "time_ratio"]
    assert {(c["num"], c["den"]) for c in ratios} == {("pageable_h2d", "pinned_h2d"), ("pageable_d2h", "pinned_d2h")}
    assert all(c["size"]["n"] * 4 >= 128 * MIB and c["at_least"] > 1 for c in ratios)


def test_pinned_measurement_stays_short():
    """Every sample of every variant at every size, at a pessimistic 10 GB/s for pageable and
    40 GB/s for pinned, within a minute of copying."""
    m = front_matter("pinned-memory")["measure"]
    t = m["timing"]
    seconds = 0.0
    for params in m["sizes"]:
        for v in m["variants"]:
            rate = 10e9 if v["name"].startswith("pageable") else 40e9
            seconds += (t["warmups"] + t["max_runs"]) * params["n"] * 4 / rate
    assert seconds < 60


def test_the_links_nominal_rate_is_worked_out_from_the_recorded_link_not_typed():
    from glossary.figures.host import pcie_rate
    from measure.results.model import HostLink
    rate, how = pcie_rate(HostLink(kind="pcie", pcie_gen=5, pcie_width=16, pcie_gen_max=5, pcie_width_max=16))
    assert round(rate, 2) == round(PCIE5_X16_GBPS, 2) and "32 GT/s × 16 lanes × 128/130" in how
    assert pcie_rate(HostLink(kind="nvlink-c2c")) is None
    _, body = split("pinned-memory")
    assert "{{ fig.link_rate() }}" in body and "64 GB/s" not in body


# -- streams overlap ----------------------------------------------------------------------------

def _chunk_steps(m: dict, v: dict, params: dict):
    """Per step: its (stream, kind, span) for each repeat, spans as [start, stop) of the array."""
    out = []
    for step in v["launches"]:
        rows = []
        for i in repeats(step):
            if "copy" in step:
                so, do, count = copy_span(m, step, params, i)
                assert so == do, "a chunk lands where it came from"
                rows.append((stream_of(step, i), direction(m, step), (so, so + count)))
            else:
                env = {**params, "i": i}
                buf, off, count = step["args"][:3]
                assert buf == "d"
                start, count = evaluate_int(off, env), evaluate_int(count, env)
                grid = evaluate_int(step["grid"][0], env) * step["block"][0]
                assert grid >= count, "the grid covers the chunk"
                rows.append((stream_of(step, i), "kernel", (start, start + count)))
        out.append(rows)
    return out


@pytest.mark.parametrize("name,streams", [("serial", 1), ("streams2", 2), ("streams4", 4)])
def test_streams_chunks_tile_the_array_and_stay_on_their_stream(name, streams):
    m = front_matter("streams-overlap")["measure"]
    v = next(v for v in m["variants"] if v["name"] == name)
    for params in m["sizes"]:
        n = params["n"]
        steps = _chunk_steps(m, v, params)
        assert [r[0][1] for r in steps] == ["h2d", "kernel", "d2h"]
        for rows in steps:
            spans = sorted(r[2] for r in rows)
            assert spans[0][0] == 0 and spans[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), "chunks are disjoint and contiguous"
        # A chunk's three stages run on one stream, so stream order is the chunk's order.
        for i in range(len(steps[0])):
            assert len({rows[i][0] for rows in steps}) == 1
            assert len({rows[i][2] for rows in steps}) == 1
        assert len({r[0] for rows in steps for r in rows}) == streams
        if streams > 1:   # one chunk per stream
            assert len(steps[0]) == streams


def _pipeline(chunks: list[tuple[str, int]], stage: Fraction, depth_first: bool) -> Fraction:
    """Finish time of a copy-compute-copy job on three engines (H2D copy, SMs, D2H copy), each
    doing one operation at a time in the order issued, every operation waiting for the previous
    one on its stream.  ``chunks``: (stream, chunk index) in chunk order; every stage of every
    chunk takes ``stage``."""
    ops = [(s, c, k) for k in range(3) for s, c in chunks]       # breadth first: every upload, ...
    if depth_first:
        ops = [(s, c, k) for s, c in chunks for k in range(3)]
    stream_free: dict[str, Fraction] = {}
    engine_free = [Fraction(0)] * 3
    end = Fraction(0)
    for s, _, k in ops:
        start = max(stream_free.get(s, Fraction(0)), engine_free[k])
        stream_free[s] = engine_free[k] = start + stage
        end = max(end, start + stage)
    return end


@pytest.mark.parametrize("streams", [1, 2, 4, 8, 64])
def test_ideal_overlap_is_two_n_less_two_over_three_n(streams):
    """N chunks on N streams, stages of T/N: the job ends at (N + 2) T / N of a serial 3T."""
    chunks = [(f"s{i}", i) for i in range(streams)]
    T = Fraction(1)
    for depth_first in (True, False):
        end = _pipeline(chunks, T / streams, depth_first)
        assert end == (streams + 2) * T / streams
        assert 1 - end / (3 * T) == Fraction(2 * streams - 2, 3 * streams)


def test_more_chunks_than_streams_issued_breadth_first_hides_less():
    """The caveat in the prose: eight chunks on four streams, each stage issued for every chunk
    before the next, hide less than issuing chunk by chunk."""
    chunks = [(f"s{i % 4}", i) for i in range(8)]
    stage = Fraction(1, 8)
    breadth = _pipeline(chunks, stage, depth_first=False)
    depth = _pipeline(chunks, stage, depth_first=True)
    assert depth < breadth
    assert 1 - depth / 3 == Fraction(7, 12)       # (8 + 2) / 8 of T: as with eight streams
    assert 1 - breadth / 3 < Fraction(1, 2)


def test_streams_claims_sit_between_a_plausible_floor_and_the_ideal():
    m = front_matter("streams-overlap")["measure"]
    ideal = {"streams2": Fraction(1, 3), "streams4": Fraction(1, 2)}
    overlap = [c for c in m["claims"] if c["kind"] == "overlap"]
    assert {c["variant"] for c in overlap if "at_least" in c} == set(ideal)
    for c in overlap:
        if "at_least" in c:
            assert 0 < c["at_least"] < ideal[c["variant"]]
        else:
            assert ideal[c["variant"]] < c["at_most"] < ideal[c["variant"]] + Fraction(1, 10)
    ratio = next(c for c in m["claims"] if c["kind"] == "time_ratio")
    least = next(c["at_least"] for c in overlap if c["variant"] == "streams4" and "at_least" in c)
    # The time ratio bound asks no more than the overlap bound implies (serial ~ the serial twin).
    assert ratio["num"] == "serial" and ratio["den"] == "streams4"
    assert ratio["at_least"] <= 1 / (1 - least)


def test_streams_kernel_is_about_as_long_as_a_copy_on_an_h200():
    m = front_matter("streams-overlap")["measure"]
    reps = m["scalars"]["reps"]
    copy_s = 4 / (PCIE5_X16_GBPS * 1e9)             # per element, at the link's nominal rate
    kernel_s = reps / H200_FMA_PER_S
    assert 0.67 < kernel_s / copy_s < 1.5
    for v in m["variants"]:
        assert v["flops_per_elem"] == 2 * reps
    src = (ENTRIES / "streams-overlap" / "work.cu").read_text()
    assert "fmaf(y, a, b)" in src


def test_streams_scalars_are_exact_in_float32():
    s = front_matter("streams-overlap")["measure"]["scalars"]
    for key in ("a", "b"):
        assert float(np.float32(s[key])) == s[key]
    assert isinstance(s["reps"], int)


def test_streams_reference_matches_the_fma_chain():
    m = front_matter("streams-overlap")["measure"]
    s = m["scalars"]
    ref = reference_of("streams-overlap")
    n = 1 << 14
    x = f32(np.random.default_rng(7).standard_normal(n) * 3)
    y = x.copy()
    a = np.float64(np.float32(s["a"]))
    b = np.float64(np.float32(s["b"]))
    for _ in range(s["reps"]):
        # fmaf: a float32 times 1 - 2**-10 is exact in float64, and so is adding 2**-10 to it.
        y = (y.astype(np.float64) * a + b).astype(np.float32)
    out = ref.reference("streams4", {"h_x": x.astype(np.float64)}, {"a": float(a), "b": float(b), "reps": s["reps"]},
                        {"n": n})
    assert set(out) == {"h_y"} and out["h_y"].shape == (n,)
    assert within(y, out["h_y"], m["rtol"], m["atol"])
    # The result still depends on x: a**2048 is about 0.13.
    assert np.std(out["h_y"]) > 0.1 * np.std(x)
    again = ref.reference("serial", {"h_x": x.astype(np.float64)}, {"a": float(a), "b": float(b), "reps": s["reps"]},
                          {"n": n})
    assert np.array_equal(again["h_y"], out["h_y"])


def test_streams_bytes_and_budget():
    m = front_matter("streams-overlap")["measure"]
    for v in m["variants"]:
        # On the device: the upload writes 4 B, the kernel reads and writes 8 B, the download reads 4 B.
        assert v["bytes_per_elem"] == 16
    assert all(16 * MIB <= p["n"] * 4 <= 256 * MIB for p in m["sizes"])
    assert min(p["n"] for p in m["sizes"]) // 4 * 4 >= 4 * MIB   # chunks of at least 4 MiB
    # Each multi-stream variant is timed twice (its serial twin): still within the budget.
    regions = sum(2 if any("stream" in s for s in v["launches"]) else 1 for v in m["variants"])
    assert len(m["sizes"]) * regions <= MAX_CONFIGS


# -- CUDA graphs --------------------------------------------------------------------------------

def test_graph_variants_pair_plain_ones_launch_for_launch():
    m = front_matter("cuda-graphs")["measure"]
    ref = reference_of("cuda-graphs")
    by_name = {v["name"]: v for v in m["variants"]}
    lengths = sorted({ref.chain_length(n) for n in by_name})
    assert lengths == [4, 16, 64]
    for k in lengths:
        plain, graph = by_name[f"plain_k{k}"], by_name[f"graph_k{k}"]
        assert graph["graph"] is True and not plain.get("graph", False)
        assert plain["launches"] == graph["launches"]
        assert sum(int(s.get("repeat", 1)) for s in plain["launches"]) == k
        assert plain["bytes_per_elem"] == graph["bytes_per_elem"] == 8 * k
    assert m["timing"]["clock"] == "both"


def _chain(x: np.ndarray, k: int) -> np.ndarray:
    y = f32(x + np.float32(1))
    for _ in range(k - 1):
        y = f32(y + np.float32(1))
    return y


@pytest.mark.parametrize("variant", ["plain_k4", "graph_k16", "plain_k64", "graph_k64"])
def test_graph_reference_matches_the_chain(variant):
    m = front_matter("cuda-graphs")["measure"]
    ref = reference_of("cuda-graphs")
    n = 4096
    x = f32(np.random.default_rng(11).standard_normal(n) * 4)
    out = ref.reference(variant, {"x": x.astype(np.float64)}, {}, {"chunk": n})
    assert set(out) == {"y"} and out["y"].shape == (n,)
    assert within(_chain(x, ref.chain_length(variant)), out["y"], m.get("rtol", 1e-5), m.get("atol", 1e-6))


def test_graph_claims_judge_the_smallest_and_largest_work():
    m = front_matter("cuda-graphs")["measure"]
    sizes = sorted(p["chunk"] for p in m["sizes"])
    for c in m["claims"]:
        assert c["size"]["chunk"] in (sizes[0], sizes[-1])
        if c["kind"] == "time_ratio" and "at_least" in c:
            assert c["size"]["chunk"] == sizes[0] and 1 < c["at_least"] < 2
    bound = {(c["variant"], "at_least" in c) for c in m["claims"] if c["kind"] == "launch_bound"}
    assert bound == {("plain_k64", True), ("graph_k64", False)}
    assert len(m["sizes"]) * len(m["variants"]) <= MAX_CONFIGS


def test_launch_overhead_graph_variant_is_the_chain_of_64_replayed():
    m = front_matter("launch-overhead")["measure"]
    by_name = {v["name"]: v for v in m["variants"]}
    assert by_name["graph"]["graph"] is True
    assert by_name["graph"]["launches"] == by_name["many"]["launches"]
    assert sum(int(s.get("repeat", 1)) for s in by_name["graph"]["launches"]) == 64
    _, body = split("launch-overhead")
    for figure in ("graph_launch_us", "graph_per_kernel_us", "host_per_launch_us"):
        assert f'fig.{figure}("' in body
    ref = reference_of("launch-overhead")
    x = np.arange(8, dtype=np.float64)
    assert np.array_equal(ref.reference("graph", {"x": x}, {}, {"chunk": 1})["y"], x + 1)


# -- the kernels compile for every arch each entry claims ---------------------------------------

def test_entries_claim_turing_and_newer():
    for slug in NEW:
        archs = front_matter(slug)["measure"]["archs"]
        assert all(int(a[3:].rstrip("a")) >= 75 for a in archs) and "sm_90" in archs


@pytest.mark.parametrize("slug", NEW)
def test_kernels_are_declared_extern_c(slug):
    # tests/test_compile.py compiles every entry's kernels for each arch it claims, in the sandbox (an
    # entry's code is compiled nowhere else), and finds each launched kernel in the cubin.
    m = front_matter(slug)["measure"]
    kernels = {s["kernel"] for v in m["variants"] for s in v["launches"] if "kernel" in s}
    text = "".join((ENTRIES / slug / source).read_text() for source in m["sources"])
    for name in kernels:
        assert f'extern "C" __global__ void {name}(' in text


def test_a_variants_copies_are_recorded_by_the_buffers_they_name():
    """copy_record groups a variant's copy calls by the spec's buffer names, which each call
    carries, never by parsing its label (a buffer name may hold ' -> ')."""
    from measure.harness.launches import CopyCall
    from measure.harness.link_floor import copy_record
    calls = [CopyCall("h2d", 0, 0, 400, "any label", buffers=("a_host", "a")),
             CopyCall("h2d", 0, 0, 400, "any label", buffers=("a_host", "a")),
             CopyCall("d2h", 0, 0, 100, "copy c -> d -> e", buffers=("c", "c_host"))]
    steps, totals = copy_record(None, calls)
    assert steps == [{"src": "a_host", "dst": "a", "direction": "h2d", "bytes": 800, "copies": 2},
                     {"src": "c", "dst": "c_host", "direction": "d2h", "bytes": 100, "copies": 1}]
    assert totals == {"h2d": 800, "d2h": 100}
