"""One point of the size sweep in a results file: timing statistics, the copy floor, counters,
each variant's figures, the correctness check, clocks and the stopping rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from measure.results.base import Record, field, nonempty
from measure.results.variant_extras import FillRecord, GraphRecord, UnifiedMemoryCounts  # noqa: F401 -- re-exported
from measure.typed import SchemaError

_TIME_STATS = ("mean", "median", "min", "max")
# The copy floor's two timed regions, as the runner names them beside the variants in sampling.median_ci_rel,
# and the link floor's (measure.harness.link_floor).
COPY_REGIONS = ("__vector_copy", "__memcpy_dtod", "__link_h2d", "__link_d2h")
SERIAL = "·serial"  # a multi-stream variant's serial twin: the variant's name and this


# -- timing statistics -----------------------------------------------------------------------


@dataclass(frozen=True)
class Stats(Record):
    """Statistics of timing samples in milliseconds (measure.stats.summarize); an imported result may
    carry only the statistic it published."""

    n: int | None = field("number of samples", at_least=1, default=None)
    mean: float | None = field("mean, ms", above=0, default=None)
    median: float | None = field("median, ms", above=0, default=None)
    min: float | None = field("least sample, ms", above=0, default=None)
    max: float | None = field("greatest sample, ms", above=0, default=None)
    stdev: float | None = field("sample standard deviation (n - 1), ms", at_least=0, default=None)
    iqr: float | None = field("interquartile range, ms", at_least=0, default=None)

    def _rules(self) -> None:
        if all(getattr(self, name) is None for name in _TIME_STATS):
            raise SchemaError("", f"expected at least one of {', '.join(_TIME_STATS)}")


def _samples_match(samples: tuple[float, ...] | None, stats: Stats | None, key: str) -> None:
    if samples is not None and not samples:
        raise SchemaError(key, "expected at least one sample (or null where none were recorded)")
    if samples is not None and stats is not None and stats.n is not None and stats.n != len(samples):
        raise SchemaError(key, f"expected {stats.n} samples (stats.n), found {len(samples)}")


# -- the copy floor --------------------------------------------------------------------------


@dataclass(frozen=True)
class CopyRegion(Record):
    """One of the copy floor's timed regions (a float4 copy kernel, or cuMemcpyDtoD)."""

    samples_ms: list[float] = field("every sample, ms", above=0)
    stats: Stats = field("statistics of the samples")
    gbps: float = field("bytes read plus written per second, 10^9", above=0)

    def _rules(self) -> None:
        _samples_match(self.samples_ms, self.stats, "samples_ms")


@dataclass(frozen=True)
class CopyFloor(Record):
    """The card's effective bandwidth, measured in the same run: the better of two copies."""

    gbps: float = field("the copy floor, GB/s (10^9 bytes per second)", above=0)
    vector_copy_gbps: float | None = field("the float4 copy kernel's GB/s", above=0, default=None)
    memcpy_dtod_gbps: float | None = field("cuMemcpyDtoD's GB/s", above=0, default=None)
    bytes_per_copy: int | None = field("bytes each copy reads plus writes", above=0, default=None)
    stat: Literal["mean", "median", "min"] | None = field("the statistic the rates use", default=None)
    vector_copy: CopyRegion | None = field("the float4 copy kernel's samples", default=None)
    memcpy_dtod: CopyRegion | None = field("cuMemcpyDtoD's samples", default=None)


@dataclass(frozen=True)
class LinkFloor(Record):
    """The host link's best pinned bandwidth each way, measured in the same run as the variants."""

    h2d_gbps: float = field("pinned host-to-device copies, GB/s (10^9 bytes moved per second)", above=0)
    d2h_gbps: float = field("pinned device-to-host copies, GB/s", above=0)
    bytes: int = field("bytes each copy moves", above=0)
    stat: Literal["mean", "median", "min"] | None = field("the statistic the rates use", default=None)


# -- counters (Nsight Compute) ---------------------------------------------------------------


@dataclass(frozen=True)
class KernelCounters(Record):
    """DRAM bytes of one profiled launch (a repeated launch is profiled once and counted ``repeat`` times)."""

    kernel: str = field("the kernel's name")
    read_bytes: float = field("dram__bytes_read.sum", at_least=0)
    write_bytes: float = field("dram__bytes_write.sum", at_least=0)
    bytes_per_elem: float = field("read plus written bytes per element, one instance", at_least=0)
    repeat: int = field("how many times the launch is enqueued", at_least=1)


