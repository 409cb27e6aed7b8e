"""The trusted side of the reference's door: ``SandboxedReference`` is called like the author's
``reference(variant, inputs, scalars, params)``, and runs it in the sandbox.

Each input is written once, in its own dtype (bfloat16 as the float32 it converts to exactly),
to the scratch folder's ``in/``; a call names the files and the element range, and the server
(``server.py``, inside) converts the piece to float64, calls the reference and writes float64
``.npy`` outputs to ``out/``.  Every output file is opened without following links, must be a
regular file whose header says float64, C order and exactly the elements the spec sizes, and is
copied into this process's memory before it is used.  Several servers run at once where several
threads ask (the chunked check runs on every core).
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import shutil
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from measure.sandbox import bwrap, server
from measure.sandbox.server import in_parallel, save_npy

if TYPE_CHECKING:  # NumPy is imported where arrays cross the door: a compile in the sandbox needs none (issue 34)
    import numpy as np

SERVER = Path(__file__).with_name("server.py")
MAX_SERVERS = 16
# How long one call may take: the largest real reference answers in seconds.  The node may lower
# it (GLOSSARY_REFERENCE_TIMEOUT, read here, on the trusted side) to try hostile entries quickly.
CALL_TIMEOUT_S = float(os.environ.get("GLOSSARY_REFERENCE_TIMEOUT") or 300)


class ReferenceFailed(RuntimeError):
    """The reference could not be imported, raised, returned something malformed, or broke a limit;
    the message says which, with the author's traceback where there is one (bounded)."""


def _scratch_root() -> str | None:
    """Where scratch folders go: shared memory where there is a writable /dev/shm (inputs and outputs
    can be gigabytes; they should not touch a disk), else the temp folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def interpreter_mounts() -> list[str]:
    """What the interpreter needs to run with NumPy: its install prefix, the venv's, and the folder
    NumPy is imported from (nothing else of sys.path: never the repository).  NumPy is found, not
    imported: a sandbox starts before this process needs NumPy (issue 34)."""
    found = importlib.util.find_spec("numpy")
    if found is None or not found.origin:
        raise ModuleNotFoundError("No module named 'numpy': the reference's sandbox runs it", name="numpy")
    paths = {sys.base_prefix, sys.prefix, str(Path(found.origin).resolve().parent.parent)}
    return sorted(p for p in paths if p and os.path.isdir(p))


class SandboxedReference:
    """An entry's reference, run in the sandbox: there is no other way to run it (nothing of the
    author's is imported into this process, and without bubblewrap it does not start)."""

    def __init__(self, entry_dir: Path, reference: str, *, limits: bwrap.Limits | None = None,
                 label: str = "reference") -> None:
        self.entry_dir, self.rel, self.label = Path(entry_dir).resolve(), reference, label
        self.limits = limits or bwrap.Limits(wall_s=3600, cpu_s=3600, memory_bytes=16 << 30, file_bytes=8 << 30)
        self.exe = bwrap.require()
        self.scratch = Path(tempfile.mkdtemp(prefix="glossary-sandbox-", dir=_scratch_root()))
        (self.scratch / "in").mkdir()
        self._servers: queue.LifoQueue[_Server] = queue.LifoQueue()
        self._all: list[_Server] = []
        self._lock = threading.Lock()
        self._files: dict[str, tuple[tuple, np.ndarray, str]] = {}
        self._calls = 0
        first = self._start()  # the import happens now: a broken reference fails before any timing
        self.reads_variant, self.reads_point = first.reads
        self._servers.put(first)

    # -- what the harness calls ------------------------------------------------------------------

    def __call__(self, variant: str, inputs: dict[str, np.ndarray], scalars: dict, params: dict) -> dict:
        return self.chunk(variant, inputs, scalars, params, None, None)

    def chunk(self, variant: str, inputs: dict[str, np.ndarray], scalars: dict, params: dict,
              start: int | None, stop: int | None, sizes: dict[str, int] | None = None) -> dict:
        """The reference's answer for elements [start, stop) of every input (all of them where None):
        {output: float64 array} for the keys it returned, or {key: None} where the keys are wrong
        (the caller's check names them)."""
        files = {name: {"file": self._input(name, arr), "start": start, "stop": stop} for name, arr in inputs.items()}
        with self._lock:
            self._calls += 1
            call = self._calls
        server = self._take()
        try:
            reply = server.ask({"call": call, "variant": variant, "inputs": files, "scalars": scalars,
                                "params": params, "outputs": list(sizes or [])})
        except ReferenceFailed:
            server.close()
            raise
        self._servers.put(server)
        if not reply.get("ok"):
            raise ReferenceFailed(f"the reference raised:\n{_clean(reply.get('error'))}")
        keys = reply.get("keys")
        if keys is None:
            raise ReferenceFailed(f"the reference must return {{output name: array}}, returned "
                                  f"{_clean(reply.get('type'))[:80]}")
        out: dict[str, Any] = {}
        for key in keys[:64]:
            name = _clean(key)[:100]
            out[name] = (read_float64(server.out / f"{call}-{name}.npy", sizes[name])
                         if sizes and name in sizes else None)
        return out

    def close(self) -> None:
        for server in self._all:
            server.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        with self._lock:
            # the inputs held (so their addresses are not reused) go now: each server points back here,
            # and the cycle would keep gigabytes until the collector's next full pass
            self._files.clear()

    def __enter__(self) -> "SandboxedReference":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- inside ------------------------------------------------------------------------------------

    def _take(self) -> "_Server":
        try:
            return self._servers.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            start = len(self._all) < MAX_SERVERS
        return self._start() if start else self._servers.get()

    def _start(self) -> "_Server":
        with self._lock:
            index = len(self._all)
            server = _Server(self, index)
            self._all.append(server)
        server.open()
        return server

    def _input(self, name: str, arr: np.ndarray) -> str:
        """The file in ``in/`` that holds ``arr`` (written on first sight of that array)."""
        import numpy as np

        arr = np.asarray(arr)
        key = (arr.__array_interface__["data"][0], arr.shape, arr.strides, str(arr.dtype))
        with self._lock:
            held = self._files.get(name)
            if held is not None and held[0] == key:
                return held[2]
            fname = f"{name}@{len(self._files)}-{os.urandom(4).hex()}.npy"
            data = arr if arr.dtype.kind in "fiub" and arr.dtype.itemsize <= 8 and arr.dtype.name in _NATIVE \
                else arr.astype(np.float32 if arr.dtype.itemsize <= 4 else np.float64)
            tmp = self.scratch / "in" / (fname + ".part")
            save_npy(str(tmp), data, np)
            os.replace(tmp, self.scratch / "in" / fname)
            if held is not None:
                (self.scratch / "in" / held[2]).unlink(missing_ok=True)
            self._files[name] = (key, arr, fname)  # the array is held, so its address is not reused
            return fname


