"""What a variant's record holds beside its statistics, for the spec features that have them: a graph
variant's capture and instantiation, the untimed fills of its setup, and the unified-memory counts
of a variant with managed buffers."""

from __future__ import annotations

from dataclasses import dataclass

from measure.results.base import Record, field


@dataclass(frozen=True)
class UnifiedMemoryCounts(Record):
    """A variant with managed buffers, run once more untimed under CUPTI's unified-memory counters."""

    bytes_htod: int | None = field("bytes the driver migrated to the GPU", at_least=0, default=None)
    bytes_dtoh: int | None = field("bytes the driver migrated to the host", at_least=0, default=None)
    gpu_page_faults: int | None = field("GPU page faults (CUPTI's GPU_PAGE_FAULT counter)", at_least=0, default=None)
    cpu_page_faults: int | None = field("CPU page faults on managed memory", at_least=0, default=None)
    unavailable: str | None = field("why no counts were taken (CUPTI missing or refusing here)", default=None)


@dataclass(frozen=True)
class GraphRecord(Record):
    """A graph variant: the CUDA graph its steps were captured into, and what a replay costs the host."""

    nodes: int | None = field("nodes in the captured graph", at_least=0, default=None)
    instantiate_ms: float | None = field("cuGraphInstantiate's wall time, ms: the median of "
                                         "instantiate_samples_ms where recorded, else the first call's", at_least=0,
                                         default=None)
    instantiate_samples_ms: list[float] | None = field(
        "each timed cuGraphInstantiate's wall time, ms, after one untimed warm-up instantiation", default=None)
    host_launch_us: float | None = field("median host time of one cuGraphLaunch call, µs", at_least=0,
                                         default=None)
    replays: int | None = field("replays whose host time was taken", at_least=0, default=None)


@dataclass(frozen=True)
class FillRecord(Record):
    """One untimed fill of a variant's setup (measure.spec.setup): set before each of its runs."""

    buffer: str = field("the buffer filled")
    pattern: str = field("the memset's bit pattern, hexadecimal (0x00000000: zero)")
    bytes: int = field("bytes set before each run", at_least=0)
