"""The result file as a type: what ``entries/<slug>/results/<device>.json`` holds (format 1).

The producers are ``measure.harness.run`` (``measure_entry``: environment, method, sizes),
``measure.harness.counters`` (the Nsight Compute pass, per variant and in summary) and
``measure.harness.failure`` (the failure record); ``measure.store`` writes and reads the
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

from dataclasses import dataclass
from typing import Any, Literal

from measure.results.base import Record, field, nonempty, timestamp
from measure.results.sizes import CounterSummary, Size
from measure.typed import SchemaError, load

FORMAT = 1
# measure.harness.phases.PHASES and the total (the harness imports the model, not the other way).
PHASE_NAMES = ("compile", "inputs", "reference", "check", "timing", "counters", "ncu_startup", "total")


# -- environment and method ------------------------------------------------------------------


@dataclass(frozen=True)
class EnvClocks(Record):
    """Clocks NVML reported: maxima when the run started, the SM clock around the timed samples."""

    sm_mhz_max: int | None = field("maximum SM clock, MHz", above=0, default=None)
    memory_mhz: int | None = field("memory clock, MHz", above=0, default=None)
    sm_mhz_before: int | None = field("SM clock before the first timed sample, MHz", above=0, default=None)
    sm_mhz_after: int | None = field("SM clock after the last timed sample, MHz", above=0, default=None)


@dataclass(frozen=True)
class HostLink(Record):
    """The GPU's link to the host: PCIe generation and width now and at most (NVML), or NVLink-C2C."""

    kind: Literal["pcie", "nvlink-c2c", "unknown"] = field("what carries host-device copies")
    pcie_gen: int | None = field("PCIe generation in use", above=0, default=None)
    pcie_width: int | None = field("PCIe lanes in use", above=0, default=None)
    pcie_gen_max: int | None = field("the highest generation the GPU and slot support", above=0, default=None)
    pcie_width_max: int | None = field("the most lanes", above=0, default=None)


@dataclass(frozen=True)
class Environment(Record):
    """Where and with what the figures were measured (every key the runner records; null where the
    driver or NVML could not say)."""

    gpu: str = field("the GPU's name, e.g. NVIDIA H200")
    captured_at: str = field("when: an ISO-8601 date or UTC time")
    driver: str | None = field("driver version", default=None)
    cuda_driver: str | None = field("CUDA version of the driver", default=None)
    pycuda_cuda: str | None = field("CUDA version pycuda was built against", default=None)
    nvcc: str | None = field("nvcc version", default=None)
    compile_command: str | None = field("the exact nvcc command of each source, '; '-separated", default=None)
    arch: str | None = field("the architecture compiled for, e.g. sm_90", default=None)
    l2_bytes: int | None = field("L2 cache size, bytes", above=0, default=None)
    sm_count: int | None = field("streaming multiprocessors", above=0, default=None)
    memory_bytes: int | None = field("device memory, bytes", above=0, default=None)
    pci_bus_id: str | None = field("which card measured (same-model cards share a file)", default=None)
    gpu_uuid: str | None = field("the card's UUID (NVML)", default=None)
    clocks: EnvClocks | None = field("clocks (NVML)", default=None)
    harness_version: str | None = field("the harness version that measured", default=None)
    pycuda: str | None = field("pycuda version", default=None)
    python: str | None = field("Python version", default=None)
    host: str | None = field("host name", default=None)
    platform: str | None = field("operating system, release, machine", default=None)
    python_executable: str | None = field("the Python that ran the harness", default=None)
    throttle_reasons: list[str] | None = field("NVML clock-event reasons seen under load", default=None)
    throttled: bool | None = field("whether any of them slows the clocks", default=None)
    nvml_error: str | None = field("why NVML could not answer, where it could not", default=None)
    limits: dict[str, int] | None = field(
        "the device's limits that spec expressions may name, and the shared memory the driver "
        "reserves per block (measure.occupancy.DEVICE_ATTRIBUTES)", at_least=0, default=None)
    compile_commands: dict[str, str] | None = field(
        "the exact nvcc command of each variant's build, '; '-separated across sources, where a variant's "
        "defines or register limit give it a build of its own", default=None)
    host_link: HostLink | None = field("the link between host and GPU, as NVML reports it", default=None)
    pinned_limit_bytes: int | None = field("the process's locked-memory limit (RLIMIT_MEMLOCK); null where "
                                           "unlimited", at_least=0, default=None)
    occupancy_source: str | None = field(
        "where resident blocks per SM came from: the driver (cuda-bindings), or the formula and why", default=None)

    def _rules(self) -> None:
        nonempty("gpu", self.gpu)
        timestamp("captured_at", self.captured_at)


