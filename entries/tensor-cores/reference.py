"""Float64 reference: C = A B from the 16-bit inputs each variant reads (converted exactly)."""

import numpy as np


def reference(variant, inputs, scalars, params):
    m, n, k = params["m"], params["n"], params["k"]
    if variant == "wmma_bf16":
        a, b = inputs["a_bf"], inputs["b_bf"]
    else:  # wmma_f16 and fma read the float16 buffers
        a, b = inputs["a"], inputs["b"]
    c = a.reshape(m, k) @ b.reshape(k, n)
    return {"c": c.reshape(-1)}
