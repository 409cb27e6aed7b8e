"""Hopper's launch features on the node: cluster launches and tensor-map arguments through
cuLaunchKernelEx, L2 access-policy windows on the stream, and the state each timed region starts from.

Kernels launched in clusters or given a tensor map are loaded a second time through NVIDIA's
cuda-bindings from the same cubin (pycuda exposes no function handle), in pycuda's own context, and
launched with cuLaunchKernelEx on pycuda's streams; their arguments are laid out once per call as
the kernel parameter array the driver reads.  ``RegionState.before`` runs outside every timed region
(the sampling loop calls it before the L2 flush, the check before its run): it resets the managed
buffers (``measure.harness.unified``), clears the persisting lines of the L2, and sets or clears the
variant's access-policy window on the main stream.
"""

from __future__ import annotations

import ctypes
import hashlib
from typing import Any, Callable

from measure import expr
from measure.harness.errors import MeasurementError
from measure.harness.unified import bindings, check
from measure.spec import MeasureSpec
from measure.spec.hopper import SWIZZLE_BYTES, requirements
from measure.spec.unified import managed_buffers

TENSOR_TYPES = {"float32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32", "float64": "CU_TENSOR_MAP_DATA_TYPE_FLOAT64",
                "int32": "CU_TENSOR_MAP_DATA_TYPE_INT32", "float16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
                "bfloat16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", "int8": "CU_TENSOR_MAP_DATA_TYPE_UINT8"}
CTYPES = {"P": ctypes.c_uint64, "f": ctypes.c_float, "d": ctypes.c_double, "i": ctypes.c_int32,
          "q": ctypes.c_int64}


def require(spec: MeasureSpec, gpu: Any) -> None:
    """A MeasurementError naming the feature and the arch, where the device lacks what the spec uses."""
    problems = requirements(spec, gpu.arch)
    if problems:
        raise MeasurementError(f"{gpu.name} ({gpu.arch}) cannot run this entry: {'; '.join(problems)}")
    if managed_buffers(spec):
        from measure.harness.unified import require_managed
        require_managed(gpu)


def needs_ex(spec: MeasureSpec, launch: Any) -> bool:
    """Whether a kernel launch goes through cuLaunchKernelEx: in clusters, or with a tensor map."""
    return bool(launch.cluster) or any(a in spec.tensor_maps for a in launch.args)


def cu_function(gpu: Any, cubin: bytes, name: str) -> Any:
    """The kernel ``name`` of ``cubin`` as a CUfunction, loaded once per session through cuda-bindings."""
    cu = bindings()
    cache = gpu.__dict__.setdefault("_cu_functions", {})
    key = (hashlib.sha256(cubin).hexdigest(), name)
    if key not in cache:
        modules = gpu.__dict__.setdefault("_cu_modules", {})
        digest = key[0]
        if digest not in modules:
            (modules[digest],) = check(cu.cuModuleLoadData(cubin), "cuModuleLoadData")
        (cache[key],) = check(cu.cuModuleGetFunction(modules[digest], name.encode()), f"cuModuleGetFunction {name}")
    return cache[key]


