"""The Nsight Compute pass: DRAM bytes per variant, read from hardware counters.

ncu profiles a separate small Python process (``python -m measure.harness.profile_main``)
that launches each variant's kernels once, in spec order, at one size.  The pass
runs twice, with ncu flushing all caches before every kernel (``--cache-control
all``) and without (``--cache-control none``), always with ``--clock-control
none`` so the card's clocks are left as found.

Parsing the CSV is pure (``parse_ncu_csv``, ``launch_bytes``, ``variant_counters``)
and tested on the CPU with literal output.  A failed pass is recorded as
``{"error": ...}``; it never fails the measurement.
"""

from __future__ import annotations

import csv
import dataclasses
import difflib
import functools
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from measure import stats, tools
from measure.spec import MeasureSpec
from measure.spec.model import Metric

METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
CACHE_CONTROLS = {"flushed": "all", "unflushed": "none"}
CLOCK_CONTROL = "none"
PROFILE_MAIN = "measure.harness.profile_main"  # the module ncu profiles (python -m)

# ncu prints SI-scaled units ("Kbyte" = 1000 bytes) unless told otherwise; accept binary ones too.
_UNIT_SCALE = {
    "": 1, "byte": 1, "bytes": 1, "b": 1,
    "kbyte": 1e3, "kb": 1e3, "mbyte": 1e6, "mb": 1e6, "gbyte": 1e9, "gb": 1e9, "tbyte": 1e12, "tb": 1e12,
    "kibyte": 2**10, "kib": 2**10, "mibyte": 2**20, "mib": 2**20, "gibyte": 2**30, "gib": 2**30,
}


class CounterError(RuntimeError):
    """ncu ran but its output cannot be used; the message says why."""


def parse_value(text: str, unit: str, metric: str = "dram__bytes_read.sum") -> float:
    """'67,118,336' 'byte' -> 67118336.0; '67.12' 'Mbyte' -> 67120000.0; a metric of another
    unit ('%', 'inst', 'cycle', 'request', ...) is its number as printed (ncu runs with
    --print-units base, so none is scaled)."""
    key = unit.strip().lower()
    is_bytes = metric.startswith("dram__bytes") or key in _UNIT_SCALE and key not in ("",)
    if is_bytes and key not in _UNIT_SCALE:
        raise CounterError(f"unknown ncu unit {unit!r} for value {text!r}")
    cleaned = text.strip().replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise CounterError(f"ncu value {text!r} of {metric} is not a number") from None
    return value * (_UNIT_SCALE[key] if is_bytes else 1.0)


def metric_names(spec: MeasureSpec) -> tuple[str, ...]:
    """Every ncu metric a counter pass reads: the DRAM bytes, then each declared metric and its
    request metric, once each."""
    names = list(METRICS)
    for m in spec.metrics:
        names += [m.metric] + ([m.request] if m.request else [])
    return tuple(dict.fromkeys(names))


