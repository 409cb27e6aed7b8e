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
- a page's model (its assessment with the related entries it shows) and the figure lint are reused
  while the entry, its related entries and the assessment's context are;
- MkDocs' own work per page: a page's render from Markdown to HTML (``reuse_render``) is reused while
  its final Markdown, its place, the Markdown settings and every file's place are (and not at all
  where mkdocs.yml lists a Markdown extension that may read other files); Material's search entries of
  a page (``reuse_search``) while its HTML, table of contents and front-matter are; the sanitized HTML
  while the HTML is.  A rebuild writes byte for byte the site a fresh build of the same files writes;
- a generated file (plot, results file, kernel, glossary.json) counts as modified only where the last
  rebuild did not write these very bytes to its place (``unchanged``), so a `--dirty` rebuild writes again
  only what an edit changed; an entry's part of glossary.json is kept while its page model is; a
  `--dirty` rebuild's search index is the last one less the pages it indexed again (``_merged_search``);
- a note (a draft's reasons) is said once: a rebuild logs what changed, and one line saying how many
  entries changed; WARNINGs are logged by every build, so `--strict` still counts them (those MkDocs
  logged while it rendered a page it now reuses are logged again).

A plain `mkdocs build` has no memo and does all of it, as before.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

MAX_FILES = 20_000  # files stat'ed for one signature: past it the signature is "unknown" (no reuse)
MAX_PURE = 4_096  # outputs ``Memo.pure`` holds (a page each, about)


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


def content_signature(content: str | bytes) -> str:
    """A digest of a file's content, text as UTF-8."""
    return hashlib.sha256(content.encode("utf-8") if isinstance(content, str) else content).hexdigest()


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
    shared_keys: dict[Path, str] = field(default_factory=dict)           # this rebuild's key of the assets/ folder
    said: set[str] = field(default_factory=set)                          # what the last build logged
    saying: set[str] = field(default_factory=set)                        # what this build logs
    bytecode: Any = None                                                 # the theme's compiled templates
    render_context: str | None = None                                    # this rebuild's (site_changed)
    renders: dict[str, tuple[str, Any]] = field(default_factory=dict)    # src_uri -> (key, Rendered)
    searched: dict[str, tuple[str, list]] = field(default_factory=dict)  # url -> (key, search index entries)
    page_urls: set[str] = field(default_factory=set)                     # this rebuild's pages (site_changed)
    outputs: dict[tuple, Any] = field(default_factory=dict)                # pure(): (function, text digest) -> output
    written: dict[str, tuple[str, tuple[int, int]]] = field(default_factory=dict)  # generated file's place ->
    #   (digest of what was written there, its size and modification time after)
    builds: int = 0
    reused: int = 0                                                          # this rebuild's entries from the memo

    def start(self) -> None:
        """A rebuild begins."""
        self.builds += 1
        self.reused = 0
        self.entry_keys, self.shared_keys = {}, {}
        self.said, self.saying = self.saying, set()

    def rebuilt(self, total: int) -> str | None:
        """A rebuild's one line on what it did again (None for the first build)."""
        if self.builds <= 1:
            return None
        return (f"rebuilt: {total - self.reused} of {total} entr{'y' if total == 1 else 'ies'} changed; "
                "what the log said before holds for the rest")

    # -- entries ---------------------------------------------------------------------

    def parser(self, parse: Callable) -> Callable:
        """``parse`` (glossary.entries.model.parse_entry), reusing an unchanged entry's parse."""

        def cached(path: Path, entries_dir: Path, today: dt.date | None = None):
            shared = entries_dir / "assets"  # every entry's key holds it: signed once a rebuild
            if shared not in self.shared_keys:
                self.shared_keys[shared] = tree_signature(shared)
            key = tree_signature(path, entries_dir / path.stem) + self.shared_keys[shared] + str(today or dt.date.today())
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
        """``make()``, the entry's ``kind`` of work (its assessment, its page), reused while the entry and
        ``context`` (what else that work reads) are as they were."""
        entry_key = self.entry_keys.get(slug)
        return self.keyed(kind, slug, entry_key and entry_key + "\0" + context, make)

    def keyed(self, kind: str, slug: str, key: str | None, make: Callable[[], Any]) -> Any:
        """``make()``, the entry's ``kind`` of work, reused while ``key`` (a digest of all it reads) is as it
        was; a None key reuses nothing."""
        held = self.made.get((kind, slug))
        if key and held is not None and held[0] == key:
            return held[1]
        value = make()
        self.made[(kind, slug)] = (key, value)
        return value

    def results(self, folder: Path) -> dict:
        """``measure.store.load_results(folder)``, reused while the entry's results files are as they were
        (each file's size and modification time): a prose edit reads and validates none again.  The
        results are frozen; the dict is the caller's own."""
        from measure import store

        return dict(self.keyed("results", str(folder), tree_signature(store.results_dir(folder)),
                               lambda: store.load_results(folder)))

    def context_with(self, entries, *context: Any) -> str:
        """``context`` and ``entries`` as this rebuild has them: for work that reads other entries
        (an entry's page model reads its related entries)."""
        return data_signature([list(context), [(e.slug, self.entry_keys.get(e.slug, "")) for e in entries]])

    def pure(self, make: Callable[[str], Any], text: str) -> Any:
        """``make(text)`` for a pure ``make`` (the sanitizer), reused for the same text as long as the
        serve runs; at most ``MAX_PURE`` texts are held."""
        key = (make.__module__, make.__qualname__, hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
        if key not in self.outputs:
            if len(self.outputs) >= MAX_PURE:
                self.outputs.clear()
            self.outputs[key] = make(text)
        return self.outputs[key]

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

    # -- MkDocs' own per-page work ----------------------------------------------------

    def site_changed(self, config, files) -> None:
        """This rebuild's files are known: what every page's render depends on besides its own
        Markdown (the Markdown settings and every file's place), or None where a Markdown extension
        of the project's may read more than that (its pages are rendered every time)."""
        self.render_context = render_context(config, files)
        self.page_urls = page_urls(files)

    def reuse_render(self, page) -> None:
        """Make ``page``'s render (Markdown to HTML, MkDocs' ``Page.render``, which MkDocs calls right after
        the page's ``on_page_markdown``) reuse the last rebuild's while the page's final Markdown, its
        place and the render context are as they were; its WARNINGs are logged again, as MkDocs logged
        them.  This page object only: MkDocs makes new ones each rebuild."""
        context = self.render_context
        if context is None:
            return
        original, src = page.render, page.file.src_uri

        def render(config, files) -> None:
            key = data_signature([context, src, page.url, page.markdown])
            held = self.renders.get(src)
            if held is not None and held[0] == key:
                held[1].restore(page, files)
                return
            with _Warnings() as said:
                original(config, files)
            self.renders[src] = (key, Rendered.of(page, said.records))

        page.render = render

    def reuse_search(self, config) -> None:
        """Material's search plugin parses every page's HTML again each rebuild: its index entries of a
        page are reused while the page's HTML, place, table of contents and front-matter are as they were."""
        for plugin in config.plugins.values():
            index = getattr(plugin, "search_index", None)
            if type(index).__module__ != "material.plugins.search.plugin":
                continue
            add, entries, indexed = index.add_entry_from_context, index.entries, set()

            def cached(page, add=add, entries=entries, indexed=indexed) -> None:
                indexed.add(page.url)
                key = data_signature([page.url, page.title, page.content, page.meta, _toc(page.toc)])
                held = self.searched.get(page.url)
                if held is not None and held[0] == key:
                    entries.extend(dict(e) for e in held[1])
                    return
                start = len(entries)
                add(page)
                self.searched[page.url] = (key, [dict(e) for e in entries[start:]])

            index.add_entry_from_context = cached
            index.generate_search_index = functools.partial(self._merged_search, index, index.generate_search_index,
                                                            indexed)

    def _merged_search(self, index, generate: Callable, indexed: set[str], prev) -> str:
        """Material's search index of a `--dirty` rebuild, which indexes only the pages MkDocs built again:
        the last index (``prev``) less every page this rebuild indexed or no longer has, then this
        rebuild's entries.  (Material's own merge drops the last index's entries of the first page
        indexed alone, so a rebuild of several pages listed the others twice, and one that began with
        the home page, whose location '' begins every other, dropped every other page.)"""
        if prev is not None and self.builds > 1:  # a serve's first build merges with none of another's
            kept = [e for e in prev.entries if e["location"].split("#", 1)[0] in self.page_urls - indexed]
            index.entries = kept + index.entries
        return generate(None)

    # -- the files a rebuild writes ---------------------------------------------------

    def unchanged(self, dest: str, digest: str) -> bool:
        """Whether the file at ``dest`` holds the content of ``digest`` as the last rebuild wrote it there,
        untouched since (its size and modification time as they were): a `--dirty` rebuild need not write
        it again."""
        held = self.written.get(dest)
        if held is None or held[0] != digest:
            return False
        try:
            st = os.stat(dest)
        except OSError:
            return False
        return held[1] == (st.st_size, st.st_mtime_ns)

    def wrote(self, dest: str, digest: str) -> None:
        """This rebuild wrote the content of ``digest`` to ``dest`` (or found it there, ``unchanged``)."""
        try:
            st = os.stat(dest)
        except OSError:
            self.written.pop(dest, None)
            return
        self.written[dest] = (digest, (st.st_size, st.st_mtime_ns))

    # -- the log ---------------------------------------------------------------------

    def fresh(self, line: str) -> bool:
        """Whether ``line`` is to be logged: the first build logs everything, a rebuild what the build
        before it did not say (a warning that went away and came back is said again)."""
        self.saying.add(line)
        return self.builds <= 1 or line not in self.said




# Python-Markdown's and PyMdown's extensions whose HTML is a function of the page's Markdown, its place
# and the site's files alone, and the glossary's own.  A project's mkdocs.yml may list others (snippets
# and b64 read files the key does not see): then no page's render is reused.
PURE_EXTENSIONS = frozenset({
    "abbr", "admonition", "attr_list", "def_list", "fenced_code", "footnotes", "md_in_html", "tables", "toc",
    "sane_lists", "smarty", "nl2br", "wikilinks", "meta", "legacy_attrs", "legacy_em", "codehilite", "extra",
    *(f"markdown.extensions.{n}" for n in ("abbr", "admonition", "attr_list", "def_list", "fenced_code", "footnotes",
                                           "md_in_html", "tables", "toc", "sane_lists", "smarty", "nl2br",
                                           "codehilite", "extra", "meta")),
    *(f"pymdownx.{n}" for n in ("arithmatex", "betterem", "blocks.admonition", "blocks.details", "blocks.tab",
                                "blocks.html", "blocks.definition", "caret", "critic", "details", "emoji",
                                "escapeall", "highlight", "inlinehilite", "keys", "mark", "saneheaders",
                                "smartsymbols", "superfences", "tabbed", "tasklist", "tilde", "fancylists",
                                "progressbar", "striphtml")),
    "glossary.site.tooltip_html", "glossary.site.headings", "glossary.site.tooltips",
})


def render_context(config, files) -> str | None:
    """What a page's render reads besides its Markdown and place: the Markdown settings and every file's
    source path and URL; None where an extension is not known to read nothing else."""
    names = []
    for extension in config["markdown_extensions"]:
        name = extension if isinstance(extension, str) else type(extension).__module__
        if name not in PURE_EXTENSIONS:
            return None
        names.append(extension if isinstance(extension, str) else
                     [name, type(extension).__qualname__, repr(sorted(extension.getConfigs().items()))])
    places = sorted((f.src_uri, f.url) for f in files)
    return data_signature([names, config["mdx_configs"], config["use_directory_urls"],
                           repr(config.get("validation")), places])


def page_urls(files) -> set[str]:
    """The URLs of the site's pages as the search index writes their locations: MkDocs' ``Page.url``,
    which is '' for the home page, where the file's URL is './' (or '.')."""
    return {"" if f.url in (".", "./") else f.url for f in files.documentation_pages()}


def _toc(toc) -> list:
    return [[item.id, item.title, item.level, _toc(item.children)] for item in toc]


class _Warnings(logging.Handler):
    """The WARNINGs MkDocs logs while it renders one page (a link to no page, an anchor not found)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> "_Warnings":
        logging.getLogger("mkdocs").addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("mkdocs").removeHandler(self)


@dataclass
class Rendered:
    """What MkDocs' ``Page.render`` leaves on a page, and what it logged."""

    content: str
    toc: Any
    title: str | None
    anchors: set[str] | None
    links: dict[str, dict[str, str]] | None  # linked file's src_uri -> {anchor: link}
    said: list[logging.LogRecord]

    @classmethod
    def of(cls, page, said: list[logging.LogRecord]) -> "Rendered":
        links = getattr(page, "links_to_anchors", None)
        return cls(page.content, page.toc, getattr(page, "_title_from_render", None),
                   set(page.present_anchor_ids) if page.present_anchor_ids is not None else None,
                   None if links is None else {f.src_uri: dict(v) for f, v in links.items()}, said)

    def restore(self, page, files) -> None:
        page.content, page.toc, page._title_from_render = self.content, self.toc, self.title
        page.present_anchor_ids = None if self.anchors is None else set(self.anchors)
        if self.links is not None:
            page.links_to_anchors = {files.get_file_from_path(src): dict(v) for src, v in self.links.items()}
        for record in self.said:
            logging.getLogger(record.name).handle(record)