def tensor_map(spec: MeasureSpec, name: str, ws: Any, params: dict[str, int]) -> Any:
    """The CUtensorMap ``measure.tensor_maps[name]`` encodes over its buffer at this size (one per workspace)."""
    cu = bindings()
    cache = ws.__dict__.setdefault("_tensor_maps", {})
    if name in cache:
        return cache[name]
    tm = spec.tensor_maps[name]
    buf = spec.buffers[tm.buffer]
    item = ws.itemsize(tm.buffer)
    dims = [expr.evaluate_int(d, params) for d in tm.dims]
    strides, stride = [], item
    for d in dims[:-1]:
        stride *= d
        strides.append(cu.cuuint64_t(stride))
    swizzle = SWIZZLE_BYTES[tm.swizzle]
    result = cu.cuTensorMapEncodeTiled(
        getattr(cu.CUtensorMapDataType, TENSOR_TYPES[buf.dtype]), len(dims), int(ws.allocs[tm.buffer]),
        [cu.cuuint64_t(d) for d in dims], strides, [cu.cuuint32_t(b) for b in tm.box],
        [cu.cuuint32_t(1) for _ in dims], cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(cu.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_NONE" if swizzle is None else
                f"CU_TENSOR_MAP_SWIZZLE_{swizzle}B"),
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    (cache[name],) = check(result, f"cuTensorMapEncodeTiled ({name} over {tm.buffer}, dims {dims}, box {list(tm.box)})")
    return cache[name]


class ExLaunch:
    """How a Call is enqueued through cuLaunchKernelEx: the function, its parameter array, the cluster."""

    def __init__(self, gpu: Any, function: Any, grid: tuple, block: tuple, shared: int, args: list[Any],
                 codes: str, cluster: tuple[int, int, int] | None, where: str) -> None:
        cu = self.cu = bindings()
        self.function = function
        self.values = []   # the parameters' storage, kept alive with the call
        for value, code in zip(args, codes):
            self.values.append(value if code == "T" else CTYPES[code](value))
        pointers = [v.getPtr() if hasattr(v, "getPtr") else ctypes.addressof(v) for v in self.values]
        self.array = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        if shared > 48 << 10:
            check(cu.cuFuncSetAttribute(function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        shared), f"{where}: cuFuncSetAttribute (dynamic shared memory)")
        self.grid, self.block, self.shared, self.cluster = grid, block, shared, cluster
        self.configs: dict[int, Any] = {}

    def config(self, stream: Any) -> Any:
        handle = int(stream.handle)
        if handle not in self.configs:
            cu = self.cu
            config = cu.CUlaunchConfig()
            config.gridDimX, config.gridDimY, config.gridDimZ = self.grid
            config.blockDimX, config.blockDimY, config.blockDimZ = self.block
            config.sharedMemBytes = self.shared
            config.hStream = cu.CUstream(handle)
            if self.cluster is not None:
                attr = cu.CUlaunchAttribute()
                attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
                attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = self.cluster
                config.attrs = [attr]
                config.numAttrs = 1
            else:
                config.numAttrs = 0
            self.configs[handle] = config
        return self.configs[handle]

    def __call__(self, stream: Any) -> None:
        check(self.cu.cuLaunchKernelEx(self.config(stream), self.function, ctypes.addressof(self.array), 0),
              "cuLaunchKernelEx")


def ex_launch(spec: MeasureSpec, gpu: Any, launch: Any, cubin: bytes, grid: tuple, block: tuple, shared: int,
              args: list[Any], codes: str, env: dict[str, int], ws: Any, params: dict[str, int],
              where: str) -> ExLaunch:
    """A launch with a cluster or tensor-map arguments, ready to enqueue: tensor maps encoded, the
    cluster evaluated and checked against the grid."""
    cluster = None
    if launch.cluster:
        try:
            dims = [expr.evaluate_int(str(c), env) for c in launch.cluster]
        except expr.ExprError as err:
            raise MeasurementError(f"{where}: cluster: {err}") from None
        cluster = tuple(dims + [1] * (3 - len(dims)))
        if any(g % c for g, c in zip(grid, cluster)):
            raise MeasurementError(f"{where}: the grid {grid} is not a whole number of clusters {cluster}")
    args = [tensor_map(spec, a, ws, params) if c == "T" else v for a, c, v in zip(launch.args, codes, args)]
    return ExLaunch(gpu, cu_function(gpu, cubin, launch.kernel), grid, block, shared, args, codes, cluster, where)


class RegionState:
    """What every timed region of one size starts from: managed buffers reset, the L2's persisting lines
    cleared, the main stream's access-policy window set for the variant that has one, else cleared."""

    def __init__(self, spec: MeasureSpec, ws: Any, gpu: Any, params: dict[str, int]) -> None:
        self.spec, self.gpu, self.ws, self.params = spec, gpu, ws, params
        self.managed = None
        if managed_buffers(spec):
            from measure.harness.unified import ManagedState
            self.managed = ManagedState(spec, ws, gpu)
        self.windows = {v.name: v.l2_window for v in spec.variants if v.l2_window is not None}
        self.cu = bindings() if self.windows else None
        self.window_on = False
        self.limit_set = False

    @property
    def active(self) -> bool:
        return self.managed is not None or bool(self.windows)

    def before(self, variant: Any | None) -> None:
        """Outside the timed region: the state ``variant`` (a MeasuredVariant, or None for the floors) starts from."""
        spec_variant = variant.spec if variant is not None else None
        if self.managed is not None and spec_variant is not None:  # the floors never touch managed pages
            self.managed.reset(dict(spec_variant.resident))
        if self.windows:
            self._window(spec_variant.l2_window if spec_variant is not None else None)

    def _window(self, window: Any | None) -> None:
        cu, gpu = self.cu, self.gpu
        stream = cu.CUstream(int(gpu.stream.handle))
        value = cu.CUstreamAttrValue()
        policy = value.accessPolicyWindow
        if window is not None:
            limits = gpu.__dict__.setdefault("_persisting", persisting_limits(cu))
            env = {**self.params, "l2_bytes": gpu.l2_bytes}
            want = expr.evaluate_int(window.set_aside, env) if window.set_aside else limits["max_persisting"]
            if not self.limit_set:
                check(cu.cuCtxSetLimit(cu.CUlimit.CU_LIMIT_PERSISTING_L2_CACHE_SIZE, min(want, limits["max_persisting"])),
                      "cuCtxSetLimit (persisting L2)")
                self.limit_set = True
            ptr = int(self.ws.allocs[window.buffer])
            full = self.ws.counts[window.buffer] * self.ws.itemsize(window.buffer)
            nbytes = expr.evaluate_int(window.bytes, self.params) if window.bytes else full
            policy.base_ptr = ptr
            policy.num_bytes = min(nbytes, full, limits["max_window"])
            policy.hitRatio = float(window.hit_ratio)
            policy.hitProp = cu.CUaccessProperty.CU_ACCESS_PROPERTY_PERSISTING
            policy.missProp = cu.CUaccessProperty.CU_ACCESS_PROPERTY_STREAMING
        else:
            policy.base_ptr = 0
            policy.num_bytes = 0
            policy.hitRatio = 0.0
            policy.hitProp = cu.CUaccessProperty.CU_ACCESS_PROPERTY_NORMAL
            policy.missProp = cu.CUaccessProperty.CU_ACCESS_PROPERTY_NORMAL
        gpu.stream.synchronize()
        check(cu.cuCtxResetPersistingL2Cache(), "cuCtxResetPersistingL2Cache")
        ids = cu.CUstreamAttrID  # the stream attributes are the launch attributes' enum in cuda-bindings 13
        attr = getattr(ids, "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW", None) or ids.CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW
        check(cu.cuStreamSetAttribute(stream, attr, value), "cuStreamSetAttribute (access-policy window)")
        self.window_on = window is not None

    def close(self) -> None:
        """Clear the window and give the set-aside L2 back (the context's limit, not the card's setting)."""
        if self.windows:
            try:
                self._window(None)
                if self.limit_set:
                    self.cu.cuCtxSetLimit(self.cu.CUlimit.CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0)
            except Exception:
                pass

    def wrap(self, regions: dict[str, Callable[[], None]], variants: dict[str, Any]) -> dict[str, Callable[[], None]]:
        """Each region as a callable whose ``before_sample`` puts this state in place first."""
        out = {}
        for name, enqueue in regions.items():
            variant = variants.get(name)
            out[name] = Prepared(enqueue, lambda v=variant: self.before(v))
        return out


class Prepared:
    """A region's enqueue, with what must run before its sample (outside the timed region)."""

    def __init__(self, enqueue: Callable[[], None], before_sample: Callable[[], None]) -> None:
        self.enqueue, self.before_sample = enqueue, before_sample

    def __call__(self) -> None:
        self.enqueue()


def persisting_limits(cu: Any) -> dict[str, int]:
    """The device's largest persisting L2 set-aside and access-policy window, bytes."""
    (dev,) = check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
    attr = cu.CUdevice_attribute
    (most,) = check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, dev),
                    "cuDeviceGetAttribute (persisting L2)")
    (window,) = check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, dev),
                      "cuDeviceGetAttribute (access-policy window)")
    return {"max_persisting": int(most), "max_window": int(window)}


__all__ = ["ExLaunch", "Prepared", "RegionState", "ex_launch", "needs_ex", "require", "tensor_map"]
