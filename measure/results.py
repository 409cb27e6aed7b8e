"""The result file as a type: what ``entries/<slug>/results/<device>.json`` holds (format 1).

The producers are ``measure.runner`` (``measure_entry``: environment, method, sizes),
``measure.counters`` (the Nsight Compute pass, per variant and in summary) and
``glossary.measuring`` (the failure record); ``measure.store`` writes and reads the
files.  ``Result`` describes exactly what they write, plus the few notes an imported
result carries (the seed's Tesla T4 figures), and nothing else: the file is loaded
strictly by ``measure.typed.load``, so an unknown key (with a did-you-mean), a missing
field or a wrong type is an error naming the dotted key.

Values that would mislead or crash a reader are errors too: every number is finite (JSON
``NaN`` and ``Infinity`` parse, but never validate); times and rates are above 0, counts
and byte figures at least 0; a size has params, at least one element and at least one
variant; each variant has the statistic the method publishes, in ``stats`` and, where
host time was recorded, in ``host_stats``; an ok result has a method, a failed one an error
and no figures.

Free-form data is deliberately absent: the environment, the method and the counter
records name each key the harness writes; a signature is a DSSE envelope of fixed shape
(``measure.attest``), its verification left to the trust check.  A new key in the runner is a new field here
(and a regenerated ``schema/result.schema.json``: ``python -m measure.results``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from measure.typed import SchemaError, json_schema, load

FORMAT = 1
_TIME_STATS = ("mean", "median", "min", "max")
# The copy floor's two timed regions, as the runner names them beside the variants in sampling.median_ci_rel.
COPY_REGIONS = ("__vector_copy", "__memcpy_dtod")


def _field(text: str, *, above: float | None = None, at_least: float | None = None, **kwargs: Any) -> Any:
    """A documented field; ``above`` / ``at_least`` bound its numbers (every number in it, for a
    list or mapping), both when loading and in the JSON Schema."""
    meta: dict[str, Any] = {"doc": text}
    if above is not None:
        meta["bound"] = ("above", above)
    elif at_least is not None:
        meta["bound"] = ("at_least", at_least)
    return dataclasses.field(metadata=meta, **kwargs)


def _shown(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return repr(value)


def _check_number(key: str, value: Any, bound: tuple[str, float] | None) -> None:
    """Every number finite; within its field's bound where it has one (lists and mappings item by item)."""
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, tuple):
        kind, limit = bound or ("", 0.0)
        # The common case (samples: all finite and in bounds) in one pass; item by item only to name a bad one.
        if all(type(x) is float and math.isfinite(x) and (x > limit if kind == "above" else
                                                          x >= limit if kind == "at_least" else True)
               for x in value):
            return
        for i, item in enumerate(value):
            _check_number(f"{key}[{i}]", item, bound)
        return
    if isinstance(value, dict):
        for name, item in value.items():
            _check_number(f"{key}.{name}", item, bound)
        return
    if not isinstance(value, (int, float)):
        return  # a nested record: it checked itself when it was loaded
    what = "an integer" if isinstance(value, int) else "a number"
    if not math.isfinite(value):
        raise SchemaError(key, f"expected a finite number, found {_shown(value)}")
    if bound is None:
        return
    kind, limit = bound
    if kind == "above" and not value > limit:
        raise SchemaError(key, f"expected {what} above {_shown(float(limit))}, found {_shown(value)}")
    if kind == "at_least" and not value >= limit:
        raise SchemaError(key, f"expected {what} of at least {_shown(float(limit))}, found {_shown(value)}")


class _Record:
    """Checks shared by every record: numbers finite and within bounds, then the record's own rules."""

    def validate(self) -> None:  # called by measure.typed.load once the fields are converted
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            _check_number(f.name, getattr(self, f.name), f.metadata.get("bound"))
        self._rules()

    def _rules(self) -> None:
        """Rules between fields; raise SchemaError(key relative to this record, message)."""


