"""Issue 17's second round, on the CPU: inputs drawn on every core, the elementwise reference
computed chunk by chunk (and its promise tested), the counter pass keyed and carried, the
configuration progress.  The harness's GPU parts are faked; the GPU tests run them for real."""

from __future__ import annotations

import re
import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from measure import results
from measure.harness import correctness, counters, counting, parallel, workspace
from measure.harness.check import check_elements
from measure.harness.errors import MeasurementError
from measure.harness.phases import ConfigProgress, PhaseClock

import real_glossary

ROOT = Path(__file__).resolve().parent.parent


def spec_of(slug: str = "kernel-fusion"):
    return real_glossary.entries()[slug].meta.measure


# -- inputs ------------------------------------------------------------------------------------


def test_inputs_do_not_depend_on_the_number_of_cores(monkeypatch):
    many = workspace.fill_input(20260901, 1, 3 * workspace.DRAW_CHUNK + 17, "float32", "uniform")
    monkeypatch.setattr(parallel, "workers", lambda jobs: 1)
    one = workspace.fill_input(20260901, 1, 3 * workspace.DRAW_CHUNK + 17, "float32", "uniform")
    assert np.array_equal(many, one) and many.min() >= -1 and many.max() < 1


def test_a_chunk_of_inputs_depends_only_on_seed_stream_and_position():
    n = 2 * workspace.DRAW_CHUNK
    short = workspace.fill_input(5, 2, workspace.DRAW_CHUNK, "float64", "normal")
    long = workspace.fill_input(5, 2, n, "float64", "normal")
    assert np.array_equal(short, long[:workspace.DRAW_CHUNK])           # a longer buffer extends it
    assert not np.array_equal(long[:workspace.DRAW_CHUNK], long[workspace.DRAW_CHUNK:])
    assert not np.array_equal(short, workspace.fill_input(5, 3, workspace.DRAW_CHUNK, "float64", "normal"))
    ints = workspace.fill_input(5, 2, 5000, "int32", "uniform")
    assert ints.dtype == np.int32 and ints.min() >= -1000 and ints.max() <= 1000 and len(np.unique(ints)) > 1000


# -- the elementwise reference -----------------------------------------------------------------


def chunked_check(spec, reference, inputs, got, chunk, monkeypatch):
    monkeypatch.setattr(parallel, "CHUNK", chunk)
    clock = PhaseClock()
    with clock.phase("check"):
        out = correctness.check_chunked("t: n = 1", spec, reference, inputs, {"s": 2.0}, {"n": 1}, got, clock)
    return out, dict(clock.seconds)


def tiny_spec():
    spec = spec_of()
    return dataclasses.replace(spec, buffers={"x": dataclasses.replace(spec.buffers["x"]),
                                              "y": dataclasses.replace(spec.buffers["y"])})


def test_the_chunked_check_gives_the_whole_checks_answer(monkeypatch):
    spec = tiny_spec()
    x = workspace.fill_input(1, 1, 10_001, "float32", "normal")
    ref = (2.0 * x.astype(np.float64)) ** 2
    good = ref.astype(np.float32)
    bad = good.copy()
    bad[7_777] += 1.0

    def reference(variant, inputs, scalars, params):
        return {"y": (scalars["s"] * inputs["x"]) ** 2}

    a, b = (v.name for v in spec.variants[:2])
    out, phases = chunked_check(spec, reference, {"x": x}, {a: {"y": good}, b: {"y": good}}, 1000, monkeypatch)
    whole = check_elements(good, ref, spec.rtol, spec.atol)
    assert out == [whole, whole]
    assert phases["reference"] > 0 and phases["check"] >= 0
    with pytest.raises(MeasurementError, match=rf"variant {re.escape(b)}: output y is wrong in 1 of 10001 elements; first at index 7777"):
        chunked_check(spec, reference, {"x": x}, {a: {"y": good}, b: {"y": bad}}, 1000, monkeypatch)


