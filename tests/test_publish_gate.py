"""Nothing reaches the site that was not gated and reviewed (issue 14).

Real `mkdocs build` runs over small fixture projects: a published entry signed
over a current measured result, and the ways an author or an attacker tried to
get around the gate: pages and files outside it, symbolic links, result files
edited after signing, scaffold text, unmeasured specs, failing claims, and a
draft that shares sentences with published text.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import forked
from conftest import mkdocs, sign_entry_file

from gate_fixture import COPY, DAY, _result, make_project

def built(project: Path, *args: str, env: dict | None = None):
    run = mkdocs(project, "build", *args, env=env)
    assert "Traceback" not in run.stderr, run.stderr
    return run


def site_files(project: Path) -> set[str]:
    site = project / "site"
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


def test_a_signed_measured_entry_publishes_and_its_files_are_the_declared_ones(tmp_path):
    project = make_project(tmp_path)
    run = built(project, "--strict")
    assert run.returncode == 0, run.stderr
    files = site_files(project)
    assert {"copy/index.html", "copy/copy.cu", "copy/reference.py", "copy/results/nvidia-h200.json"} <= files
    assert not any(f.startswith("copy/") and f.split("/")[-1] not in
                   ("index.html", "copy.cu", "reference.py", "nvidia-h200.json", "nvidia-h200.svg") for f in files)
    # the result file is written anew from the validated data, not copied
    published = json.loads((project / "site" / "copy" / "results" / "nvidia-h200.json").read_text())
    assert published["sizes"][0]["variants"]["copy"]["stats"] == {"mean": 0.002}


STRAYS = ["notes.markdown", "notes.mdown", "notes.mkd", "notes.mkdn", "sub/page.md", "copy/extra.md",
          "copy/page.html", "copy/data.JSON", "copy/results/notes.txt", "stray.txt"]


@pytest.fixture(scope="module")
def strays_built(tmp_path_factory):
    """One project holding every stray file at once, built, built --strict and checked once: the tests
    below only read what came out (issue 34: ten builds of one project each took a minute)."""
    project = make_project(tmp_path_factory.mktemp("strays"))
    for name in STRAYS:
        path = project / "entries" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ntitle: Sneaky\n---\n# Sneaky page\nNo author, no reviewer: cuckoo marmalade.\n")
    run = built(project)
    files = site_files(project)
    leaked = [p for p in (project / "site").rglob("*") if p.is_file() and "cuckoo marmalade" in p.read_text(errors="replace")]
    strict = built(project, "--strict")
    check = _glossary(project, "check", "--json")
    return run, files, leaked, strict, json.loads(check.stdout)


@pytest.mark.parametrize("name", STRAYS)
def test_files_outside_the_gate_are_never_published_and_are_named(strays_built, name):
    run, files, leaked, strict, check = strays_built
    assert run.returncode == 0, run.stderr
    assert any("not published" in line for line in run.stderr.splitlines() if name in line), run.stderr
    assert "copy/index.html" in files  # the signed entry is unaffected
    assert leaked == []
    assert strict.returncode == 1
    assert any(name in p["message"] for p in check["general"])


def test_a_key_added_to_a_result_after_signing_voids_the_review(tmp_path):
    project = make_project(tmp_path)
    path = project / "entries" / "copy" / "results" / "nvidia-h200.json"
    data = json.loads(path.read_text())
    data["last_failure"] = {"error": "Re-measured on NVIDIA B200: copy reaches 9,876.5 GB/s.",
                            "environment": {"gpu": "NVIDIA B200", "captured_at": "2026-10-04T00:00:00+00:00"}}
    path.write_text(json.dumps(data))
    run = built(project)
    assert "review is stale: the recorded results changed" in run.stderr
    assert "copy/index.html" not in site_files(project)


def test_symlinks_are_never_followed(tmp_path):
    project = make_project(tmp_path)
    entries = project / "entries"
    (entries / "copy" / "passwd.cu").symlink_to("/etc/passwd")
    run = built(project)
    assert run.returncode == 0, run.stderr
    assert "passwd.cu" in run.stderr and "symbolic link" in run.stderr
    assert "copy/passwd.cu" not in site_files(project)
    (entries / "copy" / "other").symlink_to(tmp_path, target_is_directory=True)
    run = built(project)
    assert run.returncode == 1
    assert "symbolic links to folders" in run.stderr and "copy/other" in run.stderr


def test_the_gate_refuses_scaffold_text(tmp_path):
    text = COPY.replace("A kernel that moves", "TODO one sentence. A kernel that moves")
    run = built(make_project(tmp_path, text))
    assert "the summary still holds scaffold text (TODO)" in run.stderr
    assert "refused" in run.stderr


def test_todo_inside_code_is_not_scaffold_text(tmp_path):
    text = COPY.replace("mov.f32", "// TODO unroll\nmov.f32")
    run = built(make_project(tmp_path, text), "--strict")
    assert run.returncode == 0, run.stderr


def test_the_gate_refuses_a_spec_without_a_current_result(tmp_path):
    run = built(make_project(tmp_path, result=False))
    assert "has a measurement spec but no recorded result" in run.stderr
    project = make_project(tmp_path, sign=False)
    result_path = project / "entries" / "copy" / "results" / "nvidia-h200.json"
    imported = json.loads(result_path.read_text())
    imported.update(provenance="imported", fingerprint=None, imported_from="a lesson's own run")
    result_path.write_text(json.dumps(imported))
    sign_entry_file(project / "entries" / "copy.md", "Charles Babbage", DAY)
    run = built(project)
    assert "only imported results (NVIDIA H200), none measured by the harness" in run.stderr
    assert "copy/index.html" not in site_files(project)


def test_a_failing_claim_refuses_unless_its_failure_is_declared_and_shown(tmp_path):
    run = built(make_project(tmp_path, result=_result(copy2_ms=0.006)))
    # claims name variants as the page does: the short form, else the label
    assert "a claim fails on NVIDIA H200: copy twice / plain copy time ratio matches the byte ratio" in run.stderr
    reason = "the second copy finds the first one's lines in L2, so it costs less than its bytes"
    text = COPY.replace("tolerance: 0.1, sizes: all}", f'tolerance: 0.1, sizes: all, expected_failure: "{reason}"}}')
    project = make_project(tmp_path, text, result=_result(copy2_ms=0.006))
    run = built(project, "--strict")
    assert run.returncode == 0, run.stderr
    page = (project / "site" / "copy" / "index.html").read_text()
    assert "expected" in page and "L2, so it costs less than its bytes" in page


def test_code_blocks_are_not_template_code_and_problems_name_the_file_line(tmp_path):
    project = make_project(tmp_path)
    run = built(project, "--strict")
    assert run.returncode == 0, run.stderr
    shown = re.sub(r"<[^>]+>", "", (project / "site" / "copy" / "index.html").read_text())
    assert "{%f2, %f3}" in shown
    text = COPY.replace("shows what the card's memory can do.", "shows {{ 7*7 }}.")
    project = make_project(tmp_path, text)
    run = built(project)
    signed = (project / "entries" / "copy.md").read_text()  # signing added a line to the front-matter
    line = signed.splitlines().index("bytes per float and shows {{ 7*7 }}.") + 1
    assert f"line {line} of the file" in run.stderr and "copy.md" in run.stderr


def test_a_draft_sharing_sentences_with_published_text_is_no_leak(tmp_path):
    shared = "The typical name for the binary that the compiler writes is a cubin, seen in every profile."
    text = COPY.replace("A copy kernel reads", shared + "\n\nA copy kernel reads")
    drafts = {f"draft-{i}": f"---\ntitle: Draft {i}\nsummary: Draft number {i} of a long migration, not yet "
                            f"signed by anyone.\nauthor: Grace Hopper\nreviewer: pending\n---\n{shared}\n\n"
                            f"See [copy](copy.md) and https://docs.nvidia.com/cuda/draft-{i}/.\n"
              for i in range(3)}
    project = make_project(tmp_path, text, extra_entries=drafts)
    run = built(project)
    assert run.returncode == 0, run.stderr
    assert "leaked" not in run.stderr
    assert "copy/index.html" in site_files(project)
    assert not any(f.startswith("draft-") for f in site_files(project))


def test_check_status_and_build_give_the_same_reasons(tmp_path):
    project = make_project(tmp_path, COPY.replace("A kernel that moves", "TODO write this. A kernel that moves"))
    run = built(project)
    check = json.loads(_glossary(project, "check", "--json").stdout)
    (report,) = [e for e in check["entries"] if e["slug"] == "copy"]
    reasons = [p["message"] for p in report["problems"] if p["refusal"]]
    assert reasons and all(r in run.stderr for r in reasons)
    status = json.loads(_glossary(project, "status", "--json").stdout)
    assert [r for r in status if r["slug"] == "copy"][0]["why_not"] == reasons


def _glossary(project: Path, *args: str):
    import sys

    return forked.run([sys.executable, "-m", "glossary.cli", "--entries", "entries", *args], cwd=project,
                      timeout=120, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))


def test_check_warns_when_a_size_cannot_fit_the_claimed_gpus(tmp_path):
    text = COPY.replace("sizes: [{n: 1048576}]", "sizes: [{n: 1048576}, {n: 274877906944}]").replace(
        "archs: [sm_90]", "archs: [sm_75, sm_90]")
    project = make_project(tmp_path, text, result=False, sign=False)
    check = json.loads(_glossary(project, "check", "--json").stdout)
    (report,) = [e for e in check["entries"] if e["slug"] == "copy"]
    fits = [p for p in report["problems"] if "largest sm_75 GPU" in p["message"]]
    assert fits and fits[0]["severity"] == "warning" and "measure.sizes[1]" in fits[0]["message"]
