"""What the host and GPU clocks bracket for each kind of region, and the order between them that
must hold (issue 32, item 5).  Pure: recorded rows in, verdicts out; trusted code, run by the build
over recorded results and by a GPU test over fresh ones.

The two columns of the host-and-GPU table are two samples of the same region:

    host  wall time from just before the enqueue to the return of cuStreamSynchronize, on an idle
          stream with no blocking kernel: it brackets the host's enqueue and all the GPU's work;
    GPU   CUDA events recorded around the region.  Behind a blocking kernel (timing.blocking) the
          region is queued before the GPU starts, so the events bracket the GPU's work alone (and
          the kernel's release).  Without one the start event fires as soon as it is recorded, so
          the events also take in the host's enqueue, and the record of the closing event where
          the GPU finishes first.

What the enqueue call itself waits for depends on the direction and the host memory (the CUDA
Runtime's "API synchronization behavior"): a pinned copy either way, and a kernel, return once
queued; a pageable host-to-device copy returns once the source is staged, possibly before its DMA
lands; a pageable device-to-host copy cannot return before the data is on the host.

So the order that must hold, per kind:

    behind a blocking kernel, any kind      host >= GPU: the host waits for all of the GPU's work,
                                            and the events take in none of the host's
    no blocking kernel, any kind            no order: the GPU column carries the host's enqueue
                                            (for a pageable D2H the whole call, which returns
                                            only with the data on the host) and the closing
                                            event's record, so it may exceed the host's time

pinned-memory's committed H200 result (no blocking kernel: a pageable copy cannot wait behind one)
has a GPU time above the host's in most rows, the smallest copies by up to 2x: the figure that
breaks host >= GPU is the GPU one, which takes in the host's work.  timing.block_where_possible
queues its pinned variants behind the blocking kernel (the pageable ones cannot wait there), so
their rows keep host >= GPU once it is measured again.

The order is checked within the events' resolution, the blocking kernel's release, and a share
for two samples of one region taken apart.
"""

from __future__ import annotations

from dataclasses import dataclass

EVENT_RESOLUTION_US = 0.5
# The release of a blocking kernel and the first node's start: a few microseconds the events take
# in and the host's sample on an idle stream does not; 5% of the region besides, for two samples
# of one region taken apart.
RELEASE_US = 5.0
SHARE = 0.05

HOST_FIRST = "host ≥ GPU"


@dataclass(frozen=True)
class Bracket:
    """One row's check: the order that must hold, and whether it does."""

    elements: int
    variant: str
    kind: str  # 'kernels', 'pinned H2D', 'pageable D2H', 'copies and kernels', ...
    order: str | None  # HOST_FIRST, or None (no order holds by construction)
    host_ms: float
    gpu_ms: float

    @property
    def holds(self) -> bool | None:
        if self.order is None:
            return None
        slack = (EVENT_RESOLUTION_US + RELEASE_US) / 1000 + SHARE * max(self.host_ms, self.gpu_ms)
        return self.host_ms + slack >= self.gpu_ms


def kind(row, locations: dict[str, str]) -> str:
    """The region's kind: 'kernels' (and graphs of them), '<pinned|pageable> <H2D|D2H>' for one
    kind of host copy, 'device copies', or 'copies and kernels' where steps mix (pure)."""
    host = {(step.direction, locations.get(step.dst if step.direction == "d2h" else step.src, "device"))
            for step in (row.copies or ()) if step.direction in ("h2d", "d2h")}
    device_copies = any(step.direction == "d2d" for step in (row.copies or ()))
    kernels = (row.launches or 0) > sum(step.copies for step in (row.copies or ()))
    if not host and not device_copies:
        return "kernels"
    if len(host) == 1 and not kernels and not device_copies:
        direction, location = next(iter(host))
        return f"{location} {direction.upper()}"
    if not host:
        return "device copies" if not kernels else "copies and kernels"
    return "copies and kernels"


def order(kind_: str, blocking: bool) -> str | None:
    """The order between the host and GPU columns that must hold for a region of ``kind_``: host
    first behind a blocking kernel, none without one (``kind_`` then says only what the enqueue
    waited for: ``ENQUEUE_WAITS``)."""
    return HOST_FIRST if blocking else None


# What the enqueue call itself waits for, by kind (the CUDA Runtime's API synchronization behavior).
ENQUEUE_WAITS = {
    "kernels": "returns once queued",
    "pinned H2D": "returns once queued; the DMA runs after",
    "pinned D2H": "returns once queued; the DMA runs after",
    "pageable H2D": "returns once the source is staged, possibly before its DMA lands",
    "pageable D2H": "cannot return before the data is on the host",
}


def check(view, spec) -> list[Bracket]:
    """Every host-timed row of a device view, with the order its kind must keep (pure).
    ``spec`` gives the host buffers' memory (pinned or pageable); the view's method, or the row
    itself (timing.block_where_possible), says whether the events waited behind a blocking kernel."""
    every = bool(view.method and view.method.blocking)
    locations = {name: buf.location for name, buf in spec.buffers.items()} if spec else {}
    out = []
    for size in view.sizes:
        for row in size.rows:
            if row.host_ms is None:
                continue
            k = kind(row, locations)
            blocked = every or bool(getattr(row, "blocked", None))
            out.append(Bracket(size.elements, row.name, k, order(k, blocked), row.host_ms, row.ms))
    return out


def summary(brackets: list[Bracket]) -> str:
    """The check in one sentence for the page: 'Host ≥ GPU, which must hold behind a blocking
    kernel, holds in 24 of 24 rows' (pure); '' where no row has an order to keep."""
    judged = [b for b in brackets if b.holds is not None]
    if not brackets:
        return ""
    if not judged:
        return ""  # the page's lead already says why no order holds without a blocking kernel
    failing = [b for b in judged if not b.holds]
    text = (f"Host ≥ GPU, which must hold behind a blocking kernel (the host waits for all the GPU's work, and "
            f"the events take in none of the host's), holds in {len(judged) - len(failing)} of {len(judged)} rows")
    if failing:
        text += "; it fails at " + ", ".join(f"{b.variant} at {b.elements:,} elements" for b in failing)
    open_rows = len(brackets) - len(judged)
    if open_rows:
        text += (f"; {open_rows} rows have none (no blocking kernel: their GPU column takes in the host's enqueue, "
                 "so it may exceed the host's time where the work is short)")
    return text + "."
