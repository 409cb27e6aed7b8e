"""The unified-memory pass: page faults and migrations per variant at the headline size, counted by
CUPTI in a process of their own (``python -m measure.harness.profile_main --unified-memory``).

CUPTI's unified-memory counters are enabled in that process before its CUDA context is made: in the
timing process, enabled after its context was made, the H200 node's driver delivered no record at
all.  The pass runs after the timing process has freed its buffers, so the two never hold managed
memory at once, and no timed sample runs beside CUPTI's activity API.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from measure import stats
from measure.harness import counters
from measure.spec.unified import managed_buffers
from measure.spec import MeasureSpec

TIMEOUT_S = 300.0


def count_unified_memory(entry_dir: Path, spec: MeasureSpec, params: dict[str, int],
                         timeout_s: float = TIMEOUT_S) -> tuple[dict[str, dict[str, int]], str | None]:
    """({variant: counts}, None), or ({}, why) where nothing was counted; never raises for the child."""
    env, root = counters.child_env()
    with tempfile.TemporaryDirectory(prefix="glossary-uvm-") as tmp:
        spec_path, manifest_path = Path(tmp) / "spec.json", Path(tmp) / "manifest.json"
        spec_path.write_text(counters.spec_to_json(spec), encoding="utf-8")
        cmd = [sys.executable, "-m", counters.PROFILE_MAIN, "--unified-memory", "--spec", str(spec_path),
               "--entry-dir", str(entry_dir), "--params", json.dumps(dict(params)), "--manifest", str(manifest_path)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env, cwd=str(root))
        except (OSError, subprocess.TimeoutExpired) as err:
            return {}, f"the counting process did not finish: {err}"
        if proc.returncode != 0 or not manifest_path.exists():
            return {}, f"the counting process exited {proc.returncode}: {(proc.stdout + proc.stderr).strip()[-600:]}"
        try:
            memory = json.loads(manifest_path.read_text(encoding="utf-8"))["unified_memory"]
            return dict(memory["counts"]), memory["why"]
        except (ValueError, KeyError, TypeError) as err:
            return {}, f"the counting process wrote no counts: {type(err).__name__}: {err}"


def attach_unified_memory(slug: str, entry_dir: Path, spec: MeasureSpec, sizes: list[dict],
                          progress: Callable[[str], None], count=count_unified_memory) -> None:
    """Each variant of the headline size's record gets ``unified_memory``: its counts, or {"unavailable":
    why}; nothing where the spec has no managed buffer."""
    if not managed_buffers(spec):
        return
    headline = dict(spec.headline)
    record = next((s for s in sizes if dict(s["params"]) == headline), None)
    if record is None:
        return
    label = f"{slug}: {stats.size_label(headline)}"
    progress(f"{label} counting unified-memory faults and migrations (CUPTI, one run of each variant)")
    counts, why = count(entry_dir, spec, headline)
    progress(f"{label} unified-memory counters: " + (why or ", ".join(
        f"{name} {c['gpu_page_faults']:,} GPU faults, {c['bytes_htod']:,} bytes to the GPU" for name, c in counts.items())))
    for name, variant in record["variants"].items():
        variant["unified_memory"] = counts.get(name) or {"unavailable": why or "not counted"}
