"""A first `glossary check` (issue 34): the entry's sandboxes start before anything else is checked or
imported, the reference's without NumPy in this process, the trial finds what it found when it started
them itself, and the process ends as soon as the report is written, with the same exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, fresh_python, write_project
from glossary import checks, trial, trial_start
from glossary.entries.model import load_entries
from measure import sandbox

needs_sandbox = pytest.mark.skipif(sandbox.problem() is not None, reason=f"no sandbox here: {sandbox.problem()}")

FRONT = """measure:
  sources: [k.cu]
  archs: [sm_90]
  reference: reference.py
  sizes: [{n: 1024}]
  headline: {n: 1024}
  buffers: {x: {role: input}, y: {role: output}}
  variants:
    - {name: v, label: v, bytes_per_elem: 8, launches: [{kernel: k, grid: [4], block: [256], args: [x, y, n]}]}
"""
GOOD = "def reference(variant, inputs, scalars, params):\n    return {'y': inputs['x'] * 2}\n"


def _entry(tmp_path: Path, reference: str = GOOD):
    entries = tmp_path / "entries"
    (entries / "t").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    (entries / "t.md").write_text(f"---\ntitle: T\nsummary: S\n{FRONT}---\nText.\n")
    (entries / "t" / "k.cu").write_text('extern "C" __global__ void k(const float* x, float* y, long long n) {}\n')
    (entries / "t" / "reference.py").write_text(reference)
    return entries, load_entries(entries)["t"]


def test_the_reference_s_sandbox_is_made_without_numpy_in_this_process():
    code = ("import sys; from measure.sandbox.reference import interpreter_mounts; mounts = interpreter_mounts(); "
            "assert 'numpy' not in sys.modules, 'numpy was imported'; import numpy, pathlib; "
            "assert str(pathlib.Path(numpy.__file__).resolve().parent.parent) in mounts, mounts")
    done = fresh_python(code)
    assert done.returncode == 0, done.stderr


def test_check_starts_the_entry_s_code_before_its_other_checks(tmp_path, monkeypatch):
    entries, _ = _entry(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # no clean trial remembered
    order = []
    monkeypatch.setattr(trial_start, "start", lambda entry, compile_kernels=True: order.append("code") or None)
    monkeypatch.setattr(trial, "try_entry", lambda entry, started=None: order.append("trial") or [])
    project = checks._project
    monkeypatch.setattr(checks, "_project", lambda *a: order.append("project") or project(*a))
    (report,), _ = checks.inspect(entries, ["t"], run_code=True)
    assert order[0] == "code" and {"project", "trial"} <= set(order)  # started before the first other check
    assert [p for p in report.problems if p.check == "code"] == []


@needs_sandbox
@pytest.mark.parametrize("reference, found", [
    (GOOD, []),
    ("import nonexistent_module_x\n", ["measure.reference"]),
    ("def reference(variant, inputs, scalars, params):\n    return {'z': inputs['x']}\n", ["measure.reference"]),
])
def test_a_started_trial_finds_what_a_trial_that_starts_itself_finds(tmp_path, reference, found):
    _, entry = _entry(tmp_path, reference)
    alone = trial.try_entry(entry, compile_kernels=False)
    started = trial_start.start(entry, compile_kernels=False)
    assert started is not None and started.compiles is None
    future = started.reference._future
    begun = trial.try_entry(entry, compile_kernels=False, started=started)
    assert [f.key for f in begun] == found
    assert begun == alone
    started.close()  # again: nothing is closed twice, nothing is left running
    assert started.reference._future is None  # nor held: the trial's inputs are freed with its reference
    if not future.exception():
        servers = future.result()._all
        assert servers and all(s.proc.proc.poll() is not None for s in servers)


@needs_sandbox
def test_a_started_reference_no_one_takes_is_closed(tmp_path):
    _, entry = _entry(tmp_path)
    started = trial_start.start(entry, compile_kernels=False)
    reference = started.reference._future.result()
    started.close()
    with pytest.raises(RuntimeError, match="taken or closed already"):
        started.reference.take()
    assert all(s.proc.proc.poll() is not None for s in reference._all)
    assert not reference.scratch.exists()


def _script(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(project / "cache"))
    return subprocess.run([sys.executable, "-m", "glossary.cli", "--entries", "entries", *args], cwd=project,
                          capture_output=True, text=True, env=env, timeout=120)


def test_the_script_ends_with_the_check_s_status_and_its_whole_report(tmp_path):
    ok = textwrap.dedent("""\
        ---
        title: Plain
        summary: An entry that measures nothing.
        author: Ada Lovelace
        reviewer: Charles Babbage
        ---
        Some prose.
        """)
    project = write_project(tmp_path, {"plain": ok, "draft": "---\ntitle: Draft\nsummary: A draft.\n---\nText.\n"})
    done = _script(project, "check", "--json", "draft")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False and [e["slug"] for e in report["entries"]] == ["draft"]
    done = _script(project, "check", "draft")
    assert done.returncode == 1 and done.stdout.rstrip().splitlines()[-1].startswith("FAILED: 1 entry")
    done = _script(project, "check", "--drafts-ok", "draft")
    assert done.returncode == 0 and "OK: 1 entry" in done.stdout, done.stdout + done.stderr
    done = _script(project, "check", "nothing-here")
    assert done.returncode == 2 and "no entry 'nothing-here'" in done.stderr


def test_a_check_makes_no_full_collection_while_it_runs_and_leaves_the_collector_as_it_was(tmp_path, monkeypatch):
    import gc

    from click.testing import CliRunner

    from glossary.cli import cli

    entries, _ = _entry(tmp_path)
    seen = []
    monkeypatch.setattr(checks, "inspect", lambda *a, **k: seen.append(gc.get_threshold()) or ([], []))
    before = gc.get_threshold()
    result = CliRunner().invoke(cli, ["--entries", str(entries), "check", "t"])
    assert result.exit_code == 0, result.output
    assert gc.get_threshold() == before and gc.isenabled()
    assert seen == [(*before[:2], 1000)]


@needs_sandbox
def test_a_closed_reference_holds_none_of_its_inputs(tmp_path):
    """A server points back at its reference: held inputs lived on until a full collection (a full check
    kept every trial's, hundreds of MB), unless closing lets them go."""
    import gc
    import weakref

    import numpy as np

    from measure.harness.check import call_reference

    _, entry = _entry(tmp_path)
    x = np.arange(1024, dtype=np.float32)
    gone = weakref.ref(x)
    gc.disable()
    try:
        with sandbox.SandboxedReference(entry.folder, "reference.py", limits=trial_start.LIMITS) as ref:
            answer = call_reference(ref, "v", {"x": x}, {}, {"n": 1024}, {"y": 1024})
        assert list(answer) == ["y"]
        del x, answer
        assert gone() is None
    finally:
        gc.enable()
