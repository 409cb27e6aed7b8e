"""Results store under crashes and concurrent writers (issue 7).

A writer killed with SIGKILL in the middle of a write leaves the previous complete
file; two writers at once lose nothing (the flock on results/.lock is held across
record_failure's read-modify-write).
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from measure import store

ROOT = Path(__file__).resolve().parent.parent


def result(folder, seq, width):
    """A result the model accepts, for the entry of ``folder``; ``seq`` rides in its fingerprint."""
    return {"entry": folder.name, "device": "gpu", "status": "ok", "provenance": "measured",
            "fingerprint": f"sha256:seq{seq}", "method": {"statistic": "mean"},
            "environment": {"gpu": "GPU", "captured_at": "2026-11-29T12:00:00Z"},
            "sizes": [{"params": {"n": width}, "elements": width,
                       "variants": {"v": {"bytes_per_elem": 8, "samples_ms": [0.5] * width, "stats": {"mean": 0.5}}}}]}


RESULT = inspect.getsource(result)  # the writer processes define it too

WRITER = textwrap.dedent("""\
    import sys
    from pathlib import Path
    from measure import store
    """) + RESULT + textwrap.dedent("""\

    folder, mode, count, width = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    for seq in range(count):
        if mode == "success":
            store.record_success(folder, result(folder, seq, width))
        else:
            store.record_failure(folder, {"device": "gpu", "fingerprint": "sha256:b", "error": f"boom {seq}"})
    """)


def _writer(folder: Path, mode: str, count: int, width: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", WRITER, str(folder), mode, str(count), str(width)], env=env)


def _seq(folder: Path) -> int:
    return int(store.load_results(folder)["gpu"].fingerprint.removeprefix("sha256:seq"))


STALLED_WRITER = textwrap.dedent("""\
    import os, sys, time
    from pathlib import Path
    from measure import store
    """) + RESULT + textwrap.dedent("""\

    folder, marker = Path(sys.argv[1]), Path(sys.argv[2])
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        # The first record's two fsyncs (file, folder) go through; the second record's data is
        # written to its temporary file, and here the writer stalls until it is killed.
        calls.append(fd)
        if len(calls) > 2:
            marker.write_text("mid-write")
            time.sleep(600)
        real_fsync(fd)

    os.fsync = fsync
    for seq in range(2):
        store.record_success(folder, result(folder, seq, 200_000))
    """)


def test_sigkill_mid_write_keeps_previous_results(tmp_path):
    folder, marker = tmp_path / "entry", tmp_path / "marker"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", STALLED_WRITER, str(folder), str(marker)], env=env)
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists(), "the writer never reached its second write"
    child.send_signal(signal.SIGKILL)
    child.wait()
    results = folder / "results"
    (tmp,) = results.glob(".*.tmp")  # the killed write: a temporary file holding the new data
    assert tmp.stat().st_size > 0
    data = store.load_results(folder)["gpu"]  # loads: the previous complete result
    assert data.status == "ok" and _seq(folder) == 0
    assert len(data.sizes[0].variants["v"].samples_ms) == 200_000
    store.record_failure(folder, {"device": "gpu", "fingerprint": "sha256:b", "error": "after the crash"})
    assert _seq(folder) == 0  # the good result survives the next writer
    assert not list(results.glob(".*.tmp"))  # the dead writer's temporary file is cleaned up under the lock


def test_sigkill_at_random_moments_never_corrupts(tmp_path):
    for attempt in range(5):
        folder = tmp_path / f"entry-{attempt}"
        child = _writer(folder, "success", 10_000, 100_000)
        path = folder / "results" / "gpu.json"
        deadline = time.monotonic() + 60
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.01 + 0.02 * attempt)
        child.send_signal(signal.SIGKILL)
        child.wait()
        data = store.load_results(folder)["gpu"]
        assert data.status == "ok" and len(data.sizes[0].variants["v"].samples_ms) == 100_000


def test_two_writers_at_once_lose_nothing(tmp_path):
    count, folder = 150, tmp_path / "t"
    store.record_success(folder, result(folder, -1, 1))
    success = _writer(folder, "success", count, 2_000)
    failure = _writer(folder, "failure", count, 0)
    assert success.wait(timeout=120) == 0 and failure.wait(timeout=120) == 0
    data = store.load_results(folder)["gpu"]
    # record_failure reads and rewrites under the lock, so it can never write back an older success.
    assert data.status == "ok" and _seq(folder) == count - 1
    assert not list((folder / "results").glob(".*.tmp"))


def test_format_versions_are_refused_with_what_to_do(tmp_path):
    path = tmp_path / "kernel-fusion" / "results" / "nvidia-h200.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"format": 0}))
    try:
        store.load_results(path.parent.parent)
    except store.StoreError as err:
        old = str(err)
    assert str(path) in old and "format 0 found" in old and f"reads format {store.RESULT_FORMAT}" in old
    assert "glossary measure --all kernel-fusion" in old
    path.write_text(json.dumps({"format": store.RESULT_FORMAT + 1}))
    try:
        store.load_results(path.parent.parent)
    except store.StoreError as err:
        new = str(err)
    assert f"format {store.RESULT_FORMAT + 1} found" in new and "upgrade the glossary package" in new
