"""What `mkdocs serve` keeps between rebuilds: per-entry work, keyed by what it was made from (issue 34).

MkDocs rebuilds the whole site on every edit, and the hook's build used to parse every entry, load
and verify every result and review, render every page and log every draft again.  Under `serve` the
hook hands one ``Memo`` to each rebuild, and the build asks it first:

- a parsed entry is reused while the entry's file, every file under its folder (kernels, headers,
  reference, results) and the shared ``assets/`` folder are as they were (size and modification time
  of each; the file itself by content);
- an entry's assessment (results loaded, signatures verified, gate judged) is reused while the entry,
  the trust files, the lesson catalogue and the date are;
- a rendered page is reused while its entry, the site's index (every entry's front-matter and verdict:
  what related lists, lessons, tooltips and drafts show of other entries) and the templates are;
- a note (a draft's reasons) is said once: a rebuild logs what changed, and one line saying how many
  entries changed; WARNINGs are logged by every build, so `--strict` still counts them.

A plain `mkdocs build` has no memo and does all of it, as before.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

MAX_FILES = 20_000  # files stat'ed for one signature: past it the signature is "unknown" (no reuse)


def tree_signature(*roots: Path) -> str:
    """A digest of every file under ``roots`` (path, size, modification time), bounded; a root that is a
    file counts by content."""
    digest = hashlib.sha256()
    count = 0
    for root in roots:
        digest.update(b"\0root\0" + str(root).encode("utf-8", "surrogateescape"))
        if root.is_file() and not root.is_symlink():
            try:
                digest.update(hashlib.sha256(root.read_bytes()).digest())
            except OSError:
                digest.update(b"unreadable")
            continue
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in sorted(files):
                count += 1
                if count > MAX_FILES:
                    return "unknown-" + os.urandom(8).hex()
                path = os.path.join(folder, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                digest.update(f"\0{path}\0{st.st_size}\0{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def data_signature(value: Any) -> str:
    """A digest of plain data (front-matter, verdicts)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()


@dataclass
class Memo:
    """Per-entry work kept between the rebuilds of one `mkdocs serve` process."""

    entries: dict[Path, tuple[str, Any]] = field(default_factory=dict)   # path -> (key, Entry)
    made: dict[tuple[str, str], tuple[str, Any]] = field(default_factory=dict)  # (kind, slug) -> (key, value)
    envs: dict[str, Any] = field(default_factory=dict)                   # templates' signature -> environment
    entry_keys: dict[str, str] = field(default_factory=dict)             # slug -> this rebuild's entry key
    said: set[str] = field(default_factory=set)                          # what the last build logged
    saying: set[str] = field(default_factory=set)                        # what this build logs
    bytecode: Any = None                                                 # the theme's compiled templates
    builds: int = 0
    reused: int = 0                                                          # this rebuild's entries from the memo

    def start(self) -> None:
        """A rebuild begins."""
        self.builds += 1
        self.reused = 0
        self.entry_keys = {}
        self.said, self.saying = self.saying, set()

    # -- entries ---------------------------------------------------------------------

    def parser(self, parse: Callable) -> Callable:
        """``parse`` (glossary.entries.model.parse_entry), reusing an unchanged entry's parse."""

        def cached(path: Path, entries_dir: Path, today: dt.date | None = None):
            key = tree_signature(path, entries_dir / path.stem, entries_dir / "assets") + str(today or dt.date.today())
            held = self.entries.get(path)
            if held is not None and held[0] == key:
                self.reused += 1
            else:
                held = (key, parse(path, entries_dir, today))
                self.entries[path] = held
            self.entry_keys[path.stem] = key
            return held[1]

        return cached

    def keep(self, kind: str, slug: str, context: str, make: Callable[[], Any]) -> Any:
        """``make()``, the entry's ``kind`` of work (its assessment, its page, its result files), reused
        while the entry and ``context`` (what else that work reads) are as they were."""
        entry_key = self.entry_keys.get(slug)
        key = (entry_key or "") + "\0" + context
        held = self.made.get((kind, slug))
        if entry_key and held is not None and held[0] == key:
            return held[1]
        value = make()
        self.made[(kind, slug)] = (key, value)
        return value

    def env(self, templates: Path, make: Callable[[], Any]) -> Any:
        """The template environment of ``templates``, made once while the folder is as it was (Jinja
        compiles each template once per environment; Material's are MkDocs' own)."""
        key = tree_signature(templates)
        if key not in self.envs:
            self.envs = {key: make()}
        return self.envs[key]

    def theme_bytecode(self) -> Any:
        """A Jinja bytecode cache for the theme's environment, which MkDocs makes anew for every
        rebuild: Material's templates are compiled once per `serve`, not once per edit."""
        if self.bytecode is None:
            from glossary.site import bytecode

            self.bytecode = bytecode.in_memory()
        return self.bytecode

    # -- the log ---------------------------------------------------------------------

    def fresh(self, line: str) -> bool:
        """Whether ``line`` is to be logged: the first build logs everything, a rebuild what the build
        before it did not say (a warning that went away and came back is said again)."""
        self.saying.add(line)
        return self.builds <= 1 or line not in self.said


