"""The spec's reach inside the SM (issue 18), on the CPU: launch-parameter sweeps, device names in
expressions, dynamic shared memory, per-variant builds, declared metrics, narrow data types, typed
scalars, the new claim kinds and their scope; the occupancy formula; kernel signatures."""

import dataclasses

import numpy as np
import pytest

from measure import occupancy
from measure.harness import counters
from measure.harness import compile as nvcc
from measure.sandbox import nvcc as sandbox_nvcc
from measure.harness.workspace import NP_DTYPES, POISON, fill_input
from measure.spec import MeasureSpec
from measure.spec.limits import NOMINAL_DEVICE
from measure.spec.signatures import kernel_signatures, signature_problems
from measure.spec.sweep import pairs
from measure.typed import SchemaError, load


def spec_data(**over):
    data = {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"x": {"role": "input"}, "y": {"role": "output"}},
        "sizes": [{"n": 1 << 20}, {"n": 1 << 24}], "headline": {"n": 1 << 24},
        "variants": [
            {"name": "copy", "label": "grid-stride copy", "bytes_per_elem": 8,
             "sweep": {"block": [128, 256, 512]},
             "launches": [{"kernel": "copy", "grid": ["sm_count * 2"], "block": ["block"],
                           "shared": "block * 4", "args": ["x", "y", "n"]}]},
            {"name": "plain", "label": "one thread per element", "bytes_per_elem": 8,
             "launches": [{"kernel": "copy", "grid": ["ceil(n / 256)"], "block": [256], "args": ["x", "y", "n"]}]},
        ],
    }
    data.update(over)
    return data


def spec_of(**over) -> MeasureSpec:
    return load(MeasureSpec, spec_data(**over), key="measure")


def refused(data, key_part: str, words: str):
    with pytest.raises(SchemaError) as err:
        load(MeasureSpec, data, key="measure")
    assert key_part in err.value.key, err.value
    assert words in str(err.value), err.value


# -- sweeps ------------------------------------------------------------------------------------


def test_a_swept_variant_is_measured_once_per_point_in_the_order_written():
    spec = spec_of()
    names = [v.name for v in spec.measured_variants]
    assert names == ["copy[block=128]", "copy[block=256]", "copy[block=512]", "plain"]
    first = spec.measured_variants[0]
    assert first.base == "copy" and first.point == {"block": 128} and first.label == "grid-stride copy, block 128"
    assert spec.measured("copy") == list(spec.measured_variants[:3])
    assert spec.variant("copy[block=256]").name == "copy"


def test_the_cross_product_of_two_sweeps_and_its_bound():
    data = spec_data()
    data["variants"][0]["sweep"] = {"block": [128, 256], "items": [1, 2, 4]}
    spec = load(MeasureSpec, data)
    assert [v.name for v in spec.measured_variants][:3] == ["copy[block=128,items=1]", "copy[block=128,items=2]",
                                                           "copy[block=128,items=4]"]
    data["variants"][0]["sweep"] = {"a": list(range(1, 9)), "b": list(range(1, 10))}
    refused(data, "variants[0].sweep", "at most 64")


def test_sweep_names_may_not_shadow_other_names():
    for name in ("n", "x", "sm_count", "i"):
        data = spec_data()
        data["variants"][0]["sweep"] = {name: [1, 2]}
        refused(data, f"variants[0].sweep.{name}", "taken")


def test_device_names_bind_in_launches_but_not_in_buffer_sizes():
    spec_of()  # sm_count in a grid is fine
    refused(spec_data(buffers={"x": {"role": "input", "size": "sm_count * 256"}, "y": {"role": "output"}}),
            "buffers.x.size", "unknown name")
    refused(spec_data(elements="n * warp_size"), "elements", "unknown name")


def test_block_and_shared_are_checked_at_every_point():
    data = spec_data()
    data["variants"][0]["sweep"] = {"block": [512, 2048]}
    refused(data, "variants[0].launches[0].block", "at most 1024 threads")
    data = spec_data()
    data["variants"][0]["launches"][0]["shared"] = "block * 4096"
    refused(data, "variants[0].launches[0].shared", "expected 0 to")


