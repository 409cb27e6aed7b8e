"""Compiling an entry's kernel source in the sandbox: the cubin, and every file the compile read.

nvcc runs confined (``bwrap``): it sees the system (its host compiler and headers), the CUDA
toolkit, the entry's folder read-only at ``/entry`` and one scratch folder at ``/out``, where it
writes the cubin and, through ``--keep``, the preprocessed source it compiled.  The line markers of
that source name every file the preprocessor read (``preprocessed_reads``): nvcc's own ``-MD``
lists the same markers, but of a second, host-side preprocessing of the source that a cubin never
uses, which cost a fifth of a small compile (issue 34).  Every file named must lie in the entry's
folder (and be among the files the fingerprints cover) or in the toolkit or the system compiler's
headers; anything else is refused, naming the path; a preprocessed source without markers, or
with one that cannot be read, is refused too.  Compiler messages
come only from inside, where no key can be read.  Cubins are cached by the command, the source
and the toolkit's version, and a cached one is used only while every entry file its compile read
still has the bytes it had.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from measure.sandbox import bwrap

ENTRY = "/entry"
OUT = "/out"
KEEP_NAME = "keep"          # nvcc's intermediate files, the preprocessed source among them
KEEP = f"{OUT}/{KEEP_NAME}"
# What the preprocessor names in line markers that is no file it read.
NOT_FILES = ("<built-in>", "<command-line>")
# Where a compile may read beyond the entry's folder: the toolkit's and the host compiler's headers.
SYSTEM_HEADERS = ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/", "/usr/lib/llvm")
LIMITS = bwrap.Limits(wall_s=300, cpu_s=600, memory_bytes=4 << 30, file_bytes=512 << 20, processes=64,
                      tmp_bytes=2 << 30)
MAX_CUBIN_BYTES = 256 << 20


class CompileFailed(RuntimeError):
    """nvcc refused the source, broke a limit, or read a file it may not; the message says which."""


@dataclass(frozen=True)
class Compiled:
    cubin: bytes
    reads: tuple[str, ...]       # entry files the compile read, relative to the entry's folder
    command: str                 # the nvcc command as it ran, paths as the sandbox saw them
    log: str = ""                # what nvcc and its tools printed (ptxas's report with -Xptxas -v), its end


def tool_mounts(exe: str, root: Path, *, ro: dict[str, str] | None = None,
                rw: dict[str, str] | None = None) -> bwrap.Mounts:
    """The sandbox's view for running a CUDA tool ``exe`` (its real path) of the toolkit at ``root``:
    ``ro``/``rw`` binds, the toolkit's bin first on PATH, the toolkit (and the binary, where it lies
    outside both) visible at their own paths; /usr is the sandbox's already."""
    mounts = bwrap.Mounts(ro=ro or {}, rw=rw or {}, chdir=OUT, env={"PATH": f"{root}/bin:/usr/bin:/bin"})
    if not str(root).startswith("/usr/"):
        mounts.same_path(root)
    if not exe.startswith("/usr/") and not exe.startswith(str(root)):
        mounts.same_path(exe)
    return mounts


def toolkit_root(nvcc: str) -> Path:
    """The CUDA toolkit an nvcc belongs to (through a wrapper script or a symlink)."""
    real = Path(os.path.realpath(nvcc))
    if real.parent.name == "bin" and (real.parent.parent / "include").is_dir():
        return real.parent.parent
    try:
        text = real.read_text(errors="replace")[:4096]  # a wrapper: `exec /usr/local/cuda-13.0/bin/nvcc "$@"`
    except OSError:
        text = ""
    match = re.search(r"(/\S+)/bin/nvcc\b", text)
    if match and Path(match.group(1), "include").is_dir():
        return Path(os.path.realpath(match.group(1)))
    return real.parent.parent


def command(nvcc: str, flags: list[str], arch: str, source: str) -> list[str]:
    """The argv as it runs inside: the entry's folder as the include path (as pycuda's compile had it)."""
    inside = f"{ENTRY}/{source}"
    return [nvcc, "--cubin", *flags, "-arch", arch, f"-I{os.path.dirname(inside)}", "--keep", "--keep-dir", KEEP,
            "-o", f"{OUT}/kernel.cubin", inside]


