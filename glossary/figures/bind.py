"""Prose bound to data: figures in an entry's body written as template expressions.

An author writes ``{{ fig.speedup("staged", "fused") }}`` instead of typing
"3.08x".  The body is rendered through a sandboxed Jinja environment whose names
are ``fig``, a read-only view of the entry's recorded results (the figures it
offers are listed in ``glossary.figures.fig``), and the citations of
``glossary.figures.cite``: ``cite``, ``cite_table`` and ``nofig``.  Only figures outside code are
evaluated; code is masked first (``glossary.entries.masking``).

A figure that has no data (a device never measured, a size not swept) renders
as a visible "[no result: ...]" marker and is reported, so strict builds fail.
"""

from __future__ import annotations

import re

import jinja2
from jinja2 import nodes
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment

from glossary.figures.cite import CITATION_BLOCKS, CITATION_NAMES, Citations
from glossary.figures.fig import Figures, NoResult
from glossary.figures.fmt import plain_text
from glossary.entries.masking import mask_code, unmask_code
from glossary.figures.views import DeviceView
from measure.spec import MeasureSpec, Variant


def _env() -> SandboxedEnvironment:
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    env.globals.clear()  # no range, cycler, joiner, lipsum, namespace: the body sees `fig` only
    return env


def _fig_chain(node: nodes.Node) -> bool:
    """``fig``, ``fig.on("key")``, ``fig.at(n=1)`` and chains of them."""
    if isinstance(node, nodes.Name):
        return node.name == "fig"
    return (isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr)
            and node.node.attr in ("on", "at") and _literal_call(node) and _fig_chain(node.node.node))


def _literal_call(node: nodes.Call) -> bool:
    return (node.dyn_args is None and node.dyn_kwargs is None
            and all(isinstance(a, nodes.Const) for a in node.args)
            and all(isinstance(k.value, nodes.Const) for k in node.kwargs))


def _is_figure(node: nodes.Node) -> bool:
    """Whether an output expression is a bound figure, ``fig[.on(..)][.at(..)].<figure>(literals)``,
    or a citation, ``cite(literals)`` / ``nofig(literal)`` (``glossary.figures.cite``)."""
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name):
        return node.node.name in CITATION_NAMES and _literal_call(node)
    return (isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr)
            and not node.node.attr.startswith("_") and _literal_call(node) and _fig_chain(node.node.node))


def _is_cited_table(node: nodes.Node) -> bool:
    """``{% call cite_table(literal) %}...{% endcall %}`` without arguments to the caller."""
    call = node.call if isinstance(node, nodes.CallBlock) else None
    return (call is not None and isinstance(call.node, nodes.Name) and call.node.name in CITATION_BLOCKS
            and _literal_call(call) and not node.args and not node.defaults)


def _not_figures(body: list[nodes.Node]) -> list[int]:
    """Body lines holding template code that is not a bound figure or a citation (loops, sets,
    arithmetic, other names).

    Only figures are evaluated: anything else in an author's text, a template-injection payload
    above all, must never run, so such a body is shown as typed.
    """
    lines = []
    for node in body:
        if _is_cited_table(node):
            lines += _not_figures(node.body)
        elif not isinstance(node, nodes.Output):
            lines.append(node.lineno)
        else:
            lines += [n.lineno for n in node.nodes if not isinstance(n, nodes.TemplateData) and not _is_figure(n)]
    return sorted(set(lines))


def unevaluated(body: str) -> list[int]:
    """Body lines (counted from 1) holding template code outside code that the build would not
    evaluate, as ``render_body`` judges it: anything but bound figures and citations, or text
    that does not parse as a template at all."""
    masked, _ = mask_code(body)
    if "{{" not in masked and "{%" not in masked and "{#" not in masked:
        return []
    try:
        return _not_figures(_env().parse(masked).body)
    except jinja2.TemplateSyntaxError as err:
        return [err.lineno or 1]