def test_claims_on_a_base_name_pair_points_and_a_point_filter():
    spec = spec_of()
    assert [(a.name, b.name) for a, b in pairs(spec, "copy", "plain")] == [
        ("copy[block=128]", "plain"), ("copy[block=256]", "plain"), ("copy[block=512]", "plain")]
    assert [(a.name, b.name) for a, b in pairs(spec, "copy", "plain", {"block": 256})] == [("copy[block=256]", "plain")]
    assert [(a.name, b.name) for a, b in pairs(spec, "copy", "copy")][0] == ("copy[block=128]", "copy[block=128]")
    refused(spec_data(claims=[{"kind": "time_ratio", "num": "copy", "den": "plain", "at_least": 1,
                               "point": {"block": 64}}]), "claims[0].point", "no variant's sweep")


# -- per-variant builds ----------------------------------------------------------------------------


def test_defines_and_register_limits_make_builds_of_their_own():
    data = spec_data()
    data["variants"][0]["sweep"] = {"regs": [32, 64]}
    data["variants"][0]["launches"][0]["block"] = [256]
    data["variants"][0]["launches"][0]["shared"] = 0
    data["variants"][0]["maxrregcount"] = "regs"
    data["variants"][0]["defines"] = {"TILE": 32, "WARPS": "sm_count // 66"}
    spec = load(MeasureSpec, data)
    options = nvcc.module_options(spec, NOMINAL_DEVICE)
    assert options["copy[regs=32]"] == ("-DTILE=32", "-DWARPS=2", "-maxrregcount=32")
    assert options["plain"] == ()
    assert len(set(options.values())) == 3
    data["variants"][0]["sweep"] = {"regs": [8]}
    refused(data, "variants[0].maxrregcount", "16 to 255")
    data["variants"][0]["sweep"] = {"regs": [32]}
    data["variants"][0]["defines"] = {"TILE": "n"}
    refused(data, "variants[0].defines.TILE", "unknown name")


def test_the_variant_options_follow_the_spec_flags_in_the_nvcc_command(tmp_path):
    spec = spec_of()
    cmd = sandbox_nvcc.command("nvcc", [*spec.nvcc_flags, "-DTILE=32"], "sm_90", "k.cu")
    assert cmd[2:2 + len(spec.nvcc_flags) + 1] == [*spec.nvcc_flags, "-DTILE=32"]


# -- per-element figures as expressions ----------------------------------------------------------


def test_bytes_and_flops_per_element_may_be_expressions_over_the_size():
    data = spec_data(sizes=[{"n": 64}], headline={"n": 64})
    data["variants"][1]["bytes_per_elem"] = "(2 * n + 4) / n"
    data["variants"][1]["flops_per_elem"] = "2 * n"
    spec = load(MeasureSpec, data)
    plain = spec.measured("plain")[0]
    assert plain.per_elem("bytes_per_elem", {"n": 64}) == pytest.approx(132 / 64)
    assert plain.per_elem("flops_per_elem", {"n": 64}) == 128.0
    assert spec.measured("copy")[0].per_elem("bytes_per_elem", {"n": 64}) == 8.0
    data["variants"][1]["bytes_per_elem"] = "1 - n"
    refused(data, "variants[1].bytes_per_elem", "at least 0")


# -- scalars ---------------------------------------------------------------------------------------


def test_scalars_are_typed_by_how_they_are_written():
    spec = spec_of(scalars={"scale": 2.5, "reps": 4, "big": {"value": 5, "type": "int64"},
                            "wide": {"value": 0.1, "type": "float64"}})
    assert spec.scalar("scale") == ("float32", 2.5)
    assert spec.scalar("reps") == ("int32", 4)
    assert spec.scalar("big") == ("int64", 5)
    assert spec.scalar("wide") == ("float64", 0.1)
    refused(spec_data(scalars={"reps": {"value": 1.5, "type": "int32"}}), "scalars.reps.value", "whole number")
    refused(spec_data(scalars={"reps": {"value": 2**40, "type": "int32"}}), "scalars.reps.value", "does not fit")
    refused(spec_data(scalars={"reps": "four"}), "scalars.reps", "expected an integer, a number or a mapping")


