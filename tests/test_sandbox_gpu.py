"""On the GPU: measuring an entry leaves none of its code in the worker that timed it or the
process that signed it (issue 28: the reference and the compiles run in the sandbox)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, write_project

pytestmark = pytest.mark.gpu


def _has_gpu() -> bool:
    from glossary.measuring import plan
    return plan.probe()[0]


@pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU with pycuda")
def test_no_module_of_the_entry_is_in_the_worker_or_the_signer(tmp_path, monkeypatch):
    from glossary.entries.model import load_entries
    from glossary.measuring import plan

    faults = FIXTURES / "faults"
    entry = (faults / "entry.md").read_text().format(title="Healthy", fault="healthy", n=1 << 20)
    project = write_project(tmp_path, {"healthy": entry}, {"healthy/k.cu": (faults / "good.cu").read_text(),
                                                           "healthy/reference.py": (faults / "reference.py").read_text()})
    out = tmp_path / "modules.json"
    monkeypatch.setenv("GLOSSARY_TEST_MODULES_OUT", str(out))
    monkeypatch.setenv("PYTHONPATH", f"{Path(__file__).parent}:{':'.join(sys.path)}")
    entries = list(load_entries(project / "entries").values())
    outcomes = plan.measure_entries(entries, logging.getLogger("test"), only_stale=False, gpus="1",
                                    target="modules_probe:run")
    assert [o.ok for o in outcomes] == [True], [o.error for o in outcomes]
    assert json.loads(out.read_text()) == []  # the worker that timed it
    entries_dir = str((project / "entries").resolve())
    assert [m for m, mod in list(sys.modules.items())
            if str(getattr(mod, "__file__", "") or "").startswith(entries_dir)] == []  # the signer
