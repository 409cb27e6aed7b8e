"""Collect: the page model of an entry (entry + results + gate verdict), before rendering.

Templates receive only what is built here: plain values, already derived and
formatted, so a template never does arithmetic on measurements.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from pathlib import Path
from typing import Any

from glossary.entries.model import Entry, measurement_fingerprint
from glossary.figures import brackets, fmt, measured_on, quantity
from glossary.figures.lead import DeviceLeadMixin
from glossary.figures.roof import Roofline, roofline  # noqa: F401 -- re-exported
from measure import results, stats
from glossary.figures.host import HostExtras, RowHostMixin, SizeHostMixin, host_link_text
from glossary.figures.sweeps import MetricRow, RowExtras, RowKernelMixin, SizeSweepMixin, occupancy_note
from measure.results import Environment, Failure, LaunchAttrs, Method, Result, staleness
from measure.results.sizes import CopyStep, GraphRecord, LinkFloor, Overlap
from measure.spec import working_set_bytes
from measure.spec.sweep import pairs


@dataclass(frozen=True)
class VariantRow(RowKernelMixin, RowHostMixin):
    name: str
    label: str
    ms: float
    bytes_per_elem: float
    gbps: float
    gflops: float | None
    counted_bytes_per_elem: float | None  # DRAM counters, caches flushed before every kernel
    fraction_of_floor: float | None
    samples: int | None
    spread: str | None  # the 95% confidence interval of the statistic, as '±0.31%', where known
    dram_as_timed: float | None = None  # DRAM counters with the caches as the timed runs had them
    useful_bytes_per_elem: float | None = None  # what the computation needs, where DRAM moves more
    flops_per_elem: float | None = None
    launches: int | None = None
    host_ms: float | None = None  # host wall time of the same region (timing.clock: both)
    short_label: str | None = None  # the spec's short form of the label, for tight spaces
    ci_rel: float | None = None  # half the 95% confidence interval of the statistic, over the statistic
    base: str | None = None  # the spec variant a sweep point belongs to (None without a sweep)
    point: tuple[tuple[str, int], ...] = ()  # the sweep values, in sweep order
    launch_attrs: tuple[LaunchAttrs, ...] = ()  # each distinct launch's kernel attributes
    metrics: tuple[MetricRow, ...] = ()  # the spec's declared metrics, where counted at this size
    copies: tuple[CopyStep, ...] = ()  # the variant's copy steps (glossary.figures.host)
    copy_bytes: tuple[tuple[str, int], ...] = ()  # bytes copied in one region, by direction
    streams: int | None = None  # streams the steps ran on, where more than one
    overlap: Overlap | None = None  # against its serial twin, where on several streams
    graph: GraphRecord | None = None  # the CUDA graph the variant was replayed from
    link_floor_gbps: float | None = None  # the link floor of the one direction its copies go
    blocked: bool | None = None  # queued behind the blocking kernel although the method's blocking is off
    unified_memory: Any = None  # CUPTI's unified-memory counts of one untimed run (managed buffers)

    @property
    def display(self) -> str:
        """The variant's name wherever there is room: the spec's label."""
        return self.label

    @property
    def short(self) -> str:
        """The variant's name in tight spaces (sweep headers, plots, ratio lines): the spec's short
        form, else its label."""
        return self.short_label or self.label

    @property
    def useful_bytes(self) -> float:
        return self.bytes_per_elem if self.useful_bytes_per_elem is None else self.useful_bytes_per_elem

    @property
    def overfetch(self) -> float | None:
        """DRAM bytes the counters saw per useful byte (sector over-fetch), where counted."""
        if self.counted_bytes_per_elem is None or not self.useful_bytes:
            return None
        return self.counted_bytes_per_elem / self.useful_bytes

    @property
    def intensity(self) -> float | None:
        """Arithmetic intensity in FLOP per predicted DRAM byte."""
        if self.flops_per_elem is None or not self.bytes_per_elem:
            return None
        return self.flops_per_elem / self.bytes_per_elem

    @property
    def gpu_us_per_launch(self) -> float | None:
        return 1000 * self.ms / self.launches if self.launches else None

    @property
    def host_us_per_launch(self) -> float | None:
        return 1000 * self.host_ms / self.launches if self.launches and self.host_ms is not None else None


@dataclass(frozen=True)
class RatioRow:
    num: str
    den: str
    time_ratio: float
    byte_ratio: float
    counted_ratio: float | None = None  # the ratio of DRAM bytes the counters saw, where both were counted
    num_short: str = ""  # the variants' short names, as sweep headers and ratio lines show them
    den_short: str = ""

    @property
    def short(self) -> str:
        """'staged / fused', in the variants' short names."""
        return f"{self.num_short or self.num} / {self.den_short or self.den}"


