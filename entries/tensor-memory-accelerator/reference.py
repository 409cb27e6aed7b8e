"""Float64 reference: every variant copies the matrix; only how the tiles travel differs."""


def reference(variant, inputs, scalars, params):
    return {"b": inputs["a"]}
