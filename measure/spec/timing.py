"""How the harness times each variant: the spec's ``timing`` table (clock, blocking, the L2 flush and
the stopping rule)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from measure.spec.limits import MAX_RUNS, MAX_WARMUPS
from measure.typed import SchemaError, doc


@dataclass(frozen=True)
class Timing:
    """How the harness times each variant."""

    clock: Literal["device", "host", "both"] = doc(
        "device: CUDA events around the region; host: wall time of enqueue plus synchronize "
        "(launch-overhead entries); both: device samples as published, plus a host sample of each "
        "region (without the blocking kernel) taken right after it", default="device")
    blocking: bool = doc("enqueue each timed region behind a blocking kernel so host launch cost "
                         "stays out of device time", default=True)
    block_where_possible: bool = doc(
        "with blocking: false (an entry with pageable copies, which cannot wait behind the kernel), "
        "still queue every variant that copies no pageable memory behind the blocking kernel, so only "
        "the pageable ones' events take in the host's enqueue", default=False)
    l2_flush: bool = doc("read a buffer of twice the L2 before every sample (cold, clean caches)", default=True)
    warmups: int = doc("untimed runs before sampling", default=3)
    runs: int = doc("the fewest timed samples per variant", default=10)
    max_runs: int = doc("keep sampling past runs, up to this many, until every region's median is "
                        "known to within target_ci (nvbench's stopping rule); set it to runs for a "
                        "fixed count", default=200)
    target_ci: float = doc("stop sampling once the 95% confidence interval of each region's median is "
                           "within +/- this fraction of the median", default=0.005)
    max_seconds: float = doc("wall-clock cap on sampling one size, whatever the interval", default=30.0)
    statistic: Literal["mean", "median", "min"] = doc("the statistic the page publishes", default="mean")

    def validate(self) -> None:
        if self.block_where_possible and (self.blocking or self.clock == "host"):
            raise SchemaError("block_where_possible", "only with blocking: false and a device clock: it "
                                                      "blocks the variants that can wait, where blocking "
                                                      "cannot be set for all")
        if self.clock == "host" and self.blocking:
            raise SchemaError("blocking", "a blocking kernel cannot be used with clock: host "
                                          "(host time is what is measured); set blocking: false")
        if self.runs < 1:
            raise SchemaError("runs", f"expected at least 1 timed run, found {self.runs}")
        if self.warmups < 0:
            raise SchemaError("warmups", f"expected 0 or more warm-up runs, found {self.warmups}")
        if self.warmups > MAX_WARMUPS:
            raise SchemaError("warmups", f"expected at most {MAX_WARMUPS:,} warm-up runs, found {self.warmups:,}")
        if self.max_runs < self.runs:
            raise SchemaError("max_runs", f"expected max_runs >= runs ({self.runs}), found {self.max_runs}")
        if self.max_runs > MAX_RUNS:
            raise SchemaError("max_runs", f"expected at most {MAX_RUNS:,} samples per variant, found {self.max_runs:,}")
        if not 0 < self.target_ci < 1:
            raise SchemaError("target_ci", f"expected a fraction between 0 and 1, found {self.target_ci}")
        if not self.max_seconds > 0:
            raise SchemaError("max_seconds", f"expected a positive number of seconds, found {self.max_seconds}")
