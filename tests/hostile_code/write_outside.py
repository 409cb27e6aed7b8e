import os
def reference(variant, inputs, scalars, params):
    written = []
    for path in ("OUTSIDE_PATH", "/entry/planted.txt", os.path.expanduser("~/planted.txt")):
        try:
            with open(path, "w") as f:
                f.write("planted")
            written.append(path)
        except OSError:
            pass
    raise RuntimeError(f"wrote {written}")