_NATIVE = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "bool"}


def _clean(text: Any) -> str:
    return bwrap.printable(text, 4000)


class _Server:
    """One server process and its output folder."""

    def __init__(self, owner: SandboxedReference, index: int) -> None:
        self.owner, self.index = owner, index
        self.out = owner.scratch / f"out{index}"
        self.out.mkdir()
        self.proc: bwrap.Confined | None = None
        self.reads = (True, True)

    def open(self) -> None:
        owner = self.owner
        entry, rel = owner.entry_dir, owner.rel
        inside_ref = f"/entry/{rel}"
        mounts = bwrap.Mounts(ro={"/entry": str(entry), "/io/in": str(owner.scratch / "in"),
                                  server.INSIDE: str(SERVER)},
                              rw={"/io/out": str(self.out)},
                              env={"PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"},
                              chdir="/tmp").same_path(*interpreter_mounts())
        self.proc = bwrap.Confined(owner.exe, mounts, owner.limits,
                                   [sys.executable, "-I", server.INSIDE, inside_ref])
        hello = self._read()
        if not hello.get("ready"):
            raise ReferenceFailed(f"importing {rel} failed:\n{_clean(hello.get('error'))}")
        self.reads = (bool(hello.get("reads_variant", True)), bool(hello.get("reads_point", True)))

    def ask(self, request: dict) -> dict:
        timer = threading.Timer(CALL_TIMEOUT_S, self.proc.kill,
                                kwargs={"why": f"it took more than {CALL_TIMEOUT_S:g} s to answer one call"})
        timer.daemon = True
        timer.start()
        try:
            try:
                self.proc.stdin.write((json.dumps(request) + "\n").encode())
                self.proc.stdin.flush()
            except OSError:
                pass  # it is gone: _read says why
            reply = self._read()
        finally:
            timer.cancel()
        if reply.get("call") != request["call"]:
            raise ReferenceFailed("the reference's process answered out of turn")
        return reply

    def _read(self) -> dict:
        line = self.proc.stdout.readline(1 << 20)
        if not line.endswith(b"\n"):
            self.proc.kill()
            finished = self.proc.wait()
            why = finished.killed or (f"it exited with code {finished.returncode}" if finished.returncode >= 0
                                      else f"it was killed by signal {-finished.returncode}")
            tail = _clean(finished.stderr.decode("utf-8", "replace"))[-1500:]
            raise ReferenceFailed(f"the reference stopped: {why}" + (f"; its last output:\n{tail}" if tail.strip() else ""))
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise ReferenceFailed("the reference's process sent a malformed reply")
        return reply

    def close(self) -> None:
        if self.proc is not None:
            self.proc.close()


def read_float64(path: Path, elements: int) -> np.ndarray:
    """The float64 array in ``path``: a regular file (never a link), an ``.npy`` header saying
    little-endian float64, C order and ``elements`` elements, and exactly that many bytes after it;
    copied into this process.  ReferenceFailed names what is wrong."""
    import numpy as np

    name = path.name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ReferenceFailed(f"the reference's output file {name} was not written") from None
    except OSError as err:
        raise ReferenceFailed(f"the reference's output file {name} cannot be opened ({err.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReferenceFailed(f"the reference's output {name} is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as f:
            try:
                version = np.lib.format.read_magic(f)
                shape, fortran, dtype = (np.lib.format.read_array_header_1_0(f) if version == (1, 0)
                                         else np.lib.format.read_array_header_2_0(f))
            except (ValueError, OSError) as err:
                raise ReferenceFailed(f"the reference's output {name} is not an .npy file: {err}") from None
            count = int(np.prod(shape)) if shape else 1
            if dtype != np.dtype("<f8") or fortran or count != elements:
                raise ReferenceFailed(f"the reference's output {name} holds {count} elements of {dtype}; "
                                      f"expected {elements} of float64")
            offset = f.tell()
            if info.st_size != offset + 8 * count:
                raise ReferenceFailed(f"the reference's output {name} is {info.st_size} bytes; its header says "
                                      f"{offset + 8 * count}")
        arr = np.empty(count, dtype=np.float64)
        view = memoryview(arr).cast("B") if count else memoryview(bytearray())
        short = []

        def take(start: int, stop: int) -> None:
            while start < stop:
                n = os.preadv(fd, [view[start:stop]], offset + start)
                if n <= 0:  # shortened while we read: the file is what it is, and it is wrong
                    short.append(start)
                    return
                start += n

        in_parallel(take, arr.nbytes)
        if short:
            raise ReferenceFailed(f"the reference's output {name} ended early")
        return arr
    finally:
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass
