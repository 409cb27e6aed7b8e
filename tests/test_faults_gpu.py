"""GPU faults, for real (marked gpu): each is survived, flagged, and keeps the last good result.

Six fixture entries (tests/fixtures/faults/) are first measured with a healthy
kernel, so each has a good recorded result.  Then five of them are broken: a
compile error, a wrong result, NaN output, a size that cannot fit in device
memory, and a kernel that never finishes.  A measuring `mkdocs build --strict`
must measure the five again, flag every one on its page and in the log, keep
each good result, leave the healthy entry alone, finish the site, and fail at
the end with every failure listed in one warning.  A last build with no
visible GPU must go on with the recorded results and fail --strict.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, mkdocs, write_project

FAULTS = FIXTURES / "faults"
N = 1 << 20
HUGE = 1 << 37  # 2**37 floats: 512 GiB a buffer, more than any GPU has
DEADLINE_S = 30

# slug -> (kernel file of the fault, size, what the failure must say)
CASES = {
    "compile-error": ("compile_error.cu", N, "nvcc failed on k.cu"),
    "wrong-result": ("wrong.cu", N, f"output y is wrong in {N} of {N} elements"),
    "nan-output": ("nan.cu", N, "NaN"),
    "out-of-memory": ("good.cu", HUGE, "GiB of device memory"),
    "never-finishes": ("hang.cu", N, f"did not finish within the {DEADLINE_S} s deadline"),
}


def _entry(slug: str, n: int) -> str:
    text = (FAULTS / "entry.md").read_text()
    return text.format(title=slug.replace("-", " ").capitalize(), fault=slug, n=n)


def _results(project: Path, slug: str) -> dict:
    [path] = (project / "entries" / slug / "results").glob("*.json")
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """The project after the healthy build and the faulty build: (project, first, second)."""
    slugs = ["healthy", *CASES]
    files = {f"{slug}/{name}": (FAULTS / src).read_text()
             for slug in slugs for name, src in (("k.cu", "good.cu"), ("reference.py", "reference.py"))}
    project = write_project(tmp_path_factory.mktemp("faults"), {s: _entry(s, N) for s in slugs}, files)
    env = {"GLOSSARY_MEASURE": "always", "GLOSSARY_DEADLINE": str(DEADLINE_S)}
    first = mkdocs(project, "build", env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    for slug, (kernel, n, _) in CASES.items():
        shutil.copy(FAULTS / kernel, project / "entries" / slug / "k.cu")
        (project / "entries" / f"{slug}.md").write_text(_entry(slug, n))
    # A preview, so the faulted entries' pages are there to look at: their kernels changed, so with no
    # current result the gate refuses them, and only a preview shows them (with the failure).
    second = mkdocs(project, "build", "--strict", env=dict(env, GLOSSARY_PREVIEW="1"), timeout=600)
    if os.environ.get("GLOSSARY_TEST_LOG_DIR"):  # keep what the person at the node saw, for the notes
        Path(os.environ["GLOSSARY_TEST_LOG_DIR"], "faults-build.log").write_text(second.stderr)
    return project, first, second


@pytest.mark.gpu
def test_every_fault_is_survived_and_the_strict_build_lists_them_all(faulty):
    project, first, second = faulty
    assert all(_results(project, s)["status"] == "ok" for s in ["healthy", *CASES])  # before the faults
    log = second.stderr
    assert second.returncode != 0, log
    assert "Traceback" not in log
    assert "measuring healthy" not in log  # current results are not measured again
    summary = re.search(r"measurement failed for (\d+) of (\d+) job\(s\).*?:\n((?:  .*\n?)+)", log)
    assert summary, log
    assert summary.group(1) == summary.group(2) == str(len(CASES))
    for slug in CASES:
        assert f"  {slug} on " in summary.group(3)
    assert (project / "site" / "index.html").exists()  # the rest of the build went on


@pytest.mark.gpu
@pytest.mark.parametrize("slug", list(CASES))
def test_a_fault_keeps_the_good_result_and_is_flagged(faulty, slug):
    project, first, second = faulty
    said = CASES[slug][2]
    result = _results(project, slug)
    assert result["status"] == "ok" and result["sizes"][0]["elements"] == N  # the good result, kept
    assert said in result["last_failure"]["error"]
    assert f"{slug}: measurement on NVIDIA" in second.stderr and said in second.stderr
    page = (project / "site" / slug / "index.html").read_text()
    assert "Last attempt failed" in page and "Stale results" in page


@pytest.mark.gpu
def test_the_healthy_entry_is_untouched(faulty):
    project, first, second = faulty
    result = _results(project, "healthy")
    assert result["status"] == "ok" and "last_failure" not in result


@pytest.mark.gpu
def test_a_node_without_a_visible_gpu_builds_from_recorded_results(faulty):
    project, _, _ = faulty
    run = mkdocs(project, "build", "--strict", env={"GLOSSARY_MEASURE": "always", "CUDA_VISIBLE_DEVICES": ""})
    assert run.returncode != 0
    assert "measuring was required (measure: always) but this machine cannot: no CUDA device" in run.stderr
    assert "Traceback" not in run.stderr
    assert (project / "site" / "healthy" / "index.html").exists()
