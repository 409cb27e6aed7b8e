"""Results store: versioned files, atomic writes, failures that never replace good data."""

from __future__ import annotations

import json

import pytest

from measure import results, store


ENV = {"gpu": "NVIDIA H200", "captured_at": "2026-11-29T12:00:00Z"}


def good(device="nvidia-h200", fingerprint="sha256:a"):
    """A result the model accepts, for the entry whose folder is named "t"."""
    return {"entry": "t", "device": device, "status": "ok", "provenance": "measured",
            "fingerprint": fingerprint, "environment": ENV, "method": {"statistic": "mean"}, "sizes": []}


def test_device_key():
    assert store.device_key("NVIDIA H200") == "nvidia-h200"
    assert store.device_key("Tesla T4") == "tesla-t4"


def test_round_trip_and_format(tmp_path):
    folder = tmp_path / "t"
    path = store.record_success(folder, good())
    data = store.load_file(path)
    assert data.format == store.RESULT_FORMAT and data.plain() == dict(good(), format=store.RESULT_FORMAT)
    assert {k: r.plain() for k, r in store.load_results(folder).items()} == {"nvidia-h200": data.plain()}
    assert not list(path.parent.glob("*.tmp"))


def test_failure_keeps_good_result(tmp_path):
    folder = tmp_path / "t"
    store.record_success(folder, good())
    store.record_failure(folder, {"device": "nvidia-h200", "fingerprint": "sha256:b", "error": "wrong result"})
    data = store.load_results(folder)["nvidia-h200"]
    assert data.status == "ok" and data.fingerprint == "sha256:a"
    assert data.last_failure.error == "wrong result"


def test_failure_without_good_result_is_recorded_as_failed(tmp_path):
    folder = tmp_path / "t"
    store.record_failure(folder, {"entry": "t", "device": "nvidia-h200", "provenance": "measured",
                                  "fingerprint": "sha256:b", "error": "boom", "environment": ENV})
    data = store.load_results(folder)["nvidia-h200"]
    assert data.status == "failed" and data.error == "boom"


def test_other_format_is_refused_with_advice(tmp_path):
    path = tmp_path / "results" / "x.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"format": 99}))
    with pytest.raises(store.StoreError, match="upgrade the glossary package"):
        store.load_results(tmp_path)
    path.write_text(json.dumps({"format": 0}))
    with pytest.raises(store.StoreError, match="glossary measure --all"):
        store.load_results(tmp_path)


def test_nan_is_never_written(tmp_path):
    bad = good()
    bad["sizes"] = [{"x": float("nan")}]
    with pytest.raises(ValueError):
        store.record_success(tmp_path, bad)
    assert not (tmp_path / "results" / "nvidia-h200.json").exists()


def test_fingerprint_covers_sources_and_spec_but_not_labels():
    spec = {"variants": [{"name": "a", "label": "A"}], "sizes": [{"n": 1}], "claims": []}
    base = results.fingerprint(results.measured_part(spec), {"k.cu": b"x"})
    relabelled = dict(spec, variants=[{"name": "a", "label": "Another"}], claims=[{"kind": "x"}])
    assert results.fingerprint(results.measured_part(relabelled), {"k.cu": b"x"}) == base
    assert results.fingerprint(results.measured_part(spec), {"k.cu": b"y"}) != base
    assert results.fingerprint(results.measured_part(dict(spec, sizes=[{"n": 2}])), {"k.cu": b"x"}) != base
    assert results.fingerprint(results.measured_part(spec), {"k.cu": b"x"}, harness_version="0") != base
