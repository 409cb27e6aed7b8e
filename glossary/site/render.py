"""Render: page models to Markdown through Jinja2 templates.

Templates live in the project's ``templates/`` folder.  The environment is
sandboxed and uses StrictUndefined: a value a template asks for and the model
lacks fails the build instead of rendering blank.  Author-written text reaches
templates only as values; it is never itself evaluated as a template here.

Escape by default: every ``{{ ... }}`` output is escaped as inert Markdown text
unless it is a number or a ``Safe`` string, which only the escaping filters make,
one per place a value lands: ``text`` (Markdown text), ``cell`` (a table cell),
``quoted`` (a block title in quotes), ``attr`` (a raw HTML attribute), ``code``
(a code span), ``code_block`` (a fenced block), ``url`` (a link target),
``tojson`` (JSON, YAML front-matter) and the number formats.  The entry body is
the one value marked ``verbatim``.
"""

from __future__ import annotations

import dataclasses

import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.filters
from jinja2.sandbox import SandboxedEnvironment

from glossary.site import counts, export, hidden_links, images, initials, tags, tooltips
from glossary.figures import fmt
from glossary.figures.fmt import CONTROLS, one_line, plain_text
from glossary.site import page
from glossary.site.page import PageModel, device_label


# -- escaping: every value is text unless a filter made it safe for where it lands --------------------


class Safe(str):
    """Markdown that goes into a page as it is: made by an escaping filter, or marked ``verbatim``.

    Every ``{{ ... }}`` output that is not ``Safe`` (nor a number) is escaped as inert text by the
    environment's ``finalize`` hook, so a template that forgets a filter still prints an escaped
    value.  Any string operation on a ``Safe`` (slicing, joining, ``~``) gives a plain ``str``
    again, which is escaped.  Jinja's own ``Markup`` (``|safe``, ``|e``) is not trusted: it is
    HTML-safe, not Markdown-safe (``[x](javascript:...)`` is plain HTML text).
    """

    __slots__ = ()


def verbatim(markdown: str) -> Safe:
    """Mark Markdown that goes through unescaped.  Only the entry body, which the author wrote as
    Markdown and ``glossary.figures.bind`` rendered, is marked so; everything else goes through a filter."""
    return Safe(markdown)


def _finalize(value: Any) -> Any:
    """Every ``{{ ... }}`` output: ``Safe`` as it is, numbers as they are, anything else as text
    (keeping a space at either end, so ``{{ ", " if not loop.last }}`` still separates)."""
    if isinstance(value, Safe):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raw = str(value)
    text = plain_text(raw)
    if not text:
        return " " if raw[:1].isspace() else ""
    return f"{' ' if raw[:1].isspace() else ''}{text}{' ' if raw[-1:].isspace() else ''}"


def safe_meta(meta: dict) -> dict:
    """A page's front-matter as the theme may print it: every text value HTML-escaped.

    Material writes ``page.meta.title`` and ``page.meta.author`` into ``<title>`` and
    ``<meta content="...">`` without escaping, so an author's markup would become the
    site's markup there.
    """
    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return html.escape(one_line(value), quote=True)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return {key: clean(value) for key, value in meta.items()}


def _text(value: Any) -> Safe:
    """Markdown text: a paragraph, a list item, a link's text, an image's alt text."""
    return Safe(plain_text(value))


def _nowrap(value: Any) -> Safe:
    """Markdown text that never parts at a line break: a name and its value ('shared/block 0 B'),
    its spaces no-break spaces."""
    return Safe(plain_text(value).replace(" ", "\u00a0"))


def _cell(value: Any) -> Safe:
    """Text safe inside a Markdown table cell."""
    return Safe(plain_text(value).replace("|", "\\|"))


def _quoted(value: Any) -> Safe:
    """Text inside the double quotes of a block's title: ``=== "..."``, ``!!! note "..."``, ``??? note "..."``."""
    return Safe(plain_text(value).replace('"', "&quot;"))


def _attr(value: Any) -> Safe:
    """The value of an attribute of raw HTML in a template, ``<span title="...">``.  Markdown leaves
    raw HTML as it is, so no Markdown escaping; Material's tooltips show a ``title`` as HTML, so the
    text is escaped as HTML twice (``tooltips.title_text``) and its quotes once."""
    return Safe(tooltips.title_text(one_line(value)).replace('"', "&quot;"))