def _nonempty(key: str, value: str | None) -> None:
    if value is not None and not value.strip():
        raise SchemaError(key, "expected text, found an empty string")


# -- timing statistics -----------------------------------------------------------------------


@dataclass(frozen=True)
class Stats(_Record):
    """Statistics of timing samples in milliseconds (measure.stats.summarize); an imported result may
    carry only the statistic it published."""

    n: int | None = _field("number of samples", at_least=1, default=None)
    mean: float | None = _field("mean, ms", above=0, default=None)
    median: float | None = _field("median, ms", above=0, default=None)
    min: float | None = _field("least sample, ms", above=0, default=None)
    max: float | None = _field("greatest sample, ms", above=0, default=None)
    stdev: float | None = _field("sample standard deviation (n - 1), ms", at_least=0, default=None)
    iqr: float | None = _field("interquartile range, ms", at_least=0, default=None)

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
class CopyRegion(_Record):
    """One of the copy floor's timed regions (a float4 copy kernel, or cuMemcpyDtoD)."""

    samples_ms: list[float] = _field("every sample, ms", above=0)
    stats: Stats = _field("statistics of the samples")
    gbps: float = _field("bytes read plus written per second, 10^9", above=0)

    def _rules(self) -> None:
        _samples_match(self.samples_ms, self.stats, "samples_ms")


@dataclass(frozen=True)
class CopyFloor(_Record):
    """The card's effective bandwidth, measured in the same run: the better of two copies."""

    gbps: float = _field("the copy floor, GB/s (10^9 bytes per second)", above=0)
    vector_copy_gbps: float | None = _field("the float4 copy kernel's GB/s", above=0, default=None)
    memcpy_dtod_gbps: float | None = _field("cuMemcpyDtoD's GB/s", above=0, default=None)
    bytes_per_copy: int | None = _field("bytes each copy reads plus writes", above=0, default=None)
    stat: Literal["mean", "median", "min"] | None = _field("the statistic the rates use", default=None)
    vector_copy: CopyRegion | None = _field("the float4 copy kernel's samples", default=None)
    memcpy_dtod: CopyRegion | None = _field("cuMemcpyDtoD's samples", default=None)


# -- counters (Nsight Compute) ---------------------------------------------------------------


@dataclass(frozen=True)
class KernelCounters(_Record):
    """DRAM bytes of one profiled launch (a repeated launch is profiled once and counted ``repeat`` times)."""

    kernel: str = _field("the kernel's name")
    read_bytes: float = _field("dram__bytes_read.sum", at_least=0)
    write_bytes: float = _field("dram__bytes_write.sum", at_least=0)
    bytes_per_elem: float = _field("read plus written bytes per element, one instance", at_least=0)
    repeat: int = _field("how many times the launch is enqueued", at_least=1)


@dataclass(frozen=True)
class CounterPass(_Record):
    """One variant's DRAM bytes in one ncu pass (caches flushed before every kernel, or not).

    ``source``, ``per_kernel_note`` and ``per_kernel_approx_bytes_per_elem`` are notes that
    imported figures carry where the original run kept no per-launch record."""

    dram_bytes_per_elem: float | None = _field(
        "DRAM bytes read plus written per element, all launches (null where not recorded)", at_least=0)
    read_bytes: float | None = _field("DRAM bytes read, all launches", at_least=0, default=None)
    write_bytes: float | None = _field("DRAM bytes written, all launches", at_least=0, default=None)
    per_kernel: list[KernelCounters] | None = _field("one record per launch, in order", default=None)
    clock_control: str | None = _field("ncu --clock-control", default=None)
    cache_control: Literal["all", "none"] | None = _field("ncu --cache-control", default=None)
    source: str | None = _field("imported results: where the figure came from", default=None)
    per_kernel_note: str | None = _field("imported results: the per-kernel figures, in words", default=None)
    per_kernel_approx_bytes_per_elem: float | None = _field(
        "imported results: the approximate bytes per element of each kernel", at_least=0, default=None)

    def _rules(self) -> None:
        for key in ("clock_control", "source", "per_kernel_note"):
            _nonempty(key, getattr(self, key))


