"""Float64 reference: b is the transpose of a (both row-major, a is rows x cols)."""

import numpy as np


def reference(variant, inputs, scalars, params):
    rows, cols = params["rows"], params["cols"]
    a = inputs["a"].reshape(rows, cols)
    return {"b": np.ascontiguousarray(a.T).reshape(-1)}
