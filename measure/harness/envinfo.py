"""Environment capture: driver, clocks and throttle reasons (NVML, else nvidia-smi), host.

NVML (pynvml, from the nvidia-ml-py package) is imported defensively: a
machine without it still measures, and the record says what could not be read.
Importing this module never imports pycuda; ``environment`` does, for its versions.
"""

from __future__ import annotations

import datetime as dt
import platform
import socket
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from measure import HARNESS_VERSION
from measure.harness import compile as nvcc

if TYPE_CHECKING:
    from measure.harness.session import GpuSession

# nvmlClocksEventReason* bits (formerly ClocksThrottleReason*), from nvml.h.
THROTTLE_BITS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
# Reasons that lower clocks under load; idle, sync boost and settings are not throttling.
THROTTLING = {"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
              "hw_power_brake_slowdown"}


def decode_throttle_reasons(mask: int) -> list[str]:
    """NVML's clock-event bit mask -> reason names, e.g. 0x5 -> ['gpu_idle', 'sw_power_cap']."""
    names = [name for bit, name in THROTTLE_BITS.items() if mask & bit]
    unknown = mask & ~sum(THROTTLE_BITS)
    if unknown:
        names.append(f"unknown_0x{unknown:x}")
    return names


def is_throttled(reasons: list[str]) -> bool:
    return any(r in THROTTLING for r in reasons)


def cuda_version_string(version: int) -> str:
    """cuDriverGetVersion's integer -> text: 13000 -> '13.0', 12060 -> '12.6'."""
    return f"{version // 1000}.{(version % 1000) // 10}"


def captured_at() -> str:
    """Now, ISO-8601 in UTC to the second."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def host_info() -> dict[str, str]:
    return {"python": platform.python_version(), "host": socket.gethostname(),
            "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
            "python_executable": sys.executable}


class Nvml:
    """A handle on one GPU through NVML; every read returns None where NVML cannot answer."""

    def __init__(self, pci_bus_id: str | None = None) -> None:
        self.error: str | None = None
        self._nvml: Any = None
        self._handle: Any = None
        try:
            import pynvml  # nvidia-ml-py
            pynvml.nvmlInit()
        except Exception as err:  # missing package or no driver: record, don't fail
            self.error = f"NVML unavailable: {err}"
            return
        self._nvml = pynvml
        try:
            if pci_bus_id:
                self._handle = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id)
            else:
                self._handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:
            try:  # bus-id formats differ between CUDA and NVML on some drivers
                self._handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            except Exception as err:
                self.error = f"NVML has no handle for the device: {err}"

    def _call(self, name: str, *args: Any) -> Any:
        if self._nvml is None or self._handle is None:
            return None
        fn = getattr(self._nvml, name, None)
        if fn is None:
            return None
        try:
            return fn(self._handle, *args)
        except Exception:
            return None

    def driver_version(self) -> str | None:
        if self._nvml is None:
            return None
        try:
            value = self._nvml.nvmlSystemGetDriverVersion()
        except Exception:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    def sm_clock_mhz(self) -> int | None:
        return self._call("nvmlDeviceGetClockInfo", 1)  # NVML_CLOCK_SM

    def memory_clock_mhz(self) -> int | None:
        return self._call("nvmlDeviceGetClockInfo", 2)  # NVML_CLOCK_MEM

    def max_sm_clock_mhz(self) -> int | None:
        return self._call("nvmlDeviceGetMaxClockInfo", 1)

    def throttle_reasons(self) -> list[str] | None:
        mask = self._call("nvmlDeviceGetCurrentClocksEventReasons")
        if mask is None:
            mask = self._call("nvmlDeviceGetCurrentClocksThrottleReasons")
        return None if mask is None else decode_throttle_reasons(int(mask))

    def host_link(self) -> dict:
        """The host link as NVML reports it: PCIe generation and width (now and at most), or NVLink-C2C
        where the GPU's C2C mode is on."""
        c2c = self._call("nvmlDeviceGetC2cModeInfoV")
        if c2c is not None and getattr(c2c, "isC2cEnabled", 0):
            return {"kind": "nvlink-c2c"}
        link = {"pcie_gen": self._call("nvmlDeviceGetCurrPcieLinkGeneration"),
                "pcie_width": self._call("nvmlDeviceGetCurrPcieLinkWidth"),
                "pcie_gen_max": self._call("nvmlDeviceGetMaxPcieLinkGeneration"),
                "pcie_width_max": self._call("nvmlDeviceGetMaxPcieLinkWidth")}
        link = {k: int(v) for k, v in link.items() if isinstance(v, int) and v > 0}
        return {"kind": "pcie" if link else "unknown", **link}

    def uuid(self) -> str | None:
        value = self._call("nvmlDeviceGetUUID")
        return value.decode() if isinstance(value, bytes) else value

    def temperature_c(self) -> int | None:
        return self._call("nvmlDeviceGetTemperature", 0)  # NVML_TEMPERATURE_GPU

    def close(self) -> None:
        if self._nvml is not None:
            try:
                self._nvml.nvmlShutdown()
            except Exception:
                pass
            self._nvml = None


