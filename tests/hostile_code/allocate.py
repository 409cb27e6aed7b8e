import numpy as np
def reference(variant, inputs, scalars, params):
    hog = np.ones(100 * 2**30 // 8)   # 100 GB
    return {"y": hog[: inputs["x"].size]}
