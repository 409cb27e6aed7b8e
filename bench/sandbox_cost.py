"""What the sandbox costs an entry, measured side by side in one run (confined against a plain child).

    python -m bench.sandbox_cost [SLUG] [--repeats 5]

For one real entry: starting its reference (bubblewrap, the interpreter, NumPy, the author's
import), the reference's answers for its first measured variant at the headline size as the
check asks them (chunked where the spec says so, else whole), and each source compiled by nvcc
(no cache).  Each is timed confined and as a plain child process of the same protocol, turn
about, and the medians and their ratio are printed; the answers are also timed with the
reference imported into this process, as the harness did before the sandbox (this benchmark,
run by hand on a real entry, is the only place that still imports one).  Run it on the node; times are host times.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("slug", nargs="?", default="kernel-fusion")
    ap.add_argument("--repeats", type=int, default=5)
    opts = ap.parse_args()
    from glossary.entries.model import parse_entry
    from measure import sandbox
    from measure.harness import compile as nvcc
    from measure.harness.check import call_reference, output_names
    from measure.harness.correctness import kernel_scalars
    from measure.harness.parallel import chunk_bounds
    from measure.harness.workspace import FLOOR_STREAM, NP_DTYPES, allocation_bytes, fill_input

    entry = parse_entry(ROOT / "entries" / f"{opts.slug}.md", ROOT / "entries")
    spec = entry.meta.measure
    params = dict(spec.headline)
    sizes = allocation_bytes(spec, params)
    counts = {n: b // NP_DTYPES[spec.buffers[n].dtype]().itemsize for n, b in sizes.items()}
    inputs = {name: fill_input(spec.seed, stream, counts[name], buf.dtype, buf.init)
              for stream, (name, buf) in enumerate(spec.buffers.items(), start=FLOOR_STREAM + 1)
              if buf.role == "input"}
    variant = spec.measured_variants[0]
    count = min(counts[n] for n in output_names(spec))
    pieces = chunk_bounds(count) if spec.reference_elementwise else [(None, None)]
    times: dict[str, dict[bool, list[float]]] = {"start": {True: [], False: []}, "answer": {True: [], False: []},
                                                 "compile": {True: [], False: []}}
    old = _imported(entry.folder / spec.reference)  # the design before the sandbox: our own entry, here only
    inproc = []
    for _ in range(opts.repeats):
        t0 = time.perf_counter()
        for start, stop in pieces:
            want = {n: (stop - start if stop is not None else counts[n]) for n in output_names(spec)}
            call_reference(old, variant.base, inputs, kernel_scalars(spec), {**params, **variant.point}, want,
                           start, stop)
        inproc.append(time.perf_counter() - t0)
        for confined in (True, False):
            t0 = time.perf_counter()
            ref = sandbox.SandboxedReference(entry.folder, spec.reference, confined=confined)
            t1 = time.perf_counter()
            for start, stop in pieces:
                want = {n: (stop - start if stop is not None else counts[n]) for n in output_names(spec)}
                call_reference(ref, variant.base, inputs, kernel_scalars(spec), {**params, **variant.point}, want,
                               start, stop)
            t2 = time.perf_counter()
            ref.close()
            times["start"][confined].append(t1 - t0)
            times["answer"][confined].append(t2 - t1)
            t3 = time.perf_counter()
            for rel in spec.sources:
                with tempfile.TemporaryDirectory():
                    sandbox.compile_source(entry.folder, rel, "sm_90", list(spec.nvcc_flags), nvcc=nvcc.find_nvcc(),
                                           confined=confined)
            times["compile"][confined].append(time.perf_counter() - t3)
    print(f"{opts.slug}: {len(pieces)} reference call(s) of {count:,} elements at {params}; medians of {opts.repeats}")
    total = {True: 0.0, False: 0.0}
    for what, by in times.items():
        inside, plain = statistics.median(by[True]), statistics.median(by[False])
        total[True] += inside
        total[False] += plain
        print(f"  {what:8} confined {inside:7.3f} s   plain child {plain:7.3f} s   "
              f"ratio {inside / plain:5.2f}   cost {inside - plain:+.3f} s")
    print(f"  answers in this process (the old design): {statistics.median(inproc):.3f} s")
    print(f"  {'all':8} confined {total[True]:7.3f} s   plain child {total[False]:7.3f} s   "
          f"cost {total[True] - total[False]:+.3f} s")


def _imported(path: Path):
    import importlib.util

    module_spec = importlib.util.spec_from_file_location("bench_reference", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.reference


if __name__ == "__main__":
    main()
