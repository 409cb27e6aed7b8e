"""What a result was measured for, and where it stands against the entry now: the measurement
fingerprint and staleness, each defined once."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from measure import COUNTER_VERSION, GRAPH_INSTANTIATION, HARNESS_VERSION
from measure.results.model import Result
from measure.spec import MeasureSpec
from measure.spec.canonical import canonical


Staleness = Literal["missing", "failed", "imported", "stale", "current"]


def staleness(result: Result | None, fingerprint: str | None) -> Staleness:
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
    if result.status != "ok":
        return "failed"
    if result.provenance == "imported":
        return "imported"
    return "current" if result.fingerprint == fingerprint else "stale"


def fingerprint(spec_data: Any, files: dict[str, bytes], harness_version: str = HARNESS_VERSION) -> str:
    """A hash over what determines a measurement.

    ``spec_data`` is the plain-data measured part of the spec (see
    ``measured_part``); ``files`` maps names to contents (kernels, reference).
    """
    h = hashlib.sha256()
    h.update(f"harness {harness_version}\n".encode())
    h.update(json.dumps(spec_data, sort_keys=True, default=str).encode())
    for name in sorted(files):
        h.update(f"\nfile {name} {len(files[name])}\n".encode())
        h.update(files[name])
    return "sha256:" + h.hexdigest()


# Spec keys that change only how results are shown or judged, not what is measured.
PRESENTATION_KEYS = ("ratios", "claims", "headline", "agreement", "quantity", "roof")
# A variant's keys that only name it on the page.
VARIANT_PRESENTATION_KEYS = ("label", "short")


def measured_part(spec_data: dict) -> dict:
    """The spec without presentation-only keys, and without variant labels or their short forms;
    with a graph variant, how graphs are instantiated and timed (GRAPH_INSTANTIATION), so a change
    to that re-measures the entries with graphs and no other."""
    out = {k: v for k, v in spec_data.items() if k not in PRESENTATION_KEYS}
    out["variants"] = [{k: v for k, v in var.items() if k not in VARIANT_PRESENTATION_KEYS}
                       for var in spec_data.get("variants", [])]
    if any(var.get("graph") for var in out["variants"]):
        out["graph_instantiation"] = GRAPH_INSTANTIATION
    return out


def measurement_fingerprint(spec: MeasureSpec, files: dict[str, bytes]) -> str:
    """The fingerprint of an entry's spec as it is now, with the files it names (kernels, reference)."""
    return fingerprint(measured_part(canonical(spec)), files)


# -- the counter pass's own key -----------------------------------------------------------------

# Spec keys a counter pass does not depend on: how results are shown and judged, how the reference
# is computed and checked, how samples are taken, and which sizes are profiled (the key is per size).
NOT_COUNTED = PRESENTATION_KEYS + ("reference", "reference_elementwise", "rtol", "atol", "timing",
                                   "counters", "counter_sizes", "sizes", "graph_instantiation")


def counter_part(spec_data: dict) -> dict:
    """What in the spec decides a counter pass (plain data): the kernels' compile options,
    buffers, scalars, seed and launches, and whether the timed runs flush the L2 (the unflushed
    pass copies that flush), without variant labels or timing settings (pure)."""
    out = {k: v for k, v in measured_part(spec_data).items() if k not in NOT_COUNTED}
    out["l2_flush"] = bool(spec_data.get("timing", {}).get("l2_flush", True))
    return out


def counter_key(spec: MeasureSpec, sources: dict[str, bytes], device: str, ncu_version: str | None,
                params: dict[str, int], counter_version: str = COUNTER_VERSION) -> str:
    """The key of one size's counter pass: what it depends on and nothing else (pure).

    ``sources`` are the kernel files (and the harness's own CUDA source), ``device`` the device
    key, ``params`` the size.  Warm-ups, run counts, the statistic, tolerances and the reference
    are left out, so changing them re-times an entry without profiling it again."""
    h = hashlib.sha256()
    h.update(f"counters {counter_version}\ndevice {device}\nncu {ncu_version}\n".encode())
    h.update(json.dumps({"spec": counter_part(canonical(spec)), "size": dict(params)},
                        sort_keys=True, default=str).encode())
    for name in sorted(sources):
        h.update(f"\nfile {name} {len(sources[name])}\n".encode())
        h.update(sources[name])
    return "sha256:" + h.hexdigest()


def carried_counters(result: dict, signer: str | None) -> dict | None:
    """What a recorded result offers a new measurement of the same entry and device: each size's
    counter key and per-variant counters, and where they come from (pure; None where it has none).

    Only sizes whose every variant has counters from both passes are offered."""
    if result.get("status") != "ok" or result.get("provenance") != "measured":
        return None
    sizes = []
    for size in result.get("sizes", []):
        key = size.get("counter_key")
        variants = {name: v.get("counters") for name, v in size.get("variants", {}).items()
                    if v.get("counters") is not None or not v.get("copies")}  # copies only: nothing counted
        if key and variants and all(c and c.get("flushed") and c.get("unflushed") for c in variants.values()):
            sizes.append({"params": size["params"], "counter_key": key, "variants": variants,
                          "from": size.get("counters_from") or {
                              "captured_at": result.get("environment", {}).get("captured_at"),
                              "fingerprint": result.get("fingerprint"), "signed_by": signer}})
    return {"sizes": sizes} if sizes else None
