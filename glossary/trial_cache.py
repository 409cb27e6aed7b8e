"""Which entries' code `glossary check` already ran cleanly, as they are now (issue 34).

Running an entry's reference and compiling its kernels in the sandbox (``glossary.trial``) takes
seconds; a check run again on an unchanged entry (pre-commit, an editor) need not repeat it. A
clean trial leaves an empty marker file named by a digest of everything the trial depends on:
the entry's whole spec and the files it names (kernels, headers, reference), the harness version,
the trial's and the sandbox's own code, and which nvcc and bubblewrap are here. A change to any of
them names another marker, so the code runs again. Only a clean pass is remembered: a failure,
a warning or a timeout is tried afresh every time. This module is light on purpose: a check that
finds its marker imports neither NumPy nor the harness.

The markers live in the user's cache (``$XDG_CACHE_HOME/glossary/trials``), never in the project:
a marker in the repository could be committed (``git add -f``) by the author of a pull request,
and a clean clone (CI) would then skip running that entry's code.  Where caching is off (no
``cache_dir``), nothing is remembered.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from glossary.entries.model import Entry

FORMAT = 1
_PACKAGE = Path(__file__).resolve().parent
# The code a trial runs on this side of the sandbox: a change to any of it runs every trial again.
_CODE = [_PACKAGE / "trial.py", _PACKAGE / "trial_compiles.py", _PACKAGE / "trial_start.py", _PACKAGE / "sass_trial.py",
         *sorted((_PACKAGE.parent / "measure" / "sandbox").glob("*.py")),
         *(_PACKAGE.parent / "measure" / "harness" / name for name in ("check.py", "compile.py", "workspace.py"))]


def user_dir() -> Path:
    """Where markers are kept: the user's cache, outside every repository (see the module's doc)."""
    from measure import tools

    return tools.user_cache()


def marker(cache_dir: Path | None, entry: Entry, compile_kernels: bool = True) -> Path | None:
    """The marker file a clean trial of ``entry`` leaves under ``cache_dir`` (None: no cache, or
    nothing to try).  The check passes ``user_dir()``, never the project's cache."""
    if cache_dir is None or entry.meta.measure is None:
        return None
    from measure import HARNESS_VERSION
    from measure.spec.canonical import canonical

    digest = hashlib.sha256()
    head = {"format": FORMAT, "harness": HARNESS_VERSION, "compile": compile_kernels,
            "spec": canonical(entry.meta.measure), "tools": [_tool(_nvcc()), _tool(shutil.which("bwrap"))]}
    digest.update(json.dumps(head, sort_keys=True, default=str).encode("utf-8"))
    for name, data in sorted(entry.kernel_files.items()):
        digest.update(b"\0file\0" + name.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
    for path in _CODE:
        try:
            digest.update(b"\0code\0" + path.read_bytes())
        except OSError:
            digest.update(b"\0code missing\0" + str(path).encode("utf-8"))
    return cache_dir / "trials" / f"{entry.slug}-{digest.hexdigest()[:32]}.ok"


def passed(path: Path | None) -> bool:
    """Whether a clean trial left this marker."""
    return path is not None and path.is_file()


def remember(path: Path | None) -> None:
    """Leave the marker of a clean trial; a cache that cannot be written is no error (the trial just runs
    again next time)."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob(f"{path.name.rsplit('-', 1)[0]}-*.ok"):  # the entry's earlier states
            if old != path and old.name.rsplit("-", 1)[0] == path.name.rsplit("-", 1)[0]:
                old.unlink(missing_ok=True)
        path.touch()
    except OSError:
        pass


def _nvcc() -> str | None:
    """The nvcc the trial would use (without importing the harness or the sandbox)."""
    from measure import tools

    return tools.find_nvcc()


def _tool(found: str | None) -> list:
    """A tool as the trial would find it, with its size and date: another nvcc is another trial."""
    try:
        stat = os.stat(found) if found else None
    except OSError:
        stat = None
    return [found, stat.st_size if stat else None, stat.st_mtime_ns if stat else None]
