"""Every entry file a kernel source can make the compiler read, found from its text alone.

The measurement and review fingerprints hash the files an entry names and every file of the
entry's folder those include, so a header edited after review changes both.  The scan is of
text, never a compile (the build has no nvcc, and entry code is not run outside the sandbox); on
the node the sandboxed compile's own dependency list must agree with it.  A computed include
(``#include MACRO``), an absolute path, or a path that leaves the entry's folder is refused here,
with the file and line, before anything is compiled.
"""

from __future__ import annotations

import re
from pathlib import Path

DIRECTIVE = re.compile(r'^[ \t]*(?:#|%:)[ \t]*(include|include_next|import)\b[ \t]*(.*)$', re.MULTILINE)
MAX_FILES = 64
MAX_BYTES = 1 << 20


class IncludeError(ValueError):
    """An include the fingerprints could not follow; ``file`` and ``line`` say where."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}, line {line}: {message}")
        self.file, self.line, self.message = file, line, message


def included_files(folder: Path, sources: list[str]) -> dict[str, bytes]:
    """The entry files (relative to ``folder``, the entry's folder) that ``sources`` include,
    directly or through each other, with their bytes; the sources themselves are not in it."""
    folder = folder.resolve()
    found: dict[str, bytes] = {}
    todo = [(rel, (folder / rel).read_bytes()) for rel in sources]
    seen = set(sources)
    while todo:
        rel, data = todo.pop()
        for target, line in _directives(rel, data):
            inc = _resolve(folder, rel, target, line)
            if inc is None or inc in seen:
                continue
            seen.add(inc)
            path = folder / inc
            if path.stat().st_size > MAX_BYTES:
                raise IncludeError(rel, line, f"{inc} is over {MAX_BYTES >> 20} MiB")
            if len(found) >= MAX_FILES:
                raise IncludeError(rel, line, f"the sources include more than {MAX_FILES} files of the entry")
            found[inc] = path.read_bytes()
            todo.append((inc, found[inc]))
    return found


def _directives(rel: str, data: bytes) -> list[tuple[str, int]]:
    text = data.decode("utf-8", "replace").replace("\\\r\n", "").replace("\\\n", "")
    out = []
    for match in DIRECTIVE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        rest = re.sub(r"/\*.*?\*/", " ", match.group(2)).split("//")[0].strip()
        quoted = re.match(r'"([^"\n]*)"|<([^>\n]*)>', rest)
        if quoted is None:
            raise IncludeError(rel, line, f"#{match.group(1)} {rest[:60]!r} names no file literally: write "
                                          f"#include \"file\" or <file>, so every file the compiler reads is known")
        out.append((quoted.group(1) if quoted.group(1) is not None else "<" + quoted.group(2), line))
    return out


def _resolve(folder: Path, rel: str, target: str, line: int) -> str | None:
    """The entry file ``target`` names (relative to ``folder``), None for a toolkit or system header."""
    angled = target.startswith("<")
    name = target[1:] if angled else target
    if name.startswith("/") or "\\" in name:
        raise IncludeError(rel, line, f"#include of {name}: an entry's kernels may include only files in the "
                                      f"entry's folder (by a relative path) and the CUDA toolkit's headers")
    bases = [(folder / rel).parent, folder] if not angled else [folder]
    for base in bases:
        candidate = (base / name).resolve()
        if candidate != folder and folder not in candidate.parents:
            if angled and ".." not in Path(name).parts:
                continue  # <cuda_fp16.h>: the toolkit's
            raise IncludeError(rel, line, f"#include of {name} leaves the entry's folder")
        if candidate.is_file():
            return candidate.relative_to(folder).as_posix()
    return None