@dataclass(frozen=True)
class KernelMetric(Record):
    """A declared metric of one profiled launch."""

    kernel: str = field("the kernel's name")
    value: float = field("the metric as ncu reported it (base units)")
    requests: float | None = field("the request metric, for per: request", default=None)
    repeat: int = field("how many times the launch is enqueued", at_least=1, default=1)


@dataclass(frozen=True)
class MetricValue(Record):
    """A declared metric of one variant in one pass, combined over its launches as the spec says."""

    value: float = field("the normalised value (per element, launch or request; the total; or the average)")
    total: float = field("the sum over the variant's launches, repeats counted")
    unit: str = field("the unit of value, as the spec names it", default="")
    per: Literal["element", "launch", "request", "total", "average"] = field("how value was combined",
                                                                             default="total")
    metric: str | None = field("the ncu metric", default=None)
    requests: float | None = field("the request metric's sum, for per: request", default=None)
    per_kernel: list[KernelMetric] | None = field("one record per launch, in order", default=None)


@dataclass(frozen=True)
class CounterPass(Record):
    """One variant's DRAM bytes in one ncu pass (caches flushed before every kernel, or not).

    ``source``, ``per_kernel_note`` and ``per_kernel_approx_bytes_per_elem`` are notes that
    imported figures carry where the original run kept no per-launch record."""

    dram_bytes_per_elem: float | None = field(
        "DRAM bytes read plus written per element, all launches (null where not recorded)", at_least=0)
    read_bytes: float | None = field("DRAM bytes read, all launches", at_least=0, default=None)
    write_bytes: float | None = field("DRAM bytes written, all launches", at_least=0, default=None)
    per_kernel: list[KernelCounters] | None = field("one record per launch, in order", default=None)
    clock_control: str | None = field("ncu --clock-control", default=None)
    cache_control: Literal["all", "none"] | None = field("ncu --cache-control", default=None)
    source: str | None = field("imported results: where the figure came from", default=None)
    per_kernel_note: str | None = field("imported results: the per-kernel figures, in words", default=None)
    per_kernel_approx_bytes_per_elem: float | None = field(
        "imported results: the approximate bytes per element of each kernel", at_least=0, default=None)
    metrics: dict[str, MetricValue] | None = field("the spec's declared metrics, by name", default=None)

    def _rules(self) -> None:
        for key in ("clock_control", "source", "per_kernel_note"):
            nonempty(key, getattr(self, key))


@dataclass(frozen=True)
class VariantCounters(Record):
    """A variant's counter record: both passes, or the error that stopped them."""

    size: dict[str, int] | None = field("the size profiled", default=None)
    flushed: CounterPass | None = field("caches flushed before every kernel", default=None)
    unflushed: CounterPass | None = field("caches as the timed runs leave them", default=None)
    error: str | None = field("why there are no counters for this variant", default=None)

    def _rules(self) -> None:
        if self.error is None and self.flushed is None and self.unflushed is None:
            raise SchemaError("", "expected flushed, unflushed or error")


CounterStatus = Literal["ok", "skipped", "error"]


@dataclass(frozen=True)
class CounterSummary(Record):
    """How the counter pass went (at the headline size, or every size), without the per-variant records."""

    status: CounterStatus = field("ok, skipped (with a reason) or error")
    size: dict[str, int] = field("the size profiled (the headline where several were)")
    reason: str | None = field("why the pass was skipped", default=None)
    error: str | None = field("why the pass failed", default=None)
    ncu_version: str | None = field("ncu --version", default=None)
    metrics: list[str] | None = field("the ncu metrics read", default=None)
    clock_control: str | None = field("ncu --clock-control", default=None)
    flushed_means: str | None = field("what the flushed pass is", default=None)
    unflushed_means: str | None = field("what the unflushed pass is", default=None)
    command: str | None = field("the ncu command, with placeholders", default=None)
    sizes: list[dict[str, int]] | None = field("every size profiled", default=None)
    statuses: list[CounterStatus] | None = field("the status at each of sizes", default=None)

    def _rules(self) -> None:
        if self.status == "skipped" and not self.reason:
            raise SchemaError("reason", "a skipped counter pass says why")
        if self.status == "error" and not self.error:
            raise SchemaError("error", "a failed counter pass says why")
        if (self.sizes is None) != (self.statuses is None) or (
                self.sizes is not None and len(self.sizes) != len(self.statuses or ())):
            raise SchemaError("statuses", "expected one status for each of sizes")