def parse_ncu_csv(text: str, wanted: tuple[str, ...] = METRICS) -> list[dict]:
    """Rows of ncu ``--csv`` output: [{"id", "kernel", "metric", "value"}] in file order, for the
    metrics ``wanted``.

    Lines before the CSV header (``==PROF==`` messages, the program's own output)
    are skipped; the header is the line whose first field is "ID".
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise CounterError("ncu printed no CSV table (no kernel was profiled)")
    body = [line for line in lines[start:] if line.startswith('"')]
    reader = csv.DictReader(io.StringIO("\n".join(body)))
    need = {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"}
    missing = need - set(reader.fieldnames or ())
    if missing:
        raise CounterError(f"ncu CSV lacks column(s) {', '.join(sorted(missing))}")
    rows = []
    for rec in reader:
        if rec["Metric Name"] not in wanted:
            continue
        rows.append({"id": int(rec["ID"]), "kernel": rec["Kernel Name"], "metric": rec["Metric Name"],
                     "value": parse_value(rec["Metric Value"], rec["Metric Unit"], rec["Metric Name"])})
    if not rows:
        raise CounterError(f"ncu CSV has no {' or '.join(METRICS)} rows")
    return rows


def launch_bytes(rows: list[dict], wanted: tuple[str, ...] = METRICS) -> list[dict]:
    """One record per profiled launch, in launch order: {"id", "kernel", "read_bytes", "write_bytes",
    "values": {metric: value}} (``values`` holds every metric read, the DRAM bytes among them)."""
    by_id: dict[int, dict] = {}
    for row in rows:
        rec = by_id.setdefault(row["id"], {"id": row["id"], "kernel": row["kernel"],
                                           "read_bytes": None, "write_bytes": None, "values": {}})
        rec["values"][row["metric"]] = row["value"]
        if row["metric"] in METRICS:
            rec["read_bytes" if row["metric"] == "dram__bytes_read.sum" else "write_bytes"] = row["value"]
    out = [by_id[i] for i in sorted(by_id)]
    for rec in out:
        if rec["read_bytes"] is None or rec["write_bytes"] is None:
            raise CounterError(f"ncu reported only one of the DRAM metrics for launch {rec['id']} ({rec['kernel']})")
        missing = [m for m in wanted if m not in rec["values"]]
        if missing:
            raise CounterError(f"ncu reported no {', '.join(missing)} for launch {rec['id']} ({rec['kernel']}); "
                               f"the metric may not exist on this GPU")
    return out


def combine_metric(metric: Metric, launches: list[tuple[dict, int]], elements: int) -> dict:
    """A declared metric of one variant from its profiled launches ((launch record, repeat) pairs),
    combined as ``metric.per`` says (pure)."""
    per_kernel, total, requests, count = [], 0.0, 0.0, 0
    for got, reps in launches:
        value = got["values"][metric.metric]
        asked = got["values"].get(metric.request) if metric.request else None
        per_kernel.append({"kernel": got["kernel"], "value": value, "requests": asked, "repeat": reps})
        total += value * reps
        requests += (asked or 0.0) * reps
        count += reps
    if metric.per == "element":
        value = total / elements
    elif metric.per == "launch":
        value = total / count
    elif metric.per == "request":
        value = total / requests if requests else 0.0
    elif metric.per == "average":
        value = total / count
    else:
        value = total
    return {"value": value, "total": total, "unit": metric.unit, "per": metric.per, "metric": metric.metric,
            "requests": requests if metric.request else None, "per_kernel": per_kernel}


def variant_counters(launches: list[dict], manifest: list[dict], elements: int,
                     cache_control: str, metrics: tuple[Metric, ...] = ()) -> dict[str, dict]:
    """Match profiled launches to the manifest the profiled process wrote, sum per variant.

    ``manifest`` lists {"variant", "launch", "kernel", "repeat"} in launch order.
    A repeated launch is profiled once (its first instance) and counted ``repeat`` times.
    Declared ``metrics`` are combined per variant (``combine_metric``).
    """
    if len(launches) != len(manifest):
        raise CounterError(f"ncu profiled {len(launches)} launches, but the process made {len(manifest)} "
                           f"({', '.join(m['kernel'] for m in manifest)})")
    out: dict[str, dict] = {}
    for got, want in zip(launches, manifest):
        if got["kernel"] != want["kernel"]:
            raise CounterError(f"ncu launch {got['id']} is {got['kernel']!r}, expected {want['kernel']!r}")
        rec = out.setdefault(want["variant"], {"dram_bytes_per_elem": 0.0, "read_bytes": 0.0, "write_bytes": 0.0,
                                               "per_kernel": [], "clock_control": CLOCK_CONTROL,
                                               "cache_control": cache_control})
        reps = int(want.get("repeat", 1))
        read, write = got["read_bytes"], got["write_bytes"]
        rec["read_bytes"] += read * reps
        rec["write_bytes"] += write * reps
        rec["per_kernel"].append({"kernel": want["kernel"], "read_bytes": read, "write_bytes": write,
                                  "bytes_per_elem": stats.bytes_per_elem(read + write, elements),
                                  "repeat": reps})
    for rec in out.values():
        rec["dram_bytes_per_elem"] = stats.bytes_per_elem(rec["read_bytes"] + rec["write_bytes"], elements)
    if metrics:
        mine: dict[str, list[tuple[dict, int]]] = {}
        for got, want in zip(launches, manifest):
            mine.setdefault(want["variant"], []).append((got, int(want.get("repeat", 1))))
        for name, pairs in mine.items():
            out[name]["metrics"] = {m.name: combine_metric(m, pairs, elements) for m in metrics}
    return out


def find_ncu() -> str | None:
    """The ncu to use: PATH, then the usual CUDA install folder."""
    return tools.find_cuda_tool("ncu")


@functools.cache
def ncu_version(ncu: str) -> str | None:
    """ncu's version, e.g. '2025.3.0.0', or None if it cannot be run."""
    match = re.search(r"Version\s+(\S+)", tools.version_output(ncu) or "")
    return match.group(1) if match else None


def ncu_command(ncu: str, cache_control: str, kernels: list[str], log_file: Path,
                child: list[str], metrics: tuple[str, ...] = METRICS) -> list[str]:
    """The ncu argv profiling ``child`` for ``metrics`` (the DRAM bytes by default) of ``kernels`` only."""
    names = "|".join(re.escape(k) for k in sorted(set(kernels)))
    units = ["--print-units", "base"] if tuple(metrics) != METRICS else []
    return [ncu, "--clock-control", CLOCK_CONTROL, "--cache-control", cache_control,
            "--metrics", ",".join(metrics), *units, "--csv", "--log-file", str(log_file),
            "--target-processes", "all", "-k", f"regex:^({names})$", *child]


