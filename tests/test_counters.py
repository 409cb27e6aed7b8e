"""measure.harness.counters: parsing ncu CSV and matching launches to variants, on the CPU."""

import json
from pathlib import Path

import pytest

from measure.harness import counters
from measure.spec import MeasureSpec
from measure.typed import load

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def row(i, kernel, metric, unit, value):
    return (f'"{i}","4242","python3.12","127.0.0.1","{kernel}","1","13","(256, 1, 1)","(65536, 1, 1)",'
            f'"0","9.0","Command line profiler metrics","{metric}","{unit}","{value}"')


R, W = "dram__bytes_read.sum", "dram__bytes_write.sum"
N = 16777216

# What ncu prints with --csv: its own ==PROF== lines, the program's output, then the table.
SAMPLE = "\n".join([
    "==PROF== Connected to process 4242 (/usr/bin/python3.12)",
    '==PROF== Profiling "scale_bias" - 0: 0%....50%....100% - 1 pass',
    "some program output, with, commas",
    "==PROF== Disconnected from process 4242",
    HEADER,
    row(0, "scale_bias", R, "byte", "67,118,336"),
    row(0, "scale_bias", W, "byte", "67,108,864"),
    row(1, "gelu", R, "Mbyte", "67.12"),
    row(1, "gelu", W, "Kbyte", "65,536.00"),
    row(2, "chain_fused", R, "Gbyte", "0.134"),
    row(2, "chain_fused", W, "byte", "67,108,864"),
    row(2, "chain_fused", "gpu__time_duration.sum", "usecond", "190.5"),
])


def test_parse_value_units_and_separators():
    assert counters.parse_value("67,118,336", "byte") == 67118336.0
    assert counters.parse_value("67.12", "Mbyte") == pytest.approx(67.12e6)
    assert counters.parse_value("1.5", "Kibyte") == 1536.0
    with pytest.raises(counters.CounterError, match="unknown ncu unit"):
        counters.parse_value("1", "furlong")
    with pytest.raises(counters.CounterError, match="not a number"):
        counters.parse_value("n/a", "byte")


def test_parse_csv_skips_prof_lines_and_other_metrics():
    rows = counters.parse_ncu_csv(SAMPLE)
    assert len(rows) == 6
    assert rows[0] == {"id": 0, "kernel": "scale_bias", "metric": R, "value": 67118336.0}
    assert rows[3]["value"] == pytest.approx(65536000.0)
    launches = counters.launch_bytes(rows)
    assert [l["kernel"] for l in launches] == ["scale_bias", "gelu", "chain_fused"]
    assert launches[2]["read_bytes"] == pytest.approx(134e6)


def test_parse_csv_without_table_is_an_error():
    with pytest.raises(counters.CounterError, match="no CSV table"):
        counters.parse_ncu_csv("==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM\n")


def test_variant_counters_sum_per_variant_and_scale_repeats():
    launches = counters.launch_bytes(counters.parse_ncu_csv(SAMPLE))
    manifest = [{"variant": "staged", "launch": 0, "kernel": "scale_bias", "repeat": 1},
                {"variant": "staged", "launch": 1, "kernel": "gelu", "repeat": 2},
                {"variant": "fused", "launch": 0, "kernel": "chain_fused", "repeat": 1}]
    out = counters.variant_counters(launches, manifest, N, "all")
    fused = out["fused"]
    assert fused["dram_bytes_per_elem"] == pytest.approx((134e6 + 67108864) / N)
    assert fused["cache_control"] == "all" and fused["clock_control"] == "none"
    staged = out["staged"]
    assert staged["read_bytes"] == pytest.approx(67118336 + 2 * 67.12e6)
    assert staged["per_kernel"][0]["bytes_per_elem"] == pytest.approx((67118336 + 67108864) / N)
    assert staged["per_kernel"][1]["repeat"] == 2


def test_variant_counters_refuses_mismatched_launches():
    launches = counters.launch_bytes(counters.parse_ncu_csv(SAMPLE))
    with pytest.raises(counters.CounterError, match="profiled 3 launches"):
        counters.variant_counters(launches, [], N, "all")
    wrong = [{"variant": "v", "launch": i, "kernel": "other", "repeat": 1} for i in range(3)]
    with pytest.raises(counters.CounterError, match="expected 'other'"):
        counters.variant_counters(launches, wrong, N, "all")


def test_ncu_command_names_clock_and_cache_control(tmp_path):
    cmd = counters.ncu_command("ncu", "all", ["gelu", "scale_bias", "gelu"], tmp_path / "log",
                               ["python3", "-m", "measure.harness.profile_main"])
    assert cmd[:5] == ["ncu", "--clock-control", "none", "--cache-control", "all"]
    assert "regex:^(gelu|scale_bias)$" in cmd
    assert cmd[-3:] == ["python3", "-m", "measure.harness.profile_main"]


def test_spec_round_trips_through_json():
    data = {"sources": ["k.cu"], "reference": "ref.py", "archs": ["sm_90"],
            "buffers": {"x": {"role": "input"}, "y": {"role": "output"}},
            "variants": [{"name": "v", "label": "V", "bytes_per_elem": 8,
                          "launches": [{"kernel": "k", "grid": ["ceil(n / 256)"], "block": [256],
                                        "args": ["x", "y", "n"]}]}],
            "sizes": [{"n": 1024}], "headline": {"n": 1024}}
    spec = load(MeasureSpec, data)
    assert load(MeasureSpec, json.loads(counters.spec_to_json(spec))) == spec


def test_kernel_fusion_spec_round_trips():
    import yaml
    text = (Path(__file__).resolve().parent.parent / "entries" / "kernel-fusion.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("\n---", 1)[0].removeprefix("---"))
    spec = load(MeasureSpec, front["measure"])
    assert load(MeasureSpec, json.loads(counters.spec_to_json(spec))) == spec
