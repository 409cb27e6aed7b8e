"""The pycuda measurement harness: spec model, harness, statistics, results store.

Importing this package never imports pycuda; only ``measure.harness`` needs a GPU.
"""

HARNESS_VERSION = "1.7"  # 1.1: counters per size; 1.2: the L2 flush reads instead of writing;
#                          1.3: samples until each median is known to +/-target_ci; copy floor past 4x L2;
#                          1.4: inputs drawn in fixed chunks on every core (new values for a seed);
#                          1.5: sweeps, per-variant builds, kernel attributes, narrow types, typed scalars;
#                          1.6: host buffers, copies, streams, graphs; the fingerprint leaves defaults out;
#                          1.7: kernels compiled by nvcc and the reference run in the sandbox (no pycuda include path)
# How a graph variant's instantiation is timed; it joins the measurement fingerprint of specs with a
# graph variant only (measure.results.identity), so a change to it re-measures those entries alone:
# "warm-up+median5": one untimed instantiation, then the median of five (issue 32 item 5; before it,
# the first call's time was recorded, first-use costs and all).
GRAPH_INSTANTIATION = "warm-up+median5"
COUNTER_VERSION = "3"  # the counter pass and the inputs it profiles; 2: inputs as in harness 1.4;
#                        3: declared metrics, read in base units