@dataclass(frozen=True)
class VariantCounters(_Record):
    """A variant's counter record: both passes, or the error that stopped them."""

    size: dict[str, int] | None = _field("the size profiled", default=None)
    flushed: CounterPass | None = _field("caches flushed before every kernel", default=None)
    unflushed: CounterPass | None = _field("caches as the timed runs leave them", default=None)
    error: str | None = _field("why there are no counters for this variant", default=None)

    def _rules(self) -> None:
        if self.error is None and self.flushed is None and self.unflushed is None:
            raise SchemaError("", "expected flushed, unflushed or error")


CounterStatus = Literal["ok", "skipped", "error"]


@dataclass(frozen=True)
class CounterSummary(_Record):
    """How the counter pass went (at the headline size, or every size), without the per-variant records."""

    status: CounterStatus = _field("ok, skipped (with a reason) or error")
    size: dict[str, int] = _field("the size profiled (the headline where several were)")
    reason: str | None = _field("why the pass was skipped", default=None)
    error: str | None = _field("why the pass failed", default=None)
    ncu_version: str | None = _field("ncu --version", default=None)
    metrics: list[str] | None = _field("the ncu metrics read", default=None)
    clock_control: str | None = _field("ncu --clock-control", default=None)
    flushed_means: str | None = _field("what the flushed pass is", default=None)
    unflushed_means: str | None = _field("what the unflushed pass is", default=None)
    command: str | None = _field("the ncu command, with placeholders", default=None)
    sizes: list[dict[str, int]] | None = _field("every size profiled", default=None)
    statuses: list[CounterStatus] | None = _field("the status at each of sizes", default=None)

    def _rules(self) -> None:
        if self.status == "skipped" and not self.reason:
            raise SchemaError("reason", "a skipped counter pass says why")
        if self.status == "error" and not self.error:
            raise SchemaError("error", "a failed counter pass says why")
        if (self.sizes is None) != (self.statuses is None) or (
                self.sizes is not None and len(self.sizes) != len(self.statuses or ())):
            raise SchemaError("statuses", "expected one status for each of sizes")


# -- one size --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant(_Record):
    """One variant's figures at one size."""

    bytes_per_elem: float = _field("predicted DRAM bytes per element (the spec's)", at_least=0)
    stats: Stats = _field("statistics of samples_ms; the one named in method.statistic is published")
    useful_bytes_per_elem: float | None = _field("bytes per element the computation needs", at_least=0,
                                                 default=None)
    flops_per_elem: float | None = _field("floating-point operations per element", at_least=0, default=None)
    launches: int | None = _field("launches in the timed region", at_least=1, default=None)
    samples_ms: list[float] | None = _field("every timed sample, ms (null for imported figures without them)",
                                            above=0, default=None)
    counters: VariantCounters | None = _field("DRAM bytes from Nsight Compute, where the pass ran", default=None)
    host_samples_ms: list[float] | None = _field("clock: both: the host's wall time of each sample, ms",
                                                 above=0, default=None)
    host_stats: Stats | None = _field("statistics of host_samples_ms", default=None)

    def _rules(self) -> None:
        _samples_match(self.samples_ms, self.stats, "samples_ms")
        _samples_match(self.host_samples_ms, self.host_stats, "host_samples_ms")
        if (self.host_samples_ms is None) != (self.host_stats is None):
            raise SchemaError("host_stats", "expected host_samples_ms and host_stats together")


@dataclass(frozen=True)
class SizeCheck(_Record):
    """How the outputs compared with the float64 reference at this size (worst over variants and outputs)."""

    max_abs_err: float = _field("largest |got - expected|", at_least=0)
    max_rel_err: float = _field("largest |got - expected| / |expected| where expected is not 0", at_least=0)
    max_tolerance_used: float = _field("largest |got - expected| / (atol + rtol |expected|); at most 1",
                                       at_least=0)
    elements_checked: int = _field("output elements compared", at_least=1)
    rtol: float = _field("relative tolerance", at_least=0)
    atol: float = _field("absolute tolerance", at_least=0)


