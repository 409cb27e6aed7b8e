"""Float64 reference: every variant computes y = a * x (the ballast is never stored: flag is 0)."""


def reference(variant, inputs, scalars, params):
    return {"y": scalars["a"] * inputs["x"]}
