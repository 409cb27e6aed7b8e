"""The results store: one versioned JSON file per entry and device.

Files live beside the entry, ``entries/<slug>/results/<device-key>.json``, so
they travel (and are left out) with the entry.  A file holds:

    format        RESULT_FORMAT; files of another format are refused with advice
    entry         the entry's slug
    device        the device key, e.g. "nvidia-h200"
    provenance    "measured" (by this harness) or "imported" (figures carried in
                  from elsewhere; never re-measured, never stale)
    imported_from where imported figures came from (imported only)
    fingerprint   of the spec, kernel sources, reference and harness version it
                  was measured for (None for imported results)
    environment   GPU, driver, CUDA, nvcc, compile command, L2, clocks, date ...
    method        timing method: warmups, runs, statistic, clock, blocking, l2_flush
    sizes         one record per size: params, elements, copy_floor, variants
                  (samples_ms, stats, counters ...)
    last_failure  the most recent failed attempt, kept beside the good data

A failed measurement never replaces a good one: ``record_failure`` only adds
``last_failure`` to an existing file.  Nor does a result the reader would refuse: ``record_success``
raises ResultTooLarge for one over MAX_FILE_BYTES before writing anything, and its message (what
in the spec makes it big) is the failure the caller records.

Reading is strict and bounded: ``load_file`` refuses a file over MAX_FILE_BYTES, JSON
nested past MAX_DEPTH or with a key given twice, another format, and anything that does
not fit the model in ``measure.results`` (an unknown key, a missing field, a wrong type, a
statistic that is 0 or NaN ...), with a StoreError naming the file and the dotted key.
It returns the typed ``Result``, which keeps the data as written (``Result.plain()``).

Crash and concurrency safety: every write goes to a temporary file that is
fsynced and renamed over the old one, so a writer killed mid-write (SIGKILL,
power loss) leaves the previous complete file.  ``record_success`` and
``record_failure`` hold an exclusive ``fcntl.flock`` on ``results/.lock`` across
their read-modify-write, so two builds measuring at once cannot lose each
other's updates; leftover temporary files of a killed writer are removed under
that lock.  (The lock and temporary files are dotfiles, which MkDocs never publishes.)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Iterator
from typing import Any

from measure import results
from measure.results import Result
from measure.spec.limits import MAX_RESULT_BYTES
from measure.typed import SchemaError

RESULT_FORMAT = results.FORMAT
LOCK_NAME = ".lock"
# Bounded work on a hostile file: the runner's largest files are about 200 KB, nested 10 deep.  The
# writer keeps to the same limit (record_success), and the spec to half of it (measure.spec.budget).
MAX_FILE_BYTES = MAX_RESULT_BYTES
MAX_DEPTH = 32
# The sample lists of a result, as the harness names them (variants, copy and link floors, serial twins).
SAMPLE_KEYS = ("samples_ms", "host_samples_ms", "serial_samples_ms")


class StoreError(ValueError):
    """A results file that cannot be used; the message says what to do."""


class ResultTooLarge(StoreError):
    """A result the reader would refuse for its size, so it was not written; the message is the
    failure to record (how big, the limit, what in the spec makes it big)."""


def device_key(gpu_name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200'; 'Tesla T4' -> 'tesla-t4'."""
    key = re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")
    return key or "unknown-gpu"


def results_dir(entry_dir: Path) -> Path:
    return entry_dir / "results"


def load_results(entry_dir: Path) -> dict[str, Result]:
    """Every device's results for the entry whose folder is ``entry_dir``, by device key."""
    out = {}
    folder = results_dir(entry_dir)
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        out[path.stem] = load_file(path)
    return out


def load_file(path: Path) -> Result:
    """A results file as the typed model (``Result.plain()`` is its data as written).

    Raises StoreError naming the file, and the dotted key where the data does not fit the model."""
    return _validate(path, _read_data(path))


def _validate(path: Path, data: dict) -> Result:
    """``data`` (read from ``path``) as a Result; StoreError naming the file and the key where it does not fit."""
    try:
        result = results.parse(data)
    except SchemaError as err:
        raise StoreError(f"{_shown(path)}, key {err.key!r}: {err.message}"
                         if err.key else f"{_shown(path)}: {err.message}") from None
    where = {"device": path.stem, "entry": path.parent.parent.name}
    for key, expected in where.items():
        found = getattr(result, key)
        if found != expected:
            raise StoreError(f"{_shown(path)}, key {key!r}: expected {expected!r} (the file's place: "
                             f"entries/<entry>/results/<device>.json), found {found!r}")
    return result


