"""Float64 reference: a copy changes no value.

Each variant is one copy, and it writes one of the outputs:
  pinned_h2d    h_x  (pinned host)   -> x    (device)
  pageable_h2d  h_xp (pageable host) -> x    (device)
  pinned_d2h    d_x  (device)        -> h_y  (pinned host)
  pageable_d2h  d_x  (device)        -> h_yp (pageable host)
Every output is returned (the check compares the ones the variant's steps write): x is the
variant's own host input where the variant is an upload (h_x unless it is the pageable one),
and both host outputs are d_x.
"""

SOURCE_OF_X = {"pinned_h2d": "h_x", "pageable_h2d": "h_xp"}


def reference(variant, inputs, scalars, params):
    x = inputs[SOURCE_OF_X.get(variant, "h_x")]
    return {"x": x.copy(), "h_y": inputs["d_x"].copy(), "h_yp": inputs["d_x"].copy()}