def test_a_scalar_of_the_wrong_type_for_the_kernel_is_named():
    source = 'extern "C" __global__ void copy(const float* __restrict__ x, float* y, int reps, long long n) {}'
    data = spec_data(scalars={"reps": 4.0})
    data["variants"] = [data["variants"][1]]
    data["variants"][0]["launches"][0]["args"] = ["x", "y", "reps", "n"]
    problems = signature_problems(load(MeasureSpec, data), {"k.cu": source})
    assert problems and problems[0][0] == "measure.variants[0].launches[0].args[2]"
    assert "scalar reps is passed as float32" in problems[0][1] and "write it as an integer (4)" in problems[0][1]
    data["scalars"] = {"reps": 4}
    assert signature_problems(load(MeasureSpec, data), {"k.cu": source}) == []


def test_signatures_name_a_buffer_of_another_type_and_an_index_of_another_width():
    source = """
    // a comment with __global__ void nothing(
    #include <cuda_fp16.h>
    extern "C" __global__ void __launch_bounds__(256) copy(const __half* x, float* y, int n) {}
    template <int N> __global__ void templated(float* x) {}
    """
    sigs = kernel_signatures(source)
    assert set(sigs) == {"copy"}
    assert [(p.pointer, p.dtype) for p in sigs["copy"]] == [(True, "float16"), (True, "float32"), (False, "int32")]
    data = spec_data()
    data["variants"] = [data["variants"][1]]
    problems = dict(signature_problems(load(MeasureSpec, data), {"k.cu": source}))
    assert "buffer x holds float32" in problems["measure.variants[0].launches[0].args[0]"]
    assert "set index_type: int32" in problems["measure.variants[0].launches[0].args[2]"]
    data["variants"][0]["launches"][0]["args"] = ["x", "y"]
    assert "declares 3 parameter(s)" in signature_problems(load(MeasureSpec, data), {"k.cu": source})[0][1]


# -- data types --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8"])
def test_narrow_types_fill_seeded_and_poison_with_a_value_the_fill_never_draws(dtype):
    values = fill_input(7, 1, 5000, dtype, "normal")
    assert values.dtype == np.dtype(NP_DTYPES[dtype]) and np.count_nonzero(values) > 4000
    assert np.array_equal(values, fill_input(7, 1, 5000, dtype, "normal"))
    width, pattern = POISON[dtype]
    poisoned = np.frombuffer(pattern.to_bytes(width, "little"), dtype=NP_DTYPES[dtype])[0]
    wide = values.astype(np.float64)
    if dtype == "int8":
        assert wide.min() >= -127 and poisoned == -128
    else:
        assert np.isnan(float(poisoned)) and np.isfinite(wide).all()


def test_narrow_types_take_tolerances_of_their_own():
    spec = spec_of(buffers={"x": {"role": "input", "dtype": "float16"}, "y": {"role": "output", "dtype": "bfloat16"},
                            "z": {"role": "output", "dtype": "int8"},
                            "w": {"role": "output", "dtype": "float16", "rtol": 0.01, "atol": 0.02},
                            "v": {"role": "output"}})
    assert spec.tolerance("y") == (8e-3, 8e-3)
    assert spec.tolerance("z") == (0.0, 0.0)
    assert spec.tolerance("w") == (0.01, 0.02)
    assert spec.tolerance("v") == (spec.rtol, spec.atol)
    refused(spec_data(buffers={"x": {"role": "input", "rtol": 0.1}, "y": {"role": "output"}}), "buffers.x.rtol",
            "only an output")


# -- metrics and claims ----------------------------------------------------------------------------


def metric(**over):
    out = {"name": "conflicts", "metric": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "label": "bank conflicts per shared load", "unit": "conflicts", "per": "request",
           "request": "smsp__inst_executed_op_shared_ld.sum", "predict": {"copy": 31, "plain": 0}}
    out.update(over)
    return out


