"""Starting one confined process with bubblewrap: what it sees, its limits, and its watchdog.

The process sees the interpreter (or the CUDA toolkit) and the system's libraries read-only,
the paths it is given read-only, one scratch folder read-write, a private ``/tmp`` of bounded
size, and nothing else: no network, no home folder, no repository, no ``/etc``, an environment of
only what is listed.  Limits are the kernel's (``setrlimit`` before ``exec``: CPU seconds, address
space, file size, processes) and a watchdog's (wall clock; processes and resident memory summed
over the sandbox's PID namespace, since a process run as root is exempt from RLIMIT_NPROC and
rlimits are per process).  ``--die-with-parent`` ends it with us; killing its PID namespace's first
process ends every process in it.
"""

from __future__ import annotations

import os
import queue
import resource
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

BWRAP_ENV = "BWRAP"            # a bwrap binary to use instead of the one on PATH
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install "
                "bubblewrap`), or point $BWRAP at a bwrap binary")
# What every confined process may see of the system, read-only, where it exists: the dynamic
# loader, libc and the other shared libraries, and the executables nvcc calls (gcc, sh).
SYSTEM_RO = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
WATCH_INTERVAL_S = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE")


def printable(text: object, keep: int) -> str:
    """Text from inside a sandbox, as a log or a record may show it: a string, its last ``keep``
    characters, control characters (other than newline and tab) shown as '?'."""
    text = (text if isinstance(text, str) else repr(text))[-keep:]
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot make a sandbox on this machine; the message says how to fix it."""


@dataclass(frozen=True)
class Limits:
    """What one confined process may use.  ``memory_bytes`` bounds each process's address space and
    the resident memory of all of them together; ``file_bytes`` the largest file it may write."""
    wall_s: float = 60.0
    cpu_s: int = 600
    memory_bytes: int = 4 << 30
    file_bytes: int = 1 << 30
    processes: int = 64
    tmp_bytes: int = 256 << 20


@dataclass
class Finished:
    """How a confined run ended: exit code (negative: the signal), its output tails, and ``killed``,
    the watchdog's reason where it ended the run (wall clock, processes, memory)."""
    returncode: int
    stdout: bytes
    stderr: bytes
    killed: str | None = None
    seconds: float = 0.0


def find_bwrap() -> str | None:
    exe = os.environ.get(BWRAP_ENV)
    if exe and Path(exe).is_file():
        return exe
    return shutil.which("bwrap") or next((p for p in ("/usr/bin/bwrap", "/usr/local/bin/bwrap")
                                          if Path(p).is_file()), None)


_PROBED: dict[str, str | None] = {}


def problem() -> str | None:
    """None where a sandbox can be made here; else one line saying why not and how to fix it."""
    exe = find_bwrap()
    if exe is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    if exe not in _PROBED:
        argv = [exe, *_base_args(), "--", "/bin/true"]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=20)
            _PROBED[exe] = None if done.returncode == 0 else (
                f"{exe} cannot make a sandbox here (exit {done.returncode}: "
                f"{done.stderr.decode(errors='replace').strip()[:300]}); user namespaces may be off "
                f"(sysctl kernel.unprivileged_userns_clone=1) or bwrap needs its setuid bit")
        except (OSError, subprocess.TimeoutExpired) as err:
            _PROBED[exe] = f"{exe} cannot be run: {err}"
    return _PROBED[exe]


def require() -> str:
    """The bwrap binary, or SandboxUnavailable saying why there is none."""
    why = problem()
    if why:
        raise SandboxUnavailable(why)
    return find_bwrap()  # type: ignore[return-value]


def _base_args() -> list[str]:
    args = []
    for path in SYSTEM_RO:
        if os.path.lexists(path):
            # /lib may be a symlink to usr/lib (merged /usr): recreate the link, do not bind it.
            args += (["--symlink", os.readlink(path), path] if os.path.islink(path)
                     else ["--ro-bind", path, path])
    return [*args, "--proc", "/proc", "--dev", "/dev", "--unshare-all", "--die-with-parent",
            "--new-session", "--clearenv", "--hostname", "sandbox"]


