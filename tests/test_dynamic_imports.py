"""The lines that load Python by name never load an entry's code outside the sandbox: the worker's
target, the CLI's lazy modules, the harness's lazy names, and the reference server, which imports
an author's file only when it runs as /sandbox/server.py inside bubblewrap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from glossary.cli.common import lazy
from glossary.measuring import worker

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("target", ["entries.evil.reference:reference", "evil:reference",
                                    "evil.reference:reference"])
def test_a_worker_never_imports_an_entry_as_its_target(tmp_path, monkeypatch, target):
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('imported')\ndef reference(*a):\n    pass\n"
    for folder in (tmp_path, tmp_path / "entries" / "evil", tmp_path / "evil"):
        folder.mkdir(parents=True, exist_ok=True)
    (tmp_path / "evil.py").write_text(code)
    (tmp_path / "entries" / "evil" / "reference.py").write_text(code)
    (tmp_path / "evil" / "__init__.py").write_text(code)  # a parent package's code counts as running
    (tmp_path / "evil" / "reference.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="never an entry's"):
        worker._resolve(target)
    assert not marker.exists()


def test_a_worker_takes_the_harness_and_a_tests_stand_in():
    assert callable(worker._resolve("glossary.measuring.worker:run_harness"))
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        assert callable(worker._resolve("pool_fakes:sleepy"))
    finally:
        sys.path.remove(str(ROOT / "tests"))


def test_lazy_modules_are_the_projects_own():
    with pytest.raises(ValueError, match="only glossary"):
        lazy("entries.roofline.reference")
    assert lazy("glossary.figures.fmt").params  # looked up on first use


def test_the_harness_lazy_names_point_into_the_harness():
    from measure import harness
    assert all(module.startswith("measure.harness.") for module in harness._WHERE.values())


def test_the_reference_server_refuses_to_import_outside_the_sandbox(tmp_path):
    marker = tmp_path / "ran"
    ref = tmp_path / "reference.py"
    ref.write_text(f"open({str(marker)!r}, 'w').write('imported')\ndef reference(*a):\n    return {{}}\n")
    done = subprocess.run([sys.executable, str(ROOT / "measure" / "sandbox" / "server.py"), str(ref)],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode != 0 and "only inside the sandbox" in done.stderr
    assert not marker.exists()