def test_declared_metrics_and_their_claims():
    spec = spec_of(metrics=[metric()], claims=[
        {"kind": "metric_matches", "metric": "conflicts", "variant": "plain", "tolerance": 0.1},
        {"kind": "metric_bound", "metric": "registers", "variant": "copy", "at_most": 32},
        {"kind": "time_ratio", "num": "copy", "den": "plain", "at_least": 1.2, "archs": ["sm_90"]}])
    assert spec.predicted(spec.metrics[0], "copy") == {"copy[block=128]": 31, "copy[block=256]": 31,
                                                       "copy[block=512]": 31}
    assert counters.metric_names(spec) == ("dram__bytes_read.sum", "dram__bytes_write.sum",
                                           spec.metrics[0].metric, spec.metrics[0].request)
    scoped = spec.claims[2]
    assert scoped.applies_to("NVIDIA H200", "sm_90") is None
    assert "sm_90 only" in scoped.applies_to("Tesla T4", "sm_75")


def test_metric_and_claim_mistakes_are_named():
    refused(spec_data(metrics=[metric(per="total")]), "metrics[0].request", "per: request")
    refused(spec_data(metrics=[metric(metric="not a metric")]), "metrics[0].metric", "ncu metric name")
    refused(spec_data(metrics=[metric(predict={"nope": 1})]), "metrics[0].predict.nope", "variant name")
    refused(spec_data(metrics=[metric(name="registers")]), "metrics[0].name", "kernel attribute")
    refused(spec_data(claims=[{"kind": "time_ratio", "num": "copy", "den": "plain"}]), "claims[0].at_least",
            "needs at_least or at_most")
    refused(spec_data(claims=[{"kind": "metric_bound", "metric": "nope", "variant": "copy", "at_least": 1}]),
            "claims[0].metric", "declared metric or a kernel attribute")
    refused(spec_data(claims=[{"kind": "metric_matches", "metric": "registers", "variant": "copy"}]),
            "claims[0].metric", "prediction")
    refused(spec_data(claims=[{"kind": "fraction_of_floor", "variant": "copy", "archs": ["hopper"]}]),
            "claims[0].archs[0]", "sm_90")


def test_a_metric_is_combined_over_launches_as_its_spec_says():
    spec = spec_of(metrics=[metric(name="m", metric="x__m.sum", request="y__r.sum", predict=None)])
    base = spec.metrics[0]
    launches = [({"kernel": k, "values": {base.metric: v, base.request: r}}, n)
                for (k, v, r, n) in (("a", 10.0, 2.0, 1), ("b", 30.0, 3.0, 2))]
    combined = {per: counters.combine_metric(dataclasses.replace(base, per=per, request=base.request if per == "request"
                                                                  else None), launches, 35)["value"]
                for per in ("element", "launch", "request", "total", "average")}
    assert combined == {"element": 70 / 35, "launch": 70 / 3, "request": 70 / 8, "total": 70, "average": 70 / 3}


def test_an_unknown_metric_is_named_with_the_closest_known():
    spec = spec_of(metrics=[metric(metric="l1tex__data_bank_conflict_pipe_lsu_mem_shared_op_ld.sum")])
    known = frozenset({"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", "smsp__inst_executed_op_shared_ld",
                       "dram__bytes_read"})
    problems = counters.unknown_metrics(spec, known)
    assert len(problems) == 1 and "measure.metrics[0].metric" in problems[0]
    assert "close: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld" in problems[0]


def test_metric_values_of_any_unit_parse_and_byte_units_still_scale():
    assert counters.parse_value("87.5", "%", "sm__warps_active.avg.pct_of_peak_sustained_active") == 87.5
    assert counters.parse_value("1,024", "inst", "smsp__inst_executed.sum") == 1024.0
    assert counters.parse_value("2", "Kbyte", "lts__t_bytes.sum") == 2000.0
    with pytest.raises(counters.CounterError):
        counters.parse_value("2", "furlong", "dram__bytes_read.sum")


# -- occupancy ---------------------------------------------------------------------------------------

H100 = dict(NOMINAL_DEVICE, reserved_smem_per_block=1024)