def _code(value: Any) -> Safe:
    """An inline code span around the value, shown exactly as typed (on one line): its backtick fence
    is longer than any run of backticks inside."""
    text = one_line(value).strip()
    if not text:
        return Safe("")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return Safe(f"{fence}{pad}{text}{pad}{fence}")


def _code_block(value: Any, lang: str = "") -> Safe:
    """A fenced code block of the value, verbatim: the fence outlasts every fence-like run inside."""
    code = str(value).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`{3,}|~{3,}", code)), default=0)
    fence = "`" * max(3, longest + 1)
    lang = lang if re.fullmatch(r"[A-Za-z0-9_+-]*", str(lang)) else ""
    return Safe(f"{fence}{lang}\n{code}\n{fence}")


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_URL_SCHEMES = ("http", "https", "mailto")


def _url(value: Any) -> Safe:
    """A URL safe as a Markdown link target: an http(s) or mailto URL, or a relative path, with every
    character that could end the target or the attribute percent-encoded; any other scheme
    (javascript:, data:) becomes "#"."""
    text = CONTROLS.sub("", str(value).strip())
    scheme = _SCHEME.match(text)
    if scheme and scheme.group(1).lower() not in _URL_SCHEMES:
        return Safe("#")
    return Safe(quote(text, safe="/:?#@!$&*+,;=%-._~"))


_INERT_JSON = {**export.SCRIPT_SAFE, **{ord(c): f"\\u{ord(c):04x}" for c in "[](){}`|"}}


def _tojson(value: Any, indent: int | None = None) -> Safe:
    """JSON whose strings hold no character that is markup in HTML, YAML front-matter or Markdown
    (<, >, &, ', [ ], ( ), { }, `, |, U+2028/9 written as \\uXXXX): inert wherever it lands."""
    if isinstance(value, str):
        return Safe(json.dumps(value, ensure_ascii=False).translate(_INERT_JSON))
    if isinstance(value, dict):
        return Safe("{" + ", ".join(f"{_tojson(str(k))}: {_tojson(v)}" for k, v in sorted(value.items())) + "}")
    if isinstance(value, (list, tuple)):
        return Safe("[" + ", ".join(_tojson(v) for v in value) + "]")
    return Safe(json.dumps(value, allow_nan=False))


def _indent(value: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    """Jinja's ``indent``, keeping a ``Safe`` value safe (indenting adds no markup)."""
    out = jinja2.filters.do_indent(str(value), width, first, blank)
    return Safe(out) if isinstance(value, Safe) else out


def _number(format_number):
    """A number's formatter whose output is safe when it was given a number (and only then)."""
    def fmt(value: Any, *args: Any) -> str:
        text = format_number(value, *args)
        return Safe(text) if isinstance(value, (int, float)) and not isinstance(value, bool) else text
    return fmt


def _column_unit(values: Any, per_ms: float = 1.0) -> str | None:
    """The one time unit of a table column (``fmt.column_unit``); ``per_ms`` the values' units
    in a millisecond (1000 for µs)."""
    return fmt.column_unit([v / per_ms for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)])


def _compile_command(command: str) -> str:
    """The recorded compile command with pycuda's install-specific include path shortened."""
    return re.sub(r"-I\S*/pycuda/cuda\b", "-I<pycuda>/cuda", command)


def _compile_split(environment) -> tuple[str, list[str]]:
    """A result's builds as (the command they share, each build's own options): where variants
    have builds of their own (environment.compile_commands), the recorded commands differ only in
    those options, so the page says the command once and lists the options, instead of repeating
    it per build."""
    commands = [_compile_command(c) for c in (environment.compile_command or "").split("; ") if c]
    if len(commands) < 2 or not environment.compile_commands:
        return _compile_command(environment.compile_command or ""), []
    tokens = [c.split(" ") for c in commands]
    shared = [t for t in tokens[0] if all(t in other for other in tokens[1:])]
    extras = [" ".join(t for t in toks if t not in shared) for toks in tokens]
    return " ".join(shared), list(dict.fromkeys(x for x in extras if x))


