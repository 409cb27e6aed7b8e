"""Scaffolds for `glossary new`: an entry page, a kernel stub and a reference stub.

The page's prose is marked ``TODO``, which the publish gate refuses (``glossary.verdicts.assess``),
and its author and reviewer are placeholders, so a scaffold can never be published as it is.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from glossary.entries.errors import EntryError
from glossary.entries.frontmatter import yaml_scalar
from glossary.entries.model import parse_entry

SCHEMA_HINT = "# yaml-language-server: $schema=../schema/entry.schema.json"


def slugify(term: str) -> str:
    """'Kernel Fusion' -> 'kernel-fusion'; 'L2 cache (residency)' -> 'l2-cache-residency'."""
    ascii_text = unicodedata.normalize("NFKD", term).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def page(term: str, slug: str) -> str:
    """The entry page of a new term: front-matter with TODO prose, placeholders for the people, a spec skeleton."""
    title = yaml_scalar(term)
    summary = yaml_scalar(f"TODO: one sentence that defines {term}.")
    return _SCAFFOLD_PAGE.format(hint=SCHEMA_HINT, title=title, summary=summary, slug=slug, term=term)


_SCAFFOLD_PAGE = """\
---
{hint}
title: {title}
summary: {summary}  # one sentence: shown under the title, in the index and in tooltips
related: []                # slugs of other entries, e.g. [kernel-fusion]; each must exist
tags: []
lessons: []                # "Where you meet this": - {{day: 48, title: Kernel fusion, note: why it matters here}}
sources: []                # - {{title: ..., url: "https://...", checked: YYYY-MM-DD}}
author: pending            # your real name: required to publish
written_on: null           # YYYY-MM-DD, when you finished writing
reviewer: pending          # written by `glossary sign {slug} --as NAME`: someone other than the author
reviewed_on: null          # written by `glossary sign`
review_fingerprint: null   # written by `glossary sign`: binds the review to this text, kernels and results
measure:                   # the measurement spec; delete this block for an entry without a Measured section
  sources: [{slug}.cu]     # CUDA files in entries/{slug}/
  reference: reference.py  # the float64 NumPy reference in entries/{slug}/
  reference_elementwise: true  # output i depends only on input i: checked in pieces (delete if not so)
  archs: [sm_75, sm_90]    # every architecture the kernels claim; CI compiles each
  sizes:                   # the working set must be well past the L2, or the numbers describe the cache
    - {{n: 67108864}}
  headline: {{n: 67108864}}  # the size the page leads with; one of sizes
  buffers:
    x: {{role: input}}
    y: {{role: output}}
  variants:
    - name: copy
      label: copy
      bytes_per_elem: 8    # the prediction: read x, write y, float32 each
      launches:
        - {{kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}}
  timing: {{warmups: 3, runs: 10, statistic: mean}}
---

TODO: what {term} is, in a paragraph a newcomer can follow.

TODO: why it matters for performance, and how to recognise it in a profile.
Never type a measured number here: bind each figure to the recorded results, and cite a
figure taken from a source with the entry's `sources` (see "Figures: measured, cited or
none" in docs/maintainers/writing-an-entry.md).
"""

_SCAFFOLD_KERNEL = """\
// Kernels measured by the "{term}" entry.  Declare each kernel extern "C" so the
// harness finds it by name; the spec's `launches` pass the arguments in this order
// (integer expressions such as n arrive as long long: index_type int64).
extern "C" __global__ void copy(const float* __restrict__ x, float* __restrict__ y, long long n)
{{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) {{
        y[i] = x[i];
    }}
}}
"""

_SCAFFOLD_REFERENCE = '''\
"""Float64 reference for the "{term}" entry: what each variant's outputs must equal."""

import numpy as np


def reference(variant, inputs, scalars, params):
    """Outputs by buffer name, as float64 arrays, for one variant at one size."""
    return {{"y": np.asarray(inputs["x"], dtype=np.float64)}}
'''


def kernel(term: str) -> str:
    """The kernel stub: a working copy kernel the spec skeleton measures."""
    return _SCAFFOLD_KERNEL.format(term=term)


def reference(term: str) -> str:
    """The float64 reference stub for the copy kernel."""
    return _SCAFFOLD_REFERENCE.format(term=term)


class ScaffoldError(Exception):
    """No scaffold was written; the message says why."""


def create(entries_dir: Path, term: str) -> list[Path]:
    """Write the scaffold of ``term`` into ``entries_dir``: the page first, then its kernel and reference.
    Refuses to overwrite anything; the page is parsed back, so a scaffold always loads."""
    term = " ".join(term.split())
    slug = slugify(term)
    if not slug:
        raise ScaffoldError(f"cannot make a file name from {term!r}; use letters or digits")
    page_path, folder = entries_dir / f"{slug}.md", entries_dir / slug
    taken = [str(p) for p in (page_path, folder) if p.exists()]
    if taken:
        raise ScaffoldError(f"{' and '.join(taken)} already exist(s); refusing to overwrite. "
                            f"Edit the entry, or choose another term.")
    files = {page_path: page(term, slug), folder / f"{slug}.cu": kernel(term), folder / "reference.py": reference(term)}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    try:
        parse_entry(page_path, entries_dir)
    except EntryError as err:  # a scaffold that does not parse is a bug here, not the author's
        raise ScaffoldError(f"the scaffold does not parse ({err}); please report this") from None
    return list(files)