@pytest.mark.parametrize("threads,regs,shared,blocks,limit", [
    (256, 32, 0, 8, "warps"),          # 8 warps a block, 64 warps an SM
    (1024, 32, 0, 2, "warps"),
    (32, 16, 0, 32, "blocks"),          # one warp a block: the 32-block limit
    (256, 128, 0, 2, "registers"),      # 128 x 32 = 4096 per warp: 4 warps per quarter, 16 an SM
    (256, 255, 0, 1, "registers"),      # 8192 per warp: 2 per quarter, 8 an SM
    (256, 32, 48 * 1024, 4, "shared"),  # (48 KiB + 1 KiB) x 4 fits 228 KiB, x 5 does not
    (128, 32, 100 * 1024, 2, "shared"),
])
def test_occupancy_formula(threads, regs, shared, blocks, limit):
    fit = occupancy.residency(threads, regs, 0, shared, H100)
    assert (fit.blocks_per_sm, fit.limit) == (blocks, limit)
    assert fit.warps_per_sm == blocks * (threads // 32)
    assert 0 < fit.occupancy <= 1


def test_typed_unions_keep_integers_and_name_every_branch():
    from dataclasses import dataclass
    from measure.typed import doc, json_schema

    @dataclass(frozen=True)
    class Thing:
        value: int | str = doc("an integer or an expression")

    assert load(Thing, {"value": 4}).value == 4 and load(Thing, {"value": "n"}).value == "n"
    with pytest.raises(SchemaError, match="expected an integer or text"):
        load(Thing, {"value": 2.5})
    assert json_schema(Thing)["properties"]["value"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]


def test_an_exact_comparison_uses_no_tolerance_and_never_divides_zero_by_zero():
    import warnings

    from measure.harness.check import check_elements
    got = np.array([0, 3, -4, 0], dtype=np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = check_elements(got, got.astype(np.float64), 0.0, 0.0)
    assert result["ok"] and result["max_tolerance_used"] == 0.0 and result["max_abs_err"] == 0.0
    assert not check_elements(got, got.astype(np.float64) + [0, 0, 1, 0], 0.0, 0.0)["ok"]


def test_the_designs_open_questions_are_answered_at_load_time():
    assert spec_of(rtol="1e-3").rtol == 1e-3  # YAML 1.1 reads 1e-3 as text; a float field takes it
    data = spec_data()
    data["variants"][0]["launches"][0]["shared"] = "i * 4"
    refused(data, "variants[0].launches[0].shared", "unknown name")
    refused(spec_data(scalars={"big": 2**31}), "scalars.big", "type: int64")
    data = spec_data(nvcc_flags=["-O3", "-DTILE=32"])
    data["variants"][0]["defines"] = {"TILE": 16}
    refused(data, "variants[0].defines", "define it in one place")
    data = spec_data(nvcc_flags=["-O3", "-maxrregcount=32"])
    data["variants"][0]["maxrregcount"] = 64
    refused(data, "variants[0].maxrregcount", "one place")
    data = spec_data(claims=[{"kind": "time_ratio", "num": "copy", "den": "other", "at_least": 1}])
    data["variants"][1]["sweep"] = {"items": [1, 2]}
    data["variants"][1]["name"] = "other"
    refused(data, "claims[0]", "swept over different names")


def test_launch_attributes_from_the_function_and_a_grid_that_leaves_sms_emptier():
    from types import SimpleNamespace

    from measure.harness.launches import Call, launch_attributes
    func = SimpleNamespace(num_regs=32, shared_size_bytes=0, local_size_bytes=8, max_threads_per_block=1024)
    full = Call("k", func, (132 * 64, 1, 1), (256, 1, 1), (), 0)
    small = Call("k", func, (132, 1, 1), (256, 1, 1), (), 0)
    rec_full, rec_small = launch_attributes([full, full, small], H100)  # a repeated launch is recorded once
    assert (rec_full["resident_blocks_per_sm"], rec_full["occupancy_limit"], rec_full["theoretical_occupancy"]) == \
        (8, "warps", 1.0)
    assert (rec_small["resident_blocks_per_sm"], rec_small["limit_blocks_per_sm"], rec_small["occupancy_limit"]) == \
        (1, 8, "grid")
    assert rec_small["theoretical_occupancy"] == 8 / 64 and rec_small["local_bytes"] == 8
    driver = launch_attributes([full], H100, driver_blocks=lambda call: 7)[0]
    assert (driver["resident_blocks_per_sm"], driver["formula_blocks_per_sm"], driver["occupancy_source"]) == \
        (7, 8, "driver")


# -- host-side steps (issue 19) ------------------------------------------------------------------


def host_data(**variant_over):
    data = spec_data(buffers={"h_x": {"role": "input", "location": "pinned"}, "x": {"role": "scratch"},
                              "p_y": {"role": "output", "location": "pageable"}, "y": {"role": "scratch"}},
                     timing={"blocking": False})
    variant = {"name": "copy", "label": "in and out", "bytes_per_elem": 8,
               "launches": [{"copy": "h_x", "to": "x", "id": "load"},
                            {"kernel": "copy", "grid": ["ceil(n / 256)"], "block": [256], "args": ["x", "y", "n"],
                             "stream": "s1", "after": ["load"]},
                            {"copy": "y", "to": "p_y", "count": "n", "stream": "s{i % 2}"}]}
    variant.update(variant_over)
    data["variants"] = [variant]
    return data


def test_copy_steps_streams_and_graphs_load_and_are_checked():
    from measure.spec.steps import copy_direction, stream_name
    spec = load(MeasureSpec, host_data())
    steps = spec.variants[0].launches
    assert [copy_direction(spec, s) for s in (steps[0], steps[2])] == ["h2d", "d2h"]
    assert [stream_name(steps[2], i) for i in range(3)] == ["s0", "s1", "s0"]
    from measure.spec import working_set_bytes
    assert working_set_bytes(spec, {"n": 1 << 20}) == 8 << 20  # host buffers are not in the working set
    data = host_data()
    data["variants"][0]["launches"][1]["args"] = ["h_x", "y", "n"]
    refused(data, "launches[1].args[0]", "host buffer")
    data = host_data()
    data["variants"][0]["launches"][1]["after"] = ["nope"]
    refused(data, "launches[1].after", "earlier step")
    refused(host_data(graph=True), "variants[0].graph", "pageable")
    data = host_data()
    data["variants"][0]["launches"][0] = {"copy": "h_x", "to": "p_y"}
    refused(data, "launches[0].to", "host to host")
    data = host_data()
    data["variants"][0]["launches"][0] = {"copy": "h_x", "to": "x", "kernel": "copy"}
    refused(data, "launches[0].kernel", "not both")
    data = host_data()
    data["variants"][0]["launches"][2]["stream"] = "s{i % 9}"
    data["variants"][0]["launches"][2]["repeat"] = 9
    refused(data, "variants[0]", "at most 8")


def test_host_claims_name_variants_that_can_have_them():
    data = host_data()
    data["claims"] = [{"kind": "fraction_of_link", "variant": "copy"}]
    refused(data, "claims[0].variant", "one way")
    data["variants"][0]["launches"] = [{"copy": "x", "to": "p_y"}]
    data["claims"] = [{"kind": "fraction_of_link", "variant": "copy", "at_least": 0.8},
                      {"kind": "overlap", "variant": "copy", "at_least": 0.2}]
    refused(data, "claims[1].variant", "several streams")
    data["claims"] = data["claims"][:1]
    assert load(MeasureSpec, data).claims[0].lower == 0.8


def test_a_pageable_copy_behind_the_blocking_kernel_and_a_variant_writing_nothing_are_refused():
    data = host_data()
    data["timing"] = {"blocking": True}
    refused(data, "timing.blocking", "pageable")
    data = host_data()
    data["timing"] = {"blocking": False}
    data["variants"][0]["launches"] = data["variants"][0]["launches"][:2]
    refused(data, "variants[0]", "writes none of the outputs")


def test_a_key_written_at_its_default_leaves_the_fingerprint_as_it_was():
    from measure.results.identity import canonical, measurement_fingerprint
    plain = spec_of()
    data = spec_data()
    data["variants"][1]["graph"] = False
    data["variants"][1]["launches"][0]["stream"] = "main"
    data["buffers"]["x"]["location"] = "device"
    spelled = load(MeasureSpec, data)
    assert measurement_fingerprint(plain, {}) == measurement_fingerprint(spelled, {})
    assert "location" not in canonical(plain)["buffers"]["x"] and "graph" not in canonical(plain)["variants"][1]
    data["variants"][1]["graph"] = True
    assert measurement_fingerprint(load(MeasureSpec, data), {}) != measurement_fingerprint(plain, {})