@dataclass(frozen=True)
class SizeClocks(_Record):
    """SM clocks around this size's sampling, and throttle reasons NVML reported during it."""

    sm_mhz_before: int | None = _field("SM clock just after warm-up, MHz (null without NVML)", above=0,
                                       default=None)
    sm_mhz_after: int | None = _field("SM clock after the last sample, MHz", above=0, default=None)
    throttle_reasons: list[str] = _field("NVML clock-event reasons seen", default=())


@dataclass(frozen=True)
class Sampling(_Record):
    """When sampling stopped, and how well each region's median is known."""

    samples: int = _field("samples taken of each region", at_least=1)
    stopped: str | None = _field("why sampling stopped", default=None)
    median_ci_rel: dict[str, float] = _field(
        "half the 95% confidence interval of each region's median, over the median", at_least=0,
        default_factory=dict)


@dataclass(frozen=True)
class Size(_Record):
    """One point of the size sweep."""

    params: dict[str, int] = _field("the size parameters, e.g. {n: 16777216}", at_least=1)
    elements: int = _field("elements at this size (the spec's elements expression)", at_least=1)
    variants: dict[str, Variant] = _field("figures by variant name, in table order")
    working_set_bytes: int | None = _field("bytes the largest variant touches", at_least=0, default=None)
    copy_floor: CopyFloor | None = _field("the copy floor measured beside the variants", default=None)
    check: SizeCheck | None = _field("the correctness check before timing", default=None)
    clocks: SizeClocks | None = _field("clocks around the sampling", default=None)
    sampling: Sampling | None = _field("the stopping rule's outcome", default=None)

    def _rules(self) -> None:
        if not self.params:
            raise SchemaError("params", "expected at least one size parameter, e.g. {n: 1048576}")
        if not self.variants:
            raise SchemaError("variants", "expected at least one variant")
        for name in self.variants:
            if not name.strip():
                raise SchemaError("variants", "expected variant names, found an empty one")
        if self.sampling is not None:
            known = set(self.variants) | set(COPY_REGIONS)
            for name in self.sampling.median_ci_rel:
                if name not in known:
                    raise SchemaError(f"sampling.median_ci_rel.{name}",
                                      f"expected a variant ({', '.join(self.variants)}) or a copy-floor region")


# -- environment and method ------------------------------------------------------------------


@dataclass(frozen=True)
class EnvClocks(_Record):
    """Clocks NVML reported: maxima when the run started, the SM clock around the timed samples."""

    sm_mhz_max: int | None = _field("maximum SM clock, MHz", above=0, default=None)
    memory_mhz: int | None = _field("memory clock, MHz", above=0, default=None)
    sm_mhz_before: int | None = _field("SM clock before the first timed sample, MHz", above=0, default=None)
    sm_mhz_after: int | None = _field("SM clock after the last timed sample, MHz", above=0, default=None)


def _timestamp(key: str, text: str) -> None:
    try:
        dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise SchemaError(key, f"expected a date or an ISO-8601 time (2026-11-29T12:06:48Z), "
                               f"found {text!r}") from None


