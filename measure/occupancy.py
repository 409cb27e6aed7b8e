"""Theoretical occupancy: how many blocks and warps of a launch one SM holds at once (pure).

The arithmetic of NVIDIA's occupancy calculator (``cuda_occupancy.h``) for sm_70 and newer: a
block's warps, registers and shared memory are each allocated in units, and the SM's limit on
each gives a number of resident blocks; the least of them, and the SM's block limit, is the
launch's residency.  Registers are allocated per warp in units of 256, and per sub-partition
(four on sm_70 and newer), so a warp's registers must fit one quarter of the register file;
shared memory per block adds the driver's reservation (1 KiB on sm_80 and newer) and is
rounded up to 128 bytes.  The harness also asks the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor)
where cuda-bindings is installed, and records which answer the page shows.
"""

from __future__ import annotations

from dataclasses import dataclass

REG_ALLOC_UNIT = 256       # registers, allocated per warp
SUB_PARTITIONS = 4         # an SM's register file is split into four (sm_70 and newer)
SMEM_ALLOC_UNIT = 128      # bytes


@dataclass(frozen=True)
class Residency:
    """What one SM holds of a launch at once, and what limits it."""

    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    limit: str                 # warps, registers, shared, blocks (or none where 0 blocks fit)

    @property
    def occupancy(self) -> float:
        return self.warps_per_sm / self.max_warps_per_sm if self.max_warps_per_sm else 0.0


def _ceil_to(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def residency(threads: int, registers: int, static_shared: int, dynamic_shared: int,
              limits: dict[str, int]) -> Residency:
    """The residency of a block of ``threads`` using ``registers`` per thread and the given shared
    memory, on a device with ``limits`` (measure.spec.limits.DEVICE_NAMES plus
    reserved_smem_per_block)."""
    warp = limits.get("warp_size", 32)
    warps_per_block = -(-threads // warp)
    max_warps = limits["max_threads_per_sm"] // warp
    found = {"blocks": limits["max_blocks_per_sm"], "warps": max_warps // warps_per_block}
    if registers > 0:
        per_warp = _ceil_to(registers * warp, REG_ALLOC_UNIT)
        per_partition = limits["regs_per_sm"] // SUB_PARTITIONS
        warps_fit = (per_partition // per_warp) * SUB_PARTITIONS
        found["registers"] = warps_fit // warps_per_block if registers * threads <= limits["regs_per_block"] else 0
    shared = static_shared + dynamic_shared
    if shared > 0:
        per_block = _ceil_to(shared + limits.get("reserved_smem_per_block", 0), SMEM_ALLOC_UNIT)
        found["shared"] = limits["smem_per_sm"] // per_block if shared <= limits["smem_per_block_optin"] else 0
    # The first limit reached names it; ties go to the order an author reads: warps, registers, shared, blocks.
    order = ("warps", "registers", "shared", "blocks")
    blocks = min(found.values())
    limit = next(name for name in order if found.get(name) == blocks) if blocks else \
        next(name for name in order if found.get(name) == 0)
    return Residency(blocks, blocks * warps_per_block, max_warps, limit)


# Device attributes (pycuda's device_attribute names) behind each limit an expression may use.
DEVICE_ATTRIBUTES = {
    "sm_count": "MULTIPROCESSOR_COUNT",
    "warp_size": "WARP_SIZE",
    "max_threads_per_block": "MAX_THREADS_PER_BLOCK",
    "max_threads_per_sm": "MAX_THREADS_PER_MULTIPROCESSOR",
    "max_blocks_per_sm": "MAX_BLOCKS_PER_MULTIPROCESSOR",
    "smem_per_block": "MAX_SHARED_MEMORY_PER_BLOCK",
    "smem_per_block_optin": "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "smem_per_sm": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
    "regs_per_sm": "MAX_REGISTERS_PER_MULTIPROCESSOR",
    "regs_per_block": "MAX_REGISTERS_PER_BLOCK",
    "l2_bytes": "L2_CACHE_SIZE",
    "reserved_smem_per_block": "RESERVED_SHARED_MEMORY_PER_BLOCK",
}
