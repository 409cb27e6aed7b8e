"""`glossary reproduce` for real (marked gpu): a fixture entry measured and signed by one test node
key, then reproduced on the same card under another, through the sandbox and the measuring pool.

The reproduction must be written beside the record, signed, counted by the site once its key is
listed, and compared at a size inside the L2 and one past 4x it; the record must be byte for byte
what it was.  (Same card, so it should agree; the check here is the path, the node run of
scripts/reproduce-evidence.sh is the evidence.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, write_project
from gate_fixture import write_trust_files
from glossary.entries.model import parse_entry
from glossary.settings import Settings
from glossary.verdicts import reproductions, trust
from measure import attest, store

FAULTS = FIXTURES / "faults"
SMALL, BIG = 1 << 20, 1 << 25  # 8 MiB and 256 MiB of x and y: inside an H200's 60 MiB L2, and past 4x it


def _entry() -> str:
    text = (FAULTS / "entry.md").read_text().format(title="Scale", fault="reproduce", n=SMALL)
    return text.replace(f"sizes: [{{n: {SMALL}}}]", f"sizes: [{{n: {SMALL}}}, {{n: {BIG}}}]")


def _glossary(project: Path, key: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", GLOSSARY_NODE_KEY=str(key), PYTHONPATH=os.pathsep.join(
                   [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))  # keep where the node put its packages
    return subprocess.run([sys.executable, "-m", "glossary.cli", "--entries", "entries", *args], cwd=project,
                          env=env, capture_output=True, text=True, timeout=500)


@pytest.mark.gpu
def test_reproduce_writes_a_signed_reproduction_and_leaves_the_record_alone(tmp_path):
    files = {f"scale/{name}": (FAULTS / src).read_text() for name, src in (("k.cu", "good.cu"),
                                                                              ("reference.py", "reference.py"))}
    project = write_project(tmp_path, {"scale": _entry()}, files, trust="signed")
    recorder, reproducer = attest.Signer.generate(), attest.Signer.generate()
    keys = tmp_path / "keys"
    for name, signer in (("a", recorder), ("b", reproducer)):
        signer.save(keys / name)
    write_trust_files(project, [trust.allowed_signers_line("node-a", recorder.public, trust.RESULT_NAMESPACE)], [])
    measured = _glossary(project, keys / "a", "measure", "scale")
    assert measured.returncode == 0, measured.stdout + measured.stderr
    [record] = (project / "entries" / "scale" / "results").glob("*.json")
    before = record.read_bytes()

    run = _glossary(project, keys / "b", "reproduce", "scale", "--node", "node-b")
    assert run.returncode in (0, 1), run.stdout + run.stderr
    assert "past 4× the L2" in run.stdout and "inside the L2" in run.stdout, run.stdout
    line = [x for x in run.stdout.splitlines() if 'namespaces="glossary-reproduction"' in x]
    assert line and line[0].startswith("node-b "), run.stdout
    assert record.read_bytes() == before  # nothing recorded in results/

    (project / "trust" / "reproducers.allowed_signers").write_text(line[0] + "\n")
    entry = parse_entry(project / "entries" / "scale.md", project / "entries")
    policy = Settings.for_project(project / "entries").load_trust()
    (checked,) = reproductions.check_entry(entry, store.load_results(entry.folder), policy)
    assert checked.counted and checked.signer == "node-b", checked.reason
    assert {n.regime for n in checked.agreement.numbers} >= {"inside_l2", "past_l2"}
    data = json.loads(checked.path.read_text())
    assert data["record"]["signed_by"] == recorder.public.keyid
    assert data["signature"]["signatures"][0]["keyid"] == reproducer.public.keyid
