"""The one program that runs an entry's reference: inside the sandbox, on the other side of its door.

``python3 server.py /entry/reference.py [IN_DIR OUT_DIR]`` imports the author's file, then answers requests, one
JSON line each on stdin: "call the reference for this variant, these scalars and parameters, on
elements [start, stop) of these input files; write its outputs".  Inputs are ``.npy`` files in the
read-only ``/io/in``; outputs are written as float64 ``.npy`` files into ``/io/out``; replies are
JSON lines on a private copy of stdout (anything the author's code prints goes to stderr).
The trusted side checks every file that comes back; nothing here is believed.

This file imports only the standard library and NumPy, so it runs with nothing of the harness
bound into the sandbox.  ``reads_argument`` is also the harness's own (``measure.harness.check``):
one definition of "does the reference read its variant / its parameters".
"""

from __future__ import annotations

import dis
import importlib.util
import inspect
import json
import os
import sys
import traceback
from typing import Any, Callable

MAX_ERROR_CHARS = 4000
OUT_DIR = "/io/out"
INSIDE = "/sandbox/server.py"  # where measure.sandbox.reference binds this file in the sandbox
IN_DIR = "/io/in"
# Builtins through which a function could read its own parameters without naming them.
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec"})


def reads_argument(reference: Callable, position: int) -> bool:
    """Whether ``reference`` reads its parameter at ``position`` (True where it cannot be inspected)."""
    code = getattr(reference, "__code__", None)
    if code is None or code.co_argcount <= position or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return True
    name = code.co_varnames[position]
    if name in code.co_cellvars:  # a closure inside reads it
        return True
    for ins in dis.get_instructions(code):
        if ins.opname.startswith(("LOAD_", "STORE_", "DELETE_")):
            names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)  # LOAD_FAST_LOAD_FAST
            if name in names or _INTROSPECTION.intersection(n for n in names if isinstance(n, str)):
                return True
    return False


# Arrays cross the door as files in shared memory; their bytes are copied by several threads at once
# (NumPy copies and os.pwrite/os.preadv release the GIL), so a gigabyte costs a fraction of a second.
PIECE_BYTES = 32 << 20


def threads() -> int:
    return max(1, min(16, os.cpu_count() or 1))


def spans(nbytes: int, piece: int = PIECE_BYTES) -> list[tuple[int, int]]:
    return [(start, min(nbytes, start + piece)) for start in range(0, nbytes, piece)]


def in_parallel(work: Callable[[int, int], Any], nbytes: int) -> None:
    """``work(start, stop)`` over byte spans of ``nbytes``, on several threads where it pays."""
    pieces = spans(nbytes)
    if len(pieces) <= 1:
        for a, b in pieces:
            work(a, b)
        return
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(min(threads(), len(pieces))) as pool:
        list(pool.map(lambda ab: work(*ab), pieces))


def save_npy(path: str, arr: Any, np: Any) -> None:
    """``arr`` as a 1-D, C-order ``.npy`` file at ``path`` (created anew, never through a link)."""
    import io
    flat = np.ascontiguousarray(arr).reshape(-1)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, np.lib.format.header_data_from_array_1_0(flat))
    header = head.getvalue()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, header)
        os.ftruncate(fd, len(header) + flat.nbytes)
        data = memoryview(flat).cast("B") if flat.nbytes else memoryview(b"")

        def put(start: int, stop: int) -> None:
            while start < stop:
                start += os.pwrite(fd, data[start:stop], len(header) + start)

        in_parallel(put, flat.nbytes)
    finally:
        os.close(fd)


def as_float64(np: Any, values: Any) -> Any:
    """``values`` as a new float64 array, converted on several threads where it is large."""
    flat = values.reshape(-1)
    out = np.empty(flat.size, dtype=np.float64)
    step = max(1, PIECE_BYTES // 8)

    def convert(start: int, stop: int) -> None:
        a, b = start // 8, stop // 8
        np.copyto(out[a:b], flat[a:b], casting="unsafe")

    in_parallel(convert, flat.size * 8) if flat.size > step else convert(0, flat.size * 8)
    return out


def _load(path: str) -> Callable:
    spec = importlib.util.spec_from_file_location("reference", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{os.path.basename(path)} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, "reference", None)
    if not callable(fn):
        raise ImportError("it defines no function reference(variant, inputs, scalars, params)")
    return fn


def _error() -> str:
    text = traceback.format_exc(limit=4)
    return text if len(text) <= MAX_ERROR_CHARS else "...\n" + text[-MAX_ERROR_CHARS:]


class _Inputs:
    """The input files, each mapped once and sliced per request."""

    def __init__(self, np: Any, folder: str) -> None:
        self.np, self.folder, self.maps = np, folder, {}

    def piece(self, name: str, start: int | None, stop: int | None) -> Any:
        if name not in self.maps:
            self.maps = {k: v for k, v in self.maps.items() if k.split("@")[0] != name.split("@")[0]}
            self.maps[name] = self.np.load(os.path.join(self.folder, os.path.basename(name)), mmap_mode="r", allow_pickle=False)
        return as_float64(self.np, self.maps[name][start:stop])


def serve(path: str, in_dir: str = IN_DIR, out_dir: str = OUT_DIR) -> None:
    """Import the author's file and answer requests: only inside the sandbox, where this file is bound
    at ``INSIDE`` (trusted code imports this module for ``reads_argument`` and the copies, and never
    calls this)."""
    if os.path.abspath(__file__) != INSIDE:
        raise SystemExit(f"{__file__} runs an entry's reference only inside the sandbox, as {INSIDE}")
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the author's prints land on stderr, never on the protocol
    sys.stdout = sys.stderr

    def reply(**message: Any) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    try:
        import numpy as np
        reference = _load(path)
    except BaseException:  # noqa: BLE001 -- the author's import may raise anything, SystemExit included
        reply(ready=False, error=_error())
        return
    inputs = _Inputs(np, in_dir)
    reply(ready=True, reads_variant=reads_argument(reference, 0), reads_point=reads_argument(reference, 3))
    for line in sys.stdin:
        ask = json.loads(line)
        call = ask["call"]
        try:
            given = {name: inputs.piece(f["file"], f.get("start"), f.get("stop")) for name, f in ask["inputs"].items()}
            answer = reference(ask["variant"], given, ask["scalars"], ask["params"])
            if not isinstance(answer, dict):
                reply(call=call, ok=True, keys=None, type=type(answer).__name__)
                continue
            keys = [k for k in answer if isinstance(k, str)][:64]
            for name in ask["outputs"]:
                if name in answer:
                    value = np.asarray(answer[name])
                    save_npy(os.path.join(out_dir, f"{int(call)}-{name}.npy"),
                             value if value.dtype == np.float64 else as_float64(np, value), np)
            reply(call=call, ok=True, keys=keys)
        except BaseException:  # noqa: BLE001 -- failures are data for the trusted side
            reply(call=call, ok=False, error=_error())


if __name__ == "__main__":
    serve(*sys.argv[1:4])
