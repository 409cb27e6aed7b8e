"""The render stage: what is published, written into a folder of its own that builders read.

Raw entries are never in a builder's ``docs_dir``.  ``render_to`` writes the gated site into a
generated folder: each shown entry's page with its figures, Measured section and tooltips already
rendered, the home and tag pages, the allowlisted files (kernels, results written anew, plots,
images, the site's stylesheet).  ``mkdocs build`` (through the hook) and any builder that only
reads ``mkdocs.yml`` (Zensical) build from that folder, so a builder that runs none of the
glossary's code finds only what the last gated render wrote, or nothing.  A preview renders into
another folder, so a later plain build can never pick up a draft.

The folder carries a manifest (``MANIFEST``) binding it to the sources it was rendered from: the
digest of every entry file, result, trust list, lesson file and template, and the code's version.
``stale_render`` says what changed since.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

MANIFEST = ".glossary-render.json"
KEEP = ".gitignore"  # build/docs/.gitignore: keeps the folder in a fresh clone, its contents out of git
FORMAT = 1
MAX_MANIFEST_BYTES = 16 << 20
MAX_SOURCE_FILES = 100_000


class RenderError(RuntimeError):
    """The render stage cannot write where it was told; the message says why."""


@dataclass(frozen=True)
class Rendered:
    folder: Path
    written: int      # files whose bytes changed
    kept: int         # files left as they were
    removed: int      # files of an earlier render that this one does not publish
    mode: str         # "publish" or "preview"


def code_version() -> str:
    """The version of the code that renders: the package's and the harness's."""
    from importlib import metadata

    from measure import HARNESS_VERSION
    try:
        package = metadata.version("verified-cuda-glossary")
    except metadata.PackageNotFoundError:
        package = "source"
    return f"glossary {package}, harness {HARNESS_VERSION}"


def check_folder(out_dir: Path, entries_dir: Path) -> None:
    """A render folder may be neither the entries folder nor inside it, nor hold it."""
    out, src = out_dir.resolve(), entries_dir.resolve()
    if out == src or src in out.parents or out in src.parents:
        raise RenderError(f"the render folder {out_dir} and the entries folder {entries_dir} overlap: "
                          f"set mkdocs.yml's docs_dir to a generated folder of its own (build/docs), and "
                          f"extra.glossary.entries to the entries")


def render_to(out_dir: Path, files: dict[str, str | bytes], sources: dict[str, str], mode: str) -> Rendered:
    """Make ``out_dir`` hold exactly ``files`` (docs-relative path -> content) and the manifest.

    Only files whose bytes change are written (so `mkdocs serve`, which watches the folder, is
    not woken by a render that changed nothing); files of an earlier render that are not in
    ``files`` are removed; links are never followed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    root = out_dir.resolve()
    written = kept = removed = 0
    for rel, content in sorted(files.items()):
        target = _inside(root, rel)
        data = content.encode("utf-8") if isinstance(content, str) else content
        if target.is_symlink() or target.is_dir():
            _remove(target)
        elif target.is_file() and target.stat().st_size == len(data) and target.read_bytes() == data:
            kept += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        written += 1
    wanted = set(files) | {MANIFEST, KEEP}
    for path in sorted(_walk(root), reverse=True):
        rel = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
            continue
        if rel not in wanted:
            _remove(path)
            removed += 1
    manifest = {"format": FORMAT, "mode": mode, "code": code_version(), "sources": sources,
                "files": {rel: _digest(c.encode("utf-8") if isinstance(c, str) else c) for rel, c in sorted(files.items())}}
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return Rendered(out_dir, written, kept, removed, mode)


def source_digests(config_dir: Path, folders: Iterable[Path], files: Iterable[Path]) -> dict[str, str]:
    """Path (relative to ``config_dir`` where it can be) -> SHA-256 of every regular file under
    ``folders`` and of each of ``files`` that exists: what a render is bound to."""
    out: dict[str, str] = {}
    seen = 0
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(_walk(folder.resolve())):
            if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts \
                    and path.name != ".lock":
                seen += 1
                if seen > MAX_SOURCE_FILES:
                    raise RenderError(f"more than {MAX_SOURCE_FILES:,} files under {folder}")
                out[_shown(path, config_dir)] = _digest(path.read_bytes())
    for path in files:
        if path.is_file():
            out[_shown(path.resolve(), config_dir)] = _digest(path.read_bytes())
    return out


def sources_of(settings) -> dict[str, str]:
    """The sources a render of the project with these ``glossary.settings.Settings`` reads: the
    entries folder (entries, kernels, results, images), the templates, the trust lists, the
    lesson file and mkdocs.yml."""
    root = settings.trust_root
    folders = [settings.entries_dir, settings.templates_dir, root / "trust"]
    files = [f for f in (settings.lessons_file, root / "mkdocs.yml") if f is not None]
    return source_digests(root, folders, files)


def stale_render(out_dir: Path, sources: dict[str, str], mode: str = "publish") -> list[str]:
    """What changed since ``out_dir`` was rendered, in words ([] where it is current)."""
    path = out_dir / MANIFEST
    try:
        if not path.is_file():
            return [f"{out_dir} holds no render (run `glossary render`)"]
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            return [f"{path} is too large to be a render's manifest"]
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return [f"{path} cannot be read ({err}); run `glossary render`"]
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("sources"), dict):
        return [f"{path} is not a manifest this code writes; run `glossary render`"]
    problems = []
    if data.get("code") != code_version():
        problems.append(f"it was rendered by {data.get('code')!r}, this is {code_version()!r}")
    if data.get("mode") != mode:
        problems.append(f"it is a {data.get('mode')} render, not a {mode} one")
    old = data["sources"]
    changed = sorted(k for k in set(old) | set(sources) if old.get(k) != sources.get(k))
    if changed:
        shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
        problems.append(f"{len(changed)} source file(s) changed since: {shown}")
    return problems


def _inside(root: Path, rel: str) -> Path:
    target = (root / rel)
    if ".." in Path(rel).parts or Path(rel).is_absolute() or root not in target.resolve().parents:
        raise RenderError(f"the render would write {rel!r} outside {root}")
    return target


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _walk(root: Path) -> list[Path]:
    """Every path under ``root``, never entering a linked folder."""
    out, todo = [], [root]
    while todo:
        folder = todo.pop()
        try:
            children = list(os.scandir(folder))
        except OSError:
            continue
        for child in children:
            path = Path(child.path)
            out.append(path)
            if child.is_dir(follow_symlinks=False):
                todo.append(path)
    return out


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
