"""The `glossary` command line, one subcommand at a time: output and exit codes (0 ok, 1 problems, 2 usage)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from glossary.measuring import plan
from glossary.cli import cli
from glossary.entries.scaffold import slugify
from glossary.entries.model import load_entries

ROOT = Path(__file__).resolve().parent.parent

SIGNED_BY_HAND = """\
---
title: Warp
summary: Thirty-two threads that a multiprocessor schedules and issues as one unit.
author: Ada Lovelace
reviewer: Charles Babbage
reviewed_on: 2026-10-02
---
A warp executes one instruction at a time for all of its threads.
"""


@pytest.fixture
def entries(tmp_path) -> Path:
    """An entries folder whose project trusts names only (tests/test_trust.py covers signed reviews)."""
    folder = tmp_path / "entries"
    folder.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    return folder


def run(entries: Path, *args: str):
    return CliRunner().invoke(cli, ["--entries", str(entries), *args], catch_exceptions=False)


def scaffold(entries: Path, term: str = "Bank conflicts") -> Path:
    assert run(entries, "new", term).exit_code == 0
    return entries / f"{slugify(term)}.md"


def test_slugify():
    assert slugify("Kernel Fusion") == "kernel-fusion"
    assert slugify("  L2 cache (residency) ") == "l2-cache-residency"
    assert slugify("Zoë's warp") == "zoe-s-warp"


# -- new ---------------------------------------------------------------------------


def test_new_scaffolds_an_entry_that_parses(entries):
    page = scaffold(entries, "Shared memory")
    lines = page.read_text().splitlines()
    assert lines[0] == "---"
    assert lines[1] == "# yaml-language-server: $schema=../schema/entry.schema.json"
    entry = load_entries(entries)["shared-memory"]
    assert entry.meta.title == "Shared memory"
    assert entry.meta.author == "pending"
    assert set(entry.kernel_files) == {"shared-memory.cu", "reference.py"}
    assert 'extern "C" __global__ void copy' in (entries / "shared-memory" / "shared-memory.cu").read_text()


def test_new_refuses_to_overwrite(entries):
    page = scaffold(entries)
    page.write_text(page.read_text() + "\nMine.\n")
    again = run(entries, "new", "Bank Conflicts")
    assert again.exit_code == 1
    assert "refusing to overwrite" in again.output
    assert page.read_text().endswith("Mine.\n")


def test_new_usage_errors(entries, tmp_path):
    assert run(entries, "new", "???").exit_code == 2
    missing = run(tmp_path / "nowhere", "new", "Warp")
    assert missing.exit_code == 2
    assert "no entries folder" in missing.output


# -- schema --------------------------------------------------------------------------


def test_schema_is_the_shipped_file(entries):
    result = run(entries, "schema")
    assert result.exit_code == 0
    assert result.stdout == (ROOT / "schema" / "entry.schema.json").read_text()


# -- check ---------------------------------------------------------------------------


def test_check_reports_every_entry_at_once(entries):
    (entries / "warp.md").write_text(SIGNED_BY_HAND.replace("author: Ada", "related: [bank-conflict]\nauthor: Ada"))
    (entries / "broken.md").write_text("---\ntitle: B\nsummary: S\nreveiwer: X\n---\n")
    scaffold(entries)
    result = run(entries, "check", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    by_slug = {e["slug"]: e for e in report["entries"]}
    assert [p["check"] for p in by_slug["broken"]["problems"]] == ["schema"]
    assert "did you mean 'reviewer'" in by_slug["broken"]["problems"][0]["message"]
    warp = by_slug["warp"]["problems"]
    assert any(p["check"] == "links" and "did you mean 'bank-conflicts'" in p["message"] for p in warp)
    checks_of_scaffold = {(p["check"], p["severity"]) for p in by_slug["bank-conflicts"]["problems"]}
    assert checks_of_scaffold == {("gate", "error"), ("content", "error"), ("results", "error")}
    assert all(p["refusal"] for p in by_slug["bank-conflicts"]["problems"])


def test_check_human_report_and_unknown_entry(entries):
    scaffold(entries)
    result = run(entries, "check")
    assert result.exit_code == 1
    assert "no named author (author is 'pending')" in result.output
    assert "FAILED" in result.output
    unknown = run(entries, "check", "bank-conflict")
    assert unknown.exit_code == 2
    assert "did you mean 'bank-conflicts'" in unknown.output


def test_check_accepts_paths_as_pre_commit_passes_them(entries):
    page = scaffold(entries)
    kernel = entries / "bank-conflicts" / "bank-conflicts.cu"
    for arg in (str(page), str(kernel)):
        report = json.loads(run(entries, "check", "--json", arg).stdout)
        assert [e["slug"] for e in report["entries"]] == ["bank-conflicts"]


def test_check_hand_written_review_warns_strict_fails_drafts_ok_passes(entries):
    (entries / "warp.md").write_text(SIGNED_BY_HAND)
    result = run(entries, "check", "--json")
    assert result.exit_code == 0
    (problem,) = json.loads(result.stdout)["entries"][0]["problems"]
    assert problem["severity"] == "warning"
    assert "has not signed with `glossary sign`" in problem["message"]
    assert run(entries, "check", "--strict").exit_code == 1
    scaffold(entries)
    assert run(entries, "check").exit_code == 1
    assert run(entries, "check", "--drafts-ok").exit_code == 0


def test_check_reports_stale_results(entries):
    page = scaffold(entries)
    page.write_text(page.read_text().replace("TODO", "Done"))
    results = entries / "bank-conflicts" / "results"
    results.mkdir()
    (results / "nvidia-h200.json").write_text(json.dumps({
        "format": 1, "entry": "bank-conflicts", "device": "nvidia-h200", "status": "ok", "provenance": "measured",
        "fingerprint": "sha256:an-older-spec", "method": {"statistic": "mean"}, "sizes": [],
        "environment": {"gpu": "NVIDIA H200", "captured_at": "2026-10-03T10:00:00+00:00"}}))
    report = json.loads(run(entries, "check", "--json").stdout)
    results_problems = [p for p in report["entries"][0]["problems"] if p["check"] == "results"]
    assert [p["severity"] for p in results_problems] == ["error", "warning"]
    assert "every measured result is stale (NVIDIA H200" in results_problems[0]["message"]
    assert "results for NVIDIA H200 (captured 2026-10-03) are stale" in results_problems[1]["message"]
    (row,) = json.loads(run(entries, "status", "--json").stdout)
    assert row["stale_results"] is True
    assert row["devices"] == [{"key": "nvidia-h200", "gpu": "NVIDIA H200", "captured_on": "2026-10-03",
                               "status": "ok", "imported": False, "stale": True, "attestation": "unsigned",
                               "signed_by": None}]


def test_check_says_when_lint_is_unavailable(entries, monkeypatch):
    (entries / "warp.md").write_text(SIGNED_BY_HAND)
    monkeypatch.setitem(sys.modules, "glossary.entries.lint", None)  # import fails with ImportError
    report = json.loads(run(entries, "check", "--json").stdout)
    assert "lint unavailable" in report["general"][0]["message"]


# -- sign ----------------------------------------------------------------------------


def test_sign_refusals_and_usage_errors(entries):
    page = scaffold(entries)
    no_author = run(entries, "sign", "bank-conflicts", "--as", "Charles Babbage")
    assert no_author.exit_code == 1 and "no named author" in no_author.output
    page.write_text(page.read_text().replace("author: pending ", "author: Ada Lovelace "))
    before = page.read_bytes()
    assert run(entries, "sign", "bank-conflicts", "--as", "TBD").exit_code == 1
    assert run(entries, "sign", "bank-conflicts", "--as", "ADA LOVELACE").exit_code == 1
    assert run(entries, "sign", "bank-conflicts", "--as", "Charles Babbage", "--date", "2.10.2026").exit_code == 2
    assert run(entries, "sign", "nope", "--as", "Charles Babbage").exit_code == 2
    assert run(entries, "sign", "bank-conflicts").exit_code == 2
    assert page.read_bytes() == before


def test_sign_writes_only_the_review_keys(entries):
    page = scaffold(entries)
    page.write_text(page.read_text().replace("author: pending ", "author: Ada Lovelace "))
    before = page.read_text().splitlines()
    result = run(entries, "sign", str(page), "--as", "  Charles   Babbage ", "--date", "2026-10-02")
    assert result.exit_code == 0, result.output
    after = page.read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert [b.split(":")[0] for _, b in changed] == ["reviewer", "reviewed_on", "review_fingerprint"]
    entry = load_entries(entries)["bank-conflicts"]
    assert entry.meta.reviewer == "Charles Babbage"
    assert entry.meta.review_fingerprint.startswith("v2:fm=")


# -- status --------------------------------------------------------------------------


def test_status_exit_codes_and_table(entries):
    (entries / "warp.md").write_text(SIGNED_BY_HAND)
    ok = run(entries, "status")
    assert ok.exit_code == 0
    assert "warp" in ok.output and "unsigned" in ok.output
    scaffold(entries)
    assert run(entries, "status").exit_code == 1


# -- measure -------------------------------------------------------------------------


def test_measure_without_a_gpu_says_so(entries, monkeypatch):
    scaffold(entries)
    monkeypatch.setattr(plan, "probe", lambda: (False, "pycuda is not installed"))
    result = run(entries, "measure")
    assert result.exit_code == 1
    assert "no GPU to measure on here: pycuda is not installed" in result.output


def test_measure_runs_a_pool_per_gpu_and_reports_failures(entries, monkeypatch, tmp_path):
    """The harness is replaced by tests/pool_fakes.py, run in real worker processes."""
    import functools

    scaffold(entries)
    scaffold(entries, "Warp divergence")
    h200 = [{"index": i, "name": "NVIDIA H200", "pci_bus_id": f"0000:0{i}:00.0", "device": "nvidia-h200"}
            for i in range(2)]
    monkeypatch.setattr(plan, "available_gpus", lambda: (h200, ""))
    monkeypatch.setattr(plan, "measure_entries",
                        functools.partial(plan.measure_entries, target="pool_fakes:sleepy"))
    monkeypatch.setenv("FAKE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("FAKE_SLEEP", "0.1")
    monkeypatch.setenv("FAKE_FAIL", "warp-divergence")
    result = run(entries, "measure", "bank-conflicts", "--gpus", "1")
    assert result.exit_code == 0, result.output
    assert "1 of 1 measured on NVIDIA H200" in result.output
    assert (entries / "bank-conflicts/results/nvidia-h200.json").exists()
    failed = run(entries, "measure", "--all")
    assert failed.exit_code == 1
    assert "failed warp-divergence on nvidia-h200: warp-divergence: output y is wrong" in failed.output
    assert "1 of 2 measured" in failed.output
    shard = run(entries, "measure", "--shard", "2/2")  # sorted: bank-conflicts (1/2), warp-divergence (2/2)
    assert shard.exit_code == 1 and "warp-divergence" in shard.output and "bank-conflicts" not in shard.output
    assert "Nothing to measure in shard 1/2" in run(entries, "measure", "--shard", "1/2").output
    bad = run(entries, "measure", "--gpus", "7")
    assert bad.exit_code == 2 and "this machine has 2 GPU(s)" in bad.output
    assert run(entries, "measure", "--shard", "3/2").exit_code == 2


def test_check_reports_bound_figures_without_data(entries):
    page = scaffold(entries)
    page.write_text(page.read_text().replace("TODO: what", 'It takes {{ fig.ms("copy") }}. What'))
    report = json.loads(run(entries, "check", "--json").stdout)
    figures = [p for p in report["entries"][0]["problems"] if p["check"] == "figures"]
    assert len(figures) == 1 and figures[0]["message"].startswith("a bound figure has no data")
