"""Issue 33 on the CPU: untimed setup fills, buffer sizes over sweep names, claims on the compiled
code (SASS, parsed from literal cuobjdump text), metric_matches' tolerance, the authoring fixes, and
that no committed result goes stale because the spec gained keys."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from glossary.cli import cli
from glossary.entries.model import load_entries, measurement_fingerprint
from glossary.figures import bind
from glossary.verdicts import claims as verdicts
from glossary.verdicts.claim_kinds import allowed_off
from glossary.verdicts.sass_claims import describe_sass, judge_sass
from measure import sass, store
from measure.harness.sampling import sample_region
from measure.harness.session import GpuSession
from measure.results import identity
from measure.results.model import SassRecord
from measure.spec import MeasureSpec, buffer_bytes
from measure.spec.claims import Claim
from measure.spec.setup import fill_pattern
from measure.spec.signatures import kernel_signatures, signature_problems
from measure.spec.sizes import buffer_count, variant_counts
from measure.typed import SchemaError, load

import real_glossary

ROOT = Path(__file__).resolve().parent.parent


def spec_data(**over):
    """A one-output-per-block reduction swept over the block size, and an atomic variant beside it."""
    data = {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"x": {"role": "input"}, "partial": {"role": "output", "size": "ceil(n / block)"},
                    "total": {"role": "output", "size": "1"}},
        "sizes": [{"n": 1 << 20}, {"n": 1 << 24}], "headline": {"n": 1 << 24},
        "variants": [
            {"name": "tree", "label": "one sum per block", "bytes_per_elem": 4, "sweep": {"block": [128, 256, 512]},
             "launches": [{"kernel": "tree", "grid": ["ceil(n / block)"], "block": ["block"],
                           "args": ["x", "partial", "n"]}]},
            {"name": "atomic", "label": "one atomic per block", "bytes_per_elem": 4,
             "setup": [{"fill": "total", "value": 0}],
             "launches": [{"kernel": "atomic", "grid": ["ceil(n / 256)"], "block": [256], "args": ["x", "total", "n"]}]},
        ],
    }
    data.update(over)
    return data


def spec_of(data=None) -> MeasureSpec:
    return load(MeasureSpec, data or spec_data(), key="measure")


def refused(data, key_part: str, words: str):
    with pytest.raises(SchemaError) as err:
        load(MeasureSpec, data, key="measure")
    assert key_part in err.value.key, err.value
    assert words in str(err.value), err.value


def variant(data, name):
    return next(v for v in data["variants"] if v["name"] == name)


# -- setup fills ------------------------------------------------------------------------------------


def test_setup_fills_load_and_their_mistakes_are_named():
    spec = spec_of()
    assert spec.variant("atomic").setup[0].fill == "total"
    for fill, key, words in [({"fill": "x"}, "setup[0].fill", "is an input"),
                             ({"fill": "nothing"}, "setup[0].fill", "expected a buffer"),
                             ({"fill": "partial"}, "setup[0].fill", "none of atomic's steps uses partial"),
                             ({"fill": "total", "value": 0.5, "colour": 1}, "setup[0].colour", "unknown key")]:
        data = spec_data()
        variant(data, "atomic")["setup"] = [fill]
        refused(data, key, words)
    data = spec_data()
    variant(data, "atomic")["setup"] = [{"fill": "total"}, {"fill": "total", "value": 1}]
    refused(data, "setup[1].fill", "filled twice")
    data = spec_data()
    data["buffers"]["total"]["dtype"] = "int8"
    variant(data, "atomic")["setup"] = [{"fill": "total", "value": 300}]
    refused(data, "setup[0].value", "-128 to 127")
    data = spec_data()
    data["buffers"]["total"]["dtype"] = "float64"
    variant(data, "atomic")["setup"] = [{"fill": "total", "value": 1.5}]
    refused(data, "setup[0].value", "32-bit memset")
    data = spec_data(timing={"blocking": False})
    data["buffers"]["host_total"] = {"role": "output", "size": "1", "location": "pinned"}
    variant(data, "atomic")["launches"].append({"copy": "total", "to": "host_total"})
    variant(data, "atomic")["setup"] = [{"fill": "host_total"}]
    refused(data, "setup[0].fill", "host buffer")


@pytest.mark.parametrize("dtype, value, width, pattern", [
    ("float32", 0.0, 4, 0), ("float32", 1.0, 4, 0x3F800000), ("float32", float("-inf"), 4, 0xFF800000),
    ("int32", -1, 4, 0xFFFFFFFF), ("int8", -128, 1, 0x80), ("float16", 1.0, 2, 0x3C00),
    ("bfloat16", 1.0, 2, 0x3F80), ("bfloat16", -2.0, 2, 0xC000), ("float64", 0.0, 4, 0)])
def test_a_fill_is_the_memset_of_the_value_in_the_buffers_type(dtype, value, width, pattern):
    assert fill_pattern(dtype, value) == (width, pattern)


class _Recorder:
    """Stands in for the session's stream, kernels and events: each call is logged in order."""

    def __init__(self, log, name):
        self.log, self.name = log, name

    def __getattr__(self, attr):
        return lambda *a, **k: self.log.append(f"{self.name}.{attr}")


