def reference(variant, inputs, scalars, params):
    try:
        secret = open("SECRET_PATH").read()
    except OSError as err:
        secret = f"(could not read it: {err})"
    raise RuntimeError(secret)
