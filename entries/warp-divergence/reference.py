"""Float64 reference for branch.cu: `reps` rounds that alternate between two affine chains.

Round `it` of element i takes path B when (q + it) is odd, else path A, with q the parity of
the lane (i & 1, divergent) or of the warp (i >> 5 & 1, uniform).  CHAIN steps of y <- a*y + b
are the affine map y -> a^C y + b (1 - a^C) / (1 - a); path B is the same map with c and d
(the kernel rounds its multiply and add separately, which the tolerance covers).
"""

import numpy as np

CHAIN = 32  # as in branch.cu


def _power(alpha, beta):
    """The affine map y -> alpha*y + beta applied CHAIN times, as (slope, offset)."""
    slope = alpha ** CHAIN
    return slope, beta * (1.0 - slope) / (1.0 - alpha)


def _rounds(q, reps, a_map, b_map):
    """The `reps` rounds of an element whose parity is q, composed into one affine map."""
    slope, offset = 1.0, 0.0
    for it in range(reps):
        s, o = b_map if (q + it) & 1 else a_map
        slope, offset = s * slope, s * offset + o
    return slope, offset


def reference(variant, inputs, scalars, params):
    x = inputs["x"]
    i = np.arange(x.size, dtype=np.int64)
    q = (i & 1) if variant == "divergent" else ((i >> 5) & 1)
    a_map = _power(scalars["a"], scalars["b"])
    b_map = _power(scalars["c"], scalars["d"])
    reps = int(scalars["reps"])
    # The rounds of an element depend only on its parity, so each parity's rounds are one affine
    # map, composed on scalars: two array operations instead of `reps` passes over the elements.
    (s0, o0), (s1, o1) = (_rounds(p, reps, a_map, b_map) for p in (0, 1))
    return {"y": np.where(q == 1, s1 * x + o1, s0 * x + o0)}
