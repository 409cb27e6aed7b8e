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
process it profiles), ``envinfo``, ``compile`` and ``run`` (``measure_entry``); ``unified`` (managed
buffers, prefetch and advice, the pages each sample starts from), ``hopper`` (cluster and tensor-map
launches through cuLaunchKernelEx, L2 windows, the state every region starts from) and
``uvm_counters`` (CUPTI's unified-memory counters), read by ``uvm_pass`` in a process of their own.
What is exported here is the public surface; the rest is the parts' own.
"""

# What each public name is, and where it lives: imported on first use (PEP 562), so that importing one
# part of the harness (``measure.harness.phases`` for the command line's summary) does not import
# them all, NumPy and ml-dtypes included.
_WHERE = {
    "Call": "measure.harness.launches",
    "GpuSession": "measure.harness.session",
    "MeasurementError": "measure.harness.errors",
    "Workspace": "measure.harness.workspace",
    "cache_dir": "measure.harness.compile",
    "check_elements": "measure.harness.check",
    "compile_kernels": "measure.harness.compile",
    "copy_floor_bytes": "measure.harness.copy_floor",
    "copy_floor_record": "measure.harness.copy_floor",
    "copy_floor_regions": "measure.harness.copy_floor",
    "failure_record": "measure.harness.failure",
    "fill_input": "measure.harness.workspace",
    "harness_source": "measure.harness.session",
    "host_part": "measure.harness.sampling",
    "list_gpus": "measure.harness.session",
    "load_reference": "measure.harness.compile",
    "measure_entry": "measure.harness.run",
    "memory_shortfall": "measure.harness.workspace",
    "nan_note": "measure.harness.check",
    "prepare_calls": "measure.harness.launches",
    "probe_gpu": "measure.harness.session",
    "sample_region": "measure.harness.sampling",
    "sampling_done": "measure.harness.sampling",
}


def __getattr__(name: str):
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Call", "GpuSession", "MeasurementError", "Workspace",
    "cache_dir", "check_elements", "compile_kernels", "copy_floor_bytes", "copy_floor_record",
    "copy_floor_regions", "failure_record", "fill_input", "harness_source", "host_part", "list_gpus",
    "load_reference", "measure_entry", "memory_shortfall", "nan_note", "prepare_calls", "probe_gpu",
    "sample_region", "sampling_done",
]