@dataclass
class Mounts:
    """What a confined process sees beyond the system: paths read-only (at the same path or at a
    destination), one writable scratch folder, its environment and working folder."""
    ro: dict[str, str] = field(default_factory=dict)        # destination -> source
    rw: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    chdir: str = "/tmp"

    def same_path(self, *paths: str | Path) -> "Mounts":
        for path in paths:
            self.ro[str(path)] = str(path)
        return self


def argv(exe: str, mounts: Mounts, limits: Limits, command: list[str]) -> list[str]:
    # The private /tmp first: what is bound after it may lie under /tmp (a venv or a checkout in /tmp,
    # a scratch folder), and a tmpfs mounted later would hide it.  A destination inside another is
    # bound after it, so the outer bind does not hide it either.
    args = [exe, *_base_args(), "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    for dest, src in sorted(mounts.ro.items(), key=lambda kv: kv[0].count("/")):
        args += ["--ro-bind", src, dest]
    for dest, src in sorted(mounts.rw.items(), key=lambda kv: kv[0].count("/")):
        args += ["--bind", src, dest]
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp", **mounts.env}
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--chdir", mounts.chdir, "--", *command]


def _rlimits(limits: Limits, processes_now: int) -> None:
    """In the child, before exec: the kernel's limits (inherited by everything it starts)."""
    for which, value in ((resource.RLIMIT_CPU, limits.cpu_s), (resource.RLIMIT_AS, limits.memory_bytes),
                         (resource.RLIMIT_FSIZE, limits.file_bytes), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_NPROC, processes_now + limits.processes)):
        resource.setrlimit(which, (value, value))
    os.setpgrp()


def _user_processes() -> int:
    """Processes this user runs now (RLIMIT_NPROC counts them all, so the limit is this plus the budget)."""
    uid, count = os.getuid(), 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                count += os.stat(f"/proc/{name}").st_uid == uid
            except OSError:
                pass
    return count