def make_env(templates_dir: Path, bytecode_cache: jinja2.BytecodeCache | None = None) -> SandboxedEnvironment:
    """The sandboxed, strict template environment; every output is escaped unless a filter made it
    ``Safe`` for the place it lands (see ``Safe``).  ``bytecode_cache``: where compiled templates are
    kept between builds (``glossary.site.bytecode``)."""
    env = SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        bytecode_cache=bytecode_cache,
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # HTML escaping is the wrong escape for Markdown: finalize escapes instead
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        ms=_number(fmt.fmt_ms),
        fixed=_number(fmt.fmt_fixed),
        int_commas=_number(fmt.fmt_int),
        bytes=_number(fmt.fmt_bytes),
        bpe=_number(fmt.fmt_bpe),
        bpe1=_number(fmt.fmt_bpe1),
        significant=_number(fmt.significant),
        duration=_number(fmt.duration),
        column_unit=_column_unit,
        rate=_number(fmt.rate),
        flops=_number(fmt.flops),
        tflops=_number(fmt.tflops_number),
        ratio=_number(fmt.ratio),
        percent=_number(fmt.percent),
        text=_text,
        nowrap=_nowrap,
        cell=_cell,
        quoted=_quoted,
        attr=_attr,
        code=_code,
        code_block=_code_block,
        url=_url,
        tojson=_tojson,
        indent=_indent,
        compile_command=_compile_command,
        compile_split=_compile_split,
    )
    return env


def render_entry(env: SandboxedEnvironment, model: PageModel, hidden: set[str] = frozenset(),
                 catalog: dict | None = None, by_day: dict | None = None) -> str:
    """The Markdown of an entry page; links to ``hidden`` entries become plain text.

    ``catalog`` and ``by_day`` resolve the entry's lessons (``glossary.entries.lessons.resolve``).
    """
    context = page.entry_context(model, catalog or {}, by_day)
    # The one value printed as it is: the author's Markdown, its figures rendered by glossary.figures.bind
    # and its images paired for light and dark mode by glossary.site.images.
    context["page"]["body"] = verbatim(images.pair(unlink(context["page"]["body"], hidden), model.entry.image_files))
    context["page"]["devices"] = cite_imports(context["page"]["devices"], dict(model.import_sources))
    return _tidy(env.get_template("entry.md.j2").render(context))


def cite_imports(devices: list, links: dict[str, str]) -> list:
    """The device views, each imported one whose source a reader can open (``links``: device key ->
    URL) with its ``imported_from`` turned into Markdown: the note as text, then a link to the source.
    The note is escaped and the URL made safe here, as the ``text`` and ``url`` filters would."""
    out = []
    for view in devices:
        link = links.get(view.key)
        if view.provenance == "imported" and link and view.imported_from:
            note = Safe(f"{_text(view.imported_from)} ([read the source]({_url(link)}))")
            view = dataclasses.replace(view, imported_from=note)
        out.append(view)
    return out


def unlink(markdown: str, hidden: set[str]) -> str:
    """Turn links to entries that are not on the site into their plain text, in every form
    (``glossary.site.hidden_links``: inline, reference and HTML links; code left as typed)."""
    return hidden_links.unlink(markdown, hidden)


def render_index(env: SandboxedEnvironment, models: list[PageModel], site_name: str = "Glossary",
                 preview: bool = False, drafts: list[PageModel] = ()) -> str:
    """The glossary home: an A-Z list of the entries given, under the site's name (mkdocs.yml's
    ``site_name``), saying what its figures are (``glossary.site.counts``: how many measured, on
    which GPUs, how many cited) and who signed them (``page.home_claim``, from the entries' verified
    signatures; ``drafts`` are the entries the site leaves out); a preview's home never says its drafts
    are signed or published."""
    rows = []
    # by letter first: a Han title is filed under its pinyin initial, among the Latin ones (initials)
    for m in sorted(models, key=lambda m: initials.sort_key(index_term(m.entry))):
        title, term = m.entry.title, index_term(m.entry)
        rows.append({
            "slug": m.entry.slug, "title": title, "summary": m.entry.meta.summary.strip(),
            "letter": initials.letter(term), "anchor": initials.anchor(initials.letter(term)),
            "devices": [device_label(d) for d in m.devices if d.status == "ok"],
            "draft": not m.verdict.publishable,
            "tags": [{"name": t, "path": tags.tag_path(t)} for t in m.entry.meta.tags],
        })
    return _tidy(env.get_template("index.md.j2").render(entries=rows, tags=tags.index_rows(models),
                                                        site_name=site_name, preview=preview,
                                                        trust_claim=page.home_claim(models, list(drafts), preview),
                                                        figures=counts.FigureCounts.of(models).sentence()))


def index_term(entry) -> str:
    """What the A-Z list files an entry under: its title, or for a question-style title ('What is
    occupancy?') the term it asks about, so questions are not all filed under W."""
    spellings = tooltips.question_terms(entry.title, entry.slug)
    return spellings[1] if len(spellings) > 1 else entry.title


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
