"""An entry's front-matter text: read strictly, and edited in place.

Reading: ``mkdocs.utils.meta.get_data`` swallows YAML errors; a verified glossary must fail
loudly instead, so the YAML is read here with duplicate keys, tags it does not know, alias
expansion past a budget and bad dates refused as ``EntryError`` naming the file and the key.

Editing: the sign-off (``glossary sign``) sets its keys, and the scaffold writes author text as
YAML scalars, keeping every other byte, so comments, key order and layout an author chose survive.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from glossary.entries.errors import EntryError
from measure.typed import describe

FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_EMPTY_FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n---[ \t]*(?:\r?\n|\Z)")
_TOP_KEY_RE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")
# The front-matter (the largest real one is 6 KB): when libyaml refuses it, the pure-Python loader
# reads it again for its messages, at about 150 KB a second.
MAX_FRONT_MATTER_BYTES = 64 * 1024
# Values the front-matter expands to, counting each use of a YAML alias as a copy of what it names:
# a real entry's is under 1,000.  Aliases share nodes, so a 15 KB document can stand for 90 million
# launch arguments (30 variants x 1,000 launches x 3,000 args), which the model would then walk one
# by one for minutes.  Counted on the node graph before anything is built, so the count is cheap.
MAX_YAML_VALUES = 100_000


# -- reading --------------------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys instead of keeping the last one."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            first = seen.get(key)
        except TypeError:  # an unhashable key ("? [a, b]"): SafeLoader reports it below
            continue
        if first is not None:
            # +2: marks count from 0 inside the front-matter, which starts on the file's line 2
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {first + 2})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


def _construct_timestamp(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
    # An impossible date such as 2026-13-45 stays text, so the model can say which key is wrong.
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except ValueError:
        return loader.construct_scalar(node)


# libyaml's parser where PyYAML was built with it: the same constructors (they work on nodes,
# whichever parser made them), about nine times faster than the pure-Python scanner
# (3.4 s against 30 s profiled over 1,000 entries, BENCHMARKS.md).
_FastLoader: type = type("_FastLoader", (yaml.CSafeLoader,), {}) if yaml.__with_libyaml__ else _StrictLoader

for _loader in (_StrictLoader, _FastLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


class _ExpansionError(Exception):
    """A front-matter whose aliases expand past MAX_YAML_VALUES (or refer to themselves)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def _load_yaml(front: str) -> Any:
    """The front-matter as data: parsed by libyaml, or on any error by the pure loader again,
    whose messages and marks (line, column, problem) are the ones users see.  Either way the
    composed node graph is sized (``_check_expansion``) before any Python value is built."""
    if _FastLoader is not _StrictLoader:
        try:
            return _load_with(_FastLoader, front)
        except (yaml.YAMLError, RecursionError):
            pass
    return _load_with(_StrictLoader, front)


def _load_with(loader_class: type, front: str) -> Any:
    loader = loader_class(front)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph that expands to more than MAX_YAML_VALUES values, or loops.

    Aliases make the graph a DAG (or, with an alias inside its own anchor, a cycle); the expanded
    size of each node is 1 + its children's, worked out once per node (iteratively: a deep
    nesting must not exhaust the stack here)."""
    if isinstance(root, yaml.ScalarNode):
        return
    sizes: dict[int, int] = {}
    on_path: set[int] = set()  # the nodes being sized: the current path from the root
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack[-1]
        ident = id(node)
        if ident in sizes:
            stack.pop()
            continue
        children = _children(node)
        if ident not in on_path:
            on_path.add(ident)
            pending = [c for c in children if not isinstance(c, yaml.ScalarNode) and id(c) not in sizes]
            for child in pending:
                if id(child) in on_path:
                    raise _ExpansionError(_top_key(root, child), "a YAML alias refers to the node that contains "
                                                                 "it, so the value would be infinite; write it out")
            if pending:
                stack.extend(pending)
                continue
        total = 1 + sum(1 if isinstance(c, yaml.ScalarNode) else sizes[id(c)] for c in children)
        sizes[ident] = min(total, MAX_YAML_VALUES + 1)  # capped: the exact excess is never needed
        on_path.discard(ident)
        stack.pop()
    if sizes[id(root)] > MAX_YAML_VALUES:
        key, biggest = "", 0
        if isinstance(root, yaml.MappingNode):
            for key_node, value_node in root.value:
                size = sizes.get(id(value_node), 1)
                if size > biggest and isinstance(key_node, yaml.ScalarNode):
                    key, biggest = key_node.value, size
        raise _ExpansionError(key, f"the front-matter expands to more than {MAX_YAML_VALUES:,} values (YAML "
                                   f"aliases count once per use); a real entry has under 1,000: write the "
                                   f"values out instead of repeating anchors")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _top_key(root: yaml.Node, node: yaml.Node) -> str:
    """The top-level key whose value is (or holds) ``node``'s anchor, as far as cheaply known."""
    if isinstance(root, yaml.MappingNode):
        for key_node, value_node in root.value:
            if value_node is node and isinstance(key_node, yaml.ScalarNode):
                return key_node.value
        mark = node.start_mark.line
        best = ""
        for key_node, _ in root.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.start_mark.line <= mark:
                best = key_node.value
        return best
    return ""


def split_front_matter(text: str, path: Path | str) -> tuple[dict, str]:
    """Split an entry into its YAML front-matter (as plain data) and its Markdown body."""
    text = text.lstrip("\ufeff")
    empty = _EMPTY_FRONT_MATTER_RE.match(text)
    if empty:
        raise EntryError(path, "title", "the front-matter is empty; it needs at least title and summary")
    match = FRONT_MATTER_RE.match(text)
    if not match:
        if re.match(r"---[ \t]*\r?\n", text):
            raise EntryError(path, "", "the front-matter opened with '---' on line 1 is never closed; "
                                       "add a line '---' after its last key")
        raise EntryError(path, "", "expected YAML front-matter between '---' lines at the top of the file")
    front = match.group(1)
    if len(front) > MAX_FRONT_MATTER_BYTES:
        raise EntryError(path, "", f"the front-matter is {len(front):,} characters; at most "
                                   f"{MAX_FRONT_MATTER_BYTES:,} are read (a real one is a few thousand): "
                                   f"move prose into the body")
    try:
        data = _load_yaml(front)
    except _ExpansionError as err:
        raise EntryError(path, err.key, err.message) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 2}, column {mark.column + 1})" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        if "\t" in problem or "'\\t'" in problem:
            problem += "; indent with spaces, not tabs"
        key = _key_at(front, mark.line) if mark else ""
        raise EntryError(path, key, f"front-matter is not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise EntryError(path, "", "front-matter nests too deeply to be an entry's") from None
    if data is None:
        raise EntryError(path, "title", "the front-matter is empty; it needs at least title and summary")
    if not isinstance(data, dict):
        raise EntryError(path, "", f"expected the front-matter to be a mapping of keys to values, "
                                   f"found {describe(data)}")
    return data, text[match.end():]


def _key_at(front: str, line: int) -> str:
    """The top-level key whose value holds front-matter line ``line`` (0-based), for messages."""
    for text in reversed(front.splitlines()[:line + 1]):
        found = _TOP_KEY_RE.match(text)
        if found:
            return found.group(1)
    return ""


# -- editing --------------------------------------------------------------------------------


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
