"""The signer signs only what it asked for: a worker's result whose entry, device, fingerprint or GPU
is not the job's is recorded as a failure, signed as one, never as a result (issue 28)."""

from __future__ import annotations

import json
import logging

import pytest

from glossary.entries.model import load_entries
from glossary.measuring import plan
from measure import attest, store
from measure.harness.failure import MAX_ERROR_CHARS, bounded
from test_bounds_issue28 import DEVICE_BUFFERS, KERNEL, spec_block, write_entry

GPU = [{"index": 0, "name": "Fake GPU", "pci_bus_id": "0000:01:00.0", "device": "fake-gpu"}]


@pytest.mark.parametrize("lie,said", [("device", "device 'nvidia-b200'"), ("entry", "entry 'kernel-fusion'"),
                                      ("fingerprint", "fingerprint sha256:000"), ("bus", "GPU at 0000:99:00.0")])
def test_a_result_that_is_not_the_jobs_is_never_signed(tmp_path, monkeypatch, lie, said):
    key = tmp_path / "node-key"
    signer = attest.Signer.generate()
    signer.save(key)
    monkeypatch.setenv("GLOSSARY_NODE_KEY", str(key))
    monkeypatch.setenv("FAKE_LIE", lie)
    write_entry(tmp_path, spec_block(DEVICE_BUFFERS, KERNEL))
    entries = load_entries(tmp_path)
    outcomes = plan.measure_entries(list(entries.values()), logging.getLogger("test.signer"),
                                    target="pool_fakes:lying", available=GPU, deadline_s=60.0)
    assert [o.ok for o in outcomes] == [False] and said in outcomes[0].error
    recorded = json.loads((tmp_path / "term" / "results" / "fake-gpu.json").read_text())
    assert recorded.get("status") != "ok" and "sizes" not in recorded  # no result: only the failure
    assert said in json.dumps(recorded)
    assert not list((tmp_path / "term" / "results").glob("nvidia-b200*"))


def test_a_failure_record_is_bounded_and_printable():
    huge = "x" * 100_000 + "\x1b[31m\x00" + "y" * 100_000
    text = bounded(huge)
    assert len(text) < MAX_ERROR_CHARS + 100 and "\x1b" not in text and "\x00" not in text
    assert text.startswith("xxx") and text.endswith("yyy") and "characters left out" in text


def test_no_sandbox_no_measuring_with_one_line_saying_how_to_install_it(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from glossary.cli import cli
    from measure import sandbox

    write_entry(tmp_path, spec_block(DEVICE_BUFFERS, KERNEL))
    monkeypatch.setattr(plan, "available_gpus", lambda: (GPU, ""))
    monkeypatch.setattr(sandbox, "problem", lambda: "bubblewrap (bwrap) is not installed: install bubblewrap "
                                                  "(Debian/Ubuntu: `apt-get install bubblewrap`)")
    run = CliRunner().invoke(cli, ["--entries", str(tmp_path), "measure"])
    assert run.exit_code == 1 and "nothing is measured" in run.output and "apt-get install bubblewrap" in run.output
    with pytest.raises(plan.NoSandbox, match="apt-get install bubblewrap"):
        plan.measure_entries(list(load_entries(tmp_path).values()), logging.getLogger("t"), available=GPU)
    assert not (tmp_path / "term" / "results").exists()  # stopped before measuring: nothing recorded