def smi_driver_version() -> str | None:
    """The driver version from nvidia-smi, where NVML is not importable."""
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    line = proc.stdout.strip().splitlines()
    return line[0].strip() if proc.returncode == 0 and line else None


def locked_memory_limit() -> int | None:
    """RLIMIT_MEMLOCK, the most page-locked memory this process may hold outside the driver's own
    pinning; None where unlimited or unknown."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 else int(soft)


def environment(gpu: GpuSession, nvml: Nvml, built: nvcc.Built) -> dict:
    """A result's ``environment``: the GPU, driver, toolchain, compile commands, the device's limits
    and the host, before sampling."""
    import pycuda
    drv = gpu.drv
    env = {
        "gpu": gpu.name,
        "driver": nvml.driver_version() or smi_driver_version(),
        "cuda_driver": cuda_version_string(int(drv.get_driver_version())),
        "pycuda_cuda": ".".join(str(p) for p in drv.get_version()[:2]),
        "nvcc": nvcc.nvcc_version(),
        "compile_command": "; ".join(built.distinct_commands),
        "arch": gpu.arch,
        "l2_bytes": gpu.l2_bytes,
        "sm_count": gpu.sm_count,
        "memory_bytes": gpu.memory_bytes,
        # Which physical card measured: same-model cards share a result file, so keep their identity here.
        "pci_bus_id": gpu.dev.pci_bus_id(),
        "gpu_uuid": nvml.uuid(),
        "clocks": {"sm_mhz_max": nvml.max_sm_clock_mhz(), "memory_mhz": nvml.memory_clock_mhz()},
        "captured_at": captured_at(),
        "harness_version": HARNESS_VERSION,
        "pycuda": pycuda.VERSION_TEXT,
    }
    if len(set(built.commands.values())) > 1:
        env["compile_commands"] = dict(built.commands)
    env["limits"] = dict(gpu.limits)
    env["host_link"] = nvml.host_link()
    env["pinned_limit_bytes"] = locked_memory_limit()
    if nvml.error:
        env["nvml_error"] = nvml.error
    env.update(host_info())
    return env


def finish_environment(env: dict, sizes: list[dict]) -> None:
    """Clocks before the first and after the last timed sample; throttle reasons seen under load."""
    env["clocks"]["sm_mhz_before"] = sizes[0]["clocks"]["sm_mhz_before"]
    env["clocks"]["sm_mhz_after"] = sizes[-1]["clocks"]["sm_mhz_after"]
    reasons = sorted({r for s in sizes for r in s["clocks"]["throttle_reasons"]})
    env["throttle_reasons"] = reasons
    env["throttled"] = is_throttled(reasons)
