"""The measurement spec: what the harness runs for one entry.

An entry's ``measure:`` front-matter key is loaded into ``MeasureSpec`` by
``measure.typed.load``.  The spec is deliberately not shaped around one
chain of kernels; it expresses:

* elementwise chains timed as one (kernel fusion: several launches per variant);
* 2D access patterns whose useful bytes differ from the bytes DRAM moves
  (coalescing: ``useful_bytes_per_elem`` beside ``bytes_per_elem``);
* variants that differ in FLOPs per byte (the roofline: ``flops_per_elem``);
* many tiny launches against one (launch overhead: ``repeat`` with the repeat
  index ``i`` usable in arguments, and ``timing.clock: host`` with the blocking
  kernel off, because there the host's cost is the point; ``clock: both`` records
  the host's wall time beside the GPU's event time in the same run).

The package: ``model`` (the dataclasses), ``checks`` (the expression checks run at load
time), ``sizes`` (bytes from the spec alone: buffers, working set, fit) and ``limits``.
"""

from measure.spec.limits import (DTYPES, MAX_ARGS, MAX_BUFFERS, MAX_LAUNCHES, MAX_REPEAT, MAX_RUNS, MAX_SIZE,
                                 MAX_SIZES, MAX_VARIANTS, MAX_WARMUPS)
from measure.spec.model import (BOUNDED_KINDS, CLAIM_NEEDS, Buffer, Claim, Launch, MeasureSpec, Ratio, Timing,
                                Variant)
from measure.spec.sizes import (DTYPE_BYTES, GB, LARGEST_GPU, BufferSizeError, buffer_bytes, fit_problems,
                                iter_buffer_bytes, working_set_bytes)

__all__ = [
    "BOUNDED_KINDS", "CLAIM_NEEDS", "DTYPES", "DTYPE_BYTES", "GB", "LARGEST_GPU", "MAX_ARGS", "MAX_BUFFERS",
    "MAX_LAUNCHES", "MAX_REPEAT", "MAX_RUNS", "MAX_SIZE", "MAX_SIZES", "MAX_VARIANTS", "MAX_WARMUPS",
    "Buffer", "BufferSizeError", "Claim", "Launch", "MeasureSpec", "Ratio", "Timing", "Variant",
    "buffer_bytes", "fit_problems", "iter_buffer_bytes", "working_set_bytes",
]
