"""The bounds on a spec and the names and options it may use (constants only)."""

from __future__ import annotations

import re

DTYPES = ("float32", "float64", "int32", "float16", "bfloat16", "int8")
# Per-element tolerances (rtol, atol) of an output of a narrow type, where the spec's own (meant for
# float32 and wider) would fail any correct kernel: half the type's epsilon is one rounding, and a
# short chain of operations in the type gains a few (float16 eps 2**-10, bfloat16 2**-7).
DTYPE_TOLERANCE = {"float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3), "int8": (0.0, 0.0)}
# Kernel scalar argument types, and the pycuda struct code each is passed as.
SCALAR_TYPES = {"float32": "f", "float64": "d", "int32": "i", "int64": "q"}

# Bounds on a spec, so that a hostile or mistaken entry costs the build and `glossary check`
# milliseconds (every expression below is evaluated at load time, see MeasureSpec.validate) and the
# verification node a bounded run.  Each is far past what a measurement needs.
# A size parameter counts elements: 2**40 (a trillion, 4 TiB of float32) is past every GPU's memory;
# the memory each size needs is judged per architecture by fit_problems.
MAX_SIZE = 2**40
# Points of the sweep: every size is measured (warm-ups, samples, a counter pass) on every device.
MAX_SIZES = 32
# Variants, launches per variant, arguments per launch, buffers: a comparison of a few versions
# of a computation, each a short chain of kernels.
MAX_VARIANTS = 16
MAX_LAUNCHES = 16
MAX_ARGS = 32
MAX_BUFFERS = 32
# A launch enqueued this many times per timed region (launch-overhead entries use 64 to 256): the
# harness builds each repeat's arguments on the host.
MAX_REPEAT = 100_000
# Warm-up runs and samples per variant: each sample is kept in the result file.
MAX_WARMUPS = 1_000
MAX_RUNS = 10_000
# A launch-parameter sweep: values per swept name, and points (the cross product) per variant;
# every point is a measured variant at every size, so the product is bounded too.
MAX_SWEEP_VALUES = 16
MAX_SWEEP_POINTS = 64
MAX_MEASURED_VARIANTS = 64
# Declared Nsight Compute metrics: each adds replay passes to the counter run.
MAX_METRICS = 12
# Dynamic shared memory per launch: past any GPU's per-block opt-in limit (227 KiB on sm_90).
MAX_SHARED_BYTES = 1 << 20

# The device's properties an expression may name (grid, block, shared, arguments, defines, register
# limits; not buffer sizes or elements, which stay over the size parameters so the working-set rules
# are pure).  The harness binds them from the device it measures on (recorded as environment.limits);
# at load time expressions are checked against NOMINAL_DEVICE, an H100-like card.
DEVICE_NAMES = {
    "sm_count": "streaming multiprocessors on the device",
    "warp_size": "threads per warp (32)",
    "max_threads_per_block": "most threads a block may have (1024)",
    "max_threads_per_sm": "most resident threads per SM (2048 on sm_80 and sm_90)",
    "max_blocks_per_sm": "most resident blocks per SM (32 on sm_80 and sm_90)",
    "smem_per_block": "shared memory a block may use without opting in, bytes (48 KiB)",
    "smem_per_block_optin": "shared memory a block may use when the kernel opts in, bytes (227 KiB on sm_90)",
    "smem_per_sm": "shared memory per SM, bytes (228 KiB on sm_90)",
    "regs_per_sm": "32-bit registers per SM (65,536)",
    "regs_per_block": "32-bit registers a block may use (65,536)",
    "l2_bytes": "L2 cache size, bytes",
    "reserved_smem_per_block": "shared memory the driver reserves per resident block, bytes (1 KiB on sm_80 and newer)",
}
NOMINAL_DEVICE = {"sm_count": 132, "warp_size": 32, "max_threads_per_block": 1024, "max_threads_per_sm": 2048,
                  "max_blocks_per_sm": 32, "smem_per_block": 48 << 10, "smem_per_block_optin": 227 << 10,
                  "smem_per_sm": 228 << 10, "regs_per_sm": 65536, "regs_per_block": 65536,
                  "l2_bytes": 50 << 20, "reserved_smem_per_block": 1024}

# nvcc options an entry may pass: what changes the code generated, nothing that names a file, a host
# compiler or a program to run on the verification node (-o, -ccbin, -Xcompiler, --run, -include ...).
NVCC_FLAG = re.compile(
    r"^(-O[0-3]|-std=c\+\+(14|17|20)|--?use_fast_math|-lineinfo|-maxrregcount=\d+|-D[A-Za-z_][A-Za-z0-9_]*(=[\w.+-]*)?"
    r"|-(ftz|prec-div|prec-sqrt|fmad)=(true|false)|--extra-device-vectorization|-restrict"
    r"|-Xptxas=-v|-Xptxas=-O[0-3]|--ptxas-options=-v)$")
NVCC_FLAGS_SHOWN = ("-O0..-O3, -std=c++14/17/20, -use_fast_math, -lineinfo, -maxrregcount=N, -DNAME[=VALUE], "
                    "-ftz/-prec-div/-prec-sqrt/-fmad=true|false, --extra-device-vectorization, -restrict, "
                    "-Xptxas=-v")
# Relative names only: no absolute paths, drive letters or characters that break a Markdown link.
FILE_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_./-]*$")

