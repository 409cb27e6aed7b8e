"""`glossary check` runs an entry's code beside its other checks, and each compile once (issue 34).

The trial's compiles run while the reference does, a few at a time; the sass claims reuse the
trial's compiles; and whatever finishes first, the findings and the report read as a serial check
would have written them.  The sandbox, nvcc and cuobjdump are stood in for: these tests are about
the order of things, not about compiling (tests/test_compile.py compiles for real)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from glossary import checks, trial, trial_compiles
from glossary.entries.model import load_entries
from measure import sandbox

FRONT = """measure:
  sources: [a.cu, b.cu]
  reference: reference.py
  archs: [sm_80, sm_90]
  sizes: [{n: 1024}]
  headline: {n: 1024}
  buffers: {y: {role: output}}
  variants:
    - {name: v, label: v, bytes_per_elem: 4, launches: [{kernel: k, grid: [1], block: [32], args: [y, n]}]}
  claims:
    - {kind: sass, variant: v, has: LDG}
"""
SASS = """
	code for sm_90
		Function : k
        /*0000*/                   LDG.E R0, desc[UR4][R2.64] ;
        /*0010*/                   EXIT ;
		..........
"""


def _entry(tmp_path: Path):
    entries = tmp_path / "entries"
    (entries / "t").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    (entries / "t.md").write_text(f"---\ntitle: T\nsummary: S\n{FRONT}---\nText.\n")
    for name in ("a.cu", "b.cu"):
        (entries / "t" / name).write_text('extern "C" __global__ void k(float* y, long long n) {}\n')
    (entries / "t" / "reference.py").write_text("def reference(variant, inputs, scalars, params):\n    return {}\n")
    return entries, load_entries(entries)["t"]


@pytest.fixture
def toolkit(monkeypatch):
    """A sandbox, nvcc and cuobjdump that are all stand-ins; ``compiled`` lists each compile made, and
    ``delays``/``fails`` (by (source, arch)) make a compile slow or failing."""
    state = {"compiled": [], "delays": {}, "fails": {}}
    lock = threading.Lock()

    def compile_source(entry_dir, source, arch, flags, *, nvcc, covered=None, **_):
        time.sleep(state["delays"].get((source, arch), 0))
        with lock:
            state["compiled"].append((source, arch, tuple(flags)))
        if (source, arch) in state["fails"]:
            raise sandbox.CompileFailed(state["fails"][source, arch])
        return sandbox.Compiled(cubin=b"\0k\0", reads=(source,), command="nvcc")

    monkeypatch.setattr("measure.sandbox.problem", lambda: None)
    monkeypatch.setattr("measure.sandbox.compile_source", compile_source)
    monkeypatch.setattr("measure.harness.compile.find_nvcc", lambda: "/stand-in/nvcc")
    monkeypatch.setattr("glossary.sass_trial.find_cuobjdump", lambda: "/stand-in/cuobjdump")
    monkeypatch.setattr("glossary.sass_trial.disassemble", lambda cubin, cuobjdump: SASS)
    monkeypatch.setattr("glossary.trial._try_reference", lambda entry: [])
    return state


def test_each_compile_is_made_once_for_the_trial_and_the_sass_claims(tmp_path, toolkit):
    _, entry = _entry(tmp_path)
    assert trial.try_entry(entry) == []
    flags = tuple(entry.meta.measure.nvcc_flags)
    # the trial's two (sm_80) and the sass claims' four (both archs): four compiles, none twice
    assert sorted(toolkit["compiled"]) == sorted((s, a, flags) for s in ("a.cu", "b.cu") for a in ("sm_80", "sm_90"))


def test_the_first_failure_in_the_serial_order_is_the_one_reported(tmp_path, toolkit):
    """a.cu fails slowly, b.cu fails at once: the finding names a.cu, as the serial trial did."""
    _, entry = _entry(tmp_path)
    toolkit["delays"][("a.cu", "sm_80")] = 0.3
    toolkit["fails"][("a.cu", "sm_80")] = "a is wrong"
    toolkit["fails"][("b.cu", "sm_80")] = "b is wrong"
    (finding,) = trial.try_entry(entry)
    assert finding.key == "measure.sources[0]"
    assert finding.message == "a.cu does not compile for sm_80 in the sandbox: a is wrong"


def test_the_reference_s_findings_come_first_and_the_sass_claims_wait_for_them(tmp_path, toolkit, monkeypatch):
    _, entry = _entry(tmp_path)
    toolkit["fails"][("b.cu", "sm_80")] = "b is wrong"

    def slow_reference(entry):
        time.sleep(0.2)  # the compiles are done by now
        return [trial.Finding("measure.reference", "reference.py: it raised")]

    monkeypatch.setattr("glossary.trial._try_reference", slow_reference)
    found = trial.try_entry(entry)
    assert [f.key for f in found] == ["measure.reference", "measure.sources[1]"]


def test_a_failed_compile_fails_again_for_the_next_asker_without_compiling_again(tmp_path, toolkit):
    _, entry = _entry(tmp_path)
    toolkit["fails"][("a.cu", "sm_80")] = "a is wrong"
    flags = entry.meta.measure.nvcc_flags
    with trial_compiles.Compiles(entry, "/stand-in/nvcc") as compiles:
        for _ in range(2):
            with pytest.raises(sandbox.CompileFailed, match="a is wrong"):
                compiles.get("a.cu", "sm_80", flags)
        assert compiles.asked == [("a.cu", "sm_80", tuple(flags))]
    assert toolkit["compiled"] == [("a.cu", "sm_80", tuple(flags))]


def test_the_compiles_run_a_few_at_a_time(tmp_path, toolkit, monkeypatch):
    _, entry = _entry(tmp_path)
    running, most = [0], [0]
    lock = threading.Lock()

    def compile_source(entry_dir, source, arch, flags, **_):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return sandbox.Compiled(cubin=b"\0k\0", reads=(), command="nvcc")

    monkeypatch.setattr("measure.sandbox.compile_source", compile_source)
    assert trial.try_entry(entry) == []
    assert most[0] == trial_compiles.WORKERS


def test_check_runs_the_code_while_the_other_checks_run_and_reports_in_the_serial_order(tmp_path, monkeypatch):
    """The code's findings wait for the results check to start (which a serial check would never let
    happen), and still land between that check's findings and the figures'."""
    entries, _ = _entry(tmp_path)
    base, _ = checks.inspect(entries, run_code=False)
    reviewing = threading.Event()
    review = checks._check_results_and_review

    def results_and_review(report, policy, catalog):
        reviewing.set()
        review(report, policy, catalog)

    def code_problems(entry, cache_dir, head=None):
        overlapped = reviewing.wait(timeout=30)
        return [checks.Problem("code", "error", f"ran beside the other checks: {overlapped}")]

    def figures(report, unbound):
        report.problems.append(checks.Problem("figures", "warning", "last"))

    monkeypatch.setattr(checks, "_check_results_and_review", results_and_review)
    monkeypatch.setattr(checks, "_start_code", lambda entry, cache_dir: checks._HeadStart(None, False, None))
    monkeypatch.setattr(checks, "_code_problems", code_problems)
    monkeypatch.setattr(checks, "_check_figures", figures)
    (report,), _ = checks.inspect(entries, ["t"], run_code=True)
    code = checks.Problem("code", "error", "ran beside the other checks: True")
    assert report.problems == [p for p in base[0].problems if p.check != "figures"] + [code, report.problems[-1]]
    assert report.problems[-1].message == "last"
