"""Editing an entry's front-matter text in place: set keys, keep every other byte.

The sign-off (``glossary sign``) writes its keys this way, and the scaffold writes author
text as YAML scalars, so comments, key order and layout an author chose survive.
"""

from __future__ import annotations

import json

import yaml


class EditError(ValueError):
    """The front-matter cannot be edited safely; the message says why."""


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar: plain where that reads back as the same text, else double-quoted."""
    plain_ok = "#" not in value and ": " not in value and not value.endswith(":")
    if plain_ok:
        try:
            plain_ok = yaml.safe_load(f"k: {value}\n") == {"k": value}
        except yaml.YAMLError:
            plain_ok = False
    return value if plain_ok else json.dumps(value, ensure_ascii=False)


def set_keys(front: str, values: dict[str, str], order: tuple[str, ...]) -> str:
    """``front`` (front-matter text) with each key of ``values`` set to its YAML text: a key that is
    there keeps its place and its line's other bytes; a new key goes beside its neighbours in
    ``order``.  Raises EditError where the text is not a block mapping."""
    try:
        root = yaml.compose(front, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        raise EditError(f"front-matter is not valid YAML: {err}") from None
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise EditError("expected the front-matter to be a block mapping of keys to values")
    newline = "\r\n" if "\r\n" in front else "\n"
    nodes = {k.value: (k, v) for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value in values}
    # (start, end, order, replacement) in ``front``; at one index, a changed value (order 0)
    # stays before added lines (order 1 + their place in ``order``)
    edits: list[tuple[int, int, int, str]] = []
    for key, text in values.items():
        if key in nodes:
            value_node = nodes[key][1]
            a, b = value_node.start_mark.index, value_node.end_mark.index
            span = front[a:b]
            tail = span[len(span.rstrip("\r\n")):]
            lead = "" if a > 0 and front[a - 1] in " \t" else " "
            edits.append((a, b, 0, lead + text + tail))
    for i, key in enumerate(order):
        if key not in values or key in nodes:
            continue
        before = [k for k in order[:i] if k in nodes]
        after = [k for k in order[i + 1:] if k in nodes]
        column = root.value[0][0].start_mark.column if root.value else 0
        line = " " * column + f"{key}: {values[key]}"
        if before:
            at = _line_end(front, nodes[before[-1]][1].end_mark.index)
            edits.append((at, at, 1 + i, line + newline if front[at - 1:at] == "\n" else newline + line))
        elif after:
            at = nodes[after[0]][0].start_mark.index - nodes[after[0]][0].start_mark.column
            edits.append((at, at, 1 + i, line + newline))
        else:
            edits.append((len(front), len(front), 1 + i, ("" if front.endswith("\n") else newline) + line))
    for a, b, _, replacement in sorted(edits, reverse=True):
        front = front[:a] + replacement + front[b:]
    return front


def _line_end(text: str, index: int) -> int:
    """The index just past the end of the line holding ``index`` (a value that ends at a line start stays)."""
    if index > 0 and text[index - 1] == "\n":
        return index
    cut = text.find("\n", index)
    return len(text) if cut < 0 else cut + 1
