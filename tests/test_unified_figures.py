"""Issue 33 on the page: the unified-memory counts a result records (CUPTI, one untimed run per
variant) bind as fig.page_faults and fig.migrated, and say why where there are none.  A FIXTURE entry
with hand-built results (test data, never published figures), in a project of its own."""

from __future__ import annotations

import pytest

from page_fixture import fixture_entry, fixture_view, write_fixture
from glossary.figures import bind

SLUG = "managed-fixture"
N = 1 << 24

ENTRY = """\
---
title: Managed fixture
summary: A fixture entry whose input is a managed buffer, faulted in or prefetched.
measure:
  sources: [k.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 16777216}]
  headline: {n: 16777216}
  timing: {blocking: false}
  counters: false
  buffers:
    x: {role: input, location: managed}
    y: {role: output}
  variants:
    - name: fault
      label: first touch
      bytes_per_elem: 12
      launches: [{kernel: k, grid: ["n // 256"], block: [256], args: [x, y, n]}]
    - name: prefetch
      label: prefetch
      bytes_per_elem: 12
      launches:
        - {prefetch: x, location: device}
        - {kernel: k, grid: ["n // 256"], block: [256], args: [x, y, n]}
---
Body.
"""
KERNEL = 'extern "C" __global__ void k(const float* x, float* y, long long n) {}\n'
REFERENCE = "def reference(variant, inputs, scalars, params):\n    return {'y': inputs['x']}\n"
COUNTS = {"fault": {"bytes_htod": 4 * N, "bytes_dtoh": 0, "gpu_page_faults": 1234, "cpu_page_faults": 0},
          "prefetch": {"unavailable": "cuptiActivityConfigureUnifiedMemoryCounter returned 27"}}


def _result() -> dict:
    def variant(name: str, ms: float) -> dict:
        return {"bytes_per_elem": 12, "samples_ms": [ms] * 5, "launches": 1 if name == "fault" else 2,
                "stats": {"n": 5, "mean": ms, "median": ms, "min": ms, "max": ms, "stdev": 0.0},
                "unified_memory": COUNTS[name]}
    env = {"gpu": "Fixture GPU", "captured_at": "2026-12-02", "arch": "sm_90", "l2_bytes": 50 << 20, "sm_count": 132,
           "driver": "999.1", "cuda_driver": "13.0", "nvcc": "V13.0.1", "compile_command": "nvcc k.cu"}
    size = {"params": {"n": N}, "elements": N, "working_set_bytes": 8 * N, "copy_floor": {"gbps": 4000.0},
            "sampling": {"samples": 5}, "variants": {"fault": variant("fault", 40.0), "prefetch": variant("prefetch", 9.0)}}
    return {"format": 1, "entry": SLUG, "device": "fixture-gpu", "status": "ok", "provenance": "measured",
            "fingerprint": "x", "environment": env, "method": {"statistic": "mean", "warmups": 1, "runs": 5},
            "sizes": [size]}


@pytest.fixture(scope="module")
def entry(tmp_path_factory):
    project = write_fixture(tmp_path_factory.mktemp("managed"), SLUG, ENTRY, {"k.cu": KERNEL, "reference.py": REFERENCE},
                            _result())
    return fixture_entry(project, SLUG)


def test_page_faults_and_migrated_bytes_bind(entry):
    view = fixture_view(entry, SLUG, _result())
    spec = entry.meta.measure
    text, problems = bind.render_body('{{ fig.page_faults("fault") }}, {{ fig.migrated("fault") }}, '
                                      '{{ fig.migrated("fault", "d2h") }}', (view,), {}, spec.variants, spec=spec)
    assert problems == []
    assert "1,234 GPU page faults" in text and "64 MiB" in text


def test_without_counts_the_figure_says_why(entry):
    view = fixture_view(entry, SLUG, _result())
    spec = entry.meta.measure
    _, problems = bind.render_body('{{ fig.page_faults("prefetch") }} {{ fig.migrated("fault", "d2d") }}', (view,), {},
                                   spec.variants, spec=spec)
    assert problems == ["CUPTI gave no unified-memory counts for 'prefetch': "
                        "cuptiActivityConfigureUnifiedMemoryCounter returned 27",
                        "expected a direction, h2d or d2h, found 'd2d'"]
