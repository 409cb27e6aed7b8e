"""Float64 reference: a chain of K kernels leaves y = x + K.

The variants are named plain_k<K> and graph_k<K>; the chain's length is the name's suffix (the
spec lists one variant per length because a launch's `repeat` is an integer, not an expression
over a sweep).  Graph or not, the kernels and their order are the same, so the values are too.
"""

import re

_LENGTH = re.compile(r"_k(\d+)$")


def chain_length(variant):
    found = _LENGTH.search(variant)
    if found is None:
        raise ValueError(f"variant {variant!r} does not end in _k<length>")
    return int(found.group(1))


def reference(variant, inputs, scalars, params):
    return {"y": inputs["x"] + float(chain_length(variant))}