@functools.cache
def known_metrics(ncu: str) -> frozenset[str] | None:
    """The base metric names ncu knows for the GPU present (``ncu --query-metrics``), or None where
    it cannot say (no GPU, an ncu that will not run)."""
    try:
        proc = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = {m.group(1) for line in proc.stdout.splitlines() if (m := _QUERY_ROW.match(line))}
    return frozenset(names) if proc.returncode == 0 and names else None


_QUERY_ROW = re.compile(r"^([a-z0-9_]+__[A-Za-z0-9_]+)\s")


def unknown_metrics(spec: MeasureSpec, known: frozenset[str]) -> list[str]:
    """One sentence per declared metric (or request metric) whose base name ncu does not know (pure)."""
    problems = []
    for i, m in enumerate(spec.metrics):
        for key in ("metric", "request"):
            name = getattr(m, key)
            if name is None or name.split(".")[0] in known:
                continue
            close = difflib.get_close_matches(name.split(".")[0], sorted(known), n=3, cutoff=0.6)
            hint = f"; close: {', '.join(close)}" if close else ""
            problems.append(f"measure.metrics[{i}].{key}: ncu knows no metric {name.split('.')[0]!r} "
                            f"(the base of {name!r}){hint}")
    return problems


def check_metrics(spec: MeasureSpec, gpu_name: str) -> None:
    """Refuse, before any timing, a declared metric ncu does not know on this GPU; the error lists
    what it knows that comes closest.  Nothing is checked where ncu is missing or cannot answer (the
    counter pass then records why)."""
    ncu = find_ncu()
    known = known_metrics(ncu) if ncu else None
    if known is None:
        return
    problems = unknown_metrics(spec, known)
    if problems:
        from measure.harness.errors import MeasurementError
        raise MeasurementError("; ".join(problems) + f". ncu {ncu_version(ncu)} on {gpu_name} knows "
                               f"{len(known):,} metrics: `ncu --query-metrics` lists them. Nothing was timed.")


def spec_to_json(spec: MeasureSpec) -> str:
    """The spec as plain JSON that measure.typed.load reads back (for the profiled process)."""
    return json.dumps(dataclasses.asdict(spec))


@dataclasses.dataclass
class PassTimes:
    """Where a counter pass's wall time went: ncu's own start-up and exit (before the profiled
    process began its work and after it ended) against the rest."""
    overhead_s: float = 0.0
    passes: int = 0


def child_env() -> tuple[dict[str, str], Path]:
    """The environment and working folder of a ``profile_main`` child: this checkout first on its path."""
    root = Path(__file__).resolve().parents[2]  # the repository root
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    return env, root


def pass_summary_line(marks: dict, began: float, ended: float) -> str:
    """'ncu start 1.9 s, set-up 0.8 s, inputs 0.4 s, launches 3.1 s, exit 0.5 s' of one pass (pure)."""
    sizes = marks.get("sizes") or []
    parts = [("ncu start", marks["started"] - began), ("set-up", marks.get("ready", marks["started"]) - marks["started"]),
             ("inputs", sum(s["inputs_s"] for s in sizes)), ("launches", sum(s["launches_s"] for s in sizes)),
             ("exit", ended - marks["finished"])]
    return ", ".join(f"{name} {max(0.0, value):.1f} s" for name, value in parts)


def pass_summary(spec: MeasureSpec, version: str | None, params: dict[str, int]) -> dict:
    """A size's counter summary as a successful pass records it (without the per-variant records)."""
    kernels = [launch.kernel for v in spec.variants for launch in v.launches if launch.kernel]
    return {"status": "ok", "ncu_version": version, "size": dict(params),
            "metrics": list(metric_names(spec)), "clock_control": CLOCK_CONTROL,
            "flushed_means": "ncu --cache-control all: caches flushed before every kernel",
            "unflushed_means": "ncu --cache-control none; the L2 written over before each variant "
                               "as in the timed runs" if spec.timing.l2_flush else
                               "ncu --cache-control none; no flush, as in the timed runs",
            "command": " ".join(ncu_command("ncu", "<all|none>", kernels, Path("<log>"),
                                            ["python3", "-m", PROFILE_MAIN, "..."], metric_names(spec)))}


