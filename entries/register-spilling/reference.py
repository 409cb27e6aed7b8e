"""Float64 reference for rotate.cu: STEPS rounds of v[j] <- a v[j] + v[j+1] per thread.

Thread t of block g holds v[j] = x[g*128*N + j*128 + t].  Within a round the kernel updates
j = 0 .. N-1 in order, in place, so v[j] reads the old v[j+1] except the last, which reads the
new v[0].  The register limit changes where the values live, never the result.
"""

import numpy as np

N = 64        # as in rotate.cu
STEPS = 8
THREADS = 128


def reference(variant, inputs, scalars, params):
    x = inputs["x"]
    a = scalars["a"]
    v = x.reshape(-1, N, THREADS).copy()   # [block, j, thread]
    for _ in range(STEPS):
        new = np.empty_like(v)
        new[:, :-1] = a * v[:, :-1] + v[:, 1:]
        new[:, -1] = a * v[:, -1] + new[:, 0]
        v = new
    return {"y": v.reshape(-1)}
