"""The authors' reference, generated from the code: the tables of docs/maintainers/writing-an-entry.md.

The guide holds sections between markers::

    <!-- generated: spec-keys -->
    ...text this module writes...
    <!-- end generated -->

and this module renders each section from the live code (the spec's dataclasses and their ``doc``
metadata, the expression language, the claim kinds, the ``fig`` figures, the data types), so the
reference cannot drift from what the loader accepts:

    python -m measure.spec.docgen --write docs/maintainers/writing-an-entry.md   # rewrite the sections
    python -m measure.spec.docgen --check                                        # exit 1 naming stale ones

Pure: no GPU, no site build.  measure/ imports nothing from glossary/, so the ``fig`` figures are
read from glossary/figures/fig.py's syntax tree (names, signatures, docstrings), not imported.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import re
import sys
import types
from pathlib import Path
from typing import Any, Callable, Union, get_args, get_origin, get_type_hints

from measure import expr
from measure.spec import budget, limits, model, sizes
from measure.typed import type_name

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "maintainers" / "writing-an-entry.md"
FIGURES_SOURCE = ROOT / "glossary" / "figures" / "fig.py"
COMMAND = "python -m measure.spec.docgen --write docs/maintainers/writing-an-entry.md"

START = re.compile(r"<!-- generated: ([a-z0-9-]+) -->")
END = "<!-- end generated -->"


def _from_code(names: list[tuple[Any, str]], empty: Any) -> Any:
    """The first of ``module.attribute`` that the code defines, else ``empty``: the constants the
    spec work of issue 18 adds (device names, per-dtype tolerances, kernel attributes) appear here
    as soon as they are defined, and until then the reference lists nothing rather than guessing."""
    for module, attribute in names:
        value = getattr(module, attribute, None)
        if value is not None:
            return value
    return empty


# -- cells --------------------------------------------------------------------------------------


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def yaml_value(value: Any) -> str:
    """A default as an author would write it in YAML (floats with a dot: PyYAML reads 1e-5 as text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            mantissa = mantissa if "." in mantissa else mantissa + ".0"
            text = f"{mantissa}e{int(exponent)}"
        return text
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {yaml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str) and (not value or value[0] in "-[]{}:,#&*!|>'\"%@`" or ": " in value):
        return '"' + value.replace('"', '\\"') + '"'
    return str(value)


def default_words(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "required"
    if dataclasses.is_dataclass(value):
        return f"the `{type(value).__name__}` defaults"
    if value is None:
        return "none"
    return f"`{yaml_value(value)}`"


def field_words(f: dataclasses.Field) -> str:
    """The field's ``doc`` text, with the bounds ``doc()`` recorded."""
    text = f.metadata.get("doc", "")
    if f.metadata.get("max_items") is not None:
        text += f"; at most {f.metadata['max_items']:,}"
    if f.metadata.get("unique_items"):
        text += "; each listed once"
    if f.metadata.get("max_length") is not None:
        text += f"; at most {f.metadata['max_length']:,} characters"
    return text


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# -- (a) the spec's keys ------------------------------------------------------------------------


def _nested(tp: Any) -> list[tuple[Any, str]]:
    """The dataclasses inside a field type, each with the suffix its keys take in a path."""
    origin = get_origin(tp)
    if dataclasses.is_dataclass(tp):
        return [(tp, "")]
    if origin is list:
        return [(c, "[]" + s) for c, s in _nested(get_args(tp)[0])]
    if origin is dict:
        return [(c, ".<name>" + s) for c, s in _nested(get_args(tp)[1])]
    if origin in (Union, types.UnionType):
        return [pair for arg in get_args(tp) for pair in _nested(arg)]
    return []


def reachable(root: type, path: str) -> list[tuple[type, str]]:
    """Every dataclass reachable from ``root``, depth first in field order (a launch's keys right
    after its variant's), each with the first key path it sits at."""
    found: list[tuple[type, str]] = []
    seen: set[type] = set()

    def visit(cls: type, where: str) -> None:
        seen.add(cls)
        found.append((cls, where))
        hints = get_type_hints(cls)
        for f in dataclasses.fields(cls):
            for inner, suffix in _nested(hints[f.name]):
                if inner not in seen:
                    visit(inner, f"{where}.{f.name}{suffix}")

    visit(root, path)
    return found


def class_words(cls: type) -> str:
    return f"`{cls.__name__}`"


def keys_table(cls: type) -> str:
    hints = get_type_hints(cls)
    rows = [[f"`{f.name}`", type_name(hints[f.name], class_words), default_words(f), field_words(f)]
            for f in dataclasses.fields(cls)]
    return table(["key", "type", "default", "meaning"], rows)


def render_keys(root: type = model.MeasureSpec, path: str = "measure", level: str = "####") -> str:
    parts = []
    for cls, where in reachable(root, path):
        parts.append(f"{level} `{where}` ({cls.__name__})")
        if cls.__doc__:
            parts.append(" ".join(cls.__doc__.strip().split("\n\n")[0].split()))
        parts.append(keys_table(cls))
    return "\n\n".join(parts)


# -- (b) expressions ----------------------------------------------------------------------------


def device_names() -> Any:
    return _from_code([(limits, "DEVICE_NAMES"), (model, "DEVICE_NAMES"), (expr, "DEVICE_NAMES")], ())


def render_expressions() -> str:
    ops = " ".join(f"`{op}`" for op in expr.OPERATORS)
    funcs = ", ".join(f"`{name}` ({low} argument{'s' * (low != 1)})" if low == high
                      else f"`{name}` ({low} to {high} arguments)" for name, (low, high) in expr.FUNCTIONS.items())
    names = device_names()
    nominal = getattr(limits, "NOMINAL_DEVICE", {})
    if isinstance(names, dict):
        shown = table(["device name", "what it is", "value at load-time checks"],
                      [[f"`{k}`", str(v), f"{nominal[k]:,}" if k in nominal else ""] for k, v in names.items()])
    elif names:
        shown = ", ".join(f"`{n}`" for n in names) + "."
    else:
        shown = "none (this version of the code defines no device names)."
    return "\n\n".join([
        f"Operators: {ops}, a leading `-` or `+`, and parentheses.",
        f"Functions: {funcs}.",
        f"Numbers: integers and decimals; every value an expression computes, intermediates included, "
        f"stays within 2**{expr.MAX_MAGNITUDE.bit_length() - 1}, and an exponent within {expr.MAX_EXPONENT}. "
        f"An expression has at most {expr.MAX_EXPR_CHARS} characters and {expr.MAX_EXPR_NODES} terms "
        f"and operators.",
        f"Device names: {shown}" if not isinstance(names, dict) else f"Device names:\n\n{shown}",
    ])


# -- (c) claim kinds ----------------------------------------------------------------------------


def claim_kind_words() -> tuple[dict[str, str], str]:
    """Each claim kind's meaning (``CLAIM_DOCS``, one per kind in ``CLAIM_NEEDS``), and a note for
    after the table (none: every kind is worded apart)."""
    return {kind: model.CLAIM_DOCS.get(kind, "") for kind in model.CLAIM_NEEDS}, ""


def render_claims() -> str:
    words, rest = claim_kind_words()
    bounded = set(model.BOUNDED_KINDS)
    rows = [[f"`{kind}`", ", ".join(f"`{k}`" for k in needs),
             ("`at_least` or `at_most` (one is required)" if kind in model.EXPLICIT_BOUND_KINDS else
              "`at_least` (default) or `at_most`") if kind in bounded else "no", words.get(kind, "")]
            for kind, needs in model.CLAIM_NEEDS.items()]
    parts = [table(["kind", "needs", "takes a bound", "claims"], rows)]
    if rest:
        parts.append("`Claim.kind` adds: " + (rest if rest[-1] in ".)" else rest + "."))
    attributes = _from_code([(model, "ATTRIBUTE_METRICS")], ())
    parts.append("Kernel attributes a claim's `metric` may name: "
                 + (", ".join(f"`{a}`" for a in attributes) + "." if attributes else
                    "none (this version of the code defines none)."))
    return "\n\n".join(parts)


# -- (d) the fig figures ------------------------------------------------------------------------


def figure_rows(source: str, class_name: str = "Figures") -> list[list[str]]:
    """``fig.name(args)`` and the docstring's first line of each public method of ``class_name``."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    rows = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            args = node.args
            shown = [a.arg for a in args.posonlyargs + args.args][1:]  # not self
            if args.vararg:
                shown.append("*" + args.vararg.arg)
            shown += [a.arg + "=..." for a in args.kwonlyargs]
            if args.kwarg:
                shown.append("**" + args.kwarg.arg)
            docstring = ast.get_docstring(node) or ""
            first = docstring.strip().split("\n")[0] if docstring.strip() else ""
            rows.append([f"`fig.{node.name}({', '.join(shown)})`", first])
    return rows


def render_figures(path: Path = FIGURES_SOURCE) -> str:
    """Every public method of ``Figures`` and of the mixins beside it whose names end in Figures
    (``class Figures(KernelFigures)``: kernel_figures.py), read from their sources."""
    source = path.read_text(encoding="utf-8")
    rows = figure_rows(source)
    for base in _figure_bases(source):
        mixin = path.with_name(re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower() + ".py")
        if mixin.is_file():
            rows += figure_rows(mixin.read_text(encoding="utf-8"), base)
    return table(["figure", "what it is (the method's docstring)"], rows)


def _figure_bases(source: str, class_name: str = "Figures") -> list[str]:
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == class_name)
    return [b.id for b in cls.bases if isinstance(b, ast.Name) and b.id.endswith("Figures")]


# -- (e) data types -----------------------------------------------------------------------------


def tolerances() -> dict:
    return _from_code([(limits, "DTYPE_TOLERANCE")], {})


def _tolerance(value: Any, which: int, key: str) -> str:
    if isinstance(value, dict):
        return yaml_value(value.get(key))
    if isinstance(value, (list, tuple)):
        return yaml_value(value[which])
    return yaml_value(value)


def render_dtypes() -> str:
    spec_fields = {f.name: f for f in dataclasses.fields(model.MeasureSpec)}
    spec_default = " and ".join(f"`measure.{k}` (default {default_words(spec_fields[k])})" for k in ("rtol", "atol"))
    by_dtype = tolerances()
    buffer_keys = {f.name for f in dataclasses.fields(model.Buffer)}
    rows = []
    for dtype in limits.DTYPES:
        own = by_dtype.get(dtype)
        rows.append([f"`{dtype}`", str(sizes.DTYPE_BYTES.get(dtype, "")),
                     "`measure.rtol`" if own is None else f"`{_tolerance(own, 0, 'rtol')}`",
                     "`measure.atol`" if own is None else f"`{_tolerance(own, 1, 'atol')}`"])
    return "\n\n".join([
        table(["dtype", "bytes", "default rtol", "default atol"], rows),
        ("An output is checked with its buffer's own `rtol` and `atol` where the buffer sets them, else "
         if {"rtol", "atol"} <= buffer_keys else "An output is checked with ")
        + ("its dtype's defaults above, else " if by_dtype else "") + spec_default + ".",
    ])


# -- (f) limits --------------------------------------------------------------------------------


def render_limits() -> str:
    """The bounds a spec is held to, per key and for a whole measurement (``budget.limit_rows``)."""
    return table(["what", "bound"], budget.limit_rows())


# -- the sections and the file ------------------------------------------------------------------

SECTIONS: dict[str, Callable[[], str]] = {
    "spec-keys": render_keys,
    "expr-names": render_expressions,
    "claim-kinds": render_claims,
    "fig-figures": render_figures,
    "dtypes": render_dtypes,
    "spec-limits": render_limits,
}


class MarkerError(ValueError):
    """Markers that do not pair up, or name no known section."""


def split(text: str) -> list[tuple[str | None, str]]:
    """The document as (section name, body) for generated parts and (None, text) for the rest,
    the markers kept in the hand-written parts."""
    out: list[tuple[str | None, str]] = []
    pos = 0
    for m in START.finditer(text):
        end = text.find(END, m.end())
        nested = START.search(text, m.end())
        if end < 0 or (nested and nested.start() < end):
            raise MarkerError(f"'{m.group(0)}' has no '{END}' after it")
        out.append((None, text[pos:m.end()]))
        out.append((m.group(1), text[m.end():end]))
        pos = end
    out.append((None, text[pos:]))
    for i, (_, chunk) in enumerate(out[::2]):
        if chunk.count(END) != (1 if i else 0):  # after a section, its end marker and nothing else
            raise MarkerError(f"'{END}' without a '<!-- generated: ... -->' before it")
    return out


def regenerate(text: str, sections: dict[str, Callable[[], str]] | None = None) -> tuple[str, list[str]]:
    """``text`` with every generated section rewritten, and the names of those that changed."""
    sections = SECTIONS if sections is None else sections
    parts, stale, seen = [], [], []
    for name, body in split(text):
        if name is None:
            parts.append(body)
            continue
        if name not in sections:
            raise MarkerError(f"unknown section {name!r} (known: {', '.join(sections)})")
        if name in seen:
            raise MarkerError(f"section {name!r} appears twice")
        seen.append(name)
        fresh = "\n\n" + sections[name]() + "\n\n"
        if fresh != body:
            stale.append(name)
        parts.append(fresh)
    missing = [name for name in sections if name not in seen]
    if missing:
        raise MarkerError(f"no section for {', '.join(missing)}; add '<!-- generated: NAME -->' and '{END}'")
    return "".join(parts), stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m measure.spec.docgen", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated sections in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if a generated section is stale")
    parser.add_argument("path", nargs="?", type=Path, default=DOC)
    args = parser.parse_args(argv)
    shown = args.path.resolve()
    shown = shown.relative_to(ROOT) if shown.is_relative_to(ROOT) else args.path
    try:
        text = args.path.read_text(encoding="utf-8")
        fresh, stale = regenerate(text)
    except (OSError, MarkerError) as err:
        print(f"{shown}: {err}", file=sys.stderr)
        return 2
    if args.check:
        for name in stale:
            print(f"{shown}: section '{name}' is stale; run: {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    if fresh != text:
        args.path.write_text(fresh, encoding="utf-8")
    print(f"{shown}: {len(stale)} section(s) rewritten" + (f" ({', '.join(stale)})" if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