def run_counter_passes(slug: str, entry_dir: Path, spec: MeasureSpec, sizes: list[tuple[dict[str, int], int]],
                       progress: Callable[[str], None] = print, timeout_s: float = 300.0,
                       times: PassTimes | None = None, on_pass: Callable[[], None] = lambda: None) -> list[dict]:
    """Profile every variant once at each of ``sizes`` ((params, elements) pairs), flushed and unflushed:
    one ncu process per cache mode for all the sizes, not one per size and mode.

    Returns one record per size, in order: {"status": "ok", "ncu_version", "size", "variants": {name:
    {"flushed", "unflushed"}}} or {"status": "skipped"|"error", "reason"|"error": ...}.  ``times``
    collects ncu's start-up and exit; ``on_pass`` is called after each cache mode's pass.
    """
    times = times if times is not None else PassTimes()
    ncu = find_ncu()
    if ncu is None:
        return [{"status": "skipped", "reason": "ncu is not on PATH", "size": dict(p)} for p, _ in sizes]
    env, root = child_env()
    kernels = [launch.kernel for v in spec.variants for launch in v.launches if launch.kernel]
    wanted = metric_names(spec)
    version = ncu_version(ncu)
    results = [dict(pass_summary(spec, version, params), variants={}) for params, _ in sizes]
    shown = ", ".join(stats.size_label(params) for params, _ in sizes)
    with tempfile.TemporaryDirectory(prefix="glossary-ncu-") as tmp:
        tmpdir = Path(tmp)
        spec_path = tmpdir / "spec.json"
        spec_path.write_text(spec_to_json(spec), encoding="utf-8")
        for label, cache_control in CACHE_CONTROLS.items():
            progress(f"{slug}: counters {shown} cache-control {cache_control}")
            manifest_path = tmpdir / f"manifest-{label}.json"
            log_path = tmpdir / f"ncu-{label}.csv"
            child = [sys.executable, "-m", PROFILE_MAIN, "--spec", str(spec_path),
                     "--entry-dir", str(entry_dir), "--params", json.dumps([dict(p) for p, _ in sizes]),
                     "--manifest", str(manifest_path)]
            cmd = ncu_command(ncu, cache_control, kernels, log_path, child, wanted)
            try:
                began = time.time()
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s * len(sizes),
                                      env=env, cwd=str(root))
                ended = time.time()
            except (OSError, subprocess.TimeoutExpired) as err:
                return [_error(r, f"ncu ({cache_control}) did not finish: {err}") for r in results]
            log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
            if proc.returncode != 0 or not manifest_path.exists():
                tail = _tail(log + "\n" + proc.stdout + proc.stderr)
                return [_error(r, f"ncu ({cache_control}) exited {proc.returncode}: {tail}") for r in results]
            try:
                written = json.loads(manifest_path.read_text(encoding="utf-8"))
                manifest = written["launches"]
                times.overhead_s += max(0.0, written["started"] - began) + max(0.0, ended - written["finished"])
                times.passes += 1
                progress(f"{slug}: counters cache-control {cache_control}: {pass_summary_line(written, began, ended)}")
                per_size = split_by_size(launch_bytes(parse_ncu_csv(log, wanted), wanted), manifest, len(sizes))
                for (launches, made), (_, elements), result in zip(per_size, sizes, results):
                    for name, rec in variant_counters(launches, made, elements, cache_control,
                                                      spec.metrics).items():
                        result["variants"].setdefault(name, {"size": dict(result["size"])})[label] = rec
            except (CounterError, ValueError, KeyError, TypeError) as err:
                return [_error(r, f"ncu ({cache_control}): {err}; {_tail(log)}") for r in results]
            on_pass()
    return results


def split_by_size(launches: list[dict], manifest: list[dict], count: int) -> list[tuple[list[dict], list[dict]]]:
    """The profiled launches and the manifest's entries of each of ``count`` sizes, in order.

    ncu's rows come in launch order, as the manifest does; a manifest entry's ``size`` is the
    index of its size (entries without one are of size 0)."""
    if len(launches) != len(manifest):
        raise CounterError(f"ncu profiled {len(launches)} launches, but the process made {len(manifest)} "
                           f"({', '.join(m['kernel'] for m in manifest)})")
    out: list[tuple[list[dict], list[dict]]] = [([], []) for _ in range(count)]
    for got, want in zip(launches, manifest):
        index = int(want.get("size", 0))
        if not 0 <= index < count:
            raise CounterError(f"the profiled process reported size {index} of {count}")
        out[index][0].append(got)
        out[index][1].append(want)
    return out


def _error(result: dict, message: str) -> dict:
    return {"status": "error", "error": message, "size": result["size"],
            "ncu_version": result.get("ncu_version")}


def _tail(text: str, limit: int = 800) -> str:
    """The useful end of ncu's output: its ==ERROR==/==WARNING== lines first, else the last characters."""
    flagged = [line for line in text.splitlines() if line.startswith(("==ERROR==", "==WARNING=="))]
    shown = "\n".join(flagged) if flagged else text.strip()
    return shown[-limit:]
