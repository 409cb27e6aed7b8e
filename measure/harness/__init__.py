"""The pycuda measurement harness."""