@dataclass(frozen=True)
class Environment(_Record):
    """Where and with what the figures were measured (every key the runner records; null where the
    driver or NVML could not say)."""

    gpu: str = _field("the GPU's name, e.g. NVIDIA H200")
    captured_at: str = _field("when: an ISO-8601 date or UTC time")
    driver: str | None = _field("driver version", default=None)
    cuda_driver: str | None = _field("CUDA version of the driver", default=None)
    pycuda_cuda: str | None = _field("CUDA version pycuda was built against", default=None)
    nvcc: str | None = _field("nvcc version", default=None)
    compile_command: str | None = _field("the exact nvcc command of each source, '; '-separated", default=None)
    arch: str | None = _field("the architecture compiled for, e.g. sm_90", default=None)
    l2_bytes: int | None = _field("L2 cache size, bytes", above=0, default=None)
    sm_count: int | None = _field("streaming multiprocessors", above=0, default=None)
    memory_bytes: int | None = _field("device memory, bytes", above=0, default=None)
    pci_bus_id: str | None = _field("which card measured (same-model cards share a file)", default=None)
    gpu_uuid: str | None = _field("the card's UUID (NVML)", default=None)
    clocks: EnvClocks | None = _field("clocks (NVML)", default=None)
    harness_version: str | None = _field("the harness version that measured", default=None)
    pycuda: str | None = _field("pycuda version", default=None)
    python: str | None = _field("Python version", default=None)
    host: str | None = _field("host name", default=None)
    platform: str | None = _field("operating system, release, machine", default=None)
    python_executable: str | None = _field("the Python that ran the harness", default=None)
    throttle_reasons: list[str] | None = _field("NVML clock-event reasons seen under load", default=None)
    throttled: bool | None = _field("whether any of them slows the clocks", default=None)
    nvml_error: str | None = _field("why NVML could not answer, where it could not", default=None)

    def _rules(self) -> None:
        _nonempty("gpu", self.gpu)
        _timestamp("captured_at", self.captured_at)


@dataclass(frozen=True)
class MethodCheck(_Record):
    """The correctness check's settings."""

    rtol: float = _field("relative tolerance", at_least=0)
    atol: float = _field("absolute tolerance", at_least=0)
    poison: str = _field("what outputs were filled with before each check")


@dataclass(frozen=True)
class Method(_Record):
    """How the figures were timed (the spec's timing settings, as run)."""

    statistic: Literal["mean", "median", "min"] = _field("the statistic the page publishes")
    warmups: int | None = _field("untimed runs before sampling", at_least=0, default=None)
    runs: int | None = _field("the fewest timed samples per variant", at_least=1, default=None)
    timer: str | None = _field("cuda-events, host-perf-counter or cuda-events+host-perf-counter", default=None)
    max_runs: int | None = _field("the most samples per variant", at_least=1, default=None)
    target_ci: float | None = _field("the stopping rule's target: +/- this fraction of the median", above=0,
                                     default=None)
    max_seconds: float | None = _field("wall-clock cap on sampling one size", above=0, default=None)
    clock: Literal["device", "host", "both"] | None = _field("the clock timed", default=None)
    blocking: bool | None = _field("each region behind a blocking kernel", default=None)
    l2_flush: bool | None = _field("the L2 flushed before every sample", default=None)
    flush_bytes: int | None = _field("bytes the flush reads (0 without a flush)", at_least=0, default=None)
    flush_method: str | None = _field("how the L2 is flushed (null without a flush)", default=None)
    interleaved: bool | None = _field("samples taken round-robin across variants", default=None)
    blocking_timeout_s: float | None = _field("the blocking kernel's timeout, s", above=0, default=None)
    seed: int | None = _field("seed of the input generator", default=None)
    check: MethodCheck | None = _field("the correctness check's settings", default=None)

    def _rules(self) -> None:
        _nonempty("timer", self.timer)
        if self.max_runs is not None and self.runs is not None and self.max_runs < self.runs:
            raise SchemaError("max_runs", f"expected at least runs ({self.runs}), found {self.max_runs}")


# -- signatures and failures -----------------------------------------------------------------


@dataclass(frozen=True)
class EnvelopeSignature(_Record):
    """One signature of a DSSE envelope (base64), with the id of the key that made it."""

    sig: str = _field("the signature over PAE(payloadType, payload), base64")
    keyid: str | None = _field("the signing key's SHA-256 fingerprint, e.g. SHA256:...", default=None)