def test_a_fill_is_enqueued_before_the_flush_the_blocking_kernel_and_the_start_event():
    log: list[str] = []
    gpu = object.__new__(GpuSession)
    gpu.stream = _Recorder(log, "stream")
    gpu.start, gpu.stop = _Recorder(log, "start"), _Recorder(log, "stop")
    gpu.block_kernel = _Recorder(log, "block")
    gpu.flag = [0, 0]
    gpu.flag_ptr = 0
    gpu.flush_l2 = lambda: log.append("flush")
    gpu.stop.time_since = lambda start: 1.0
    fills = _Recorder(log, "fills")
    gpu.sample(lambda: log.append("region"), "device", True, True, setup=fills)
    assert log[:5] == ["fills.enqueue", "flush", "block.prepared_async_call", "start.record", "region"]
    log.clear()
    gpu.sample(lambda: log.append("region"), "host", False, False, setup=fills)
    assert log.index("fills.enqueue") < log.index("stream.synchronize") < log.index("region")


def test_clock_both_fills_before_each_of_its_two_samples():
    seen = []

    class Gpu:
        def sample(self, enqueue, clock, blocking, l2_flush, setup=None):
            seen.append((clock, setup))
            return 1.0

    timing = dataclasses.replace(MeasureSpec.__dataclass_fields__["timing"].default_factory(), clock="both",
                                 blocking=False)
    assert sample_region(Gpu(), lambda: None, timing, "fills") == (1.0, 1.0)
    assert seen == [("device", "fills"), ("host", "fills")]


# -- buffer sizes over sweep names ------------------------------------------------------------------