def _read_data(path: Path) -> dict:
    """The JSON data of a results file of this glossary's format, read with bounded work (size,
    nesting, no duplicate keys); not yet checked against the model."""
    shown = _shown(path)
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise StoreError(f"{shown}: results file is {kind}; results are plain files in the entry's "
                             f"results/ folder")
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise StoreError(f"{shown}: cannot read results file: {err}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise StoreError(f"{shown}: results file is larger than {MAX_FILE_BYTES // 2**20} MB; "
                         f"the harness writes well under 1 MB, so this is not one of its files")
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
    except RecursionError:
        raise StoreError(f"{shown}: cannot read results file: nested more than {MAX_DEPTH} levels deep") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise StoreError(f"{shown}: cannot read results file: {err}") from None
    if _depth(data) > MAX_DEPTH:
        raise StoreError(f"{shown}: cannot read results file: nested more than {MAX_DEPTH} levels deep")
    if not isinstance(data, dict) or "format" not in data:
        raise StoreError(f"{shown}: not a results file (no 'format' key)")
    found = data["format"]
    if found != RESULT_FORMAT or isinstance(found, bool):
        slug = path.parent.parent.name
        if isinstance(found, int) and not isinstance(found, bool) and found > RESULT_FORMAT:
            advice = ("it was written by a newer glossary; upgrade the glossary package "
                      "(pip install -U -e .) to read it")
        else:
            advice = (f"re-measure it on the verification node with `glossary measure --all {slug}` "
                      f"(or delete the file)")
        raise StoreError(f"{shown}: results format {found!r} found, this glossary reads format "
                         f"{RESULT_FORMAT}; {advice}")
    return data


def _shown(path: Path) -> str:
    """A path as messages show it: relative to the working directory where it can be."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object, refusing a key given twice (parsers disagree on which one counts)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"key {key!r} appears twice in one object")
            seen.add(key)
    return out


def _depth(data: Any) -> int:
    """How deeply lists and objects nest in ``data`` (iteratively; stops counting past MAX_DEPTH)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, level + 1) for item in items if isinstance(item, (dict, list)))
    return deepest


def write_atomic(path: Path, data: dict) -> None:
    """Write JSON via a temporary file and rename, so a crash never leaves half a file."""
    write_bytes_atomic(path, _serialized(data))


def _serialized(data: dict) -> bytes:
    """A results file's bytes, exactly as written (and measured against MAX_FILE_BYTES)."""
    return (json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n").encode("utf-8")


def too_large(result: dict, nbytes: int) -> str:
    """Why a result of ``nbytes`` serialized bytes is not written: how far over the reader's limit
    it is, and what in it (so in the spec) makes it big (pure; bounded by the result's own size)."""
    sizes = result.get("sizes") if isinstance(result.get("sizes"), list) else []
    variants = {name for size in sizes if isinstance(size, dict) and isinstance(size.get("variants"), dict)
                for name in size["variants"]}
    samples, stack = 0, [result]
    while stack:
        value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if key in SAMPLE_KEYS and isinstance(item, list):
                samples += len(item)
            elif isinstance(item, (dict, list)):
                stack.append(item)
    method = result.get("method") if isinstance(result.get("method"), dict) else {}
    runs = method.get("max_runs")
    runs = f"{runs:,}" if isinstance(runs, int) else "?"
    shown = f"{nbytes / 2**20:,.1f} MB, {(nbytes - MAX_FILE_BYTES) / 2**20:,.1f} MB over the reader's " \
            f"{MAX_FILE_BYTES // 2**20} MB limit"
    if samples * 26 > nbytes / 2:  # a sample is about 26 bytes of the file
        why = (f"most of it is its {samples:,} timing samples ({len(sizes)} sizes x {len(variants)} measured "
               f"variants, up to measure.timing.max_runs {runs} each, every one kept); "
               f"lower measure.timing.max_runs, or measure fewer sizes or variants")
    else:
        why = (f"most of it is the records of {len(sizes)} sizes x {len(variants)} measured variants (kernel "
               f"attributes, counters, figures); measure fewer sizes (measure.sizes) or variants (measure.variants "
               f"and their sweeps)")
    return f"the result is {shown}, so it was not written and the recorded results are kept: {why}"


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file that is fsynced and renamed over it.

    A writer killed at any moment leaves the previous complete file; an existing file keeps
    its permission bits (an entry the author made read-only stays so).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (the directory entry), where the platform allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(entry_dir: Path) -> Iterator[Path]:
    """Hold the results folder's exclusive lock (``results/.lock``); yields the folder.

    Blocks until other writers (another build, ``glossary measure``) are done.  Temporary
    files found under the lock belong to a writer that died, so they are removed.
    """
    folder = results_dir(entry_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_NAME, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            for dead in folder.glob(".*.json.*.tmp"):
                dead.unlink(missing_ok=True)
            yield folder
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def record_success(entry_dir: Path, result: dict) -> Path:
    """Store a good result, replacing whatever was there for that device.

    What the build would refuse is never written: a result over MAX_FILE_BYTES raises
    ResultTooLarge, one that does not fit the model StoreError, before anything is written; the
    caller records the message as the measurement's failure (``record_failure``)."""
    if result.get("status") != "ok":
        raise ValueError("record_success takes only results with status 'ok'")
    result = dict(result, format=RESULT_FORMAT)
    data = _serialized(result)
    if len(data) > MAX_FILE_BYTES:
        raise ResultTooLarge(too_large(result, len(data)))
    with locked(entry_dir) as folder:
        path = folder / f"{result['device']}.json"
        _validate(path, result)
        write_bytes_atomic(path, data)
    return path


def record_failure(entry_dir: Path, failure: dict) -> Path:
    """Store a failed attempt without losing a good result.

    ``failure`` holds at least device, fingerprint, error and environment.
    An existing good file keeps its data and gains ``last_failure``; where
    there is none, the file records the failure alone (status 'failed').
    """
    with locked(entry_dir) as folder:
        path = folder / f"{failure['device']}.json"
        existing = None
        if path.exists():
            # Read, not validated: a good result the model refuses (a hand edit, a newer runner's key)
            # is still never replaced by a failure; the build names its problem.
            try:
                existing = _read_data(path)
            except StoreError:
                existing = None
        if existing is not None and existing.get("status") == "ok":
            data = dict(existing, last_failure=failure)
        else:
            data = dict(failure, format=RESULT_FORMAT, status="failed")
        write_atomic(path, data)
    return path
