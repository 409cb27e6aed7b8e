"""The spec expresses more than one chain: coalescing, the roofline and launch overhead.

Fixture entries under tests/fixtures/shapes/ validate and compile on the CPU; on a GPU
they are measured for real at small sizes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from glossary.entries.model import load_entries
from glossary.entries.model import measurement_fingerprint
from measure.harness import compile as nvcc

SHAPES = Path(__file__).resolve().parent / "fixtures" / "shapes"


@pytest.fixture(scope="module")
def shapes():
    return load_entries(SHAPES)


def test_every_shape_validates(shapes):
    assert set(shapes) == {"coalescing", "roofline", "launch-overhead"}
    coalescing = shapes["coalescing"].meta.measure
    assert coalescing.variant("strided").useful_bytes == 8 and coalescing.variant("strided").bytes_per_elem == 64
    assert shapes["roofline"].meta.measure.variant("poly64").flops_per_elem == 128
    overhead = shapes["launch-overhead"].meta.measure
    assert overhead.timing.clock == "host" and not overhead.timing.blocking
    assert overhead.variant("many").launches[0].repeat == 256


@pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
@pytest.mark.parametrize("slug", ["coalescing", "roofline", "launch-overhead"])
def test_shape_kernels_compile(shapes, slug, tmp_path):
    entry = shapes[slug]
    spec = entry.meta.measure
    for arch in spec.archs:
        for source in spec.sources:
            out = nvcc.compile_cubin(spec, entry.folder / source, arch, tmp_path / f"{slug}.{arch}.cubin")
            assert out.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("slug", ["coalescing", "roofline", "launch-overhead"])
def test_shape_measures_on_the_gpu(shapes, slug, tmp_path):
    from measure import harness

    entry = shapes[slug]
    result = harness.measure_entry(slug, entry.folder, entry.meta.measure, measurement_fingerprint(entry), progress=print)
    json.dumps(result, allow_nan=False)
    size = result["sizes"][-1]
    ms = {name: v["stats"][result["method"]["statistic"]] for name, v in size["variants"].items()}
    print(slug, ms, "copy floor", size["copy_floor"]["gbps"])
    if slug == "coalescing":
        assert ms["strided"] > ms["contiguous"]  # a warp's loads spread over 32 rows
    elif slug == "roofline":
        assert size["variants"]["poly64"]["flops_per_elem"] == 128
    else:
        assert result["method"]["timer"] == "host-perf-counter" and result["method"]["blocking"] is False
        assert ms["many"] > ms["one"]  # 256 launches cost more host time than one