def test_a_reference_that_reads_the_variant_is_asked_per_variant_and_chunk(monkeypatch):
    spec = tiny_spec()
    x = workspace.fill_input(1, 1, 3000, "float32", "uniform")
    asked = []

    a, b = (v.name for v in spec.variants[:2])

    def reference(variant, inputs, scalars, params):
        asked.append((variant, len(inputs["x"])))
        return {"y": inputs["x"] * (1.0 if variant == a else 2.0)}

    got = {a: {"y": x.copy()}, b: {"y": (2 * x).astype(np.float32)}}
    chunked_check(spec, reference, {"x": x}, got, 1000, monkeypatch)
    assert sorted(asked) == sorted([(v, 1000) for v in (a, b) for _ in range(3)])


@pytest.mark.parametrize("reference, why", [
    (lambda v, i, s, p: {"y": np.cumsum(i["x"])}, "differs from the reference"),
    (lambda v, i, s, p: {"y": i["x"] - i["x"].mean()}, "differs from the reference"),
    (lambda v, i, s, p: {"y": i["x"][::-1].copy()}, "differs from the reference"),
    (lambda v, i, s, p: {"y": i["x"].reshape(p["n"], -1)[0]}, "the reference raised on elements"),
    (lambda v, i, s, p: {"y": np.zeros(p["n"])}, "has 4096 elements, the buffer"),
])
def test_a_false_elementwise_promise_stops_the_measurement(reference, why):
    spec = tiny_spec()
    x = workspace.fill_input(3, 1, 20_000, "float32", "normal")
    with pytest.raises(MeasurementError, match=why):
        correctness.verify_elementwise("t: n = 4096", spec, reference, {"x": x}, {}, {"n": 4096})


def test_a_true_elementwise_promise_passes_on_a_bounded_prefix():
    spec = tiny_spec()
    seen = []

    def reference(variant, inputs, scalars, params):
        seen.append(len(inputs["x"]))
        v = inputs["x"]
        return {"y": 0.5 * v * (1.0 + np.tanh(0.79788456 * (v + 0.044715 * v ** 3)))}

    x = workspace.fill_input(3, 1, 3 * correctness.VERIFY_ELEMENTS, "float32", "normal")
    correctness.verify_elementwise("t", spec, reference, {"x": x}, {}, {"n": 1})
    assert max(seen) == correctness.VERIFY_ELEMENTS and sum(seen) == 2 * correctness.VERIFY_ELEMENTS


def test_elementwise_needs_equal_element_counts():
    from glossary.entries.model import EntryError, parse_entry

    text = (ROOT / "entries/kernel-fusion.md").read_text()
    assert "reference_elementwise: true" in text
    bad = text.replace("    r:  {role: input}", "    r:  {role: input, size: \"n / 2\"}")
    path = ROOT / "tests" / "fixtures" / "_elementwise_tmp.md"
    try:
        path.write_text(bad)
        with pytest.raises(EntryError, match=r"reference_elementwise.*x 1,048,576, r 524,288"):
            parse_entry(path, ROOT / "entries")
    finally:
        path.unlink(missing_ok=True)


def test_host_groups_keep_the_outputs_within_the_budget():
    spec = spec_of()
    counts = {"y": 1 << 20}
    four_mib = 4 << 20
    assert correctness.host_groups(spec, counts, budget=2 * four_mib) == [["staged", "fused"],
                                                                          ["staged_vec4", "fused_vec4"]]
    assert correctness.host_groups(spec, counts, budget=1) == [[v.name] for v in spec.variants]
    assert correctness.host_groups(spec, counts) == [[v.name for v in spec.variants]]


# -- bookkeeping -------------------------------------------------------------------------------


def test_attributed_time_moves_between_phases():
    ticks = iter([0.0, 1.0, 5.0, 6.0])
    clock = PhaseClock(clock=lambda: next(ticks))
    with clock.phase("counters"):       # 1 .. 5
        clock.attribute("ncu_startup", 1.5)
    phases = clock.record()             # 6
    assert phases["counters"] == 2.5 and phases["ncu_startup"] == 1.5 and phases["total"] == 6.0
    with pytest.raises(ValueError, match="no phase is open"):
        clock.attribute("check", 1.0)


