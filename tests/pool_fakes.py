"""Stand-ins for the harness in pool tests: run in worker processes, on the CPU.

Behaviour follows the slug: "hang" sleeps forever, "crash" kills its own
process, "crash-once" does so only on its first attempt (a marker file in
FAKE_STATE_DIR remembers), "fail" raises, "noisy" prints to stdout and fd 1.
The result is a test fixture that the store accepts: its device is the job's, its one figure is
made up (1 ms for a variant "copy" at n = 1024).

``stepwise`` also reports configuration progress, in half-configuration steps (FAKE_STEP seconds
each): "fail" raises, "hang" sleeps forever, "crash" and "crash-once" die, half way through.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path


def sleepy(job, progress):
    progress(f"working on {job.slug}")
    if "crash-once" in job.slug:
        marker = Path(os.environ["FAKE_STATE_DIR"]) / f"{job.slug}.crashed"
        if not marker.exists():
            marker.write_text("1")
            os.kill(os.getpid(), signal.SIGKILL)
    elif "crash" in job.slug:
        os.kill(os.getpid(), signal.SIGKILL)
    if "hang" in job.slug:
        while True:
            time.sleep(1)
    if "fail" in job.slug or job.slug in os.environ.get("FAKE_FAIL", "").split(","):
        raise RuntimeError(f"{job.slug}: output y is wrong in 3 of 1024 elements")
    if "noisy" in job.slug:
        print("not protocol: a library printing to stdout")
        sys.stdout.flush()
        os.write(1, b"{broken json from C code\n")
    time.sleep(float(os.environ.get("FAKE_SLEEP", "0.3")))
    return _result(job)


def stepwise(job, progress, on_configs):
    """Report configurations done in steps of a half; the total is the entry's (4 for no entry on disk)."""
    total = 4
    if Path(job.entry_path).exists():
        from glossary.entries.model import parse_entry
        from glossary.measuring.progress import configurations

        total = configurations(parse_entry(Path(job.entry_path), Path(job.entries_dir)))
    progress(f"working on {job.slug}")
    for step in range(1, 2 * total + 1):
        time.sleep(float(os.environ.get("FAKE_STEP", "0.03")))
        on_configs(step / 2, total)
        if step == total:  # half way
            if "fail" in job.slug or job.slug in os.environ.get("FAKE_FAIL", "").split(","):
                raise RuntimeError(f"{job.slug}: output y is wrong in 3 of 1024 elements")
            marker = Path(os.environ["FAKE_STATE_DIR"]) / f"{job.slug}.crashed"
            if "crash" in job.slug and ("crash-once" not in job.slug or not marker.exists()):
                marker.write_text("1")
                os.kill(os.getpid(), signal.SIGKILL)
            while "hang" in job.slug:
                time.sleep(1)
    return _result(job)


def _result(job):
    environment = {"gpu": "Fake GPU", "captured_at": "2026-11-29T00:00:00Z"}
    if not Path(job.entry_path).exists():
        # A job for no entry on disk (the pool's own tests) is never stored: its environment also
        # says which GPU the worker saw and when it started, which the result file format has no key for.
        environment.update(cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES"), pid=os.getpid(),
                           started=time.time())
    return {
        "entry": job.slug, "device": job.device, "status": "ok", "provenance": "measured",
        "fingerprint": job.fingerprint, "environment": environment,
        "method": {"warmups": 0, "runs": 1, "statistic": "mean", "timer": "fake"},
        "sizes": [{"params": {"n": 1024}, "elements": 1024,
                   "variants": {"copy": {"bytes_per_elem": 8, "samples_ms": [1.0], "stats": {"n": 1, "mean": 1.0}}}}],
    }


def lying(job, progress):
    """A worker that returns something other than its job (FAKE_LIE: device, entry, fingerprint or
    bus): the signer must record a failure and sign no result."""
    result = _result(job)
    lie = os.environ.get("FAKE_LIE", "device")
    if lie == "device":
        result["device"] = "nvidia-b200"
    elif lie == "entry":
        result["entry"] = "kernel-fusion"
    elif lie == "fingerprint":
        result["fingerprint"] = "sha256:" + "0" * 64
    elif lie == "bus":
        result["environment"]["pci_bus_id"] = "0000:99:00.0"
    return result