@dataclass(frozen=True)
class CountersFrom(Record):
    """Where a size's counters come from when this run did not profile them: an earlier result of
    the same entry and device with the same counter key, whose node signature verified."""

    captured_at: str | None = field("when the counters were measured (that result's environment)", default=None)
    fingerprint: str | None = field("that result's measurement fingerprint", default=None)
    signed_by: str | None = field("the trusted node key that signed it (null under trust: names)", default=None)


# -- host-side steps ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CopyStep(Record):
    """One copy step of a variant (its repeats together): which buffers, which way, how many bytes."""

    src: str = field("the source buffer")
    dst: str = field("the destination buffer")
    direction: Literal["h2d", "d2h", "d2d"] = field("host to device, device to host, or device to device")
    bytes: int = field("bytes the step moves in one region, repeats counted", at_least=0)
    copies: int = field("copies the step enqueues in one region", at_least=1)


@dataclass(frozen=True)
class Overlap(Record):
    """A multi-stream variant against its serial twin (the same steps in order on one stream)."""

    serial_ms: float = field("the serial twin's time (the published statistic), ms", above=0)
    fraction: float = field("1 - time / serial time: the share of the serial time the streams hid")
    serial_samples_ms: list[float] | None = field("the serial twin's samples, ms", above=0, default=None)


# -- kernel attributes -------------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchAttrs(Record):
    """One launch of a variant as the loaded kernel runs it: its resources and the residency they allow."""

    kernel: str = field("the kernel's name")
    grid: list[int] = field("grid dimensions", at_least=1)
    block: list[int] = field("block dimensions", at_least=1)
    registers: int = field("registers per thread", at_least=0)
    static_shared_bytes: int = field("static shared memory per block, bytes", at_least=0)
    dynamic_shared_bytes: int = field("dynamic shared memory per block, bytes", at_least=0)
    local_bytes: int = field("local memory per thread (spills, local arrays), bytes", at_least=0)
    max_threads_per_block: int = field("the most threads a block of this kernel may have", at_least=1)
    resident_blocks_per_sm: int | None = field("blocks one SM holds at once", at_least=0, default=None)
    resident_warps_per_sm: int | None = field("warps one SM holds at once", at_least=0, default=None)
    max_warps_per_sm: int | None = field("the most warps an SM holds", at_least=1, default=None)
    theoretical_occupancy: float | None = field("resident warps over the most an SM holds", at_least=0,
                                                default=None)
    occupancy_limit: Literal["warps", "registers", "shared", "blocks", "grid"] | None = field(
        "what limits residency (measure.occupancy); grid: the launch has fewer blocks per SM than the "
        "SM's limits allow", default=None)
    limit_blocks_per_sm: int | None = field("where the grid limits: the blocks an SM could hold", at_least=0,
                                            default=None)
    occupancy_source: Literal["driver", "formula"] | None = field(
        "resident blocks from the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor) or the formula",
        default=None)
    formula_blocks_per_sm: int | None = field("the formula's resident blocks, where the driver answered",
                                              at_least=0, default=None)


# -- one size --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant(Record):
    """One variant's figures at one size."""

    bytes_per_elem: float = field("predicted DRAM bytes per element (the spec's)", at_least=0)
    stats: Stats = field("statistics of samples_ms; the one named in method.statistic is published")
    useful_bytes_per_elem: float | None = field("bytes per element the computation needs", at_least=0,
                                                 default=None)
    flops_per_elem: float | None = field("floating-point operations per element", at_least=0, default=None)
    launches: int | None = field("launches in the timed region", at_least=1, default=None)
    samples_ms: list[float] | None = field("every timed sample, ms (null for imported figures without them)",
                                            above=0, default=None)
    counters: VariantCounters | None = field("DRAM bytes from Nsight Compute, where the pass ran", default=None)
    host_samples_ms: list[float] | None = field("clock: both: the host's wall time of each sample, ms",
                                                 above=0, default=None)
    host_stats: Stats | None = field("statistics of host_samples_ms", default=None)
    base: str | None = field("the spec variant this one is a sweep point of (null without a sweep)", default=None)
    point: dict[str, int] | None = field("the sweep values, e.g. {block: 128} (null without a sweep)",
                                         default=None)
    launch_attrs: list[LaunchAttrs] | None = field("each distinct launch's kernel attributes", default=None)
    copies: list[CopyStep] | None = field("the variant's copy steps", default=None)
    copy_bytes: dict[str, int] | None = field("bytes copied in one region, by direction (h2d, d2h, d2d)",
                                              at_least=0, default=None)
    streams: int | None = field("streams the steps ran on, where more than one", at_least=2, default=None)
    overlap: Overlap | None = field("the variant against its serial twin (several streams)", default=None)
    graph: GraphRecord | None = field("the CUDA graph the variant was replayed from", default=None)
    blocked: bool | None = field("true where its GPU samples waited behind the blocking kernel although "
                                 "method.blocking is off (timing.block_where_possible)", default=None)
    setup: list[FillRecord] | None = field("the untimed fills run before each of its samples", default=None)
    unified_memory: UnifiedMemoryCounts | None = field(
        "unified-memory counters of one untimed run (entries with managed buffers, at the headline size)",
        default=None)

    def _rules(self) -> None:
        _samples_match(self.samples_ms, self.stats, "samples_ms")
        if (self.base is None) != (self.point is None):
            raise SchemaError("point", "expected base and point together")
        _samples_match(self.host_samples_ms, self.host_stats, "host_samples_ms")
        if (self.host_samples_ms is None) != (self.host_stats is None):
            raise SchemaError("host_stats", "expected host_samples_ms and host_stats together")