def test_configuration_progress_only_grows_and_ends_at_the_total():
    seen = []
    progress = ConfigProgress(4, 3, lambda done, total: seen.append((done, total)))
    for _ in range(4):
        progress.advance()
    progress.advance(4)
    progress.advance(40)   # never past the total
    progress.finish()
    dones = [d for d, _ in seen]
    assert dones == sorted(dones) and dones[-1] == 4.0 and all(t == 4 for _, t in seen)
    assert dones[3] == pytest.approx(4 / 3, abs=1e-3)


# -- the counter pass as its own result --------------------------------------------------------


SOURCES = {"chain.cu": b"__global__ void k() {}", "<harness>/harness.cu": b"h"}


def key(spec, **over):
    args = dict(sources=SOURCES, device="nvidia-h200", ncu_version="2025.3.1.0", params={"n": 1048576})
    args.update(over)
    return results.counter_key(spec, **args)


def test_the_counter_key_ignores_timing_and_judging_but_not_what_runs():
    spec = spec_of()
    base = key(spec)
    same = [dataclasses.replace(spec, timing=dataclasses.replace(spec.timing, warmups=9, runs=50, statistic="median")),
            dataclasses.replace(spec, rtol=1e-3, atol=1e-3, claims=(), ratios=(), reference="other.py"),
            dataclasses.replace(spec, variants=[dataclasses.replace(v, label="x") for v in spec.variants]),
            dataclasses.replace(spec, sizes=spec.sizes[:1], headline=spec.sizes[0], counter_sizes="headline")]
    assert all(key(s) == base for s in same)
    launches = list(spec.variants[0].launches)
    launches[0] = dataclasses.replace(launches[0], block=[128])
    changed = [key(dataclasses.replace(spec, variants=[dataclasses.replace(spec.variants[0], launches=launches),
                                                       *spec.variants[1:]])),
               key(dataclasses.replace(spec, seed=1)), key(dataclasses.replace(spec, nvcc_flags=["-O2"])),
               key(dataclasses.replace(spec, timing=dataclasses.replace(spec.timing, l2_flush=False))),
               key(spec, sources=dict(SOURCES, **{"chain.cu": b"// edited"})), key(spec, device="tesla-t4"),
               key(spec, ncu_version="2026.1.0.0"), key(spec, params={"n": 4194304}),
               key(spec, counter_version="999")]
    assert len({base, *changed}) == len(changed) + 1


def committed(slug: str = "kernel-fusion") -> dict:
    return json.loads((ROOT / "entries" / slug / "results" / "nvidia-h200.json").read_text())


def fresh_result(slug: str = "kernel-fusion") -> dict:
    """A harness result as measure_entry holds it before the counter stage (no counters yet)."""
    data = committed(slug)
    out = {k: copy.deepcopy(v) for k, v in data.items() if k not in ("format", "signature", "last_failure",
                                                                      "counters")}
    for size in out["sizes"]:
        size.pop("counter_key", None)
        size.pop("counters_from", None)
        for variant in size["variants"].values():
            variant["counters"] = None
    return out


def fake_passes(monkeypatch, calls):
    spec_counters = {"flushed": {"dram_bytes_per_elem": 12.0, "read_bytes": 8.0, "write_bytes": 4.0,
                                 "per_kernel": [], "clock_control": "none", "cache_control": "all"}}
    spec_counters["unflushed"] = dict(spec_counters["flushed"], cache_control="none")

    def run(slug, entry_dir, spec, sizes, progress, times=None, on_pass=lambda: None):
        calls.append([p for p, _ in sizes])
        for _ in counters.CACHE_CONTROLS:
            on_pass()
        return [dict(counters.pass_summary(spec, "2025.3.1.0", p),
                     variants={v.name: dict(spec_counters, size=dict(p)) for v in spec.variants}) for p, _ in sizes]

    monkeypatch.setattr(counters, "run_counter_passes", run)
    monkeypatch.setattr(counters, "find_ncu", lambda: "/usr/bin/ncu")
    monkeypatch.setattr(counters, "ncu_version", lambda ncu: "2025.3.1.0")


