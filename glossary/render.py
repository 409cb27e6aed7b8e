"""Render: page models to Markdown through Jinja2 templates.

Templates live in the project's ``templates/`` folder.  The environment is
sandboxed and uses StrictUndefined: a value a template asks for and the model
lacks fails the build instead of rendering blank.  Author-written text reaches
templates only as values; it is never itself evaluated as a template here.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from glossary import claims, figures, tags
from glossary.gate import is_real_name
from glossary.review import short_fingerprint
from glossary.pages import PageModel


# Syntax that makes markup: links and images ([ ]), attribute lists and template braces ({ }),
# and the escape itself.  Emphasis and code spans are left alone: they cannot inject anything.
_MARKDOWN_ACTIVE = re.compile(r"([\\{}\[\]])")


def plain_text(value: Any) -> str:
    """Author-written text (a title, summary, name, label) as inert Markdown: shown as typed.

    HTML is escaped and link and attribute syntax backslash-escaped, so a <script>, a link, an
    attribute list ({: onclick=...}) or template braces render as the characters typed and
    never as markup; line breaks collapse, so the text cannot open a block of its own.
    """
    text = " ".join(str(value).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_ACTIVE.sub(r"\\\1", text)


def safe_meta(meta: dict) -> dict:
    """A page's front-matter as the theme may print it: every text value HTML-escaped.

    Material writes ``page.meta.title`` and ``page.meta.author`` into ``<title>`` and
    ``<meta content="...">`` without escaping, so an author's markup would become the
    site's markup there.
    """
    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return html.escape(" ".join(value.split()), quote=True)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return {key: clean(value) for key, value in meta.items()}


def _url(value: Any) -> str:
    """A URL safe as a Markdown link target: brackets that would end the link are percent-encoded."""
    return str(value).replace("(", "%28").replace(")", "%29").replace(" ", "%20")


def _cell(value: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return plain_text(value).replace("|", "\\|")


def _compile_command(command: str) -> str:
    """The recorded compile command with pycuda's install-specific include path shortened."""
    return re.sub(r"-I\S*/pycuda/cuda\b", "-I<pycuda>/cuda", command)


def make_env(templates_dir: Path) -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        ms=figures.fmt_ms,
        fixed=figures.fmt_fixed,
        int_commas=figures.fmt_int,
        bytes=figures.fmt_bytes,
        bpe=figures.fmt_bpe,
        bpe1=lambda v: f"{v:.1f}",
        cell=_cell,
        text=plain_text,
        url=_url,
        compile_command=_compile_command,
    )
    return env


def _name_or_pending(name: str | None) -> str:
    return name.strip() if is_real_name(name) else "pending"


def _date_or_pending(value: Any) -> str:
    return value.isoformat() if value is not None else "pending"


def entry_context(model: PageModel) -> dict:
    """The plain values the entry template sees."""
    entry = model.entry
    meta = entry.meta
    devices_line = ", ".join(f"{d.gpu} on {d.captured_on}" for d in model.devices if d.status == "ok")
    any_counted = any(r.counted_bytes_per_elem is not None
                      for d in model.devices for s in d.sizes for r in s.rows)
    any_flops = any(r.gflops is not None for d in model.devices for s in d.sizes for r in s.rows)
    return {
        "page": {
            "title": meta.title,
            "summary": meta.summary.strip(),
            "body": (entry.body if model.body is None else model.body).strip() + "\n",
            "draft": not model.verdict.publishable,
            "missing": list(model.verdict.missing),
            "has_spec": meta.measure is not None,
            "devices": list(model.devices),
            "claims": _claims_by_device(model),
            "related": [{"slug": r.slug, "title": r.title, "summary": r.meta.summary.strip()}
                        for r in model.related],
            "lessons": list(meta.lessons),
            "sources": list(meta.sources),
            "byline": {
                "author": _name_or_pending(meta.author),
                "reviewer": _name_or_pending(meta.reviewer),
                "written_on": _date_or_pending(meta.written_on),
                "reviewed_on": _date_or_pending(meta.reviewed_on),
                "measured": devices_line,
                # published with a fingerprint means the gate found it matches what is shown
                "signed": model.verdict.publishable and bool(meta.review_fingerprint),
                "fingerprint": short_fingerprint(meta.review_fingerprint) if meta.review_fingerprint else "",
            },
        },
        "counted": any_counted,
        "gflops": any_flops,
    }


def _claims_by_device(model: PageModel) -> dict[str, list[claims.ClaimSummary]]:
    keys = {d.gpu: d.key for d in model.devices}
    by_device: dict[str, list] = {}
    for verdict in model.claims:
        by_device.setdefault(keys.get(verdict.device, verdict.device), []).append(verdict)
    return {key: claims.summarize(verdicts) for key, verdicts in by_device.items()}


def render_entry(env: SandboxedEnvironment, model: PageModel, hidden: set[str] = frozenset(),
                 extras: dict | None = None) -> str:
    """The Markdown of an entry page; links to ``hidden`` entries become plain text.

    ``extras`` (from ``glossary.features.page_extras``) adds to or replaces keys of ``page``.
    """
    context = entry_context(model)
    context["page"].update(extras or {})
    context["page"]["body"] = unlink(context["page"]["body"], hidden)
    return _tidy(env.get_template("entry.md.j2").render(context))


_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\((?:\./)?([a-z0-9-]+)\.md(?:#[^)\s]*)?\)")


def unlink(markdown: str, hidden: set[str]) -> str:
    """Turn Markdown links to entries that are not on the site into their plain text."""
    return _LINK.sub(lambda m: m.group(1) if m.group(2) in hidden else m.group(0), markdown)


def render_index(env: SandboxedEnvironment, models: list[PageModel]) -> str:
    """The glossary home: an A-Z list of the entries given."""
    rows = []
    for m in sorted(models, key=lambda m: m.entry.title.casefold()):
        title = m.entry.title
        rows.append({
            "slug": m.entry.slug, "title": title, "summary": m.entry.meta.summary.strip(),
            "letter": title[:1].upper() if title[:1].isalpha() else "#",
            "devices": [d.gpu for d in m.devices if d.status == "ok"],
            "draft": not m.verdict.publishable,
            "tags": [{"name": t, "path": tags.tag_path(t)} for t in m.entry.meta.tags],
        })
    return _tidy(env.get_template("index.md.j2").render(entries=rows, tags=tags.index_rows(models)))


def _tidy(text: str) -> str:
    """Collapse runs of blank lines that template control flow leaves behind (not inside code fences)."""
    out = []
    blank = 0
    fence = None
    for line in text.splitlines():
        marker = line.lstrip()[:3]
        if marker in ("```", "~~~"):
            fence = None if fence == marker else (fence or marker)
        blank = blank + 1 if not line.strip() and fence is None else 0
        if blank <= 1:
            out.append(line)
    return "\n".join(out).strip() + "\n"
