"""The pure parts of bench/h200_peers/, with invented numbers (no pycuda, no torch, no GPU)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # bench/ is no installed package: import it from this checkout

from bench.h200_peers.cli import parse_args  # noqa: E402
from bench.h200_peers.floor import floor_record  # noqa: E402
from bench.h200_peers.fused import fused_goals, size_record  # noqa: E402
from bench.h200_peers.method import check_passes, relative_change, select_sizes, summary  # noqa: E402
from bench.h200_peers.report import Writer, render_markdown, render_table  # noqa: E402
from bench.h200_peers.stability import stability_goals, stability_rows  # noqa: E402

GIB = 2**30


def _series(center: float, spread: float = 0.0, n: int = 10) -> list[float]:
    """n samples evenly spread over center +- spread/2 (median = center, IQR = spread/2)."""
    if n == 1:
        return [center]
    return [center - spread / 2 + spread * k / (n - 1) for k in range(n)]


def test_summary_adds_the_relative_iqr():
    st = summary([1.0, 2.0, 3.0, 4.0, 5.0])
    assert st["median"] == 3.0 and st["iqr"] == 2.0
    assert st["rel_iqr"] == pytest.approx(2.0 / 3.0)


def test_relative_change_and_the_check_threshold():
    assert relative_change(2.0, 2.02) == pytest.approx(0.01)
    with pytest.raises(ValueError):
        relative_change(0.0, 1.0)
    assert check_passes(1e-7, 0)
    assert not check_passes(1e-7, 3)            # an unwritten element
    assert not check_passes(math.nan, 0)
    assert not check_passes(2e-4, 0)            # e.g. the erf GELU against the tanh one


def _floor_samples(harness_ms: float, torch_ms: float) -> dict[str, list[float]]:
    return {"harness_vector_copy": _series(harness_ms, 0.002), "harness_memcpy_dtod": _series(harness_ms + 0.01),
            "plain_vector_copy": _series(harness_ms + 0.005), "plain_memcpy_dtod": _series(harness_ms + 0.02),
            "torch_copy": _series(torch_ms), "torch_copy_harness": _series(torch_ms + 0.001)}


def test_floor_record_judges_the_harness_floor_against_the_best_copy():
    floor_bytes = GIB
    rec = floor_record(_floor_samples(0.5, 0.49), {}, {"torch_copy_harness": "timed without it"},
                             floor_bytes, 5, 10, {})
    v = rec["verdict"]
    assert rec["bytes_moved"] == 2 * GIB
    assert v["best"] == "torch_copy"
    assert rec["contestants"]["torch_copy"]["gbps"] == pytest.approx(2 * GIB / 0.49e-3 / 1e9)
    assert v["harness_floor_gbps"] == pytest.approx(2 * GIB / 0.5e-3 / 1e9)
    assert v["ratio"] == pytest.approx(0.49 / 0.5) and v["ok"]
    assert rec["contestants"]["torch_copy_harness"]["note"] == "timed without it"
    slow = floor_record(_floor_samples(0.5, 0.45), {}, {}, floor_bytes, 5, 10, {})["verdict"]
    assert slow["ratio"] == pytest.approx(0.9) and not slow["ok"]


def test_floor_record_keeps_a_failed_copy_as_data():
    samples = _floor_samples(0.5, 0.49)
    samples["torch_copy"] = []
    rec = floor_record(samples, {"torch_copy": "RuntimeError: boom"}, {}, GIB, 5, 10, {})
    assert rec["contestants"]["torch_copy"]["error"] == "RuntimeError: boom"
    assert rec["verdict"]["best"] == "torch_copy_harness"
    samples["harness_memcpy_dtod"] = []
    assert "verdict" not in floor_record(samples, {}, {}, GIB, 5, 10, {})


def _checks(names: list[str], bad: str | None = None) -> dict[str, dict]:
    out = {n: {"ok": True, "rel_l2": 1.2e-7, "max_abs_err": 4e-7, "nan": 0, "elements": 64} for n in names}
    if bad:
        out[bad] = {"ok": False, "rel_l2": 3e-4, "max_abs_err": 1e-3, "nan": 0, "elements": 64}
    return out


def _size(n: int, headline: bool, fused_vec4_ms: float, compile_ms: float, floor_ms: float) -> dict:
    names = ["staged", "fused", "staged_vec4", "fused_vec4", "torch_eager", "torch_compile"]
    samples = {"staged": _series(3 * fused_vec4_ms), "fused": _series(1.3 * fused_vec4_ms),
               "staged_vec4": _series(3 * fused_vec4_ms), "fused_vec4": _series(fused_vec4_ms, 0.001),
               "torch_eager": _series(4 * fused_vec4_ms), "torch_compile": _series(compile_ms),
               "__vector_copy": _series(floor_ms), "__memcpy_dtod": _series(floor_ms * 1.01)}
    checks = _checks(names + ["torch_compile_max_autotune"], bad="torch_compile_max_autotune")
    return size_record({"n": n}, n, headline, "reference.py on cupy float64 arrays (GPU)", checks,
                             samples, {}, {}, 4 * n, 4400.0, {})


def test_size_record_and_the_fused_goals():
    n = 67_108_864
    size = _size(n, True, fused_vec4_ms=0.1831, compile_ms=0.25, floor_ms=0.1262)
    c = size["contestants"]
    assert size["label"] == "n=67108864"
    assert c["fused_vec4"]["gbps"] == pytest.approx(12 * n / 0.1831e-3 / 1e9)
    assert size["floor_gbps"] == pytest.approx(2 * 4 * n / 0.1262e-3 / 1e9)
    assert c["fused_vec4"]["of_floor"] == pytest.approx(c["fused_vec4"]["gbps"] / size["floor_gbps"])
    assert c["fused_vec4"]["of_best_copy"] == pytest.approx(c["fused_vec4"]["gbps"] / 4400.0)
    assert c["torch_compile_max_autotune"]["skipped"] == "failed the reference check"
    assert size["speedup"]["fused_vec4 over torch_compile"] == pytest.approx(0.25 / 0.1831)
    goals = fused_goals(size, 4400.0)
    assert goals["over_compile"]["ok"] and goals["over_compile"]["value"] == pytest.approx(0.25 / 0.1831)
    assert goals["of_best_copy"]["value"] == pytest.approx(c["fused_vec4"]["gbps"] / 4400.0)
    assert goals["of_best_copy"]["ok"] == (goals["of_best_copy"]["value"] >= 0.98)
    close = fused_goals(_size(n, True, 0.2, 0.21, 0.1262), None)
    assert not close["over_compile"]["ok"] and "of_best_copy" not in close


def _measured(medians: dict[str, float], spread: float, floor_ms: float) -> dict:
    """A measure_entry result, shaped as measure.harness.run writes it."""
    sizes = []
    for n, scale in ((1_048_576, 1.0), (67_108_864, 64.0)):
        variants = {name: {"samples_ms": _series(ms * scale, spread * ms * scale)} for name, ms in medians.items()}
        floor = {part: {"samples_ms": _series(floor_ms * scale)} for part in ("vector_copy", "memcpy_dtod")}
        sizes.append({"params": {"n": n}, "variants": variants, "copy_floor": floor})
    return {"sizes": sizes, "environment": {}, "method": {}}


def test_stability_rows_and_goals():
    first = _measured({"fused": 0.0068, "fused_vec4": 0.0066}, 0.01, 0.002)
    second = _measured({"fused": 0.0069, "fused_vec4": 0.0066}, 0.05, 0.002)
    more = {("n=67108864", "fused_vec4"): 0.004}
    rows = stability_rows(first, second, more)
    assert len(rows) == 2 * 4
    row = next(r for r in rows if r["size"] == "n=1048576" and r["variant"] == "fused")
    assert row["median_drift"] == pytest.approx(0.0069 / 0.0068 - 1)
    assert row["rel_iqr"][0] == pytest.approx(0.01 / 2, rel=0.05) and row["n"] == 10
    assert next(r for r in rows if r["variant"] == "fused_vec4" and r["size"] == "n=67108864")["rel_iqr_more"] == 0.004
    goals = stability_goals(rows)
    assert not goals["median_drift"]["ok"] and goals["median_drift"]["where"].endswith("fused")
    assert goals["median_drift"]["missed"] == 2              # fused at both sizes drifts 1.5%
    assert not goals["rel_iqr"]["ok"]                         # the second run's 5% spread
    assert goals["rel_iqr_more"]["ok"]
    alone = stability_rows(first, None)
    assert alone[0]["median_drift"] is None and len(alone[0]["median_ms"]) == 1
    assert "median_drift" not in stability_goals(alone) and stability_goals(alone)["rel_iqr"]["ok"]


def test_select_sizes():
    sizes = [{"n": 1}, {"n": 4}, {"n": 16}, {"n": 64}, {"n": 256}]
    assert select_sizes(sizes, {"n": 64}, "all") == sizes
    assert select_sizes(sizes, {"n": 64}, "upto-headline") == sizes[:4]
    assert select_sizes(sizes, {"n": 64}, "headline") == [{"n": 64}]
    assert select_sizes(sizes, {"n": 64}, "16, 256") == [{"n": 16}, {"n": 256}]
    with pytest.raises(ValueError, match="upto-headline"):
        select_sizes(sizes, {"n": 64}, "big")


def test_parse_args():
    opts = parse_args(["--out", "/tmp/x"])
    assert opts.parts == ["floor", "fused", "stability"] and opts.runs == 50 and opts.sizes == "all"
    assert opts.stability_sizes == "upto-headline" and opts.floor_elements == 268_435_456
    assert parse_args(["--out", "o", "--parts", "floor, fused"]).parts == ["floor", "fused"]
    with pytest.raises(SystemExit):
        parse_args(["--out", "o", "--parts", "floor,speed"])


def test_the_package_runs_as_a_module_from_the_repository_root():
    done = subprocess.run([sys.executable, "-m", "bench.h200_peers", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python3 -m bench.h200_peers") and "--budget-s" in done.stdout


def _report() -> dict:
    floor = floor_record(_floor_samples(0.5, 0.49), {}, {}, GIB, 5, 10, {})
    sizes = [_size(1_048_576, False, 0.0066, 0.009, 0.0284),
             _size(67_108_864, True, 0.1831, 0.25, 0.1262)]
    stab_rows = stability_rows(_measured({"fused_vec4": 0.0066}, 0.01, 0.002),
                                     _measured({"fused_vec4": 0.00661}, 0.01, 0.002))
    return {"environment": {"gpu": "NVIDIA H200", "driver": "580.0", "torch": "2.x", "triton": "3.x",
                            "pycuda": "2026.1", "sm_mhz_before": 1980, "sm_mhz_after": 1980, "throttle_reasons": []},
            "captured_at": "2026-12-01T00:00:00Z",
            "floor": floor,
            "fused": {"sizes": sizes, "runs": 10, "warmups": 5, "best_copy_gbps": floor["verdict"]["best_gbps"],
                      "reference_where": "reference.py on cupy float64 arrays (GPU)",
                      "goals": fused_goals(sizes[1], floor["verdict"]["best_gbps"])},
            "stability": {"sizes": ["n=1048576", "n=67108864"], "runs": 10, "durations_s": [30.0, 31.0],
                          "rows": stab_rows, "goals": stability_goals(stab_rows), "skipped": None},
            "errors": [{"part": "extra", "error": "RuntimeError: invented"}], "notes": ["a note"]}


def test_markdown_and_table_render_a_whole_report():
    report = _report()
    md = render_markdown(report)
    assert md.startswith("## Harness fidelity on the H200\n")
    for heading in ("### Copy floor", "### Fused chain against torch", "### Stability"):
        assert heading in md
    assert "| n=67108864 | fused_vec4 | 0.1831 |" in md
    assert "not timed: failed the reference check" in md
    assert "fused_vec4 over torch.compile (median over median): n=1048576 1.36x, n=67108864 1.37x." in md
    assert "at least 1.15x torch.compile: **met** (1.37x)" in md
    assert "median drift at most 1%: **met**" in md
    assert "- extra: RuntimeError: invented" in md and "- a note" in md
    table = render_table(report)
    assert "HARNESS FIDELITY" in table and "ERROR in extra" in table
    assert "goals at n=67108864" in table


def test_a_partial_report_renders_and_nan_survives_json(tmp_path):
    report = {"errors": [], "notes": [], "fused": {"sizes": [], "runs": 50, "warmups": 5, "best_copy_gbps": None,
                                                    "reference_where": "not run"},
              "bad": [math.nan, math.inf]}
    assert "### Fused chain against torch" in render_markdown(report)
    writer = Writer(tmp_path / "out")
    writer.say("hello")
    writer.write(report)
    assert json.loads((tmp_path / "out" / "peers.json").read_text())["bad"] == ["nan", "inf"]
    assert "hello" in (tmp_path / "out" / "peers.log").read_text()
    assert (tmp_path / "out" / "peers.md").read_text().startswith("## Harness fidelity")
