"""A small published entry for gate and trust tests: the copy entry, measured (a current
result) and signed, in a fixture project of its own.

``make_project`` signs the review by name only unless given keys; ``Keys`` makes a node,
an author and a reviewer key in the test (never committed) and writes the project's
trust files, so the same project can be built under `trust: signed`.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from conftest import current_result, sign_entry_file, write_project

from glossary.verdicts import people, trust
from measure import attest

DAY = dt.date(2026, 10, 2)

COPY = """\
---
title: Copy kernel
summary: A kernel that moves every element of one buffer into another at the speed of DRAM.
author: Ada Lovelace
written_on: 2026-10-01
reviewer: pending
reviewed_on: null
measure:
  sources: [copy.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1048576}]
  headline: {n: 1048576}
  buffers: {x: {role: input}, y: {role: output}}
  variants:
    - name: copy
      label: plain copy
      bytes_per_elem: 8
      launches: [{kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}]
    - name: copy2
      label: copy twice
      bytes_per_elem: 16
      launches:
        - {kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}
        - {kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}
  ratios: [{num: copy2, den: copy}]
  claims:
    - {kind: speedup_matches_bytes, num: copy2, den: copy, tolerance: 0.1, sizes: all}
---
A copy kernel reads each element once and writes it once, so it moves eight
bytes per float and shows what the card's memory can do.

```ptx
mov.f32 {%f2, %f3}, {%f4, %f5};
```
"""

KERNEL = 'extern "C" __global__ void copy(const float* x, float* y, long long n)\n' \
         '{ long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] = x[i]; }\n'
REFERENCE = "import numpy as np\n\ndef reference(variant, inputs, scalars, params):\n" \
            "    return {'y': np.asarray(inputs['x'], dtype=np.float64)}\n"


def _result(copy2_ms: float = 0.004) -> dict:
    n = 1 << 20
    return {
        "format": 1, "entry": "copy", "device": "nvidia-h200", "status": "ok", "provenance": "measured",
        "fingerprint": None,
        "environment": {"gpu": "NVIDIA H200", "driver": "999.1", "cuda_driver": "13.0", "nvcc": "V13.0.1",
                        "compile_command": "nvcc -O3 -arch=sm_90", "arch": "sm_90",
                        "captured_at": "2026-10-03T10:00:00+00:00"},
        "method": {"warmups": 1, "runs": 3, "statistic": "mean", "timer": "cuda-events"},
        "sizes": [{"params": {"n": n}, "elements": n, "variants": {
            "copy": {"bytes_per_elem": 8, "samples_ms": [0.002] * 3, "stats": {"mean": 0.002}},
            "copy2": {"bytes_per_elem": 16, "samples_ms": [copy2_ms] * 3, "stats": {"mean": copy2_ms}},
        }}],
    }


@dataclass
class Keys:
    """Test keys: a verification node, the author (Ada Lovelace) and the reviewer (Charles Babbage)."""

    node: attest.Signer
    author: attest.Signer
    reviewer: attest.Signer

    @classmethod
    def make(cls) -> "Keys":
        return cls(attest.Signer.generate(), attest.Signer.generate(), attest.Signer.generate())

    def write_trust(self, project: Path, nodes: list[str] | None = None, people: list[str] | None = None) -> None:
        if nodes is None:
            nodes = [trust.allowed_signers_line("test-node", self.node.public, trust.RESULT_NAMESPACE)]
        if people is None:
            people = [trust.allowed_signers_line("Ada Lovelace", self.author.public, trust.REVIEW_NAMESPACE),
                      trust.allowed_signers_line("Charles Babbage", self.reviewer.public, trust.REVIEW_NAMESPACE)]
        write_trust_files(project, nodes, people)


def write_trust_files(project: Path, nodes: list[str], people: list[str]) -> None:
    """The project's trust/nodes.allowed_signers and trust/people.allowed_signers."""
    folder = project / "trust"
    folder.mkdir(exist_ok=True)
    (folder / "nodes.allowed_signers").write_text("# test keys\n" + "\n".join(nodes) + "\n")
    (folder / "people.allowed_signers").write_text("# test keys\n" + "\n".join(people) + "\n")


def _content(path: Path):
    """(the entry at ``path``, its content fingerprint as `glossary sign` computes it)."""
    from glossary.entries.model import parse_entry
    from glossary.settings import Settings
    from glossary.verdicts import review
    from measure import store

    entry = parse_entry(path, path.parent)
    catalog = Settings.for_project(path.parent).load_catalog()
    return entry, review.content_fingerprint(entry, store.load_results(entry.folder), catalog)


def sign_author_file(path: Path, key: attest.Signer, day: dt.date = DAY) -> None:
    """Sign the entry at ``path`` as its author, as `glossary sign --as AUTHOR` does."""
    entry, content = _content(path)
    people.write_author_signature(entry, day, content, key)


def sign_review_file(path: Path, name: str, key: attest.Signer | None, day: dt.date = DAY,
                     author: attest.Signer | None = None) -> None:
    """Sign the review of the entry at ``path`` as `glossary sign` does, with ``key`` where given;
    with ``author``, the author signs the content first (both people sign, as `trust: signed` wants)."""
    if author is not None:
        sign_author_file(path, author, day)
    fingerprint = sign_entry_file(path, name, day)
    if key is not None:
        entry, content = _content(path)
        people.write_review_signature(entry, entry.meta.reviewer, day, fingerprint, key, content)


def make_project(tmp_path: Path, text: str = COPY, *, result: dict | None = None, sign: bool = True,
                 extra_entries: dict | None = None, keys: Keys | None = None) -> Path:
    """A project with the copy entry measured (current result) and, by default, signed.

    Without ``keys`` the project is `trust: names`; with them, `trust: signed`, the result
    signed by the node key, the content by the author's key and the review by the reviewer's.
    """
    files = {"copy/copy.cu": KERNEL, "copy/reference.py": REFERENCE}
    project = write_project(tmp_path, {"copy": text, **(extra_entries or {})}, files,
                            trust="signed" if keys else "names")
    entries = project / "entries"
    if keys:
        keys.write_trust(project)
    if result is not False:
        data = current_result(entries, "copy", result or _result())
        if keys:
            data = attest.sign_result(data, keys.node)
        (entries / "copy" / "results").mkdir()
        (entries / "copy" / "results" / "nvidia-h200.json").write_text(json.dumps(data, indent=1))
    if sign:
        sign_review(project, "Charles Babbage", keys.reviewer if keys else None,
                    author=keys.author if keys else None)
    return project


def sign_review(project: Path, name: str, key: attest.Signer | None, day: dt.date = DAY,
                author: attest.Signer | None = None) -> None:
    """Sign the copy entry's review as `glossary sign` does, with ``key`` where given (after the
    author signs with ``author``, where given)."""
    sign_review_file(project / "entries" / "copy.md", name, key, day, author)
