"""The verified CUDA glossary: entry model, publish gate, rendering and build wiring.

Measurement lives in the separate ``measure`` package; nothing here imports pycuda.
"""