def attach(spec, result, prior, progress_seen=None):
    clock = PhaseClock()
    configs = ConfigProgress(len(spec.sizes) * len(spec.variants), 3,
                             (lambda d, t: progress_seen.append(d)) if progress_seen is not None else None)
    with clock.phase("counters"):
        counting.attach_counters("kernel-fusion", ROOT / "entries/kernel-fusion", spec, result, lambda line: None,
                                 clock, configs, prior)
    return result


def test_counters_are_carried_where_the_key_is_unchanged_and_profiled_where_not(monkeypatch):
    spec = spec_of()
    calls: list = []
    fake_passes(monkeypatch, calls)
    first = attach(spec, fresh_result(), None)
    assert calls == [[s["params"] for s in first["sizes"]]]                  # every size profiled
    results.parse_measured(first)                                             # and the model takes it
    offered = results.carried_counters(first, signer="nvidia-h200-node-x")
    assert [s["params"] for s in offered["sizes"]] == [dict(p) for p in spec.sizes]

    calls.clear()
    seen: list = []
    retimed = dataclasses.replace(spec, timing=dataclasses.replace(spec.timing, warmups=7))
    again = attach(retimed, fresh_result(), offered, seen)
    assert calls == []                                                        # nothing profiled again
    assert seen and seen[-1] == pytest.approx(len(spec.sizes) * len(spec.variants) / 3, abs=1e-3)
    for size in again["sizes"]:
        assert size["counters_from"] == {"captured_at": first["environment"]["captured_at"],
                                         "fingerprint": first["fingerprint"], "signed_by": "nvidia-h200-node-x"}
        assert size["variants"]["staged"]["counters"]["flushed"]["dram_bytes_per_elem"] == 12.0
    parsed = results.parse_measured(again)
    assert parsed.counters.status == "ok" and all(s.counters_from.signed_by == "nvidia-h200-node-x"
                                                  for s in parsed.sizes)

    calls.clear()
    one_edit = copy.deepcopy(offered)
    one_edit["sizes"][2]["counter_key"] = "sha256:other"                     # one size measured for other kernels
    attach(spec, fresh_result(), one_edit)
    assert calls == [[dict(spec.sizes[2])]]


def test_a_failed_pass_leaves_no_key_to_carry(monkeypatch):
    spec = spec_of()
    monkeypatch.setattr(counters, "find_ncu", lambda: None)
    out = attach(spec, fresh_result(), None)
    assert all("counter_key" not in s for s in out["sizes"]) and out["counters"]["status"] == "skipped"
    assert results.carried_counters(out, None) is None


def test_only_a_result_that_verifies_offers_its_counters(tmp_path):
    from gate_fixture import Keys, _result, make_project
    from glossary.entries.model import load_entries as load
    from glossary.verdicts import trust

    passes = {"flushed": {"dram_bytes_per_elem": 8.0, "cache_control": "all"},
              "unflushed": {"dram_bytes_per_elem": 8.0, "cache_control": "none"}}
    counted = _result()
    counted["sizes"][0]["counter_key"] = "sha256:k"
    for variant in counted["sizes"][0]["variants"].values():
        variant["counters"] = passes
    keys = Keys.make()
    (tmp_path / "signed").mkdir()
    (tmp_path / "names").mkdir()
    signed = make_project(tmp_path / "signed", result=counted, keys=keys)
    entry = load(signed / "entries")["copy"]
    offered = trust.counters_to_carry(entry, "nvidia-h200", trust.load_trust(signed))
    assert json.loads(offered)["sizes"][0]["from"]["signed_by"] == "test-node"
    assert trust.counters_to_carry(entry, "tesla-t4", trust.load_trust(signed)) is None    # nothing recorded
    keys.write_trust(signed, nodes=[])                                                      # the node key revoked
    assert trust.counters_to_carry(entry, "nvidia-h200", trust.load_trust(signed)) is None
    unsigned = make_project(tmp_path / "names", result=counted)                             # trust: names
    entry = load(unsigned / "entries")["copy"]
    offered = json.loads(trust.counters_to_carry(entry, "nvidia-h200", trust.load_trust(unsigned, "names")))
    assert offered["sizes"][0]["from"]["signed_by"] is None
