"""A stand-in for the harness in reproduction tests: runs in a pool worker, on the CPU.

It "measures" an entry by taking its committed record for the job's device, without its
signature, every time scaled by FAKE_SCALE (default 1.0) and every time past 4x the L2 by
FAKE_SCALE_PAST_L2 where that is set: what another node of the same model would measure.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path


def rerun(job, progress):
    progress(f"re-measuring {job.slug}")
    record = Path(job.entries_dir) / job.slug / "results" / f"{job.device}.json"
    data = json.loads(record.read_text())
    out = copy.deepcopy({k: v for k, v in data.items() if k not in ("signature", "last_failure", "format")})
    scale = float(os.environ.get("FAKE_SCALE", "1.0"))
    past = float(os.environ.get("FAKE_SCALE_PAST_L2", scale))
    l2 = out["environment"].get("l2_bytes") or 0
    for size in out["sizes"]:
        factor = past if l2 and (size.get("working_set_bytes") or 0) >= 4 * l2 else scale
        for var in size["variants"].values():
            var["samples_ms"] = [x * factor for x in var["samples_ms"]]
            var["stats"] = {k: (v * factor if k != "n" else v) for k, v in var["stats"].items()}
    out["environment"] = dict(out["environment"], captured_at="2026-12-02T09:00:00+00:00", host="node-b",
                             pci_bus_id=os.environ.get("GLOSSARY_WORKER_PCI_BUS_ID") or None)
    out["fingerprint"] = job.fingerprint
    return out
