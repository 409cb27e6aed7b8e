"""Compiled Jinja templates kept between builds, in the user's cache (issue 34).

MkDocs makes the theme's Jinja environment anew for every build and every `serve` rebuild, and
compiling Material's templates (about forty of them) was most of a small site's build: 3.3 of 4.3
profiled seconds for a one-entry fixture.  Jinja's own ``FileSystemBytecodeCache`` keeps each
template's code under its name and file, and uses it again only for the same source (its checksum)
and the same Python.  The folder is named by the environment's kind and Jinja's version, so code
compiled by one environment or release is never loaded by another.

Under `mkdocs serve` the code is kept in memory instead (``in_memory``, held by ``glossary.memo``).

The cache lives in the user's cache (``$XDG_CACHE_HOME/glossary/templates``), never in the project:
compiled code in the repository could be committed by the author of a pull request, and every
build would then run it.  Where the folder cannot be made, nothing is cached.
"""

from __future__ import annotations

from typing import Any

import jinja2
import jinja2.bccache

from measure.tools import user_cache


def cache_for(kind: str) -> jinja2.BytecodeCache | None:
    """The bytecode cache of one kind of environment ("theme": MkDocs' own), or None where the
    user's cache folder cannot be written."""
    folder = user_cache() / "templates" / f"{kind}-jinja-{jinja2.__version__}"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))


def in_memory() -> jinja2.BytecodeCache:
    """A bytecode cache held in this process (one `serve`'s rebuilds)."""
    return _InMemory()


class _InMemory(jinja2.BytecodeCache):
    """Jinja's ``BytecodeCache`` in memory: a template's code is kept under its name and file, and used
    again only for the same source (Jinja's checksum of it)."""

    def __init__(self) -> None:
        self.code: dict[str, tuple[str, Any]] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        held = self.code.get(bucket.key)
        if held is not None and held[0] == bucket.checksum:
            bucket.code = held[1]

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = (bucket.checksum, bucket.code)