@dataclass(frozen=True)
class MethodCheck(Record):
    """The correctness check's settings."""

    rtol: float = field("relative tolerance", at_least=0)
    atol: float = field("absolute tolerance", at_least=0)
    poison: str = field("what outputs were filled with before each check")
    tolerances: dict[str, list[float]] | None = field(
        "each output's [rtol, atol] as compared (its own, its data type's or the spec's)", default=None)


@dataclass(frozen=True)
class Method(Record):
    """How the figures were timed (the spec's timing settings, as run)."""

    statistic: Literal["mean", "median", "min"] = field("the statistic the page publishes")
    warmups: int | None = field("untimed runs before sampling", at_least=0, default=None)
    runs: int | None = field("the fewest timed samples per variant", at_least=1, default=None)
    timer: str | None = field("cuda-events, host-perf-counter or cuda-events+host-perf-counter", default=None)
    max_runs: int | None = field("the most samples per variant", at_least=1, default=None)
    target_ci: float | None = field("the stopping rule's target: +/- this fraction of the median", above=0,
                                     default=None)
    max_seconds: float | None = field("wall-clock cap on sampling one size", above=0, default=None)
    clock: Literal["device", "host", "both"] | None = field("the clock timed", default=None)
    blocking: bool | None = field("each region behind a blocking kernel", default=None)
    l2_flush: bool | None = field("the L2 flushed before every sample", default=None)
    flush_bytes: int | None = field("bytes the flush reads (0 without a flush)", at_least=0, default=None)
    flush_method: str | None = field("how the L2 is flushed (null without a flush)", default=None)
    interleaved: bool | None = field("samples taken round-robin across variants", default=None)
    blocking_timeout_s: float | None = field("the blocking kernel's timeout, s", above=0, default=None)
    seed: int | None = field("seed of the input generator", default=None)
    check: MethodCheck | None = field("the correctness check's settings", default=None)

    def _rules(self) -> None:
        nonempty("timer", self.timer)
        if self.max_runs is not None and self.runs is not None and self.max_runs < self.runs:
            raise SchemaError("max_runs", f"expected at least runs ({self.runs}), found {self.max_runs}")


# -- signatures and failures -----------------------------------------------------------------


@dataclass(frozen=True)
class EnvelopeSignature(Record):
    """One signature of a DSSE envelope (base64), with the id of the key that made it."""

    sig: str = field("the signature over PAE(payloadType, payload), base64")
    keyid: str | None = field("the signing key's SHA-256 fingerprint, e.g. SHA256:...", default=None)


@dataclass(frozen=True)
class Envelope(Record):
    """A DSSE v1 envelope holding the in-toto statement a verification node signed (measure.attest);
    whether it verifies, and by whose key, is the trust check's to say, not the file format's."""

    payloadType: str = field("application/vnd.in-toto+json")
    payload: str = field("the statement's canonical JSON, base64")
    signatures: list[EnvelopeSignature] = field("the signatures, usually one")


@dataclass(frozen=True)
class FailureEnvironment(Record):
    """The GPU a failed attempt ran on, and when (``measure.harness.failure``'s failure record)."""

    gpu: str | None = field("the GPU's name", default=None)
    captured_at: str | None = field("when: an ISO-8601 date or UTC time", default=None)

    def _rules(self) -> None:
        if self.captured_at is not None:
            timestamp("captured_at", self.captured_at)


# -- the file --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure(Record):
    """A failed measurement (``measure.harness.failure``'s failure record): kept beside good figures as
    ``last_failure``, never over them."""

    error: str = field("what went wrong")
    entry: str | None = field("the entry's slug", default=None)
    device: str | None = field("the device key", default=None)
    provenance: Literal["measured"] | None = field("always measured", default=None)
    fingerprint: str | None = field("the fingerprint the attempt measured for", default=None)
    environment: FailureEnvironment | None = field("the GPU and when", default=None)
    signature: Envelope | None = field("the failing node's signature over this record", default=None)

    def _rules(self) -> None:
        nonempty("error", self.error)