def render_body(body: str, devices: tuple[DeviceView, ...], bytes_by_variant: dict[str, float],
                variants: tuple[Variant, ...] = (), first_line: int = 1,
                spec: MeasureSpec | None = None, sources: tuple = (),
                cited: list[str] | None = None) -> tuple[str, list[str]]:
    """Render the body's bound figures; returns (markdown, problems).

    Only ``{{ fig... }}`` outside code is evaluated: fenced code and code spans (a PTX
    register list ``{%f2, %f3}``, a C++ initialiser) are shown as typed.  A figure
    without data becomes "[no result: why]" in the text and a problem in the list; a
    template error (bad syntax, an unknown name) is a problem too and leaves the body
    unrendered.  ``first_line`` is the file's line number of the body's first line, so
    problems name lines of the file.
    """
    if "{{" not in body and "{%" not in body and "{#" not in body:
        return body, []
    masked, codes = mask_code(body)
    if "{{" not in masked and "{%" not in masked and "{#" not in masked:
        return body, []
    problems: list[str] = []
    fig = Figures(devices, dict(bytes_by_variant), problems=problems, variants={v.name: v for v in variants},
                  spec=spec)
    env = _env()

    def line(n: int) -> int:
        return first_line + n - 1

    # Each {{ ... }} is numbered in the order of the text (``at`` is told which one renders next), so a
    # figure without data is named once, with its text and its line.
    outputs = [(line(masked.count("\n", 0, m.start()) + 1), " ".join(m.group(1).split()))
               for m in _OUTPUT.finditer(masked)]
    current = [-1]
    reported: set[int] = set()

    def at(index: int) -> str:
        current[0] = index
        return ""

    def guard(method):
        def call(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except NoResult as why:
                index = current[0]
                if index not in reported:
                    reported.add(index)
                    where, text = outputs[index] if 0 <= index < len(outputs) else (None, None)
                    problems.append(FigureProblem(str(why), where, text and f"{{{{ {_short(text)} }}}}"))
                return f"**[no result: {plain_text(str(why))}]**"
        return call

    env.globals["fig"] = _Guarded(fig, guard)
    citations = Citations(tuple(sources), problems=problems)
    env.globals.update(cite=citations.cite, nofig=citations.nofig, cite_table=citations.cite_table)
    try:
        tree = env.parse(masked)
        others = _not_figures(tree.body)
        if others:
            where = ", ".join(str(line(n)) for n in others)
            return body, [f"the body has template code that is not a bound figure (line{'s' if len(others) > 1 else ''} "
                          f"{where} of the file); only {{{{ fig.<figure>(...) }}}}, {{{{ cite(...) }}}}, "
                          f"{{{{ nofig(...) }}}} and {{% call cite_table(...) %}} outside code are evaluated, "
                          f"so the body is shown as typed"]
        figures = _figure_nodes(tree.body)
        if len(figures) == len(outputs):  # each {{ ... }} is a figure: evaluated as parsed, nothing compiled
            numbered = {id(node): k for k, node in enumerate(figures)}
            text = _evaluate(env, tree.body, lambda node: at(numbered[id(node)]))
        else:  # a {{ in a comment or a raw block: each figure is found by a marker, in a compiled template
            env.globals["_glossary_at"] = at
            marked = _OUTPUT.sub(lambda m, k=iter(range(len(outputs))): "{{ _glossary_at(%d) }}" % next(k) + m.group(0),
                                 masked)
            text = _MARKER.sub("", env.from_string(marked).render())  # a marker inside a raw block is text
        rendered = unmask_code(text, codes)
        if cited is not None:
            cited += citations.cited
        return rendered, problems
    except jinja2.TemplateError as err:
        n = getattr(err, "lineno", None)
        where = f" (line {line(n)} of the file)" if n else ""
        return body, [f"cannot render the body's figures{where}: {err}"]


_OUTPUT = re.compile(r"\{\{(.*?)\}\}", re.S)
_MARKER = re.compile(r"\{\{ _glossary_at\(\d+\) \}\}")


def _figure_nodes(body: list[nodes.Node]) -> list[nodes.Node]:
    """The body's figures and citations ({{ ... }}), in the order of the text (``_not_figures`` passed it)."""
    found = []
    for node in body:
        if isinstance(node, nodes.CallBlock):
            found += _figure_nodes(node.body)
        else:
            found += [n for n in node.nodes if not isinstance(n, nodes.TemplateData)]
    return found


def _evaluate(env: SandboxedEnvironment, body: list[nodes.Node], at) -> str:
    """The text a body that holds only figures and citations (``_not_figures`` passed it) renders to, as
    the sandboxed template would render it: its text as parsed, each figure's value as ``str``, each
    attribute through the sandbox's ``getattr`` and each call checked by its ``is_safe_callable``.
    Compiling a body's template was most of the time a build spent on it (issue 34)."""
    out = []
    for node in body:
        if isinstance(node, nodes.CallBlock):  # {% call cite_table(...) %}: its text is the caller's
            out.append(str(_value(env, node.call, caller=lambda inner=node.body: _evaluate(env, inner, at))))
            continue
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                out.append(child.data)
            else:
                at(child)
                out.append(str(_value(env, child)))
    return "".join(out)


def _value(env: SandboxedEnvironment, node: nodes.Node, **extra):
    """A figure's expression: ``fig``, a citation's name, a constant, an attribute of one or a call of one."""
    if isinstance(node, nodes.Const):
        return node.value
    if isinstance(node, nodes.Name):
        return env.globals[node.name] if node.name in env.globals else env.undefined(name=node.name)
    if isinstance(node, nodes.Getattr):
        return env.getattr(_value(env, node.node), node.attr)
    call = _value(env, node.node)
    if not env.is_safe_callable(call):
        raise SecurityError(f"{call!r} is not safely callable")
    return call(*(a.value for a in node.args), **{k.key: k.value.value for k in node.kwargs}, **extra)


class FigureProblem(str):
    """Why a bound figure has no data (the text), with the file's ``line`` and the ``figure`` as written."""

    line: int | None
    figure: str | None

    def __new__(cls, why: str, line: int | None, figure: str | None) -> "FigureProblem":
        out = super().__new__(cls, why)
        out.line, out.figure = line, figure
        return out


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _Guarded:
    """Wraps Figures so that every method reports NoResult instead of raising it."""

    def __init__(self, fig: Figures, guard) -> None:
        self._fig = fig
        self._guard = guard

    def on(self, device_key: str) -> "_Guarded":
        return _Guarded(self._fig.on(device_key), self._guard)

    def at(self, **params: int) -> "_Guarded":
        return _Guarded(self._fig.at(**params), self._guard)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._guard(getattr(self._fig, name))
