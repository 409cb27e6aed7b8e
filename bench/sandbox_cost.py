"""What the sandbox costs an entry, on the node: its parts, timed in one run.

    python -m bench.sandbox_cost [SLUG] [--repeats 5]

For one real entry: starting its reference in the sandbox (bubblewrap, the interpreter, NumPy,
the author's import), the reference's answers for its first measured variant at the headline
size as the check asks them (chunked where the spec says so, else whole), and each source
compiled by nvcc in the sandbox (no cache).  Medians of --repeats; host times.  Nothing of the
entry runs outside the sandbox, here as everywhere: the whole entry's verification time with and
without the sandbox is compared from the results' phases (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import statistics
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
    times: dict[str, list[float]] = {"start": [], "answer": [], "compile": []}
    for _ in range(opts.repeats):
        t0 = time.perf_counter()
        ref = sandbox.SandboxedReference(entry.folder, spec.reference)
        t1 = time.perf_counter()
        for start, stop in pieces:
            want = {n: (stop - start if stop is not None else counts[n]) for n in output_names(spec)}
            call_reference(ref, variant.base, inputs, kernel_scalars(spec), {**params, **variant.point}, want,
                           start, stop)
        t2 = time.perf_counter()
        ref.close()
        for rel in spec.sources:
            sandbox.compile_source(entry.folder, rel, "sm_90", list(spec.nvcc_flags), nvcc=nvcc.find_nvcc())
        times["start"].append(t1 - t0)
        times["answer"].append(t2 - t1)
        times["compile"].append(time.perf_counter() - t2)
    print(f"{opts.slug}: {len(pieces)} reference call(s) of {count:,} elements at {params}; medians of {opts.repeats}")
    for what, values in times.items():
        print(f"  {what:8} {statistics.median(values):7.3f} s")


if __name__ == "__main__":
    main()