@dataclass(frozen=True)
class SassRecord(Record):
    """The compiled code of each variant's kernels, as ``cuobjdump -sass`` showed it on the node:
    instruction counts by mnemonic (``measure.sass``), for claims of kind sass."""

    tool: str | None = field("the cuobjdump version that read the cubins", default=None)
    arch: str | None = field("the architecture the cubins were compiled for, e.g. sm_90", default=None)
    variants: dict[str, dict[str, dict[str, int]]] | None = field(
        "measured variant -> kernel -> SASS mnemonic (e.g. LDGSTS.E.BYPASS.LTC128B.128) -> instructions",
        at_least=0, default=None)
    unavailable: str | None = field("why the code was not read (no cuobjdump on the node, a failure)",
                                    default=None)

    def _rules(self) -> None:
        if (self.variants is None) == (self.unavailable is None):
            raise SchemaError("variants", "expected the instruction counts or why they are unavailable, one of them")


@dataclass(frozen=True)
class Result(Record):
    """A results file: one entry's figures on one device model (entries/<slug>/results/<device>.json)."""

    format: int = field(f"the file format; this glossary reads format {FORMAT}")
    entry: str = field("the entry's slug (the name of the folder holding results/)")
    device: str = field("the device key, e.g. nvidia-h200 (the file's name)")
    status: Literal["ok", "failed"] = field("ok: figures; failed: a measurement that never succeeded")
    provenance: Literal["measured", "imported"] = field(
        "measured by this harness, or imported from elsewhere (never re-measured, never stale)")
    fingerprint: str | None = field(
        "of the spec, kernels, reference and harness version measured for (null for imported figures)")
    environment: Environment = field("the GPU, driver, toolchain and host, and when")
    imported_from: str | None = field("imported results: where the figures came from", default=None)
    imported_from_url: str | None = field(
        "imported results: where a reader can read that source: an http(s) URL, or a file under the "
        "docs folder's assets/ (e.g. assets/imported/<name>.txt), which the site then publishes", default=None)
    method: Method | None = field("how the figures were timed (required when ok)", default=None)
    sizes: list[Size] = field("one record per size of the sweep", default=())
    counters: CounterSummary | None = field("how the Nsight Compute pass went", default=None)
    phases: dict[str, float] | None = field(
        "wall seconds of each phase of the measurement (compile, inputs, reference, check, timing, "
        "counters) and of all of it (total)", at_least=0, default=None)
    error: str | None = field("failed results: what went wrong", default=None)
    last_failure: Failure | None = field("the latest failed attempt, kept beside good figures", default=None)
    sass: SassRecord | None = field("the instructions of each variant's kernels (claims of kind sass)",
                                    default=None)
    signature: Envelope | None = field(
        "the measuring node's signature over everything but itself and last_failure", default=None)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def imported(self) -> bool:
        return self.provenance == "imported"

    def _rules(self) -> None:
        if self.format != FORMAT:
            raise SchemaError("format", f"expected {FORMAT}, found {self.format}")
        nonempty("entry", self.entry)
        nonempty("device", self.device)
        if self.provenance == "imported" and not (self.imported_from or "").strip():
            raise SchemaError("imported_from", "imported results say where their figures came from")
        if self.imported_from_url is not None:
            _check_source_url(self.imported_from_url)
        if self.provenance == "measured":
            for key in ("imported_from", "imported_from_url"):
                if getattr(self, key) is not None:
                    raise SchemaError(key, f"only imported results have {key}")
            if self.status == "ok" and not (self.fingerprint or "").strip():
                raise SchemaError("fingerprint", "measured results carry the fingerprint they were measured for")
        for name in self.phases or ():
            if name not in PHASE_NAMES:
                raise SchemaError(f"phases.{name}", f"expected one of {', '.join(PHASE_NAMES)}")
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


def parse_measured(data: dict) -> Result:
    """A result as ``measure.harness.measure_entry`` returns it, before the store adds its format."""
    return parse(dict(data, format=FORMAT))


def parse(data: Any, key: str = "") -> Result:
    """The typed result from plain JSON data; raises measure.typed.SchemaError naming the key.

    Every record keeps the data it was read from (``Record.plain``): a signature covers the bytes
    as written, and the site republishes them, so neither is rebuilt from the typed fields."""
    return load(Result, data, key)


def _check_source_url(url: str) -> None:
    """An imported result's source link: an http(s) URL, or a docs-relative path under assets/."""
    if url.startswith(("https://", "http://")) and len(url) > len("https://"):
        return
    if url.startswith("assets/") and ".." not in url.split("/") and "\\" not in url and url != "assets/":
        return
    raise SchemaError("imported_from_url", f"expected an http(s) URL or a path under assets/, found {url!r}")