class _Spawner:
    """Starts every confined process from one thread that lives as long as this process.

    ``--die-with-parent`` is PR_SET_PDEATHSIG, which fires when the *thread* that forked bwrap
    ends, not the process: a sandbox started from a pool thread (the chunked check runs on
    every core) would be killed as soon as that thread finished its chunk.

    A forked child starts afresh: it has no spawner thread, and the parent's, waiting on the job
    queue, is still that queue's first waiter there, so the child's first job woke a thread that
    does not exist and waited for ever."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._jobs: "queue.Queue[tuple[tuple, dict, queue.Queue]]" = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="sandbox spawner", daemon=True)
                self._thread.start()
        answer: queue.Queue = queue.Queue()
        self._jobs.put((args, kwargs, answer))
        ok, value = answer.get()
        if not ok:
            raise value
        return value

    def _serve(self) -> None:
        while True:
            args, kwargs, answer = self._jobs.get()
            try:
                answer.put((True, subprocess.Popen(*args, **kwargs)))
            except BaseException as err:  # noqa: BLE001 -- handed to the caller
                answer.put((False, err))


_SPAWNER = _Spawner()


class Confined:
    """One running confined process: its pipes, and a watchdog that kills it past its limits."""

    def __init__(self, exe: str, mounts: Mounts, limits: Limits, command: list[str],
                 pass_fds: tuple[int, ...] = ()) -> None:
        self.limits, self.killed, self.started = limits, None, time.monotonic()
        now = _user_processes()
        self.proc = _SPAWNER.popen(argv(exe, mounts, limits, command), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=pass_fds,
                                   preexec_fn=lambda: _rlimits(limits, now))
        self._stderr = _Tail(self.proc.stderr)
        self._done = threading.Event()
        self._watch = threading.Thread(target=self._watchdog, name="sandbox watchdog", daemon=True)
        self._watch.start()

    @property
    def stdin(self) -> IO[bytes]:
        return self.proc.stdin  # type: ignore[return-value]

    @property
    def stdout(self) -> IO[bytes]:
        return self.proc.stdout  # type: ignore[return-value]

    def stderr_tail(self) -> bytes:
        return self._stderr.text()

    def kill(self, why: str | None = None) -> None:
        if why and self.killed is None:
            self.killed = why
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # bwrap and, through --die-with-parent, the namespace
        except (ProcessLookupError, PermissionError):
            pass

    def wait(self) -> Finished:
        try:
            code = self.proc.wait(timeout=max(0.0, self.limits.wall_s - (time.monotonic() - self.started)) + 5)
        except subprocess.TimeoutExpired:
            self.kill(f"it ran past its {self.limits.wall_s:g} s wall-clock limit")
            code = self.proc.wait()
        self._done.set()
        self._stderr.join()
        return Finished(code, b"", self._stderr.text(), self.killed, time.monotonic() - self.started)

    def close(self) -> None:
        self.kill()
        self.proc.wait()
        self._done.set()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self._stderr.join()

    def _watchdog(self) -> None:
        limits = self.limits
        while not self._done.wait(WATCH_INTERVAL_S):
            if self.proc.poll() is not None:
                return
            if time.monotonic() - self.started > limits.wall_s:
                return self.kill(f"it ran past its {limits.wall_s:g} s wall-clock limit")
            count, resident = _descendants(self.proc.pid)
            if count > limits.processes:
                return self.kill(f"it started more than {limits.processes} processes")
            if resident > limits.memory_bytes:
                return self.kill(f"its processes held more than {limits.memory_bytes / 2**30:.1f} GiB of memory")


def _descendants(root: int) -> tuple[int, int]:
    """(processes, resident bytes) of ``root``'s descendants, from /proc (bounded by the process table)."""
    children = _children_of_tree(root)
    if children is None:
        children = _children_of_all()
    seen, todo, resident = 0, list(children.get(root, [])), 0
    while todo:
        pid = todo.pop()
        seen += 1
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                resident += int(f.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            pass
    return max(0, seen - 1), resident  # the namespace's first process is bwrap's own, not the author's


def _children_of_tree(root: int) -> dict[int, list[int]] | None:
    """Each process's children under ``root``, read from the tree itself (``/proc/PID/task/TID/children``,
    every thread's, since a thread's forks are listed under it): a poll reads the sandbox's few
    processes, not the whole process table (a watchdog polls twenty times a second, issue 34).  None
    where the kernel has no such file (CONFIG_PROC_CHILDREN), and the whole table is read instead."""
    children: dict[int, list[int]] = {}
    todo, known = [root], False
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone since its parent listed it
        kids: list[int] = []
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    kids += (int(k) for k in f.read().split())
                known = True
            except FileNotFoundError:
                if not known and pid == root and tid == str(root):
                    return None  # no children files on this kernel
            except (OSError, ValueError):
                pass
        children[pid] = kids
        todo += kids
    return children


def _children_of_all() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        try:
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    return children


class _Tail:
    """The last ``keep`` bytes of a pipe, read in a thread so the child never blocks on it."""

    def __init__(self, pipe: IO[bytes] | None, keep: int = 16 << 10) -> None:
        self.keep, self.buf = keep, bytearray()
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe: IO[bytes] | None) -> None:
        if pipe is None:
            return
        for chunk in iter(lambda: pipe.read1(65536), b""):  # type: ignore[attr-defined]
            self.buf += chunk
            del self.buf[:-self.keep]

    def text(self) -> bytes:
        return bytes(self.buf)

    def join(self) -> None:
        self.thread.join(timeout=2)


def run(exe: str, mounts: Mounts, limits: Limits, command: list[str], stdin: bytes = b"") -> Finished:
    """Run ``command`` confined to the end; its stdout's last 64 KB and stderr's last 16 KB come back."""
    proc = Confined(exe, mounts, limits, command)
    out = _Tail(proc.stdout, keep=64 << 10)
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except OSError:
        pass
    finished = proc.wait()
    out.join()
    finished.stdout = out.text()
    return finished
