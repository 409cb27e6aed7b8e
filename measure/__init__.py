"""The pycuda measurement harness: spec model, runner, statistics, environment, results store.

Importing this package never imports pycuda; only ``measure.runner`` needs a GPU.
"""

HARNESS_VERSION = "1.1"  # 1.1: counters per size; unflushed pass flushes per variant
