"""The host side (issue 19), run for real on a GPU (marked gpu): pinned and pageable host buffers,
host-to-device, device-to-host and device-to-device copies, steps on several streams, a variant
replayed from a CUDA graph, the link floor and the host link; each checked for correctness before
it is timed.  A fixture entry of its own."""

import dataclasses
import json

import pytest

from measure import harness, results
from measure.spec import MeasureSpec
from measure.typed import load

pytestmark = pytest.mark.gpu

KERNELS = r"""
extern "C" __global__ void scale_range(const float* x, float* y, float s, long long off, long long count) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) y[off + i] = s * x[off + i];
}
"""

REFERENCE = """
def reference(variant, inputs, scalars, params):
    source = inputs["p_x"] if variant == "pageable" else inputs["h_x"]
    return {"h_y": scalars["s"] * source}
"""


def _spec(**timing):
    whole = {"kernel": "scale_range", "grid": ["ceil(n / 256)"], "block": [256], "args": ["x", "z", "s", "0", "n"]}
    chunk = "n // 4"
    return load(MeasureSpec, {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "buffers": {"h_x": {"role": "input", "location": "pinned"}, "p_x": {"role": "input", "location": "pageable"},
                    "x": {"role": "scratch"}, "z": {"role": "scratch"}, "y": {"role": "scratch"},
                    "h_y": {"role": "output", "location": "pinned"}},
        "scalars": {"s": 2.5},
        "variants": [
            {"name": "pinned", "label": "pinned in, kernel, device copy, pinned out", "bytes_per_elem": 8,
             "launches": [{"copy": "h_x", "to": "x"}, whole, {"copy": "z", "to": "y"}, {"copy": "y", "to": "h_y"}]},
            {"name": "pageable", "label": "pageable in", "bytes_per_elem": 8,
             "launches": [{"copy": "p_x", "to": "x"}, whole, {"copy": "z", "to": "h_y"}]},
            {"name": "chunks", "label": "four chunks on two streams", "bytes_per_elem": 8,
             "launches": [
                 {"copy": "h_x", "to": "x", "count": chunk, "src_offset": f"i * ({chunk})",
                  "dst_offset": f"i * ({chunk})", "repeat": 4, "stream": "s{i % 2}"},
                 {"kernel": "scale_range", "grid": [f"ceil(({chunk}) / 256)"], "block": [256],
                  "args": ["x", "z", "s", f"i * ({chunk})", chunk], "repeat": 4, "stream": "s{i % 2}"},
                 {"copy": "z", "to": "h_y", "count": chunk, "src_offset": f"i * ({chunk})",
                  "dst_offset": f"i * ({chunk})", "repeat": 4, "stream": "s{i % 2}"}]},
            {"name": "graph", "label": "the pinned steps, replayed from a graph", "bytes_per_elem": 8, "graph": True,
             "launches": [{"copy": "h_x", "to": "x"}, whole, {"copy": "z", "to": "h_y"}]},
        ],
        "sizes": [{"n": 1 << 22}], "headline": {"n": 1 << 22}, "counters": False,
        # a pageable copy keeps the host waiting, so no blocking kernel (the spec refuses one)
        "timing": {"warmups": 1, "runs": 5, "max_runs": 8, "blocking": False, **timing}})


def _write(tmp_path, name, kernels):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "k.cu").write_text(kernels)
    (folder / "reference.py").write_text(REFERENCE)
    return folder


def test_copies_streams_and_graphs_are_checked_and_timed(tmp_path):
    folder = _write(tmp_path, "host", KERNELS)
    result = harness.measure_entry("host", folder, _spec(clock="both"), "sha256:test", progress=print)
    json.dumps(result, allow_nan=False)
    results.parse_measured(result)
    env = result["environment"]
    assert env["host_link"]["kind"] in ("pcie", "nvlink-c2c", "unknown")
    print("host link:", env["host_link"], "pinned limit:", env["pinned_limit_bytes"])
    size = result["sizes"][0]
    link = size["link_floor"]
    assert link["h2d_gbps"] > 1 and link["d2h_gbps"] > 1
    n = size["params"]["n"]
    v = size["variants"]
    assert v["pinned"]["copy_bytes"] == {"h2d": 4 * n, "d2d": 4 * n, "d2h": 4 * n}
    assert [c["direction"] for c in v["pinned"]["copies"]] == ["h2d", "d2d", "d2h"]
    assert v["chunks"]["streams"] == 2 and v["chunks"]["copy_bytes"] == {"h2d": 4 * n, "d2h": 4 * n}
    assert v["chunks"]["overlap"]["serial_ms"] > 0 and v["chunks"]["overlap"]["fraction"] < 1
    graph = v["graph"]["graph"]
    assert graph["nodes"] == 3 and graph["host_launch_us"] > 0 and graph["instantiate_ms"] >= 0
    st = result["method"]["statistic"]
    print({name: round(var["stats"][st], 4) for name, var in v.items()}, "link", link,
          "overlap", v["chunks"]["overlap"]["fraction"], "graph", graph)


@pytest.mark.parametrize("variant", ["pinned", "pageable", "chunks", "graph"])
def test_a_wrong_element_is_caught_however_the_variant_runs(tmp_path, variant):
    wrong = KERNELS.replace("y[off + i] = s * x[off + i];", "if (off + i != 12345) y[off + i] = s * x[off + i];")
    folder = _write(tmp_path, "wrong", wrong)
    spec = _spec()
    only = dataclasses.replace(spec, variants=tuple(v for v in spec.variants if v.name == variant))
    with pytest.raises(harness.MeasurementError, match=rf"variant {variant}: output h_y is wrong in 1 of .* index 12345"):
        harness.measure_entry("wrong", folder, only, "x", progress=lambda s: None)