@dataclass(frozen=True)
class Envelope(_Record):
    """A DSSE v1 envelope holding the in-toto statement a verification node signed (measure.attest);
    whether it verifies, and by whose key, is the trust check's to say, not the file format's."""

    payloadType: str = _field("application/vnd.in-toto+json")
    payload: str = _field("the statement's canonical JSON, base64")
    signatures: list[EnvelopeSignature] = _field("the signatures, usually one")


@dataclass(frozen=True)
class FailureEnvironment(_Record):
    """The GPU a failed attempt ran on, and when (glossary.measuring's failure record)."""

    gpu: str | None = _field("the GPU's name", default=None)
    captured_at: str | None = _field("when: an ISO-8601 date or UTC time", default=None)

    def _rules(self) -> None:
        if self.captured_at is not None:
            _timestamp("captured_at", self.captured_at)


# -- the file --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure(_Record):
    """A failed measurement (glossary.measuring's failure record): kept beside good figures as
    ``last_failure``, never over them."""

    error: str = _field("what went wrong")
    entry: str | None = _field("the entry's slug", default=None)
    device: str | None = _field("the device key", default=None)
    provenance: Literal["measured"] | None = _field("always measured", default=None)
    fingerprint: str | None = _field("the fingerprint the attempt measured for", default=None)
    environment: FailureEnvironment | None = _field("the GPU and when", default=None)
    signature: Envelope | None = _field("the failing node's signature over this record", default=None)

    def _rules(self) -> None:
        _nonempty("error", self.error)


@dataclass(frozen=True)
class Result(_Record):
    """A results file: one entry's figures on one device model (entries/<slug>/results/<device>.json)."""

    format: int = _field(f"the file format; this glossary reads format {FORMAT}")
    entry: str = _field("the entry's slug (the name of the folder holding results/)")
    device: str = _field("the device key, e.g. nvidia-h200 (the file's name)")
    status: Literal["ok", "failed"] = _field("ok: figures; failed: a measurement that never succeeded")
    provenance: Literal["measured", "imported"] = _field(
        "measured by this harness, or imported from elsewhere (never re-measured, never stale)")
    fingerprint: str | None = _field(
        "of the spec, kernels, reference and harness version measured for (null for imported figures)")
    environment: Environment = _field("the GPU, driver, toolchain and host, and when")
    imported_from: str | None = _field("imported results: where the figures came from", default=None)
    method: Method | None = _field("how the figures were timed (required when ok)", default=None)
    sizes: list[Size] = _field("one record per size of the sweep", default=())
    counters: CounterSummary | None = _field("how the Nsight Compute pass went", default=None)
    error: str | None = _field("failed results: what went wrong", default=None)
    last_failure: Failure | None = _field("the latest failed attempt, kept beside good figures", default=None)
    signature: Envelope | None = _field(
        "the measuring node's signature over everything but itself and last_failure", default=None)

    def _rules(self) -> None:
        if self.format != FORMAT:
            raise SchemaError("format", f"expected {FORMAT}, found {self.format}")
        _nonempty("entry", self.entry)
        _nonempty("device", self.device)
        if self.provenance == "imported" and not (self.imported_from or "").strip():
            raise SchemaError("imported_from", "imported results say where their figures came from")
        if self.provenance == "measured":
            if self.imported_from is not None:
                raise SchemaError("imported_from", "only imported results have imported_from")
            if self.status == "ok" and not (self.fingerprint or "").strip():
                raise SchemaError("fingerprint", "measured results carry the fingerprint they were measured for")
        if self.status == "failed":
            if not (self.error or "").strip():
                raise SchemaError("error", "required for a failed result (what went wrong)")
            for key in ("method", "counters", "last_failure"):
                if getattr(self, key) is not None:
                    raise SchemaError(key, "a failed result holds no figures; only error and environment")
            if self.sizes:
                raise SchemaError("sizes", "a failed result holds no figures; only error and environment")
            return
        if self.error is not None:
            raise SchemaError("error", "only failed results have error (a failed attempt beside good "
                                       "figures is last_failure)")
        if self.method is None:
            raise SchemaError("method", "required key is missing (how the figures were timed)")
        stat = self.method.statistic
        for i, size in enumerate(self.sizes):
            for name, variant in size.variants.items():
                for part in ("stats", "host_stats"):
                    st = getattr(variant, part)
                    if st is not None and getattr(st, stat) is None:
                        raise SchemaError(f"sizes[{i}].variants.{name}.{part}.{stat}",
                                          f"required key is missing (method.statistic is {stat})")


