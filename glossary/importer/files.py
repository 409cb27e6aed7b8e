"""The imported folder's files, touched safely: only regular files are opened, links are resolved
inside the folder or refused, and the walk is iterative and bounded.

A source folder is hostile input.  A FIFO named ``x.md`` blocks the reader that opens it, a
character device (``/dev/zero``) never ends, a symbolic link may loop or lead out of the folder,
folders may nest thousands deep and a file name need not be UTF-8.  Everything here turns those
into an ``Unreadable`` with a sentence that follows the path ("is a FIFO (named pipe), not a
regular file"), so the caller reports it and goes on; no call here blocks or recurses.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

# Sections nest one or two folders deep; past this depth a folder is not read (and is reported).
MAX_DEPTH = 32
# Every folder, file and link the walk meets counts; past it the walk stops (and says so).
MAX_WALKED = 100_000
# Never follow a link at open time; never block on a FIFO (or a device) that slips past the lstat.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


class Unreadable(Exception):
    """A file that is not read; ``message`` is a fact that follows its path ("is a FIFO (named pipe),
    not a regular file"); the caller says what it did instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Missing(Unreadable):
    """There is no file at the path."""


class Outside(Unreadable):
    """The path (through its links) leads out of the imported folder."""


class TooLarge(Unreadable):
    """The file holds more than the caller's limit; ``size`` is what it holds (at least)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"holds {size:,} bytes")
        self.size = size


def printable(text: str) -> str:
    """``text`` (a path or a sentence naming one) safe to print and to write as UTF-8: a byte of a
    file name that is not UTF-8 (decoded with surrogateescape) becomes ``\\xNN``, a control
    character its escape (``\\n``, ``\\x1b``)."""
    if text.isprintable():
        return text
    out = []
    for c in text:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif c.isprintable() and not 0xD800 <= o <= 0xDFFF:
            out.append(c)
        else:
            out.append(repr(c)[1:-1])
    return "".join(out)


def is_utf8(name: str) -> bool:
    """Whether the file name (as os decodes it, with surrogateescape) was UTF-8 text."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def kind(mode: int) -> str:
    """What a file of st_mode ``mode`` is, as a noun phrase."""
    for test, what in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def _not_regular(mode: int) -> Unreadable:
    return Unreadable(f"is {kind(mode)}, not a regular file")


def _no_nul(path: Path) -> None:
    if "\x00" in str(path):  # os calls raise ValueError on it; no file can be named so
        raise Missing("holds a NUL character, which no file name can")


def inside(path: Path, root: Path) -> Path:
    """``path`` with every symbolic link resolved, where it stays inside ``root`` (itself resolved).
    Raises Missing where nothing is there (or a link dangles), Outside where it leads out of
    ``root``, Unreadable where a link loops."""
    _no_nul(path)
    try:
        real = Path(os.path.realpath(path, strict=True))
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise Unreadable("is a symbolic link in a loop (following it leads back to itself)") from None
        if err.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise Unreadable(f"cannot be read: {err.strerror or err}") from None
        loose = Path(os.path.realpath(path))
        if loose != root and root not in loose.parents:
            raise Outside(f"leads to {printable(str(loose))}, outside {printable(str(root))}") from None
        raise Missing("is missing") from None
    if real != root and root not in real.parents:
        raise Outside(f"leads to {printable(str(real))}, outside {printable(str(root))}")
    return real


def read_regular(path: Path, limit: int, head: bool = False) -> bytes:
    """The bytes of the regular file at ``path``: at most ``limit`` of them (``head``: its first
    ``limit``; otherwise a larger file raises TooLarge).  Anything else raises Unreadable.

    lstat first, so nothing but a regular file is ever opened (a FIFO blocks its reader, a device
    may never end or act on open); then open without following a link and without blocking, and
    fstat the open file, so a file swapped for a link, a FIFO or a device in between is refused too."""
    _no_nul(path)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(st.st_mode)
        if st.st_size > limit and not head:
            raise TooLarge(st.st_size)
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise Missing("is missing") from None
    except OSError as err:
        if err.errno == errno.ELOOP:  # O_NOFOLLOW: it became a link after the lstat
            raise Unreadable("became a symbolic link while it was read") from None
        raise Unreadable(f"cannot be read: {err.strerror or err}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(st.st_mode)
        chunks, got = [], 0
        while got <= limit:  # one byte past the limit tells a file that grew since the lstat
            chunk = os.read(fd, min(_CHUNK, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as err:
        raise Unreadable(f"cannot be read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if not head:
            raise TooLarge(len(data))
        data = data[:limit]
    return data


def lkind(path: Path) -> str | None:
    """What is at ``path`` itself (a link is not followed): None where nothing is there."""
    if "\x00" in str(path):
        return None
    try:
        return kind(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"unreachable ({err.strerror or err})"


def real_folder(path: Path, root: Path) -> str | None:
    """Why files cannot be written into ``path`` below ``root`` (a part of it is a link, a FIFO,
    ...: writing there would land elsewhere), or None where each part is a folder or not there yet."""
    here = root
    for part in path.relative_to(root).parts:
        here = here / part
        what = lkind(here)
        if what is None:
            return None
        if what != "a folder":
            return f"{here} is {what}, not a folder"
    return None


@dataclass
class Walk:
    """What a walk found: term files (path, '/'-separated relative path) in path order, and
    sentences about what it did not read: each ``(severity, message)``."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)


def walk(src: Path, wanted: tuple[str, ...]) -> Walk:
    """Every file under ``src`` whose name ends in one of ``wanted`` (any case), in the order a
    top-down walk with sorted names meets them; names starting with '.' are skipped.

    Iterative (no recursion limit), never into a linked folder (a link is listed as a file where
    its name is wanted, for the reader to resolve), never into a folder seen before (its
    (st_dev, st_ino): a bind mount), never deeper than MAX_DEPTH folders, and never past
    MAX_WALKED names.  A wanted name that is not a regular file is listed too, so its reader
    reports it; other FIFOs, devices and sockets are noted and never opened."""
    out = Walk()
    max_depth, max_walked = MAX_DEPTH, MAX_WALKED
    try:
        top = os.stat(src)
    except OSError as err:
        out.notes.append(("error", f"{printable(str(src))} cannot be read: {err.strerror or err}"))
        return out
    seen = {(top.st_dev, top.st_ino)}
    too_deep: list[str] = []
    walked = 0
    stack: list[tuple[Path, tuple[str, ...]]] = [(src, ())]
    while stack:
        folder, parts = stack.pop()
        where = "/".join(parts)
        listed, full = [], False
        try:
            with os.scandir(folder) as it:
                for entry in it:  # every name counts, hidden ones too: listing is the work
                    walked += 1
                    if walked > max_walked:
                        full = True
                        break
                    if not entry.name.startswith("."):
                        listed.append(entry)
        except OSError as err:
            out.notes.append(("error", f"{printable(where or str(src))}/ cannot be read ({err.strerror or err}); "
                                       f"its files were not imported"))
            continue
        if full:
            out.notes.append(("error", f"the folder holds more than {max_walked:,} files and folders; the rest "
                                       f"were not read: import it section by section"))
            return out
        folders = []
        for entry in sorted(listed, key=lambda e: e.name):
            rel = f"{where}/{entry.name}" if where else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as err:
                out.notes.append(("info", f"{printable(rel)} cannot be read: {err.strerror or err}"))
                continue
            if stat.S_ISDIR(st.st_mode):
                if (st.st_dev, st.st_ino) in seen:
                    out.notes.append(("info", f"{printable(rel)}/ is a folder already read (a bind mount); it "
                                              f"is not read twice"))
                elif len(parts) + 1 > max_depth:
                    too_deep.append(rel)
                else:
                    seen.add((st.st_dev, st.st_ino))
                    folders.append((Path(entry.path), parts + (entry.name,)))
                continue
            if entry.name.lower().endswith(wanted):
                out.files.append((Path(entry.path), rel))
            elif stat.S_ISLNK(st.st_mode):
                _note_link(Path(entry.path), rel, out)
            elif not stat.S_ISREG(st.st_mode):
                out.notes.append(("info", f"{printable(rel)} is {kind(st.st_mode)}; it is not read"))
        stack.extend(reversed(folders))
    if too_deep:
        shown = ", ".join(f"{printable(r)}/" for r in too_deep[:3])
        more = f" and {len(too_deep) - 3:,} more" if len(too_deep) > 3 else ""
        out.notes.append(("error", f"{len(too_deep):,} folder(s) lie more than {max_depth} folders deep and were "
                                   f"not read ({shown}{more}): import a deep section on its own, or move it up"))
    return out


def _note_link(path: Path, rel: str, out: Walk) -> None:
    """A link that is not a term: a linked folder is never entered, a loop is reported; a link to
    a file is left for the image resolver, which resolves it inside the folder or refuses it."""
    try:
        target = Path(os.path.realpath(path, strict=True))
    except OSError as err:
        if err.errno == errno.ELOOP:
            out.notes.append(("info", f"{printable(rel)} is a symbolic link in a loop; it is not followed"))
        return
    if target.is_dir():
        out.notes.append(("info", f"{printable(rel)}/ is a symbolic link to a folder; it is not followed"))
