"""The build's page files: an entry's page with its front-matter, `mkdocs serve`'s page for an entry
that does not parse, and the manifest of the pages an earlier build wrote."""

from __future__ import annotations

import json
from pathlib import Path

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