def shown_command(argv: list[str]) -> str:
    """The command as results record it: without the options that only tell us what it read."""
    return shlex.join(a for a in argv if a not in ("--keep", "--keep-dir", KEEP))


def compile_source(entry_dir: Path, source: str, arch: str, flags: list[str], *, nvcc: str,
                   covered: set[str] | None = None, cache: Path | None = None,
                   version: str = "", limits: bwrap.Limits = LIMITS) -> Compiled:
    """Compile ``entry_dir/source`` for ``arch`` in the sandbox.  ``covered``: the entry files the
    fingerprints hash (a compile that reads another one is refused); ``cache``: a folder of ours
    for cubins; ``version``: nvcc's, part of the cache key.  There is no unconfined compile."""
    entry_dir = Path(entry_dir).resolve()
    # The binary itself, not a link to it: /usr/local/cuda is often a link through /etc/alternatives,
    # which the sandbox does not see.
    nvcc = os.path.realpath(nvcc)
    argv = command(nvcc, flags, arch, source)
    shown = shown_command(argv)
    key = hashlib.sha256(json.dumps([version, argv]).encode() + (entry_dir / source).read_bytes()).hexdigest()
    hit = _cached(cache, key, entry_dir) if cache else None
    if hit is not None:
        cubin, reads, log = hit
        return Compiled(cubin, reads, shown, log)
    root = toolkit_root(nvcc)
    scratch = Path(tempfile.mkdtemp(prefix="glossary-nvcc-"))
    try:
        (scratch / KEEP_NAME).mkdir()
        mounts = tool_mounts(nvcc, root, ro={ENTRY: str(entry_dir)}, rw={OUT: str(scratch)})
        done = bwrap.run(bwrap.require(), mounts, limits, argv)
        log = done.stderr.decode("utf-8", "replace") + done.stdout.decode("utf-8", "replace")
        if done.killed:
            raise CompileFailed(f"{shown}: stopped, {done.killed}")
        cubin_path = scratch / "kernel.cubin"
        if done.returncode != 0 or not _regular(cubin_path):
            raise CompileFailed(f"{shown} failed (exit {done.returncode}):\n{_clean(log).strip()}")
        toolkits = (str(root), os.path.normpath(os.path.join(os.path.dirname(nvcc), "..")))
        named = preprocessed_reads(_preprocessed(scratch / KEEP_NAME, source), source, limits.file_bytes)
        reads = entry_reads(named, toolkits, source, covered)
        cubin = _read_limited(cubin_path, MAX_CUBIN_BYTES)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    log = _clean(log)
    if cache:
        _store(cache, key, entry_dir, cubin, reads, log)
    return Compiled(cubin, reads, shown, log)


_MARKER = re.compile(rb'# \d+ "((?:[^"\\\n]|\\.)*)"((?: [1-4])*)[ \t]*\r?$')
_LOOKS_LIKE_MARKER = re.compile(rb'# \d+ "')
_ESCAPE = re.compile(r'\\(?:([0-7]{1,3})|(.))')


