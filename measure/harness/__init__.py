"""The pycuda measurement harness: compile, check, time, copy floor, counters.

The method (issue 3): compile once through pycuda's cache; allocate outside the
timed region; fill inputs from a seeded generator (never zeros); poison outputs
and scratch, run every variant once and compare every element with the entry's
float64 reference before anything is timed; then warm up and take ``runs``
samples per variant, interleaved across variants, each behind an L2 flush and a
blocking kernel, timed with CUDA events; measure the copy floor in the same run;
record the environment.  Importing this package never imports pycuda: only
``probe_gpu``, ``list_gpus``, ``measure_entry`` and the GPU session do.

Its parts, as nvbench splits its cold measurement: ``session`` (context, stream,
events, the blocking kernel and the L2 flush; the kernels are ``harness.cu``),
``workspace`` (buffers and inputs), ``launches``, ``check``, ``sampling`` (the
stopping rule), ``copy_floor``, ``counters`` (ncu, with ``profile_main`` the
process it profiles), ``envinfo``, ``compile`` and ``run`` (``measure_entry``).
What is exported here is the public surface; the rest is the parts' own.
"""

from measure.harness.check import check_elements, nan_note
from measure.harness.compile import cache_dir, compile_kernels, load_reference
from measure.harness.copy_floor import copy_floor_bytes, copy_floor_record, copy_floor_regions
from measure.harness.errors import MeasurementError
from measure.harness.failure import failure_record
from measure.harness.launches import Call, prepare_calls
from measure.harness.run import measure_entry
from measure.harness.sampling import host_part, sample_region, sampling_done
from measure.harness.session import GpuSession, harness_source, list_gpus, probe_gpu
from measure.harness.workspace import Workspace, fill_input, memory_shortfall

__all__ = [
    "Call", "GpuSession", "MeasurementError", "Workspace",
    "cache_dir", "check_elements", "compile_kernels", "copy_floor_bytes", "copy_floor_record",
    "copy_floor_regions", "failure_record", "fill_input", "harness_source", "host_part", "list_gpus",
    "load_reference", "measure_entry", "memory_shortfall", "nan_note", "prepare_calls", "probe_gpu",
    "sample_region", "sampling_done",
]
