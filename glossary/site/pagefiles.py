"""The build's page files: an entry's page with its front-matter, `mkdocs serve`'s page for an entry
that does not parse, and the manifest of the pages an earlier build wrote."""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

from glossary.entries.model import display_path

# Written into site/ by every build: the slugs whose pages it wrote, so the next build, a `--dirty` one
# included (MkDocs then keeps site/'s old files), removes the pages of entries it no longer shows.
MANIFEST = ".glossary-pages.json"
MAX_MANIFEST_BYTES = 1 << 22

def broken_page(slug: str, why: str) -> str:
    """`mkdocs serve`'s page for an entry whose file does not parse: the error, as code (so nothing in it
    is markup), where the entry's page would be."""
    quoted = "\n".join("        " + line for line in why.splitlines())  # code inside the admonition
    return (f"# {slug}: this entry does not parse\n\n"
            f"!!! failure \"Draft: not published. Fix the file; this page reloads when it parses\"\n\n"
            f"    Every other page is served as it was built.\n\n{quoted}\n")


def with_meta(markdown: str, meta: dict) -> str:
    """A rendered page with ``meta`` as its front-matter (JSON is YAML: every value quoted)."""
    if not meta:
        return markdown
    lines = "".join(f"{key}: {json.dumps(value, ensure_ascii=False)}\n" for key, value in meta.items())
    return f"---\n{lines}---\n{markdown}"


def read_manifest(site_dir: Path) -> set[str]:
    """The entry slugs an earlier build of ``site_dir`` wrote pages for (empty where it left no manifest)."""
    path = site_dir / MANIFEST
    try:
        if not path.is_file() or path.stat().st_size > MAX_MANIFEST_BYTES:
            return set()
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    listed = data.get("entries") if isinstance(data, dict) else None
    return {s for s in listed if isinstance(s, str)} if isinstance(listed, list) else set()


# An entry's slug, as a folder or page of the site; the site's own folders and files are never an entry's.
_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,199}$")
_SITE_OWN = frozenset({"assets", "tags", "search", "plots", "glossary.json", "sitemap.xml", "404.html"})


def prune(site_dir: Path, shown: set[str], entries: set[str], log: logging.Logger) -> list[str]:
    """Remove from ``site_dir`` the pages and files of every entry not in ``shown`` that an earlier
    build wrote (those in its manifest, and any of ``entries`` left out), then write the manifest of
    ``shown``.  Returns, in words, what could not be removed."""
    gone = (read_manifest(site_dir) | entries) - shown
    failed = []
    for slug in sorted(s for s in gone if _SLUG.match(s) and s not in _SITE_OWN):
        for target in (site_dir / slug, site_dir / f"{slug}.html"):
            try:
                if target.is_symlink() or target.is_file():
                    target.unlink()
                elif target.is_dir():
                    shutil.rmtree(target)
                else:
                    continue
            except OSError as err:
                failed.append(f"{display_path(target)} (entry {slug!r}, not shown by this build): "
                              f"{err.strerror or err}; remove it, or build without --dirty")
                continue
            log.info("removed %s: the entry %r is not shown by this build", display_path(target), slug)
    try:
        site_dir.mkdir(parents=True, exist_ok=True)
        (site_dir / MANIFEST).write_text(json.dumps({"format": 1, "entries": sorted(shown)}) + "\n", encoding="utf-8")
    except OSError as err:
        failed.append(f"{display_path(site_dir / MANIFEST)}: cannot write the list of this build's pages "
                      f"({err.strerror or err}), so a later --dirty build could not remove them")
    return failed