@dataclass(frozen=True)
class SizeView(SizeSweepMixin, SizeHostMixin):
    params: dict
    elements: int
    working_set_bytes: int | None
    copy_floor_gbps: float | None
    rows: tuple[VariantRow, ...]
    ratios: tuple[RatioRow, ...]
    headline: bool
    roofline: Roofline | None = None
    samples: int | None = None  # samples taken of each region at this size
    link_floor: LinkFloor | None = None  # the host link's pinned GB/s each way, where there are host buffers
    copy_floor_bytes: int | None = None  # bytes each copy of the copy floor read plus wrote

    @property
    def label(self) -> str:
        """The size as the page names it: '16,777,216 elements', or a matrix's dimensions as a
        GEMM's size is quoted, '4096 × 4096 × 4096'."""
        if fmt.is_dimensions(self.params):
            return fmt.params(self.params)
        return f"{fmt.fmt_int(self.elements)} elements"

    @property
    def size_cell(self) -> str:
        """The size in a sweep table's first column: its element count, or a matrix's dimensions
        where the page names the size by them ('8192 × 8192', as the headline's caption does,
        not '67,108,864')."""
        if fmt.is_dimensions(self.params):
            return fmt.params(self.params)
        return fmt.fmt_int(self.elements)

    @property
    def spread_same(self) -> str | None:
        """The spread every row shares, with its sample count ('below the timer's resolution (0.5 µs),
        200 runs each'), where one value fills the whole column: said once, in the table's lead."""
        spreads = {(r.spread, r.samples) for r in self.rows}
        if len(spreads) != 1 or len(self.rows) < 2:
            return None
        ((spread, samples),) = spreads
        if spread is None:
            return None
        return f"{spread} for every version" + (f", {samples} runs each" if samples else "")

    @property
    def shows_useful(self) -> bool:
        """Whether some variant needs fewer bytes than it moves, so the page shows both."""
        return any(r.useful_bytes != r.bytes_per_elem for r in self.rows)


@dataclass(frozen=True)
class DeviceView(DeviceLeadMixin):
    """One device's recorded results for an entry, ready to render."""

    key: str
    gpu: str
    status: str  # "ok" or "failed"
    provenance: str  # "measured" or "imported"
    imported_from: str | None
    stale: bool
    environment: Environment
    method: Method | None
    sizes: tuple[SizeView, ...]
    error: str | None
    last_failure: Failure | None
    l2_bytes: int | None
    path: Path | None = None
    # Who vouches for these figures (glossary.verdicts.trust): "verified" (a trusted node signed them),
    # "unverified" (a signature is missing, invalid or by an untrusted key), "imported" (figures
    # from elsewhere, not measured by a trusted node) or "unsigned" (trust: names).
    attestation: str = "unsigned"
    attested_by: str | None = None  # the trusted node's name, where verified
    attestation_note: str = ""  # why it is unverified, in words
    # Sizes whose DRAM counters were carried from an earlier result with the same counter key:
    # (size label, when they were measured, the node key that signed that result).
    carried_counters: tuple[tuple[str, str, str | None], ...] = ()
    # What the page leads with (glossary.figures.quantity): "gbps", "tflops" or "time".
    quantity: str = "gbps"
    accuracy: str = ""  # the accuracy check in words (glossary.figures.measured_on)
    brackets: str = ""  # the order between host and GPU time each kind must keep (glossary.figures.brackets)
    sass: Any = None  # the result's disassembly record (measure.results.SassRecord), for claims of kind sass

    @property
    def headline(self) -> SizeView | None:
        for size in self.sizes:
            if size.headline:
                return size
        return self.sizes[-1] if self.sizes else None

    @property
    def size_header(self) -> str:
        """The sweep tables' first column: 'size' where every size is a matrix's (``size_cell``), else 'elements'."""
        return "size" if self.sizes and all(fmt.is_dimensions(z.params) for z in self.sizes) else "elements"

    @property
    def over_link(self) -> bool:
        """Whether every variant's bytes cross the host link (every size's plot floor is the link
        floor): a copy between host and device runs at the link's rate whatever the L2 holds."""
        sizes = [s for s in self.sizes if s.rows]
        return bool(sizes) and all(s.plot_floor[1] == "link floor" for s in sizes)

    @property
    def host_timed(self) -> bool:
        """Whether host time was recorded beside GPU time (timing.clock: both)."""
        return any(r.host_ms is not None for s in self.sizes for r in s.rows)

    def launch_cost_us(self, variant: str) -> float | None:
        """The host's cost per launch of ``variant``: its least host time per launch across the sweep.

        Host time always includes the GPU's (the host waits for it), so only where the GPU
        keeps up, at the least work per launch, does host time per launch show the
        enqueue cost alone."""
        costs = [r.host_us_per_launch for s in self.sizes for r in s.rows
                 if r.name == variant and r.host_us_per_launch is not None]
        return min(costs) if costs else None

    def launch_bound(self, row: VariantRow) -> bool | None:
        """Whether the GPU finishes a launch's work faster than the host can make the launch; None
        for a region with copies: a copy is not a launch the host paces, and its GPU time is the
        link's or the staging's, never "launch-bound"."""
        if row.has_copies:
            return None
        cost = self.launch_cost_us(row.name)
        if cost is None or row.gpu_us_per_launch is None:
            return None
        return row.gpu_us_per_launch < cost

    @property
    def samples_text(self) -> str:
        """How many samples each size took, in words: '26 samples at each size', '122 at 1,048,576
        elements, 80 at 4,194,304 …', or the method's run count where no size recorded its own."""
        counts = [(s.elements, s.samples) for s in self.sizes]
        if not counts or any(n is None for _, n in counts):
            runs = self.method.runs if self.method else 0
            return f"{runs} run{'s' if runs != 1 else ''}"
        if len({n for _, n in counts}) == 1:
            n = counts[0][1]
            return f"{n} sample{'s' if n != 1 else ''}" + (" at each size" if len(counts) > 1 else "")
        return "the samples of each size (" + ", ".join(
            f"{n} at {fmt.fmt_int(e)}" for e, n in counts) + " elements)"

    @property
    def occupancy_note(self) -> str:
        """Where resident blocks per SM came from, in words: the driver, or the formula and why."""
        return occupancy_note(self)

    @property
    def host_link_text(self) -> str:
        """The host link in words ('PCIe Gen5 x16', 'NVLink-C2C'), where the entry's copies cross it (a
        size has a link floor); '' where not recorded or not what the figures are about."""
        if not any(s.link_floor for s in self.sizes):
            return ""
        return host_link_text(self.environment.host_link)

    @property
    def captured_on(self) -> str:
        return self.environment.captured_at[:10]


