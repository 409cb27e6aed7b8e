"""Float64 reference: every variant computes y = a * x; they differ only in where x's pages start."""


def reference(variant, inputs, scalars, params):
    return {"y": scalars["a"] * inputs["x"]}
