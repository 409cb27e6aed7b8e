"""Float64 reference for the kernel-fusion chain (both variants compute the same function)."""

import numpy as np


def reference(variant, inputs, scalars, params):
    x = inputs["x"]
    r = inputs["r"]
    v = scalars["scale"] * x + scalars["bias"]
    v = 0.5 * v * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (v + 0.044715 * v**3)))
    v = v + r
    return {"y": np.clip(v, scalars["lo"], scalars["hi"])}