def device_views(entry: Entry, recorded: dict[str, Result]) -> list[DeviceView]:
    """Views of every device's results; measured ones first, then imported, by name."""
    current = measurement_fingerprint(entry)
    views = [_device_view(entry, key, result, current) for key, result in recorded.items()]
    views.sort(key=lambda v: (v.provenance != "measured", v.gpu))
    return views


def _device_view(entry: Entry, key: str, result: Result, current: str | None) -> DeviceView:
    spec = entry.meta.measure
    statistic = result.method.statistic if result.method else (spec.timing.statistic if spec else "mean")
    headline = dict(spec.headline) if spec else {}
    measured = spec.measured_variants if spec else ()
    labels = {v.name: v.label for v in measured}
    shorts = {v.name: v.short for v in measured if v.short}
    ratio_specs = [(n.name, d.name) for r in spec.ratios for n, d in pairs(spec, r.num, r.den)] if spec else []
    extras = RowExtras(spec)
    sizes = []
    for size in result.sizes if result.ok else ():
        floor = size.copy_floor.gbps if size.copy_floor else None
        ci = dict(size.sampling.median_ci_rel) if size.sampling else {}
        host = HostExtras(size.link_floor)
        events = (result.method.clock if result.method else None) != "host"
        rows = [host.add(extras.add(_row(name, var, labels, shorts, statistic, size.elements, floor, ci.get(name),
                                         events),
                                    var), var)
                for name, var in size.variants.items()]
        by_name = {r.name: r for r in rows}
        ratios = tuple(
            RatioRow(num, den, by_name[num].ms / by_name[den].ms,
                     by_name[num].bytes_per_elem / by_name[den].bytes_per_elem,
                     counted_ratio(by_name[num], by_name[den]),
                     num_short=by_name[num].short, den_short=by_name[den].short)
            for num, den in ratio_specs if num in by_name and den in by_name)
        sizes.append(SizeView(
            params=dict(size.params), elements=size.elements,
            working_set_bytes=size.working_set_bytes or (working_set_bytes(spec, size.params) if spec else None),
            copy_floor_gbps=floor,
            rows=tuple(rows), ratios=ratios, headline=dict(size.params) == headline,
            roofline=roofline(rows, floor, spec.roof if spec else None,
                              entry.meta.sources),
            samples=size.sampling.samples if size.sampling else max((r.samples or 0 for r in rows), default=0) or None,
            link_floor=size.link_floor,
            copy_floor_bytes=size.copy_floor.bytes_per_copy if size.copy_floor else None))
    env = result.environment
    head = next((z for z in sizes if z.headline), sizes[-1] if sizes else None)
    checked = brackets.summary(brackets.check(SimpleNamespace(method=result.method, sizes=sizes), spec))
    lead = quantity.lead_quantity(spec.quantity if spec else "auto", [c.kind for c in spec.claims] if spec else (),
                                  head.rows if head else (), head.plot_floor[0] if head else None)
    return DeviceView(
        key=key, gpu=env.gpu, status=result.status, provenance=result.provenance,
        imported_from=result.imported_from, stale=staleness(result, current) == "stale", environment=env,
        method=result.method, sizes=tuple(sizes), error=result.error, last_failure=result.last_failure,
        l2_bytes=env.l2_bytes, sass=result.sass,
        carried_counters=tuple((fmt.params(s.params), (s.counters_from.captured_at or "")[:10] or "an unknown date",
                                s.counters_from.signed_by) for s in result.sizes if s.counters_from is not None),
        quantity=lead,
        brackets=checked,
        accuracy=measured_on.accuracy_text(spec, [s.check for s in result.sizes] if result.ok else [],
                                           staleness(result, current) == "current"))


