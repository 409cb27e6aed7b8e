"""Issue 32, item 7 (formatting): parameters read as a reader writes them, through the one
formatter, in claims and on the page: 'n = 4,194,304', a GEMM's size '4096 × 4096 × 4096'."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from repository_build import render

from glossary.figures import fmt

ROOT = Path(__file__).resolve().parent.parent


def test_params_are_written_as_a_reader_writes_them():
    assert fmt.params({"n": 4194304}) == "n = 4,194,304"
    assert fmt.params({"chunk": 1024}) == "chunk = 1,024"
    assert fmt.params({"chunk": 1024, "n": 4194304}) == "chunk = 1,024 and n = 4,194,304"
    assert fmt.params({"a": 1, "b": 2, "c": 3}) == "a = 1, b = 2 and c = 3"
    assert fmt.params({"m": 4096, "n": 4096, "k": 4096}) == "4096 × 4096 × 4096"
    assert fmt.params({"rows": 8192, "cols": 8192}) == "8192 × 8192"
    assert fmt.params({"n": 8, "m": 4, "k": 2}) == "n = 8, m = 4 and k = 2"  # not m, n, k: no shape implied


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return {slug: render(slug) for slug in ("tensor-cores", "cuda-graphs", "pinned-memory", "kernel-fusion")}


# "name=123" with no spaces, as a program prints it (compile flags such as -maxrregcount=32 aside)
_RAW = re.compile(r"(?<![-\w])(?:n|m|k|chunk|rows|cols)=\d")


@pytest.mark.parametrize("slug", ["tensor-cores", "cuda-graphs", "pinned-memory", "kernel-fusion"])
def test_no_parameter_is_written_as_a_program_prints_it(pages, slug):
    found = _RAW.findall(pages[slug])
    assert not found, f"{slug}: {found[:5]}"


def test_gemm_sizes_read_as_dimensions(pages):
    page = pages["tensor-cores"]
    assert "4096 × 4096 × 4096" in page
    # its size is 4096 × 4096 × 4096, not an element count: in the figures' hover titles and the tables
    assert not re.findall(r'title="[^"]*16,777,216 elements', page)
    assert "Kernel attributes at 4096 × 4096 × 4096" in page
    assert "about chunk = 1,024 only" in pages["cuda-graphs"]
