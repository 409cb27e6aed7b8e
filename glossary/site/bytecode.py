"""Compiled Jinja templates kept between builds, in the user's cache (issue 34).

MkDocs makes the theme's Jinja environment anew for every build and every `serve` rebuild, and
compiling Material's templates (about forty of them) was most of a small site's build: 3.3 of 4.3
profiled seconds for a one-entry fixture.  Jinja's own ``FileSystemBytecodeCache`` keeps each
template's code under its name and file, and uses it again only for the same source (its checksum)
and the same Python.  The folder is named by the environment's kind and Jinja's version, so code
compiled by one environment or release is never loaded by another.

The cache lives in the user's cache (``$XDG_CACHE_HOME/glossary/templates``), never in the project:
compiled code in the repository could be committed by the author of a pull request, and every
build would then run it.  Where the folder cannot be made, nothing is cached.
"""

from __future__ import annotations

import jinja2

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