@dataclass(frozen=True)
class SizeCheck(Record):
    """How the outputs compared with the float64 reference at this size (worst over variants and outputs)."""

    max_abs_err: float = field("largest |got - expected|", at_least=0)
    max_rel_err: float = field("largest |got - expected| / |expected| where expected is not 0", at_least=0)
    max_tolerance_used: float = field("largest |got - expected| / (atol + rtol |expected|); at most 1",
                                       at_least=0)
    elements_checked: int = field("output elements compared", at_least=1)
    rtol: float = field("relative tolerance", at_least=0)
    atol: float = field("absolute tolerance", at_least=0)


@dataclass(frozen=True)
class SizeClocks(Record):
    """SM clocks around this size's sampling, and throttle reasons NVML reported during it."""

    sm_mhz_before: int | None = field("SM clock just after warm-up, MHz (null without NVML)", above=0,
                                       default=None)
    sm_mhz_after: int | None = field("SM clock after the last sample, MHz", above=0, default=None)
    throttle_reasons: list[str] = field("NVML clock-event reasons seen", default=())


@dataclass(frozen=True)
class Sampling(Record):
    """When sampling stopped, and how well each region's median is known."""

    samples: int = field("samples taken of each region", at_least=1)
    stopped: str | None = field("why sampling stopped", default=None)
    median_ci_rel: dict[str, float] = field(
        "half the 95% confidence interval of each region's median, over the median", at_least=0,
        default_factory=dict)


@dataclass(frozen=True)
class Size(Record):
    """One point of the size sweep."""

    params: dict[str, int] = field("the size parameters, e.g. {n: 16777216}", at_least=1)
    elements: int = field("elements at this size (the spec's elements expression)", at_least=1)
    variants: dict[str, Variant] = field("figures by variant name, in table order")
    working_set_bytes: int | None = field("bytes the largest variant touches", at_least=0, default=None)
    copy_floor: CopyFloor | None = field("the copy floor measured beside the variants", default=None)
    link_floor: LinkFloor | None = field("the host link's pinned bandwidth, where the entry has host buffers",
                                         default=None)
    check: SizeCheck | None = field("the correctness check before timing", default=None)
    clocks: SizeClocks | None = field("clocks around the sampling", default=None)
    sampling: Sampling | None = field("the stopping rule's outcome", default=None)
    counter_key: str | None = field(
        "what this size's counters were measured for (measure.results.identity.counter_key)", default=None)
    counters_from: CountersFrom | None = field(
        "where this size's counters were carried from; null where this run profiled them", default=None)

    def _rules(self) -> None:
        if not self.params:
            raise SchemaError("params", "expected at least one size parameter, e.g. {n: 1048576}")
        if not self.variants:
            raise SchemaError("variants", "expected at least one variant")
        for name in self.variants:
            if not name.strip():
                raise SchemaError("variants", "expected variant names, found an empty one")
        if self.sampling is not None:
            known = set(self.variants) | set(COPY_REGIONS) | {name + SERIAL for name in self.variants}
            for name in self.sampling.median_ci_rel:
                if name not in known:
                    raise SchemaError(f"sampling.median_ci_rel.{name}",
                                      f"expected a variant ({', '.join(self.variants)}) or a copy-floor region")
