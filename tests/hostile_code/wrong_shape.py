import numpy as np
def reference(variant, inputs, scalars, params):
    return {"y": np.zeros(3)}
