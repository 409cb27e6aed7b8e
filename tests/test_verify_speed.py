"""Verification work on the host, made cheaper without changing an answer (CPU; the harness's pure parts)."""

from __future__ import annotations

from pathlib import Path

from types import SimpleNamespace

import numpy as np
import pytest

from glossary.entries.model import load_entries
from measure.harness import check
from measure.harness.compile import load_reference

import real_glossary

ROOT = Path(__file__).resolve().parent.parent


def _one_pass(got, ref, rtol, atol):
    """check_elements as it was: one pass over every element."""
    got64, ref64 = np.asarray(got, np.float64).ravel(), np.asarray(ref, np.float64).ravel()
    err, abs_ref = np.abs(got64 - ref64), np.abs(ref64)
    good = err <= atol + rtol * abs_ref
    bad = int(good.size - np.count_nonzero(good))
    out = {"ok": bad == 0, "elements_checked": int(got64.size), "bad": bad,
           "nan": int(np.count_nonzero(np.isnan(got64))), "first_bad": None,
           "max_abs_err": None, "max_rel_err": None, "max_tolerance_used": None}
    if bad:
        i = int(np.argmin(good))
        out["first_bad"] = {"index": i, "got": float(got64[i]), "expected": float(ref64[i])}
        return out
    nz = abs_ref > 0
    out.update(max_abs_err=float(err.max()), max_tolerance_used=float((err / (atol + rtol * abs_ref)).max()),
               max_rel_err=float((err[nz] / abs_ref[nz]).max()) if nz.any() else 0.0)
    return out


@pytest.mark.parametrize("case", ["good", "bad-late", "bad-two-chunks", "nan", "zeros-in-ref", "tiny"])
def test_chunked_check_gives_the_one_pass_answer(case, monkeypatch):
    monkeypatch.setattr(check.parallel, "CHUNK", 1000)
    rng = np.random.default_rng(7)
    ref = rng.standard_normal(10_537 if case != "tiny" else 3)
    got = (ref * (1 + 1e-7 * rng.standard_normal(ref.size))).astype(np.float32)
    if case == "bad-late":
        got[9_999] += 1.0
    if case == "bad-two-chunks":
        got[[4_321, 8_765]] += 1.0
    if case == "nan":
        got[5_000:5_010] = np.nan
    if case == "zeros-in-ref":
        ref[::7] = 0.0
        got[::7] = 0.0
    assert repr(check.check_elements(got, ref, 1e-5, 1e-6)) == repr(_one_pass(got, ref, 1e-5, 1e-6))  # NaN too


def test_sizes_that_differ_are_refused():
    with pytest.raises(ValueError, match="3 elements against 4"):
        check.check_elements(np.zeros(3), np.zeros(4), 0.0, 0.0)


def _ignores(variant, inputs, scalars, params):
    return {"y": inputs["x"] * 2}


def _reads(variant, inputs, scalars, params):
    return {"y": inputs["x"] * (2 if variant == "a" else 3)}


def _reads_in_a_closure(variant, inputs, scalars, params):
    scale = (lambda: 2 if variant == "a" else 3)()
    return {"y": inputs["x"] * scale}


def _reads_through_locals(variant, inputs, scalars, params):
    return {"y": inputs["x"] * len(locals()["variant"])}


def _star(*args):
    return {"y": args[1]["x"]}


@pytest.mark.parametrize("fn, reads", [(_ignores, False), (_reads, True), (_reads_in_a_closure, True),
                                       (_reads_through_locals, True), (_star, True), (np.add, True)])
def test_a_reference_shares_its_outputs_only_where_it_never_reads_the_variant(fn, reads):
    assert check.reads_variant(fn) is reads


def test_expected_outputs_are_computed_once_per_size_where_shared():
    calls = []

    def counting(variant, inputs, scalars, params):
        calls.append(1)
        return {"y": inputs["x"]}

    shared = check.Expected(counting, {"x": np.arange(3.0)}, {}, {"n": 3})
    for name in ("a", "b", "c"):
        shared.outputs(SimpleNamespace(base=name, point={}))
    assert shared.shared and len(calls) == 1
    seen = []
    per_variant = check.Expected(lambda variant, inputs, scalars, params: seen.append(variant) or {"y": 0},
                                 {}, {}, {})
    for name in ("a", "b", "a"):
        per_variant.outputs(SimpleNamespace(base=name, point={}))
    assert not per_variant.shared and seen == ["a", "b", "a"]
    # a sweep point is its own question where the reference reads params, and not where it does not
    calls.clear()
    for block in (128, 256, 128):
        shared.outputs(SimpleNamespace(base="a", point={"block": block}))
    assert calls == []  # the size's one answer serves every point

    def by_point(variant, inputs, scalars, params):
        calls.append(params["block"])
        return {"y": inputs["x"]}

    calls.clear()
    pointed = check.Expected(by_point, {"x": np.arange(3.0)}, {}, {"n": 3})
    for block in (128, 256, 128):
        pointed.outputs(SimpleNamespace(base="a", point={"block": block}))
    assert calls == [128, 256, 128]


def test_the_committed_references_are_judged_as_written():
    entries = real_glossary.entries()
    judged = {slug: check.reads_variant(load_reference(slug, e.folder.resolve(), e.meta.measure))
              for slug, e in entries.items() if e.meta.measure is not None}
    # kernel-fusion's variants all compute one chain; roofline's k1..k1024 run different FMA counts.
    assert judged["kernel-fusion"] is False and judged["roofline"] is True


