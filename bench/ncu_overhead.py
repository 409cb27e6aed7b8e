"""Where a counter pass's time goes: the profiled process alone, and under ncu with a few option sets.

    python3 bench/ncu_overhead.py kernel-fusion

Prints, per run, the wall time and the profiled process's own marks (start, set-up, inputs,
launches, exit), so ncu's per-kernel cost can be told from its start-up and the process's work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from glossary.entries.model import load_entries  # noqa: E402
from measure.harness import counters  # noqa: E402


def main() -> int:
    slug = sys.argv[1] if len(sys.argv) > 1 else "kernel-fusion"
    entry = load_entries(ROOT / "entries")[slug]
    spec = entry.meta.measure
    kernels = [launch.kernel for v in spec.variants for launch in v.launches if launch.kernel]
    ncu = counters.find_ncu()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(counters.spec_to_json(spec))
        manifest = Path(tmp) / "m.json"
        child = [sys.executable, "-m", counters.PROFILE_MAIN, "--spec", str(spec_path), "--entry-dir",
                 str(entry.folder), "--params", json.dumps([dict(p) for p in spec.sizes]), "--manifest", str(manifest)]
        runs = {"alone": child}
        base = counters.ncu_command(ncu, "all", kernels, Path(tmp) / "log.csv", child)
        runs["ncu all"] = base
        runs["ncu none"] = counters.ncu_command(ncu, "none", kernels, Path(tmp) / "log.csv", child)
        runs["ncu all, application replay"] = base[:1] + ["--replay-mode", "application"] + base[1:]
        runs["ncu all, no -k filter"] = [a for i, a in enumerate(base) if a != "-k" and (i == 0 or base[i - 1] != "-k")]
        for name, cmd in runs.items():
            began = time.time()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
            ended = time.time()
            if proc.returncode != 0 or not manifest.exists():
                print(f"{name}: exit {proc.returncode} {proc.stderr[-400:]}")
                continue
            marks = json.loads(manifest.read_text())
            launches = len(marks["launches"])
            per = sum(s["launches_s"] for s in marks["sizes"]) / max(1, launches)
            print(f"{name:32s} wall {ended - began:5.1f} s: {counters.pass_summary_line(marks, began, ended)}; "
                  f"{launches} launches, {per * 1000:.0f} ms each")
            manifest.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
