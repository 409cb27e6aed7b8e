"""Issue 33, on the CPU: managed buffers with prefetch and advise steps, cluster launches, tensor maps
and L2 windows load from a spec, and each is refused at load time with its reason where the spec
asks for what a claimed arch or the node cannot give.  The behaviour on the GPU is in
tests/test_issue33_hopper_gpu.py."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import pytest

from measure.harness.errors import MeasurementError
from measure.results.identity import canonical
from measure.spec import MeasureSpec, working_set_bytes
from measure.spec.budget import host_buffer_bytes
from measure.spec.hopper import requirements, step_buffers
from measure.typed import SchemaError, load

import real_glossary

N = 1 << 22
ENTRIES = Path(__file__).resolve().parents[1] / "entries"


def managed_data() -> dict:
    return {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_80", "sm_90"],
        "sizes": [{"n": N}], "headline": {"n": N}, "timing": {"blocking": False},
        "buffers": {"x": {"role": "input", "location": "managed"}, "y": {"role": "output"}},
        "variants": [
            {"name": "resident", "label": "resident", "bytes_per_elem": 8, "resident": {"x": "device"},
             "launches": [{"kernel": "k", "grid": ["n // 256"], "block": [256], "args": ["x", "y", "n"]}]},
            {"name": "prefetch", "label": "prefetch", "bytes_per_elem": 12,
             "launches": [{"prefetch": "x", "location": "device"},
                          {"kernel": "k", "grid": ["n // 256"], "block": [256], "args": ["x", "y", "n"]}]},
            {"name": "advised", "label": "advised", "bytes_per_elem": 12,
             "launches": [{"advise": "x", "advice": "read_mostly"},
                          {"advise": "x", "advice": "accessed_by", "location": "device"},
                          {"kernel": "k", "grid": ["n // 256"], "block": [256], "args": ["x", "y", "n"]}]},
        ],
    }


def hopper_data() -> dict:
    return {
        "sources": ["k.cu"], "reference": "reference.py", "archs": ["sm_90"],
        "sizes": [{"rows": 1024, "cols": 1024}], "headline": {"rows": 1024, "cols": 1024}, "elements": "rows * cols",
        "buffers": {"a": {"role": "input", "size": "rows * cols"}, "b": {"role": "output", "size": "rows * cols"},
                    "t": {"role": "input", "size": "cols"}},
        "tensor_maps": {"a_tiles": {"buffer": "a", "dims": ["cols", "rows"], "box": [64, 64]},
                        "b_tiles": {"buffer": "b", "dims": ["cols", "rows"], "box": [64, 64]}},
        "variants": [
            {"name": "tma", "label": "tma", "bytes_per_elem": 8,
             "launches": [{"kernel": "copy_tma", "grid": ["cols // 64", "rows // 64"], "block": [32],
                           "args": ["a_tiles", "b_tiles"]}]},
            {"name": "cluster", "label": "cluster", "bytes_per_elem": 8,
             "launches": [{"kernel": "ex", "grid": ["rows * cols // 1024"], "block": [256], "cluster": [4],
                           "args": ["a", "b"]}]},
            {"name": "window", "label": "window", "bytes_per_elem": 8, "l2_window": {"buffer": "t", "hit_ratio": 0.5},
             "launches": [{"kernel": "ex", "grid": ["rows * cols // 1024"], "block": [256], "args": ["a", "b"]}]},
        ],
    }


def refused(data: dict, key_part: str, words: str) -> SchemaError:
    with pytest.raises(SchemaError) as err:
        load(MeasureSpec, data, key="measure")
    assert key_part in err.value.key, err.value
    assert words in str(err.value), err.value
    return err.value


# -- managed buffers ------------------------------------------------------------------------------

def test_managed_buffers_prefetch_and_advice_load():
    spec = load(MeasureSpec, managed_data())
    assert spec.buffers["x"].location == "managed"
    assert spec.variant("resident").resident == {"x": "device"}
    steps = spec.variant("advised").launches
    assert [s.label for s in steps[:2]] == ["advise x read_mostly", "advise x accessed_by device"]
    assert spec.variant("prefetch").launches[0].label == "prefetch x -> device"
    assert step_buffers(spec, spec.variant("prefetch").launches[0]) == {"x"}
    # A managed buffer sits on the device when the kernels run: it is in the working set, not a host buffer.
    assert working_set_bytes(spec, {"n": N}) == 8 * N
    assert host_buffer_bytes(spec, {"n": N}) == {}


@pytest.mark.parametrize("change, key, words", [
    (lambda d: d["variants"][1]["launches"][0].update(prefetch="y"), "launches[0].prefetch", "expected a managed buffer"),
    (lambda d: d["variants"][0].update(resident={"y": "device"}), "resident.y", "only a managed buffer"),
    (lambda d: d["variants"][1]["launches"].insert(0, {"copy": "x", "to": "y"}), "launches[0].copy",
     "takes no copy step"),
    (lambda d: d["variants"][1]["launches"][0].pop("location"), "launches[0].location", "where the pages go"),
    (lambda d: d["variants"][2]["launches"][0].update(location="device"), "launches[0].location",
     "takes no location"),
    (lambda d: d["variants"][2]["launches"][1].pop("location"), "launches[1].location", "names a processor"),
    (lambda d: d["variants"][2]["launches"][0].update(repeat=4), "launches[0].repeat", "runs once"),
    (lambda d: d["variants"][2]["launches"][0].update(advice="read_rarely"), "launches[0].advice", "expected one of"),
    (lambda d: d["variants"][2].update(graph=True), "variants[2].graph", "cannot hold an advise step"),
    (lambda d: d["variants"][1]["launches"][0].update(kernel="k"), "launches[0].kernel", "not both"),
    (lambda d: d.update(archs=["sm_52", "sm_90"]), "archs", "sm_52 lacks them"),
    (lambda d: d.update(sizes=[{"n": 3 << 30}], headline={"n": 3 << 30}), "buffers.x", "more than the 8.0 GiB"),
])
def test_managed_mistakes_are_refused_with_the_reason(change, key, words):
    data = managed_data()
    change(data)
    refused(data, key, words)


def test_managed_memory_past_half_the_free_device_memory_is_refused_before_allocation():
    from measure.harness.unified import managed_shortfall
    spec = load(MeasureSpec, managed_data())
    sizes = {"x": 4 * N, "y": 4 * N}
    assert managed_shortfall(spec, sizes, free=8 * 4 * N, label="n = 4,194,304") is None
    message = managed_shortfall(spec, sizes, free=6 * N, label="n = 4,194,304")
    assert message is not None and "managed memory" in message and "Nothing was allocated" in message


# -- clusters, tensor maps, L2 windows -------------------------------------------------------------

def test_clusters_tensor_maps_and_windows_load():
    spec = load(MeasureSpec, hopper_data())
    assert spec.variant("cluster").launches[0].cluster == (4,)
    assert spec.tensor_maps["a_tiles"].box == (64, 64)
    assert spec.variant("window").l2_window.hit_ratio == 0.5
    # The tensor maps' buffers are the TMA launch's: its output b is checked like any other.
    assert step_buffers(spec, spec.variant("tma").launches[0]) == {"a", "b"}
    assert requirements(spec, "sm_90") == []
    words = requirements(spec, "sm_80")
    assert any("thread-block clusters" in w and "need sm_90" in w for w in words)
    assert any("tensor maps (the tensor memory accelerator)" in w for w in words)
    assert not any("L2 access-policy windows" in w for w in words)  # windows exist since sm_80
    assert any("L2 access-policy windows" in w for w in requirements(spec, "sm_75"))


@pytest.mark.parametrize("change, key, words", [
    (lambda d: d.update(archs=["sm_80", "sm_90"]), "", "need sm_90 or newer; sm_80 lacks them"),
    (lambda d: d["variants"][1]["launches"][0].update(cluster=[16]), "launches[0].cluster", "1 to 8 blocks"),
    (lambda d: d["variants"][1]["launches"][0].update(cluster=[3]), "launches[0].cluster", "clusters must tile"),
    (lambda d: d["variants"][1]["launches"][0].update(cluster=[2, 2]), "launches[0].cluster",
     "one cluster extent per grid dimension"),
    (lambda d: d["variants"][1]["launches"][0].update(cluster=["blocks"]), "cluster[0]", "unknown name"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(box=[512, 64]), "box[0]", "1 to 256"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(box=[3, 64]), "box[0]", "multiple of 16"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(box=[64, 64], swizzle="128B"), "box[0]", "swizzle spans"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(dims=["cols", "rows * 2"]), "tensor_maps.a_tiles.dims",
     "holds 1,048,576"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(dims=["cols + 1", "rows - 1"]), "tensor_maps.a_tiles.dims[0]",
     "multiple of 16"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(box=[64]), "box", "one box extent per dimension"),
    (lambda d: d["tensor_maps"]["a_tiles"].update(buffer="nope"), "tensor_maps.a_tiles.buffer", "expected a buffer"),
    (lambda d: (d["buffers"].update(h={"role": "input", "location": "pinned", "size": "rows * cols"}),
                d["tensor_maps"]["a_tiles"].update(buffer="h")), "tensor_maps.a_tiles.buffer", "reads device memory"),
    (lambda d: d["tensor_maps"].update(t={"buffer": "a", "dims": ["cols"], "box": [64]}), "tensor_maps.t",
     "names a buffer or a scalar"),
    (lambda d: d["variants"][2]["l2_window"].update(hit_ratio=1.5), "hit_ratio", "at most 1"),
    (lambda d: d["variants"][2]["l2_window"].update(buffer="x"), "l2_window.buffer", "expected a device buffer"),
    (lambda d: d["variants"][2].update(graph=True), "l2_window", "not captured in a graph"),
    (lambda d: d["variants"][2]["launches"][0].update(stream="s1"), "l2_window", "main stream"),
    (lambda d: d["variants"][2]["l2_window"].update(bytes="cols * nope"), "l2_window.bytes", "unknown name"),
])
def test_hopper_mistakes_are_refused_with_the_reason(change, key, words):
    data = hopper_data()
    change(data)
    refused(data, key, words)


def test_a_window_alone_is_refused_below_sm_80():
    data = hopper_data()
    data.update(archs=["sm_75"], tensor_maps={})
    data["variants"] = [data["variants"][2]]
    refused(data, "variants[0].l2_window", "L2 access-policy windows (persistence) need sm_80 or newer; sm_75 lacks")


def test_the_refusal_names_the_key_of_the_feature_the_arch_lacks():
    data = hopper_data()
    data.update(archs=["sm_80"], tensor_maps={})
    data["variants"] = [data["variants"][2], data["variants"][1]]  # a window first (fine on sm_80), then a cluster
    refused(data, "variants[1].launches[0].cluster", "thread-block clusters (and their distributed shared memory) need sm_90")


def test_a_device_without_the_feature_fails_the_measurement_with_the_reason():
    from measure.harness.hopper import require
    spec = load(MeasureSpec, hopper_data())
    gpu = SimpleNamespace(arch="sm_80", name="NVIDIA A100-SXM4-80GB")
    with pytest.raises(MeasurementError) as err:
        require(spec, gpu)
    assert "NVIDIA A100-SXM4-80GB (sm_80) cannot run this entry" in str(err.value)
    assert "thread-block clusters" in str(err.value) and "sm_90" in str(err.value)
    require(spec, SimpleNamespace(arch="sm_90", name="NVIDIA H200"))  # no managed buffer: nothing else asked


# -- the existing entries and the four new ones ----------------------------------------------------

NEW_KEYS = ("tensor_maps", "resident", "l2_window", "cluster", "prefetch", "advise", "advice", "location")


def _keys(value, out: set) -> set:
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            _keys(v, out)
    elif isinstance(value, list):
        for v in value:
            _keys(v, out)
    return out


def test_no_existing_spec_gains_a_key_so_no_fingerprint_moves():
    entries = real_glossary.entries()
    for slug, entry in entries.items():
        spec = entry.meta.measure
        if spec is None or slug in NEW_ENTRIES:
            continue
        keys = _keys(canonical(spec), set())
        assert not keys & {"tensor_maps", "resident", "l2_window", "cluster", "prefetch", "advise", "advice"}, slug
        # "location" is a buffer's key already; the steps' location is unset everywhere
        assert all(s.location is None for v in spec.variants for s in v.launches), slug


NEW_ENTRIES = ("unified-memory", "thread-block-clusters", "tensor-memory-accelerator", "l2-persistence")


def test_the_four_new_entries_use_what_they_are_about():
    entries = real_glossary.entries()
    um = entries["unified-memory"].meta.measure
    assert um.buffers["x"].location == "managed" and um.variant("resident").resident == {"x": "device"}
    assert [s.prefetch for s in um.variant("prefetch").launches][0] == "x"
    assert um.variant("read_mostly").launches[0].advice == "read_mostly"
    assert any(c.expected_failure for c in um.claims)
    tbc = entries["thread-block-clusters"].meta.measure
    assert tbc.variant("dsmem").launches[0].cluster == (4,) and tbc.archs == ("sm_90",)
    tma = entries["tensor-memory-accelerator"].meta.measure
    assert set(tma.tensor_maps) == {"a_tiles", "b_tiles"} and tma.archs == ("sm_90",)
    l2 = entries["l2-persistence"].meta.measure
    assert l2.variant("window").l2_window.buffer == "table" and l2.variant("plain").l2_window is None
    for slug in NEW_ENTRIES:
        meta = entries[slug].meta
        assert meta.author == "pending" and meta.reviewer == "pending"


def test_claiming_sm_80_for_the_cluster_entry_is_refused():
    entries = real_glossary.entries()
    spec = entries["thread-block-clusters"].meta.measure
    data = copy.deepcopy(canonical(spec))
    data["archs"] = ["sm_80", "sm_90"]
    refused(data, "variants[1].launches[0].cluster", "sm_80 lacks them")


# -- CUPTI's unified-memory counters, read through a stand-in library --------------------------------

class _FakeCupti:
    """Enough of libcupti for the counters: callbacks registered, records written on a flush."""

    RECORD = 104  # CUpti_ActivityUnifiedMemoryCounter3

    def __init__(self, records):
        self.records, self.request, self.complete = records, None, None

    def cuptiActivityConfigureUnifiedMemoryCounter(self, configs, count):
        self.configured = [(c.kind, c.enable) for c in configs]
        return 0

    def cuptiActivityRegisterCallbacks(self, request, complete):
        self.request, self.complete = request, complete
        return 0

    def cuptiActivityEnable(self, kind):
        return 0 if kind.value == 25 else 1

    cuptiActivityDisable = cuptiActivityEnable

    def cuptiActivityFlushAll(self, flag):
        import ctypes
        if not self.records:
            return 0
        buffer, size, most = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_size_t()
        self.request(ctypes.byref(buffer), ctypes.byref(size), ctypes.byref(most))
        for i, (kind, counter, value) in enumerate(self.records):
            base = buffer.value + i * self.RECORD
            words = ctypes.cast(base, ctypes.POINTER(ctypes.c_uint32))
            words[0], words[1] = kind, counter
            ctypes.cast(base + 8, ctypes.POINTER(ctypes.c_uint64))[0] = value
        self.complete(None, 0, buffer.value, size.value, len(self.records) * self.RECORD)
        self.records = []
        return 0

    def cuptiActivityGetNextRecord(self, buffer, valid, record):
        import ctypes
        slot = ctypes.cast(record, ctypes.POINTER(ctypes.c_void_p))
        nxt = buffer.value if not slot[0] else slot[0] + self.RECORD
        if nxt >= buffer.value + valid.value:
            return 3  # CUPTI_ERROR_MAX_LIMIT_REACHED
        slot[0] = nxt
        return 0


def test_unified_memory_counters_add_up_the_records(monkeypatch):
    from measure.harness import uvm_counters
    fake = _FakeCupti([(25, 2, 1 << 30)])  # the reset's migration back to the host: not the variant's

    def run():
        fake.records = [(25, 4, 7), (25, 1, 65536), (25, 1, 4096), (10, 4, 999), (25, 2, 12)]
    monkeypatch.setattr(uvm_counters, "_library", lambda: fake)
    counters, why = uvm_counters.open_counters()
    assert why is None
    counts, why = uvm_counters.count_variants(counters, {"fault": (lambda: None, run)})
    assert why is None
    assert sorted(k for k, _ in fake.configured) == [1, 2, 3, 4]
    # The run's records are summed by counter; a record of another kind (10) is not counted.
    assert counts == {"fault": {"bytes_htod": 69632, "bytes_dtoh": 12, "cpu_page_faults": 0, "gpu_page_faults": 7}}


def test_no_records_at_all_is_no_count_not_zero_faults(monkeypatch):
    """Seen on the H200 node: CUPTI enabled, nothing delivered, every count 0 while the faulting
    variant ran far slower than the resident one. No record for any variant records no counts."""
    from measure.harness import uvm_counters
    fake = _FakeCupti([(25, 2, 1 << 30)])  # only the reset's migration, which is not counted
    monkeypatch.setattr(uvm_counters, "_library", lambda: fake)
    counts, why = uvm_counters.count_variants(uvm_counters.open_counters()[0],
                                              {"fault": (lambda: None, lambda: None),
                                               "resident": (lambda: None, lambda: None)})
    assert counts == {}
    assert "no unified-memory counter records" in why


def test_without_cupti_the_counts_say_why(monkeypatch):
    from measure.harness import uvm_counters

    def missing():
        raise uvm_counters.CountersUnavailable("libcupti was not found")
    monkeypatch.setattr(uvm_counters, "_library", missing)
    assert uvm_counters.open_counters() == (None, "libcupti was not found")


def test_a_cpu_fault_record_counts_one_fault_not_its_address(monkeypatch):
    """A CPU page-fault record's value is the faulting instruction's address (cupti_activity.h): each
    record is one fault."""
    from measure.harness import uvm_counters
    fake = _FakeCupti([])

    def run():
        fake.records = [(25, 3, 0x7F12_3456_7890), (25, 3, 0x7F12_3456_7898), (25, 4, 3)]
    monkeypatch.setattr(uvm_counters, "_library", lambda: fake)
    counts, _ = uvm_counters.count_variants(uvm_counters.open_counters()[0], {"touch": (lambda: None, run)})
    assert counts["touch"]["cpu_page_faults"] == 2
    assert counts["touch"]["gpu_page_faults"] == 3


def test_the_unified_memory_pass_fills_the_headline_variants_only():
    """The counts come from a process of their own (CUPTI enabled before its context); each headline
    variant gets its counts, or why none, and every other size nothing."""
    from measure.harness.uvm_pass import attach_unified_memory
    spec = real_glossary.entries()["unified-memory"].meta.measure
    headline = dict(spec.headline)
    names = [v.name for v in spec.measured_variants]
    sizes = [{"params": {k: v // 2 for k, v in headline.items()}, "variants": {n: {} for n in names}},
             {"params": headline, "variants": {n: {} for n in names}}]
    asked, lines = [], []

    def count(entry_dir, got_spec, params):
        asked.append(params)
        return {names[0]: {"gpu_page_faults": 5, "bytes_htod": 4096, "bytes_dtoh": 0, "cpu_page_faults": 0}}, None
    attach_unified_memory("unified-memory", ENTRIES / "unified-memory", spec, sizes, lines.append, count=count)
    assert asked == [headline]
    assert sizes[0]["variants"] == {n: {} for n in names}
    assert sizes[1]["variants"][names[0]]["unified_memory"]["gpu_page_faults"] == 5
    assert sizes[1]["variants"][names[1]]["unified_memory"] == {"unavailable": "not counted"}
    assert any("5 GPU faults" in line for line in lines)

    def refused(entry_dir, got_spec, params):
        return {}, "libcupti was not found"
    attach_unified_memory("unified-memory", ENTRIES / "unified-memory", spec, sizes, lines.append, count=refused)
    assert all(v["unified_memory"] == {"unavailable": "libcupti was not found"} for v in sizes[1]["variants"].values())


def test_the_unified_memory_pass_says_why_when_its_process_fails(monkeypatch, tmp_path):
    import subprocess
    from measure.harness import uvm_pass
    spec = real_glossary.entries()["unified-memory"].meta.measure
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: SimpleNamespace(returncode=1, stdout="",
                                                                           stderr="cuInit failed: no device"))
    counts, why = uvm_pass.count_unified_memory(tmp_path, spec, dict(spec.headline))
    assert counts == {} and "exited 1" in why and "no device" in why
