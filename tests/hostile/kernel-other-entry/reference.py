def reference(variant, inputs, scalars, params):
    return {'y': inputs['x']}