def _row(name: str, var: results.Variant, labels: dict[str, str], shorts: dict[str, str], statistic: str,
         elements: int, floor: float | None, median_ci_rel: float | None, events: bool = True) -> VariantRow:
    ms = getattr(var.stats, statistic)
    useful = var.useful_bytes_per_elem or var.bytes_per_elem
    rate = fmt.gbps(useful, elements, ms)
    flops = var.flops_per_elem
    samples = var.samples_ms
    ci_rel = _ci_rel(var.stats, statistic, median_ci_rel)
    return VariantRow(
        name=name,
        label=labels.get(name, name),
        ms=ms,
        bytes_per_elem=var.bytes_per_elem,
        gbps=rate,
        gflops=fmt.gflops(flops, elements, ms) if flops else None,
        counted_bytes_per_elem=counted_bytes(var),
        dram_as_timed=counted_bytes(var, "unflushed"),
        fraction_of_floor=rate / floor if floor else None,
        samples=len(samples) if samples else var.stats.n,
        spread=_spread(ci_rel, ms, events),
        ci_rel=ci_rel,
        useful_bytes_per_elem=useful,
        flops_per_elem=flops or None,
        launches=var.launches,
        host_ms=getattr(var.host_stats, statistic) if var.host_stats else None,
        short_label=shorts.get(name),
        blocked=var.blocked,
    )


# CUDA events time to about half a microsecond (CUDA Runtime API, cudaEventElapsedTime).
EVENT_RESOLUTION_MS = 0.0005
BELOW_RESOLUTION = "below the timer's resolution (0.5 µs)"


def _spread(ci_rel: float | None, ms: float | None = None, events: bool = False) -> str | None:
    """Half a 95% confidence interval as the page writes it: '±0.31%'; where the statistic was
    timed with CUDA events and half the interval is under their resolution (a median of quantized
    samples gives ±0 exactly), 'below the timer's resolution (0.5 µs)', never '±0%' (pure)."""
    if ci_rel is None:
        return None
    if events and ms is not None and ci_rel * ms < EVENT_RESOLUTION_MS:
        return BELOW_RESOLUTION
    return f"±{fmt.significant(100 * ci_rel, 2)}%"


def _ci_rel(st: results.Stats, statistic: str, median_ci_rel: float | None) -> float | None:
    """Half the 95% confidence interval of the statistic, over it: the median's as the sampler
    recorded it; the mean's from the sample standard deviation (1.96 s / sqrt(n)); None for the
    least sample, which has no interval (pure)."""
    if statistic == "median":
        return median_ci_rel
    if statistic == "mean" and st.stdev is not None and st.n and st.mean:
        return stats.mean_ci_rel(st.mean, st.stdev, st.n)
    return None


def counted_ratio(num: VariantRow, den: VariantRow) -> float | None:
    """The ratio of DRAM bytes the counters saw for ``num`` and ``den``, where both were counted."""
    if num.counted_bytes_per_elem is None or not den.counted_bytes_per_elem:
        return None
    return num.counted_bytes_per_elem / den.counted_bytes_per_elem


def counted_bytes(variant: results.Variant, pass_name: str = "flushed") -> float | None:
    """DRAM bytes per element from the counter pass ("flushed" or "unflushed"), where recorded."""
    counted = getattr(variant.counters, pass_name) if variant.counters else None
    return counted.dram_bytes_per_elem if counted else None
