"""Harness fidelity on the H200: the harness against its peers, in one process (issue 8).

    PYTHONUNBUFFERED=1 python3 -m bench.h200_peers --out "$OUT"

from the repository root, with pycuda installed; torch (and cupy, where present) come from the
machine. Three parts; after each one, peers.json, peers.md (the BENCHMARKS.md section "Harness
fidelity on the H200") and peers.log under --out are rewritten, so a run cut short keeps what
it finished. Nothing is written into entries/.

1. Copy floor (``floor``).  The harness's own copy-floor regions (harness.copy_floor_regions: a
   float4 copy kernel and cuMemcpyDtoD, timed as the harness times them) against cuMemcpyDtoD and
   the float4 copy timed with plain events, and torch's ``dst.copy_(src)`` timed with
   torch.cuda.Event (and once more the harness's way), 1 GiB per buffer, bytes read plus written.
2. Fused chain (``fused``).  kernel-fusion's variants, compiled and launched exactly as the harness
   does (harness.compile_kernels, harness.prepare_calls, from the entry's spec), against torch eager
   and torch.compile of the same chain (the tanh GELU, as chain.cu), at every size of the spec.
   Every contestant is checked against the entry's float64 reference (rel. L2 error) before it
   is timed; all are then timed the harness's way, interleaved, with the harness's copy floor
   of that size among them.
3. Stability (``stability``).  harness.measure_entry on kernel-fusion twice in a row, as the build
   runs it (counter pass off): per variant and size, the drift of the median between the runs and
   the relative IQR of the published samples.

"The harness's way" is harness.GpuSession.sample: a kernel reads 2x the L2 (the flush), a blocking
kernel holds the stream while the host enqueues, then events around the region.

Why one process in the primary context (``session``): torch works in the device's primary
context, so the harness's pycuda session shares it (harness.GpuSession(primary=True)) and torch
enqueues its work on the harness's stream (torch.cuda.ExternalStream). Every contestant of part 2
is then timed by the same code, behind the same flush and blocking kernel. Torch in a subprocess
would need its own flush, blocking kernel and event timing: a second harness, not a comparison
with this one. Part 3 runs measure_entry as the build does (its own context) after parts 1-2
freed their memory.

The modules: ``method`` (the entry, the goals, shared statistics), ``session``, one module per
part, ``report`` (peers.json, peers.md, peers.log and the closing table) and ``cli``.  Importing
any of them imports neither torch nor pycuda; the parts do when they run.
"""
