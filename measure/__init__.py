"""The pycuda measurement harness: spec model, harness, statistics, results store.

Importing this package never imports pycuda; only ``measure.harness`` needs a GPU.
"""

HARNESS_VERSION = "1.3"  # 1.1: counters per size; 1.2: the L2 flush reads instead of writing;
#                          1.3: samples until each median is known to +/-target_ci; copy floor past 4x L2