def test_a_buffer_sized_by_the_sweep_is_allocated_at_its_largest_point_and_read_at_each():
    spec = spec_of()
    n = 1 << 20
    assert buffer_count(spec, "partial", {"n": n}) == n // 128
    tree = spec.measured("tree")
    assert [variant_counts(spec, v, {"n": n})["partial"] for v in tree] == [n // 128, n // 256, n // 512]
    assert "partial" not in variant_counts(spec, spec.measured("atomic")[0], {"n": n})
    assert buffer_bytes(spec, {"n": n})["partial"] == 4 * n // 128


def test_a_buffer_sized_by_the_sweep_must_be_sized_by_every_variant_that_uses_it():
    data = spec_data()
    variant(data, "atomic")["launches"][0]["args"] = ["x", "partial", "n"]
    variant(data, "atomic")["setup"] = []
    refused(data, "buffers.partial.size", "which variant atomic (it uses partial) does not sweep")
    data = spec_data()
    data["buffers"]["x"]["size"] = "n * block"
    refused(data, "buffers.x.size", "an input's size stays over the size parameters")
    refused(spec_data(reference_elementwise=True), "buffers.partial.size", "elementwise reference")
    data = spec_data()
    data["buffers"]["partial"]["size"] = "n / warps"
    refused(data, "buffers.partial.size", "unknown name(s) warps")
    data = spec_data()
    data["buffers"]["partial"]["size"] = "block - 256"  # 0 and below at the smaller blocks
    refused(data, "buffers.partial.size", "block: 128")


def test_new_keys_at_their_defaults_leave_the_fingerprint_as_it_was():
    base = spec_data()
    for v in base["variants"]:
        v.pop("setup", None)
    plain = identity.canonical(spec_of(base))
    written = json.loads(json.dumps(base))
    variant(written, "atomic")["setup"] = []
    written["claims"] = []
    assert identity.canonical(spec_of(written)) == plain
    assert "setup" not in json.dumps(plain)


def test_every_committed_result_is_still_current():
    """No committed result goes stale because the schema gained keys."""
    from test_staleness import AWAITING_REMEASURE  # stale for a change of what they measure, each explained there

    entries = real_glossary.entries()
    checked = 0
    for slug, entry in entries.items():
        if slug in AWAITING_REMEASURE:
            continue
        for key, result in store.load_results(entry.folder).items():
            if result.status == "ok" and result.provenance == "measured":
                assert result.fingerprint == measurement_fingerprint(entry), f"{slug}/results/{key}.json"
                checked += 1
    assert checked


# -- claims on the compiled code --------------------------------------------------------------------

SASS_TEXT = """
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

	code for sm_90
		Function : copy_async
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                            /* 0x00000a00ff017b82 */
                                                                                     /* 0x000fe40000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                                /* 0x0000000000007919 */
        /*0020*/              @!P0 BRA 0x90 ;                                        /* 0x0000000000008947 */
        /*0030*/                   LDGSTS.E.BYPASS.LTC128B.128 [R5], desc[UR4][R2.64] ;
        /*0040*/                   LDGSTS.E.BYPASS.LTC128B.128 [R5+0x800], desc[UR4][R2.64+0x800] ;
        /*0050*/                   LDGDEPBAR ;
        /*0060*/                   DEPBAR.LE SB0, 0x0 ;
        /*0070*/               @P1 STG.E.128 desc[UR4][R6.64], R8 ;
        /*0080*/                   EXIT ;
        /*0090*/                   BRA 0x90;
		..........


		Function : copy_plain
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;
        /*0010*/                   STG.E.128 desc[UR4][R6.64], R4 ;
        /*0020*/                   EXIT ;
		..........
"""


def test_the_disassembly_is_read_into_opcode_counts_per_kernel():
    counts = sass.parse_sass(SASS_TEXT)
    assert set(counts) == {"copy_async", "copy_plain"}
    assert counts["copy_async"]["LDGSTS.E.BYPASS.LTC128B.128"] == 2
    assert counts["copy_async"]["BRA"] == 2 and counts["copy_async"]["STG.E.128"] == 1
    assert counts["copy_plain"] == {"LDG.E.128.CONSTANT": 1, "STG.E.128": 1, "EXIT": 1}
    assert sass.matches("LDG.E.128", "LDG.E.128.CONSTANT") and sass.matches("LDG", "LDG.E.128.CONSTANT")
    assert not sass.matches("LDG.E.64", "LDG.E.128.CONSTANT") and not sass.matches("LDGSTS", "LDG.E")
    assert sass.count("LDGSTS", counts["copy_async"]) == 2
    with pytest.raises(sass.SassError):
        sass.parse_sass("x" * (sass.MAX_TEXT_BYTES + 1))


def test_hostile_disassembly_is_bounded():
    many = "\n".join(f"\t\tFunction : f{i}" for i in range(sass.MAX_FUNCTIONS + 1))
    with pytest.raises(sass.SassError, match="functions"):
        sass.parse_sass(many)
    wide = "\t\tFunction : f\n" + "\n".join(f"/*{i:04x}*/ OP{i} R1 ;" for i in range(sass.MAX_MNEMONICS + 1))
    with pytest.raises(sass.SassError, match="distinct"):
        sass.parse_sass(wide)


def sass_claim(**over) -> Claim:
    return load(Claim, {"kind": "sass", "variant": "async", **over}, key="claims[0]")


def record(**over) -> SassRecord:
    counts = sass.parse_sass(SASS_TEXT)
    data = {"tool": "V13.0.88", "arch": "sm_90",
            "variants": {"async": {"copy_async": counts["copy_async"]}, "plain": {"copy_plain": counts["copy_plain"]}}}
    data.update(over)
    return load(SassRecord, {k: v for k, v in data.items() if v is not None})


def test_sass_claims_hold_fail_and_show_the_counts():
    status, numbers = judge_sass(sass_claim(has="LDGSTS", lacks=["LDG.E.128"], count={"STG.E.128": ">= 1"}), record())
    assert status == "holds" and "LDGSTS 2" in numbers and "LDG.E.128 0" in numbers and "copy_async" in numbers
    status, numbers = judge_sass(sass_claim(variant="plain", has="LDGSTS"), record())
    assert status == "fails" and "LDGSTS 0" in numbers
    assert judge_sass(sass_claim(count={"LDGSTS": 2}), record())[0] == "holds"
    assert judge_sass(sass_claim(count={"LDGSTS": "< 2"}), record())[0] == "fails"
    assert describe_sass(sass_claim(has="LDGSTS", count={"HMMA": "== 0"}), "async") == \
        "the compiled code of async has LDGSTS and exactly 0 HMMA"


def test_a_sass_claim_without_a_disassembly_is_not_checked_never_held():
    for rec, words in [(None, "holds no disassembly"),
                       (record(variants=None, unavailable="cuobjdump was not found on the node"), "cuobjdump")]:
        status, numbers = judge_sass(sass_claim(has="LDGSTS"), rec)
        assert status == "n/a" and numbers.startswith("not checked") and words in numbers


def test_sass_claim_mistakes_are_named():
    for over, key, words in [({}, "has", "needs has, lacks or count"),
                             ({"has": "ldgsts"}, "has", "SASS opcode"),
                             ({"count": {"HMMA": "at least one"}}, "count.HMMA", "expected a count"),
                             ({"has": "HMMA", "lacks": "HMMA"}, "lacks", "both in has and in lacks")]:
        with pytest.raises(SchemaError) as err:
            sass_claim(**over)
        assert key in err.value.key and words in str(err.value), err.value
    with pytest.raises(SchemaError, match="only a sass claim takes has"):
        load(Claim, {"kind": "fraction_of_floor", "variant": "a", "has": "LDG"})
    data = spec_data(claims=[{"kind": "sass", "variant": "atomic", "kernel": "tree", "has": "RED"}])
    refused(data, "claims[0].kernel", "expected a kernel atomic launches (atomic)")


def test_a_sass_claim_is_judged_once_per_device_on_the_page_model():
    spec = spec_of(spec_data(claims=[{"kind": "sass", "variant": "tree", "point": {"block": 256}, "has": "SHFL"}]))

    class Device:
        gpu, key, sizes = "NVIDIA H200", "nvidia-h200", ()
        environment = type("E", (), {"arch": "sm_90"})()
        sass = load(SassRecord, {"tool": "V13.0", "arch": "sm_90",
                                 "variants": {"tree[block=256]": {"tree": {"SHFL.BFLY": 5, "EXIT": 1}}}})

    (verdict,) = verdicts.evaluate(spec, Device())
    assert verdict.status == "holds" and verdict.elements == 0 and "SHFL 5" in verdict.numbers


# -- metric_matches ---------------------------------------------------------------------------------


def test_metric_matches_is_relative_under_1_too_with_an_absolute_tolerance_on_request():
    claim = Claim(kind="metric_matches", variant="a", metric="m", tolerance=0.1)
    assert allowed_off(claim, 0.25) == pytest.approx(0.025)  # was 0.1: 40% of the prediction
    assert allowed_off(claim, 31.0) == pytest.approx(3.1)
    assert allowed_off(claim, 0.0) == 0.1  # no relative tolerance at 0: tolerance is read as absolute
    stated = Claim(kind="metric_matches", variant="a", metric="m", tolerance=0.1, absolute=0.05)
    assert allowed_off(stated, 0.0) == 0.05 and allowed_off(stated, 0.25) == 0.05 and allowed_off(stated, 10) == 1.0
    with pytest.raises(SchemaError, match="only a metric_matches claim takes an absolute"):
        Claim(kind="time_ratio", num="a", den="b", at_least=1, absolute=0.1).validate()


# -- the authoring fixes ----------------------------------------------------------------------------


def test_grid_takes_integers_as_block_does():
    data = spec_data()
    variant(data, "atomic")["launches"][0]["grid"] = [1]
    spec = spec_of(data)
    assert spec.variant("atomic").launches[0].grid == (1,)
    variant(data, "atomic")["launches"][0]["grid"] = [0]
    refused(data, "grid", "positive")


def test_a_claim_naming_a_sweep_point_that_does_not_exist_says_so():
    refused(spec_data(claims=[{"kind": "time_ratio", "num": "tree[block=1024]", "den": "atomic", "at_most": 1}]),
            "claims[0].num", "tree's sweep has no point [block=1024]; its points are tree[block=128]")
    refused(spec_data(claims=[{"kind": "fraction_of_floor", "variant": "atomic[block=64]"}]),
            "claims[0].variant", "atomic has no sweep")
    refused(spec_data(claims=[{"kind": "fraction_of_floor", "variant": "tree", "point": {"block": 64}}]),
            "claims[0].point", "the sweeps have block: 128, 256, 512")


def test_vector_pointer_types_are_judged():
    source = ('extern "C" __global__ void tree(const float4* __restrict__ x, uint2* partial, long long n) {}\n'
              'extern "C" __global__ void atomic(const double2* x, float* total, long long n) {}')
    sigs = kernel_signatures(source)
    assert [p.dtype for p in sigs["tree"]] == ["float32", "int32", "int64"]
    problems = dict(signature_problems(spec_of(), {"k.cu": source}))
    assert "holds float32" in problems["measure.variants[0].launches[0].args[1]"]  # partial is float32, uint2 int32
    assert "holds float32" in problems["measure.variants[1].launches[0].args[0]"]  # x is float32, double2 float64
    assert [p.dtype for p in kernel_signatures("__global__ void k(short4* a, longlong2* b, float3* c) {}")["k"]] == \
        ["int16", "int64", "float32"]


def write_entry(folder: Path, front: str, body: str = "Text.\n", kernel: str | None = None) -> Path:
    page = folder / "t.md"
    page.write_text(f"---\ntitle: T\nsummary: S\n{front}---\n{body}")
    (folder / "t").mkdir(exist_ok=True)
    (folder / "t" / "k.cu").write_text(kernel or 'extern "C" __global__ void k(float* y, float s, long long n) {}\n')
    (folder / "t" / "reference.py").write_text("import numpy as np\n\ndef reference(variant, inputs, scalars, params):\n"
                                               "    return {'y': np.zeros(params['n'])}\n")
    return page


HEAD = """measure:
  sources: [k.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1024}]
  headline: {n: 1024}
"""
SPEC = HEAD + """  buffers: {y: {role: output}}
  scalars: {s: 2}
  variants:
    - {name: a, label: a, bytes_per_elem: 4, launches: [{kernel: k, grid: [1], block: [32], args: [y, s, n]}]}
"""


def test_drafts_ok_never_downgrades_a_spec_error(tmp_path):
    from glossary import checks

    entries = tmp_path / "entries"
    entries.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    write_entry(entries, SPEC)
    (report,), _ = checks.inspect(entries, run_code=False)
    spec_problems = [p for p in report.problems if p.check == "spec"]
    assert spec_problems and "scalar s is passed as int32" in spec_problems[0].message
    assert not spec_problems[0].refusal
    assert all(p.refusal for p in report.problems if p.check in ("gate", "results"))
    check = ["--entries", str(entries), "check", "--drafts-ok", "t"]
    assert CliRunner().invoke(cli, check).exit_code == 1
    (entries / "t.md").write_text((entries / "t.md").read_text().replace("scalars: {s: 2}", "scalars: {s: 2.0}"))
    (report,), _ = checks.inspect(entries, run_code=False)
    assert report.errors and all(p.refusal for p in report.errors), [p for p in report.errors if not p.refusal]
    result = CliRunner().invoke(cli, check)
    assert result.exit_code == 0, result.output


def test_a_figure_without_data_is_named_once_with_its_line_and_elements_come_from_the_spec(tmp_path):
    body = ('First {{ fig.gbps("a") }} and {{ fig.gbps("a") }}.\n\n'
            'Over {{ fig.elements() }} elements.\n\nThen {{ fig.ms("a") }}.\n')
    page = write_entry(tmp_path, SPEC.replace("{s: 2}", "{s: 2.0}"), body)
    entry = load_entries(tmp_path)["t"]
    spec = entry.meta.measure
    rendered, problems = bind.render_body(entry.body, (), {}, spec.variants, first_line=7, spec=spec)
    assert len(problems) == 3, problems  # each figure once; fig.elements() is the spec's
    assert problems[0] == "no device has recorded results"
    assert (problems[0].line, problems[0].figure) == (7, '{{ fig.gbps("a") }}') and problems[2].line == 11
    assert "1,024" in rendered
    from glossary.verdicts import assess

    judged = assess.assess(entry, {})
    figures = [f for f in judged.refusals if f.check == "figures"]
    first = page.read_text().splitlines().index('First {{ fig.gbps("a") }} and {{ fig.gbps("a") }}.') + 1
    assert figures[0].message.startswith(f"a bound figure has no data: ") and f"t.md:{first}:" in figures[0].message
    assert all(f.draft for f in figures)  # nothing measured yet: a draft's by design


def test_a_malformed_entrys_own_files_are_not_called_stray(tmp_path):
    from glossary import checks

    entries = tmp_path / "entries"
    entries.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: T\n")
    write_entry(entries, SPEC.replace("archs: [sm_90]", "archs: [sm_90]\n  colour: red"))
    (report,), general = checks.inspect(entries, run_code=False)
    assert report.entry is None and "colour" in report.problems[0].message
    assert not [p for p in general if "no entry's folder" in p.message], general
    (entries / "t.md").rename(entries / "u.md")
    _, general = checks.inspect(entries, run_code=False)
    assert [p for p in general if "no entry's folder" in p.message]


def test_the_page_shows_a_sass_claims_counts_where_the_claim_is(tmp_path):
    """kernel-fusion with a sass claim added and a disassembly in its H200 result: the claims table
    has the counts, with no size in front of them (the claim is one per device)."""
    import logging
    import shutil

    from glossary.build import GlossaryBuild
    from glossary.settings import Settings

    entries = tmp_path / "entries"
    shutil.copytree(ROOT / "entries", entries)
    page = entries / "kernel-fusion.md"
    page.write_text(page.read_text().replace("  claims:\n", "  claims:\n    - {kind: sass, variant: fused, has: FMUL, "
                                                         "lacks: LDGSTS}\n", 1))
    result_file = entries / "kernel-fusion" / "results" / "nvidia-h200.json"
    data = json.loads(result_file.read_text())
    data["sass"] = {"tool": "V13.0.88", "arch": "sm_90",
                    "variants": {"fused": {"chain_fused": {"FMUL": 3, "LDG.E": 2, "STG.E": 1, "EXIT": 1}}}}
    result_file.write_text(json.dumps(data))
    entry = load_entries(entries)["kernel-fusion"]
    assert measurement_fingerprint(entry) == data["fingerprint"]  # a claim never makes a result stale
    options = Settings.resolve(entries, ROOT, {}, serving=True, environ={})
    build = GlossaryBuild(settings=options, log=logging.getLogger("test"))
    build.load()
    text = build.render_page("kernel-fusion.md")
    rows = [line for line in text.splitlines() if "the compiled code of" in line]  # one a device's tab
    row = next((line for line in rows if "V13.0.88" in line), rows)  # the H200's, with the disassembly above
    assert "has FMUL and has no LDGSTS" in row and "| holds |" in row
    assert "| FMUL 3; LDGSTS 0 instructions in chain_fused (sm_90 cubin, V13.0.88) |" in row, row


@pytest.mark.skipif(__import__("measure.sandbox", fromlist=["problem"]).problem() is not None,
                    reason="no bubblewrap sandbox here")
def test_the_disassembler_runs_in_the_sandbox_and_its_output_is_bounded(tmp_path):
    """A stand-in cuobjdump (a script in a toolkit-shaped folder): what it prints for the cubin comes
    back through the sandbox's scratch folder; one that prints past the bound is refused."""
    from measure.sandbox.sass import DisassemblyFailed, disassemble

    tool = tmp_path / "cuda" / "bin" / "cuobjdump"
    tool.parent.mkdir(parents=True)
    tool.write_text('#!/bin/sh\n[ "$1" = -sass ] && [ -f "$2" ] || exit 3\ncat <<\'EOF\'\n' + SASS_TEXT + "EOF\n")
    tool.chmod(0o755)
    text = disassemble(b"\x7fELF not really", cuobjdump=str(tool))
    assert sass.parse_sass(text)["copy_async"]["LDGSTS.E.BYPASS.LTC128B.128"] == 2
    tool.write_text("#!/bin/sh\nhead -c 40000000 /dev/zero\n")
    with pytest.raises(DisassemblyFailed):
        disassemble(b"x", cuobjdump=str(tool))


@pytest.mark.skipif(__import__("measure.sandbox", fromlist=["problem"]).problem() is not None
                    or __import__("measure.harness.compile", fromlist=["find_nvcc"]).find_nvcc() is None,
                    reason="needs bubblewrap and nvcc")
def test_check_judges_sass_claims_where_cuobjdump_is_here(tmp_path, monkeypatch):
    """With a cuobjdump (a stand-in printing the literal SASS above), `glossary check` compiles the
    kernels in the sandbox, reads them, and names the sass claim that fails; without one, nothing."""
    from glossary.sass_trial import sass_findings

    kernel = ('extern "C" __global__ void copy_async(const float* x, float* y, long long n) { y[0] = x[0]; }\n'
              'extern "C" __global__ void copy_plain(const float* x, float* y, long long n) { y[0] = x[0]; }\n')
    front = HEAD + """  buffers: {x: {role: input}, y: {role: output}}
  variants:
    - {name: async, label: a, bytes_per_elem: 8, launches: [{kernel: copy_async, grid: [4], block: [256], args: [x, y, n]}]}
    - {name: plain, label: p, bytes_per_elem: 8, launches: [{kernel: copy_plain, grid: [4], block: [256], args: [x, y, n]}]}
  claims:
    - {kind: sass, variant: async, has: LDGSTS}
    - {kind: sass, variant: plain, has: LDGSTS}
    - {kind: sass, variant: plain, lacks: LDGSTS, archs: [sm_80]}
"""
    write_entry(tmp_path, front, kernel=kernel)
    entry = load_entries(tmp_path)["t"]
    monkeypatch.setattr("glossary.sass_trial.find_cuobjdump", lambda: None)
    assert sass_findings(entry) == []  # not checked here
    tool = tmp_path / "cuda" / "bin" / "cuobjdump"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\ncat <<'EOF'\n" + SASS_TEXT + "EOF\n")
    tool.chmod(0o755)
    monkeypatch.setattr("glossary.sass_trial.find_cuobjdump", lambda: str(tool))
    (finding,) = sass_findings(entry)
    assert finding[0] == "measure.claims[1]" and "fails for sm_90" in finding[1] and "LDGSTS 0" in finding[1]
