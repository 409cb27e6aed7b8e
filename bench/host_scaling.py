"""How the host's chunked check and reference scale with threads and chunk size on this machine.

    python3 bench/host_scaling.py [--elements 67108864]

Prints wall time and core-nanoseconds per element for the element check (``check_chunk``) and
the kernel-fusion reference, at 1, 4, 8 and every core, and at a few chunk sizes.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from measure.harness import check, parallel  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--elements", type=int, default=1 << 26)
    n = ap.parse_args().elements
    parallel.tune_malloc()
    spec = importlib.util.spec_from_file_location("ref", ROOT / "entries/kernel-fusion/reference.py")
    ref_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref_mod)
    rng = np.random.default_rng(1)
    x, r = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    scalars = {"scale": 1.5, "bias": 0.25, "lo": -2.0, "hi": 2.0}
    expected = ref_mod.reference("", {"x": x.astype(np.float64), "r": r.astype(np.float64)}, scalars, {})["y"]
    got = expected.astype(np.float32)
    jobs = {
        "check": lambda a, b: check.check_chunk(got[a:b], expected[a:b], a, 1e-5, 1e-6),
        "reference": lambda a, b: ref_mod.reference("", {"x": x[a:b].astype(np.float64),
                                                         "r": r[a:b].astype(np.float64)}, scalars, {}),
    }
    cores = parallel.workers(1 << 30)
    real_workers = parallel.workers
    print(f"{n:,} elements, {cores} cores, numpy {np.__version__}, python {sys.version.split()[0]}")
    for name, fn in jobs.items():
        for chunk in (1 << 15, 1 << 17, 1 << 20):
            for threads in sorted({1, 4, 8, cores}):
                parallel.workers = lambda jobs, t=threads: min(jobs, t)
                t0, c0 = time.perf_counter(), os.times()
                parallel.map_chunks(fn, n, chunk)
                wall, c1 = time.perf_counter() - t0, os.times()
                print(f"  {name:9s} chunk {chunk:>8,} threads {threads:2d}: {wall:6.3f} s wall, "
                      f"{wall * threads / n * 1e9:6.1f} core-ns/elem, user {c1.user - c0.user:5.1f} s "
                      f"sys {c1.system - c0.system:4.1f} s")
        parallel.workers = real_workers
    return 0


if __name__ == "__main__":
    sys.exit(main())
