"""A small fixture glossary built with the repository's own mkdocs.yml.

Three entries: "Stream triad" (published, measured on two fixture GPUs, one
with a size sweep), "Occupancy" (published, uses the term "stream triad" in
its body, so it gets a tooltip) and "Bank conflict" (refused: no reviewer).
GPU A's results are recorded as the harness records them (measured, with the
entry's current fingerprint, signed by a fixture node key); GPU B's are imported
figures from "test fixture".  The site is `trust: signed`: reviews are signed by
fixture keys listed in the project's trust files, all made in the test.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
from pathlib import Path

import yaml

from conftest import ROOT, current_result, mkdocs, write_project

from gate_fixture import sign_review_file, write_trust_files
from glossary.verdicts import trust
from measure import attest

sys.path.insert(0, str(ROOT / "bench"))
from gen_entries import KERNEL, REFERENCE  # noqa: E402  the same triad kernel as the synthetic glossary

REFUSED_WORDS = "Quixotic zeppelins juggle"  # appears only in the refused entry

TRIAD = """\
---
title: Stream triad
summary: A kernel computing a = b + s * c over long arrays, the usual yardstick of memory bandwidth.
tags: [memory-bound, benchmark]
abbreviations: [triad]
lessons:
  - {day: 7, title: Own title of day seven, note: where the yardstick is introduced.}
  - {day: 99, title: A lesson missing from the catalogue}
sources:
  - {title: Fixture source, url: "https://example.org/triad", checked: 2026-01-02}
author: Ada Lovelace
written_on: 2026-01-01
reviewer: Charles Babbage
reviewed_on: 2026-01-03
measure:
  sources: [triad.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1048576}, {n: 16777216}]
  headline: {n: 16777216}
  scalars: {s: 3.0}
  buffers: {a: {role: output}, b: {role: input}, c: {role: input}}
  variants:
    - name: copy
      label: plain copy
      bytes_per_elem: 8
      launches: [{kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [b, a, n]}]
    - name: triad
      label: triad kernel
      bytes_per_elem: 12
      launches: [{kernel: triad, grid: ["ceil(n / 256)"], block: [256], args: [a, b, c, s, n]}]
  ratios: [{num: triad, den: copy}]
---
The triad reads two arrays and writes a third, so every element moves three
floats. Pelicans measure the card by streaming arrays far larger than any cache.
"""

OCCUPANCY = """\
---
title: Occupancy
summary: The share of a multiprocessor's warp slots that resident warps fill.
tags: [scheduling]
related: [stream-triad, bank-conflict]
author: Grace Hopper
written_on: 2026-01-01
reviewer: Ada Lovelace
reviewed_on: 2026-01-04
---
High occupancy hides latency but is no goal in itself: a stream triad saturates
memory long before every warp slot is full. Compare a bank conflict, which
serialises shared-memory accesses.
"""

BANK_CONFLICT = """\
---
title: Bank conflict
summary: Quixotic zeppelins juggle shared memory banks until the accesses serialise completely.
tags: [refused-only-tag]
author: Alan Turing
reviewer: pending
---
Quixotic zeppelins juggle marmalade across thirty-two banks of velvet storage daily.
"""

LESSONS = """\
7: {title: Bandwidth yardsticks, url: "https://example.org/course/day-7/"}
"""


def _size(n: int, floor: float, copy_ms: float, triad_ms: float) -> dict:
    return {
        "params": {"n": n}, "elements": n, "working_set_bytes": 12 * n,
        "copy_floor": {"gbps": floor},
        "variants": {
            "copy": {"bytes_per_elem": 8, "samples_ms": [copy_ms] * 5, "stats": {"mean": copy_ms}},
            "triad": {"bytes_per_elem": 12, "samples_ms": [triad_ms] * 5, "stats": {"mean": triad_ms}},
        },
    }


def result(device: str, gpu: str, sizes: list[dict], l2_bytes: int | None = None) -> dict:
    """An imported fixture result for the triad entry."""
    env = {"gpu": gpu, "driver": "999.1", "cuda_driver": "13.0", "nvcc": "V13.0.1",
           "compile_command": "nvcc -O3 -arch=sm_90", "arch": "sm_90", "captured_at": "2026-01-02"}
    if l2_bytes:
        env.update(l2_bytes=l2_bytes, sm_count=132)
    return {"format": 1, "entry": "stream-triad", "device": device, "status": "ok", "provenance": "imported",
            "imported_from": "test fixture", "fingerprint": None, "environment": env,
            "method": {"warmups": 1, "runs": 5, "statistic": "mean", "timer": "cuda-events"}, "sizes": sizes}


def _author(text: str) -> str:
    return yaml.safe_load(text.split("---")[1])["author"]


def fixture_config(project: Path) -> dict:
    """The repository's mkdocs.yml, pointed at the fixture project."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(site_name="Fixture glossary", docs_dir="entries", site_dir="site", strict=False)
    config["hooks"] = [str(ROOT / "hooks" / "glossary_hooks.py")]
    config.pop("watch", None)  # the repository's folders, which a fixture project does not have
    config.setdefault("extra", {})["glossary"] = {"measure": "never", "templates": str(ROOT / "templates")}
    return config


def build_fixture_site(tmp_path: Path) -> Path:
    """Write and build the fixture project; returns its site/ folder."""
    files = {
        "stream-triad/triad.cu": KERNEL,
        "stream-triad/reference.py": REFERENCE,
        "stream-triad/results/fixture-gpu-b.json": json.dumps(result(
            "fixture-gpu-b", "Fixture GPU B", [_size(1 << 24, 290.0, 0.48, 0.71)])),
        "bank-conflict/zeppelin.cu": "// Quixotic zeppelins juggle\n",
    }
    project = write_project(tmp_path, {"stream-triad": TRIAD, "occupancy": OCCUPANCY,
                                       "bank-conflict": BANK_CONFLICT}, files)
    measured = current_result(project / "entries", "stream-triad", result(
        "fixture-gpu-a", "Fixture GPU A",
        [_size(1 << 20, 2900.0, 0.003, 0.0045), _size(1 << 24, 3300.0, 0.0425, 0.064)], l2_bytes=50 << 20))
    node = attest.Signer.generate()
    (project / "entries" / "stream-triad" / "results" / "fixture-gpu-a.json").write_text(
        json.dumps(attest.sign_result(measured, node)))
    people = {name: attest.Signer.generate() for name in ("Ada Lovelace", "Charles Babbage", "Grace Hopper",
                                                          "Alan Turing")}
    write_trust_files(project, [trust.allowed_signers_line("fixture-node", node.public, trust.RESULT_NAMESPACE)],
                      [trust.allowed_signers_line(n, k.public, trust.REVIEW_NAMESPACE) for n, k in people.items()])
    (project / "mkdocs.yml").write_text(yaml.safe_dump(fixture_config(project), sort_keys=False))
    shutil.copytree(ROOT / "entries" / "assets", project / "entries" / "assets")
    (project / "data").mkdir()
    (project / "data" / "lessons.yml").write_text(LESSONS)
    for slug, author, reviewer in (("stream-triad", _author(TRIAD), "Charles Babbage"),
                                   ("occupancy", _author(OCCUPANCY), "Ada Lovelace")):
        # signed last: the review covers the lesson titles the catalogue gives the page; the author first
        sign_review_file(project / "entries" / f"{slug}.md", reviewer, people[reviewer], dt.date(2026, 1, 3),
                         author=people[author])
    run = mkdocs(project, "build")
    if run.returncode != 0:
        raise RuntimeError(f"fixture build failed:\n{run.stderr}")
    return project / "site"
