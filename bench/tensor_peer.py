"""A PyTorch peer for the tensor-cores entry: cuBLAS matrix products on the entry's shapes.

    python3 bench/tensor_peer.py [--sizes 1024,2048,4096] [--runs 50] [--results entries/<slug>/results/<gpu>.json]

For each square size m = n = k it times torch.matmul with CUDA events (warm-ups first, then
--runs samples, the median kept) in three forms that bracket the entry's kernels:

    fp16   float16 inputs, float16 output, float32 accumulation (tensor cores)
    bf16   bfloat16 inputs, bfloat16 output, float32 accumulation (tensor cores)
    fp32   float32 inputs and output, TF32 disabled (the FMA pipes)

and prints TFLOP/s (2 m n k FLOPs per product) side by side, beside the harness's figures for
every variant of a results file that records FLOPs at square sizes m = n = k, where one is
given (the tensor-core entry's recorded results, say).
The library products are the "how fast can this card multiply" figure; the entry's kernels
answer "what do tensor cores buy over FMAs for the same simple kernel".  Without torch or
without a CUDA device it says so and exits 0: it is a peer to run on the GPU node.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path



def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1024,2048,4096", help="comma-separated m = n = k values")
    ap.add_argument("--warmups", type=int, default=5)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--results", type=Path, default=None,
                    help="a recorded results file, for the harness columns (skipped if absent)")
    args = ap.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    return args


def tflops(size: int, ms: float) -> float:
    """TFLOP/s of one size-cubed product taking ``ms`` milliseconds."""
    return 2.0 * size ** 3 / (ms * 1e-3) / 1e12


def harness_tflops(path: Path | None) -> dict[tuple[int, str], float]:
    """{(m, variant): TFLOP/s} from a results file: flops_per_elem x elements over the mean time.

    Reads the file's own fields only (sizes[].params with m = n = k, elements,
    variants[].flops_per_elem and stats.mean); a variant without them is left out.
    """
    if path is None or not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for size in data.get("sizes", []):
        params = size.get("params", {})
        if not (params.get("m") == params.get("n") == params.get("k")):
            continue
        for name, v in (size.get("variants") or {}).items():
            flops, mean = v.get("flops_per_elem"), (v.get("stats") or {}).get("mean")
            if flops and mean:
                out[(params["m"], name)] = flops * size["elements"] / (mean * 1e-3) / 1e12
    return out


def time_ms(torch, fn, warmups: int, runs: int) -> float:
    """Median of ``runs`` CUDA-event timings of ``fn`` after ``warmups`` calls."""
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    return statistics.median(samples)


def render(rows: list[dict], harness: dict[tuple[int, str], float]) -> str:
    variants = list(dict.fromkeys(v for _, v in harness))   # in the file's order
    cols = ["torch fp16", "torch bf16", "torch fp32"] + [f"harness {v}" for v in variants]
    lines = ["TFLOP/s, median of the samples (torch) or the recorded mean (harness)",
             f"{'m=n=k':>8} " + " ".join(f"{c:>18}" for c in cols)]
    for row in rows:
        cells = [row["fp16"], row["bf16"], row["fp32"]]
        if variants:
            cells += [harness.get((row["size"], v)) for v in variants]
        lines.append(f"{row['size']:>8} " + " ".join(f"{c:>18.1f}" if c is not None else f"{'-':>18}" for c in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("tensor_peer: torch is not installed; run this on the GPU node", file=sys.stderr)
        return 0
    if not torch.cuda.is_available():
        print("tensor_peer: no CUDA device; run this on the GPU node", file=sys.stderr)
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False           # fp32 means the FMA pipes
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    gen = torch.Generator(device="cuda").manual_seed(20261201)
    rows = []
    for size in args.sizes:
        row = {"size": size}
        for key, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16), ("fp32", torch.float32)):
            a = torch.randn(size, size, device="cuda", dtype=torch.float32, generator=gen).to(dtype)
            b = torch.randn(size, size, device="cuda", dtype=torch.float32, generator=gen).to(dtype)
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            row[key] = tflops(size, time_ms(torch, lambda: torch.matmul(a, b, out=c), args.warmups, args.runs))
            del a, b, c
        rows.append(row)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}")
    print(render(rows, harness_tflops(args.results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
