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


def reference(variant, inputs, scalars, params):
    x = inputs["x"]
    i = np.arange(x.size, dtype=np.int64)
    q = (i & 1) if variant == "divergent" else ((i >> 5) & 1)
    sa, oa = _power(scalars["a"], scalars["b"])
    sb, ob = _power(scalars["c"], scalars["d"])
    y = x.copy()
    for it in range(int(scalars["reps"])):
        take_b = ((q + it) & 1) == 1
        y = np.where(take_b, sb * y + ob, sa * y + oa)
    return {"y": y}