# -- what one entry's measurement may cost (measure.spec.budget checks these at load time) --------
# The bounds above are per key; these bound their products, so that no spec within every per-key
# bound (16 launches x 100,000 repeats x 64 measured variants is 102,400,000 graph nodes a run,
# times 32 sizes and 11,000 runs) can run until the deadline, fill the node's memory or write a
# result the reader refuses.  The real entries' figures beside each are their largest today.
#
# Host buffers (pinned and pageable) at one size, bytes.  16 GiB is a quarter of 64 GiB, the least
# RAM of a host that carries a datacenter GPU (the H200 node has 128 GiB): page-locked memory past a
# quarter of RAM starves the kernel, and the harness also holds host copies of the inputs for the
# check (measure.harness.workspace.host_shortfall judges those against the node's free memory).
# Real entries: 4 GiB (pinned-memory).
MAX_HOST_BUFFER_BYTES = 16 << 30
# On the node, the host buffers and the host copies the check holds (measure.spec.budget.host_copy_bytes)
# may take at most this share of the memory the machine has available when the size is allocated:
# the rest is the reference's own arrays, the worker, ncu and the OS.
HOST_MEMORY_SHARE = 0.5
# Outputs of the variants the chunked check (reference_elementwise) holds on the host at once, at most
# (measure.harness.correctness.HOST_BUDGET_BYTES is the same figure).
CHECK_HOST_BUDGET_BYTES = 8 << 30
# Launches one measurement may enqueue in the worst case (measure.spec.budget.launch_budget): every
# size x every measured variant x the steps of one run of it (repeats counted, a graph's nodes each)
# x (warm-ups + max_runs + the check's run) x the regions it is timed as (clock: both samples twice,
# several streams add a serial twin).  A launch costs the host at least ~2 us to enqueue (a graph
# node ~1 us to replay), so 50 million is under two minutes of the 1,800 s deadline.  Real entries:
# 366,000 (launch-overhead), so the margin is over 100-fold.
MAX_MEASURE_LAUNCHES = 50_000_000
# Seconds of sampling in the worst case: timing.max_seconds caps the rounds of one size, so sizes x
# max_seconds.  1,200 s is two thirds of the default 1,800 s deadline per entry, which must also pay
# for compiling, the check and the counter pass.  Real entries: 210 s (7 sizes x 30 s).
MAX_SAMPLING_SECONDS = 1_200
# A results file, bytes: the reader (measure.store.load_file) refuses a larger one, the writer
# (measure.store.record_success) never writes one.  Real results: 190 KB (cuda-graphs).
MAX_RESULT_BYTES = 16 << 20
# A spec whose result could pass half of MAX_RESULT_BYTES (measure.spec.budget.result_bytes) is
# refused, so that an accepted spec's result always fits: the estimate is an upper bound of what the
# harness writes (a sample is about 26 bytes of indented JSON: 32 here), and half leaves room for
# what it cannot see (error text, throttle reasons).
RESULT_BYTES_PER_SAMPLE = 32
RESULT_BYTES_PER_SIZE = 4 << 10             # params, check, clocks, sampling, the copy floor's figures
RESULT_BYTES_PER_VARIANT = 4 << 10          # stats, figures per element, counter passes at one size
RESULT_BYTES_PER_LAUNCH = 1 << 10           # one launch's kernel attributes and per-kernel counters
RESULT_BYTES_PER_LAUNCH_METRIC = 512        # one declared metric of one launch, both passes
RESULT_BYTES_FIXED = 16 << 10               # environment, method, counter summary, signature
