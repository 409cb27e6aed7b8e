"""The driver's own occupancy answer, through NVIDIA's Python bindings (cuda-bindings), where installed.

pycuda has no occupancy API, so the cubin a variant was loaded from is loaded a second time
through cuda-bindings, in the same (current) context, and the driver is asked how many blocks of
the launch one SM holds (cuOccupancyMaxActiveBlocksPerMultiprocessor).  Without cuda-bindings
every answer is None and the page shows the formula's (``measure.occupancy``).
"""

from __future__ import annotations

from typing import Any


class DriverOccupancy:
    """Resident blocks per SM of a prepared call, from the driver; None where it cannot say."""

    def __init__(self, cubins: dict[str, dict[str, bytes]]) -> None:
        self.cubins = cubins  # variant -> kernel -> cubin
        self.error: str | None = None
        self._modules: dict[int, Any] = {}
        try:
            from cuda.bindings import driver as cu
        except Exception as err:  # not installed, or built for another CUDA
            self.cu = None
            self.error = f"cuda-bindings is not available: {err}"
        else:
            self.cu = cu

    def blocks(self, variant: str, call: Any) -> int | None:
        if self.cu is None:
            return None
        cubin = self.cubins.get(variant, {}).get(call.kernel)
        if cubin is None:
            return None
        cu = self.cu
        try:
            module = self._modules.get(id(cubin))
            if module is None:
                err, module = cu.cuModuleLoadData(cubin)
                self._check(err, "cuModuleLoadData")
                self._modules[id(cubin)] = module
            err, func = cu.cuModuleGetFunction(module, call.kernel.encode())
            self._check(err, "cuModuleGetFunction")
            if call.shared > (48 << 10):
                (err,) = cu.cuFuncSetAttribute(
                    func, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, call.shared)
                self._check(err, "cuFuncSetAttribute")
            threads = call.block[0] * call.block[1] * call.block[2]
            err, count = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, threads, call.shared)
            self._check(err, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
            return int(count)
        except RuntimeError as err:
            self.error = str(err)
            return None

    def _check(self, err: Any, what: str) -> None:
        if int(err) != 0:
            raise RuntimeError(f"{what} failed: {err}")

    def close(self) -> None:
        if self.cu is not None:
            for module in self._modules.values():
                try:
                    self.cu.cuModuleUnload(module)
                except Exception:
                    pass
        self._modules.clear()