def preprocessed_reads(path: Path, source: str, limit: int = LIMITS.file_bytes) -> list[str]:
    """Every file the line markers of the preprocessed source at ``path`` name, in the order first
    named.  gcc marks each file it enters (``# 1 "/entry/k.h" 1``), so a file the preprocessor read
    is named; a line that only looks like a marker (``#line``, a raw string) can add a name, never
    hide one.  CompileFailed where the file is not one the compile wrote (a link, over ``limit``), a
    marker cannot be read, or no marker names the source (markers turned off)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        raise CompileFailed(f"compiling {source} left no preprocessed source to read ({err.strerror})") from None
    names: dict[str, None] = {}
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise CompileFailed(f"the preprocessed source of {source} is not a regular file")
        read = 0
        for line in f:
            read += len(line)
            if read > limit:
                raise CompileFailed(f"the preprocessed source of {source} is over {limit >> 20} MiB")
            if not _LOOKS_LIKE_MARKER.match(line):
                continue
            match = _MARKER.match(line.rstrip(b"\n"))
            if match is None:  # gcc quotes every name it writes: this one is no name of gcc's
                raise CompileFailed(f"compiling {source}: a line marker of its preprocessed source cannot be "
                                    f"read: {_clean(line[:200].decode('utf-8', 'replace')).strip()}")
            names.setdefault(_unquote(match.group(1)), None)
    if f"{ENTRY}/{source}" not in names:
        raise CompileFailed(f"compiling {source}: its preprocessed source names no files, so what the compile "
                            f"read cannot be checked")
    return [n for n in names if n not in NOT_FILES]


def _unquote(raw: bytes) -> str:
    """A file name as gcc quotes it in a line marker: backslash before '\\' and '"', octal escapes."""
    text = raw.decode("utf-8", "surrogateescape")

    def one(m: re.Match) -> str:
        if m.group(1):
            return chr(int(m.group(1), 8))
        return {"n": "\n", "t": "\t"}.get(m.group(2), m.group(2))

    return _ESCAPE.sub(one, text)


def entry_reads(deps: list[str], toolkits: tuple[str, ...], source: str,
                covered: set[str] | None) -> tuple[str, ...]:
    """The entry files a compile read, relative to its folder, from the files it read (``deps``,
    ``preprocessed_reads``); CompileFailed for any file outside the entry's folder, the toolkit and
    the system's headers, or an entry file not ``covered``."""
    reads = []
    toolkits = tuple(str(t).rstrip("/") + "/" for t in toolkits)
    for dep in deps:
        path = os.path.normpath(dep if dep.startswith("/") else os.path.join(OUT, dep))
        if path.startswith(ENTRY + "/"):
            rel = path[len(ENTRY) + 1:]
            if covered is not None and rel not in covered:
                raise CompileFailed(f"compiling {source} read {rel}, which the entry's fingerprints do not "
                                    f"cover (an #include the entry model did not find): include it with a "
                                    f"plain #include \"{rel}\"")
            reads.append(rel)
        elif path.startswith(toolkits) or path.startswith(SYSTEM_HEADERS):
            continue
        else:
            raise CompileFailed(f"compiling {source} read {path}, outside the entry's folder and the CUDA "
                                f"toolkit: an entry's kernels may include only their own files and the toolkit's")
    return tuple(dict.fromkeys(reads))


def _preprocessed(keep: Path, source: str) -> Path:
    """The one preprocessed source (``NAME.cpp1.ii``) nvcc kept of a device compile."""
    found = sorted(keep.glob("*.cpp1.ii"))
    if len(found) != 1:
        raise CompileFailed(f"compiling {source} left {len(found)} preprocessed sources where one was expected: "
                            f"what it read cannot be checked")
    return found[0]


def _cached(cache: Path, key: str, entry_dir: Path) -> tuple[bytes, tuple[str, ...], str] | None:
    meta, cubin = cache / f"{key}.json", cache / f"{key}.cubin"
    try:
        record = json.loads(meta.read_text(encoding="utf-8"))
        for rel, digest in record["reads"].items():
            if hashlib.sha256((entry_dir / rel).read_bytes()).hexdigest() != digest:
                return None
        return cubin.read_bytes(), tuple(record["reads"]), str(record.get("log", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _store(cache: Path, key: str, entry_dir: Path, cubin: bytes, reads: tuple[str, ...], log: str) -> None:
    try:
        cache.mkdir(parents=True, exist_ok=True)
        digests = {rel: hashlib.sha256((entry_dir / rel).read_bytes()).hexdigest() for rel in reads}
        (cache / f"{key}.cubin").write_bytes(cubin)
        (cache / f"{key}.json").write_text(json.dumps({"reads": digests, "log": log}), encoding="utf-8")
    except OSError:
        pass  # a cache that cannot be written only costs a compile next time


def _regular(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def _read_limited(path: Path, limit: int) -> bytes:
    """A file the sandbox wrote: regular, never a link, at most ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        raise CompileFailed(f"nvcc wrote no {path.name} ({err.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise CompileFailed(f"{path.name} from the compile is not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise CompileFailed(f"{path.name} from the compile is over {limit >> 20} MiB")
    return data


def _clean(text: str) -> str:
    return bwrap.printable(text, 8000)