Staleness = Literal["missing", "failed", "imported", "stale", "current"]


def staleness(result: dict | None, fingerprint: str | None) -> Staleness:
    """Where a device's recorded result stands against the entry as it is now (its measurement
    ``fingerprint``): the one definition of "current" and "stale".

    missing   nothing recorded for the device;
    failed    only a failed attempt is recorded;
    imported  figures carried in from elsewhere: never stale, never current (no fingerprint of ours);
    stale     measured for another spec, kernels, reference or harness version;
    current   measured by the harness for exactly this entry.

    A verification node measures every device whose result is not current; a page flags
    only a stale one.
    """
    if result is None:
        return "missing"
    if result.get("status") != "ok":
        return "failed"
    if result.get("provenance") == "imported":
        return "imported"
    return "current" if result.get("fingerprint") == fingerprint else "stale"


def parse(data: Any, key: str = "") -> Result:
    """The typed result from plain JSON data; raises measure.typed.SchemaError naming the key."""
    return load(Result, data, key)


def result_schema() -> dict:
    """The JSON Schema of a results file, with the model's numeric bounds."""
    schema = json_schema(Result, title="Verified CUDA glossary results file")
    records = {cls.__name__: cls for cls in _records(Result)}
    for name, body in [("Result", schema)] + list(schema.get("$defs", {}).items()):
        cls = records[name]
        for f in dataclasses.fields(cls):
            bound = f.metadata.get("bound")
            if bound is not None:
                _bound_schema(body["properties"][f.name], bound)
    schema["properties"]["format"]["const"] = FORMAT
    return json.loads(json.dumps(schema))  # plain JSON data: tuple defaults become lists


def _records(cls: type, seen: dict[str, type] | None = None) -> list[type]:
    from typing import get_args, get_type_hints

    seen = {} if seen is None else seen
    if cls.__name__ in seen:
        return []
    seen[cls.__name__] = cls
    stack = list(get_type_hints(cls).values())
    while stack:
        tp = stack.pop()
        if dataclasses.is_dataclass(tp):
            _records(tp, seen)
        stack.extend(get_args(tp))
    return list(seen.values())


def _bound_schema(prop: dict, bound: tuple[str, float]) -> None:
    """Put the bound on every number the property holds (through null, arrays and mappings)."""
    if prop.get("type") in ("number", "integer"):
        kind, limit = bound
        prop["exclusiveMinimum" if kind == "above" else "minimum"] = limit
    for option in prop.get("anyOf", ()):
        _bound_schema(option, bound)
    if isinstance(prop.get("items"), dict):
        _bound_schema(prop["items"], bound)
    if isinstance(prop.get("additionalProperties"), dict):
        _bound_schema(prop["additionalProperties"], bound)


__all__ = ["FORMAT", "Result", "Environment", "Method", "Size", "Variant", "Stats", "CopyFloor", "CopyRegion",
           "CounterSummary", "CounterPass", "VariantCounters", "KernelCounters", "SizeCheck", "SizeClocks",
           "Sampling", "EnvClocks", "MethodCheck", "Failure", "FailureEnvironment", "Envelope",
           "EnvelopeSignature", "parse", "result_schema"]


if __name__ == "__main__":  # python -m measure.results > schema/result.schema.json
    print(json.dumps(result_schema(), indent=2, ensure_ascii=False))
