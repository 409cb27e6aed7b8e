"""Tags: one generated page per tag of the shown entries, and a page listing the tags.

Tag pages are generated, never written into ``entries/``, from the entries the
build shows; a tag that only refused entries carry gets no page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import functools
import re

from jinja2.sandbox import SandboxedEnvironment


if TYPE_CHECKING:  # the page model imports this module; its type is for reading only
    from glossary.site.page import PageModel

TAGS_DIR = "tags"
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=4096)
def tag_slug(tag: str) -> str:
    """'Memory bound' -> 'memory-bound' (asked for each tag of each entry by the index, the tag pages and
    every entry's page: a site of 1,000 entries asked 10,000 times, issue 34)."""
    return _NOT_SLUG.sub("-", tag.casefold()).strip("-") or "tag"


def tag_path(tag: str) -> str:
    """Docs-relative path of a tag's page."""
    return f"{TAGS_DIR}/{tag_slug(tag)}.md"


def by_tag(models: list[PageModel]) -> dict[str, list[PageModel]]:
    """Tag -> the entries carrying it (A-Z), tags A-Z; spellings that share a slug merge."""
    groups: dict[str, tuple[str, list[PageModel]]] = {}
    seen: set[tuple[str, str]] = set()  # (tag slug, entry slug): `model in members` compared page models
    for model in models:                # field by field, N x N of them (issue 34: 9 s of 1,000 entries)
        for tag in model.entry.meta.tags:
            key = tag_slug(tag)
            name, members = groups.setdefault(key, (tag, []))
            if (key, model.entry.slug) not in seen:
                seen.add((key, model.entry.slug))
                members.append(model)
    out = {}
    for _, (name, members) in sorted(groups.items()):
        out[name] = sorted(members, key=lambda m: m.entry.title.casefold())
    return out


def index_rows(models: list[PageModel]) -> list[dict]:
    """Plain values for a list of tags: name, page path, entry count."""
    return [{"name": tag, "path": tag_path(tag), "count": len(members)}
            for tag, members in by_tag(models).items()]


def pages(env: SandboxedEnvironment, models: list[PageModel]) -> dict[str, str]:
    """Docs-relative path -> Markdown of every tag page and of tags/index.md."""
    groups = by_tag(models)
    if not groups:
        return {}
    # A preview shows drafts too: the pages then say so, and mark each draft, instead of "published".
    # A preview page never says "published": a preview is never deployed, and what it shows is
    # not the published site, so each of its tag pages uses the preview wording.
    preview = any(m.preview for m in models)
    drafts = preview or any(not m.verdict.publishable for m in models)
    template = env.get_template("tags.md.j2")
    out = {f"{TAGS_DIR}/index.md": template.render(tag=None, tags=index_rows(models), entries=[], drafts=drafts)}
    for tag, members in groups.items():
        entries = [{"slug": m.entry.slug, "title": m.entry.title,
                    "summary": " ".join(m.entry.meta.summary.split()),
                    "draft": not m.verdict.publishable} for m in members]
        out[tag_path(tag)] = template.render(tag=tag, tags=[], entries=entries,
                                             drafts=preview or any(e["draft"] for e in entries))
    return out
