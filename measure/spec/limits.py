"""The bounds on a spec and the names and options it may use (constants only)."""

from __future__ import annotations

import re

DTYPES = ("float32", "float64", "int32")

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
