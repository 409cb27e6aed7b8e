import os
def reference(variant, inputs, scalars, params):
    # An output that is a link to a host file: the trusted side must not follow it.
    for name in os.listdir("/io/out") if os.path.isdir("/io/out") else []:
        pass
    os.symlink("SECRET_PATH", "/io/out/1-y.npy")
    return {"z": 1}