def test_the_phase_clock_takes_a_nested_phase_out_of_the_outer_one():
    from measure.harness.phases import PHASES, PhaseClock, breakdown
    from measure.results.model import PHASE_NAMES

    ticks = iter([0.0, 1.0, 3.0, 7.0, 8.0, 8.0, 10.0, 12.0])
    clock = PhaseClock(clock=lambda: next(ticks))   # started at 0
    with clock.phase("check"):                        # 1
        with clock.phase("reference"):                # 3: check has 2 s
            pass                                      # 7: reference 4 s
    with clock.phase("timing"):                       # check ended at 8 (+1 s); timing from 8
        pass                                          # 10
    phases = clock.record()                           # 12
    assert phases == {"compile": 0.0, "inputs": 0.0, "reference": 4.0, "check": 3.0, "timing": 2.0,
                      "counters": 0.0, "ncu_startup": 0.0, "total": 12.0}
    assert breakdown(phases).startswith("12.0 s: compile 0.0, inputs 0.0, reference 4.0, check 3.0")
    assert PHASE_NAMES == (*PHASES, "total")  # the results model knows every phase the harness records


def test_a_result_with_an_unknown_phase_is_refused():
    import json

    from measure import results
    from measure.typed import SchemaError

    data = json.loads((ROOT / "entries/roofline/results/nvidia-h200.json").read_text())
    assert results.parse(dict(data, phases={"compile": 1.0, "total": 2.0})).phases["total"] == 2.0
    with pytest.raises(SchemaError, match="phases.warp"):
        results.parse(dict(data, phases={"warp": 1.0}))
    with pytest.raises(SchemaError, match="phases.total"):
        results.parse(dict(data, phases={"total": -1.0}))


def test_one_ncu_run_per_cache_mode_splits_its_launches_by_size():
    from measure.harness import counters

    manifest = [{"variant": "a", "launch": 0, "kernel": "k", "repeat": 1, "size": s} for s in (0, 0, 1)]
    launches = [{"id": i, "kernel": "k", "read_bytes": 4.0 * (i + 1), "write_bytes": 4.0} for i in range(3)]
    (l0, m0), (l1, m1) = counters.split_by_size(launches, manifest, 2)
    assert [x["id"] for x in l0] == [0, 1] and [x["id"] for x in l1] == [2] and len(m0) == 2 and len(m1) == 1
    per_size = counters.variant_counters(l1, m1, 2, "all")
    assert per_size["a"]["dram_bytes_per_elem"] == 8.0  # (12 read + 4 written) / 2 elements
    with pytest.raises(counters.CounterError, match="profiled 2 launches, but the process made 3"):
        counters.split_by_size(launches[:2], manifest, 2)
    with pytest.raises(counters.CounterError, match="size 1 of 1"):
        counters.split_by_size(launches, manifest, 1)


def test_without_ncu_every_size_says_why(monkeypatch):
    from measure.harness import counters

    monkeypatch.setattr(counters, "find_ncu", lambda: None)
    spec = real_glossary.entries()["kernel-fusion"].meta.measure
    out = counters.run_counter_passes("kernel-fusion", ROOT, spec, [({"n": 1}, 1), ({"n": 2}, 2)], print)
    assert [o["status"] for o in out] == ["skipped", "skipped"] and [o["size"] for o in out] == [{"n": 1}, {"n": 2}]


# -- glossary try: the author's quick look -----------------------------------------------------


def test_quick_spec_is_one_size_without_counters():
    from glossary.measuring import quick

    spec = real_glossary.entries()["kernel-fusion"].meta.measure
    one = quick.quick_spec(spec)
    assert one.sizes == [dict(spec.headline)] and one.headline == dict(spec.headline) and one.counters is False
    assert quick.quick_spec(spec, quick.parse_size(["n=1_048_576"])).sizes == [{"n": 1048576}]
    with pytest.raises(quick.QuickError, match="not a size parameter"):
        quick.quick_spec(spec, {"m": 4})
    with pytest.raises(quick.QuickError, match="NAME=INTEGER"):
        quick.parse_size(["n=lots"])


def test_glossary_try_prints_the_table_and_records_nothing(monkeypatch, tmp_path):
    import json
    import shutil

    from click.testing import CliRunner

    from glossary.cli import cli
    from glossary.measuring import plan
    from measure import harness

    shutil.copytree(ROOT / "entries", tmp_path / "entries")
    (tmp_path / "mkdocs.yml").write_text("site_name: T\n")
    recorded = tmp_path / "entries/kernel-fusion/results/nvidia-h200.json"
    before = recorded.read_bytes()
    data = json.loads(before)
    spec = load_entries(tmp_path / "entries")["kernel-fusion"].meta.measure

    def fake_measure(slug, folder, one, fingerprint, progress, **confinement):
        assert one.sizes == [dict(spec.headline)] and one.counters is False
        size = next(s for s in data["sizes"] if s["params"] == dict(spec.headline))
        return {k: v for k, v in dict(data, sizes=[size], counters=None).items()
                if k not in ("format", "signature", "last_failure", "counters")}

    monkeypatch.setattr(plan, "probe", lambda: (True, "NVIDIA H200"))
    monkeypatch.setattr(harness, "measure_entry", fake_measure)
    run = CliRunner().invoke(cli, ["--entries", str(tmp_path / "entries"), "try", "kernel-fusion"])
    assert run.exit_code == 0, run.output
    assert "not recorded" in run.output and "fused_vec4" in run.output and "staged / fused: time" in run.output
    assert recorded.read_bytes() == before  # nothing recorded
    monkeypatch.setattr(plan, "probe", lambda: (False, "pycuda is not installed"))
    run = CliRunner().invoke(cli, ["--entries", str(tmp_path / "entries"), "try", "kernel-fusion"])
    assert run.exit_code == 1 and "no GPU to try on here: pycuda is not installed" in run.output
