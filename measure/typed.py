"""Strict loading of plain YAML data into frozen dataclasses, and their JSON Schema.

One description of a document kind serves three purposes: validating what an
author wrote (with errors that name the key, what was expected and what was
found), building the typed model the rest of the code uses, and emitting the
JSON Schema that editors use while authors type.

Supported field types: str, int, float, bool, datetime.date, Literal[...],
list[T], dict[str, T], T | None, unions of those (``int | str``: the first type the value fits,
in the order written) and nested dataclasses.  Field documentation
lives in ``field(metadata={"doc": ...})``; ``doc()`` also takes bounds that are
checked on load and written into the schema: ``max_items`` (a list's items or a
mapping's keys, checked before any item is converted, so a huge list costs
nothing), ``unique_items`` (a repeated list item is an error naming its index)
and ``max_length`` (a text's characters, or each text item's of a list).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import functools
import re
import reprlib
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints


class SchemaError(ValueError):
    """A value that does not fit its declared type.

    ``key`` is a dotted path into the document (``measure.variants[1].launches``).
    """

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message


# Bounded: a YAML alias bomb shares one list a billion times over, and a full repr() would hang.
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 4, 4, 60, 60


def describe(value: Any) -> str:
    """A short, human description of a found value for error messages."""
    if value is None:
        return "nothing (null)"
    kind = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "a mapping",
        dt.date: "a date",
    }.get(type(value), type(value).__name__)
    shown = _SHORT.repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{kind} {shown}"


def type_name(tp: Any, dataclass_words: Any = None) -> str:
    """A field type in words, as error messages and the authors' reference say it ("a list of text").

    ``dataclass_words(cls)`` words a nested dataclass; by default its keys are listed."""
    origin = get_origin(tp)
    if tp is str:
        return "text"
    if tp is bool:
        return "true or false"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is dt.date:
        return "a date (YYYY-MM-DD)"
    if origin is Literal:
        return "one of: " + ", ".join(repr(a) for a in get_args(tp))
    if origin is list:
        return f"a list of {type_name(get_args(tp)[0], dataclass_words)}"
    if origin is dict:
        return f"a mapping of names to {type_name(get_args(tp)[1], dataclass_words)}"
    if _is_optional(tp):
        return type_name(_strip_optional(tp), dataclass_words)
    if _is_union(tp):
        names = [type_name(a, dataclass_words) for a in get_args(tp)]
        return ", ".join(names[:-1]) + " or " + names[-1]
    if dataclasses.is_dataclass(tp):
        if dataclass_words is not None:
            return dataclass_words(tp)
        return f"a mapping with keys {', '.join(f.name for f in dataclasses.fields(tp))}"
    return str(tp)


def _is_optional(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType) and type(None) in get_args(tp)


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _strip_optional(tp: Any) -> Any:
    rest = [a for a in get_args(tp) if a is not type(None)]
    return rest[0] if len(rest) == 1 else Union[tuple(rest)]


def _join(key: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{key}[{name}]"
    return f"{key}.{name}" if key else name


def load(cls: type, data: Any, key: str = "") -> Any:
    """Build dataclass ``cls`` from plain data, strictly.

    Raises SchemaError naming the first offending key.
    """
    return _convert(cls, data, key)


@functools.cache
def _plan(tp: Any) -> tuple[Any, Any, bool, bool, tuple]:
    """What ``_convert`` asks of a type, worked out once per type (it asked on each of 250,000
    values of a 1,000-entry build): the type without None where it is optional (else None), its
    origin, whether it is another union, whether a dataclass, its arguments."""
    inner = _strip_optional(tp) if _is_optional(tp) else None
    return inner, get_origin(tp), _is_union(tp), dataclasses.is_dataclass(tp), get_args(tp)


@functools.cache
def _type_name(tp: Any) -> str:
    return type_name(tp)


def _convert(tp: Any, value: Any, key: str) -> Any:
    inner, origin, union, dataclass, args = _plan(tp)
    if inner is not None:
        if value is None:
            return None
        return _convert(inner, value, key)
    if union:
        return _convert_union(tp, value, key, _type_name(tp))
    if dataclass:
        return _convert_dataclass(tp, value, key)
    expected = _type_name(tp)
    if origin is Literal:
        if value not in args:
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        (item,) = args
        return tuple(_convert(item, v, _join(key, i)) for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        _, item = args
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise SchemaError(key, f"expected text keys, found {describe(k)}")
            out[k] = _convert(item, v, _join(key, k))
        return out
    if tp is dt.date:
        return _convert_date(value, key)
    if tp is bool:
        if not isinstance(value, bool):
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        return value
    if tp is float:
        if isinstance(value, str) and _YAML11_FLOAT.match(value.strip()):
            return float(value)  # 1e-3: YAML 1.1 (PyYAML) reads an exponent without a point as text
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise SchemaError(key, f"expected {expected}, found {describe(value)}")
        return value
    raise TypeError(f"unsupported field type {tp!r} at {key}")  # a programming error


# A number in exponent form without a decimal point (1e-3, 5E+6): a float in YAML 1.2 and in every
# author's mind, text to PyYAML's YAML 1.1 resolver.
_YAML11_FLOAT = re.compile(r"^[-+]?[0-9]+[eE][-+]?[0-9]+$")


def _convert_union(tp: Any, value: Any, key: str, expected: str) -> Any:
    """The value as the first of the union's types it fits (``int | float``: 4 stays an integer).

    A mapping given where one branch is a dataclass is that branch's error (its key named), since
    the author evidently meant it; anything else that fits no branch names every branch."""
    options = get_args(tp)
    for option in options:
        if dataclasses.is_dataclass(option) and isinstance(value, dict):
            return _convert_dataclass(option, value, key)
    for option in options:
        try:
            return _convert(option, value, key)
        except SchemaError as err:
            if err.key != key:  # a fault inside a fitting container: that branch's own error
                raise
    raise SchemaError(key, f"expected {expected}, found {describe(value)}")


def _convert_date(value: Any, key: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise SchemaError(key, f"expected a date (YYYY-MM-DD), found {describe(value)}")


@functools.cache
def _shape(cls: Any) -> tuple[dict[str, dataclasses.Field], dict[str, Any]]:
    """A dataclass's fields by name and their resolved types, worked out once per class:
    get_type_hints evaluates every string annotation again on each call (half of loading)."""
    return {f.name: f for f in dataclasses.fields(cls)}, get_type_hints(cls)


def _convert_dataclass(cls: Any, value: Any, key: str) -> Any:
    if not isinstance(value, dict):
        raise SchemaError(key, f"expected a mapping, found {describe(value)}")
    fields, hints = _shape(cls)
    for name in value:
        if name not in fields:
            close = difflib.get_close_matches(str(name), fields, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            known = ", ".join(fields)
            raise SchemaError(_join(key, str(name)), f"unknown key (known keys: {known}){hint}")
    kwargs = {}
    for name, f in fields.items():
        if name in value:
            where = _join(key, name)
            _check_count(f.metadata, value[name], where)
            kwargs[name] = _convert(hints[name], value[name], where)
            _check_bounds(f.metadata, kwargs[name], where)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise SchemaError(_join(key, name), f"required key is missing (expected {_type_name(hints[name])})")
    obj = cls(**kwargs)
    if getattr(cls, "KEEP_SOURCE", False):  # the record keeps the data it was read from (a frozen dataclass)
        object.__setattr__(obj, "_source", value)
    check = getattr(obj, "validate", None)
    if check is not None:
        try:
            check()
        except SchemaError as err:
            raise SchemaError(_join(key, err.key) if err.key else key, err.message) from None
    return obj


def _check_count(meta: Any, value: Any, key: str) -> None:
    """A list or mapping longer than the field's ``max_items``: refused before its items are read."""
    most = meta.get("max_items")
    if most is not None and isinstance(value, (list, dict)) and len(value) > most:
        what = "items" if isinstance(value, list) else "keys"
        raise SchemaError(key, f"expected at most {most} {what}, found {len(value):,}; "
                               f"{meta.get('max_items_why', 'remove some')}")


def _check_bounds(meta: Any, value: Any, key: str) -> None:
    """``unique_items`` and ``max_length`` of a converted field value."""
    longest = meta.get("max_length")
    if longest is not None:
        texts = [(key, value)] if isinstance(value, str) else \
            [(_join(key, i), v) for i, v in enumerate(value)] if isinstance(value, tuple) else []
        for where, text in texts:
            if isinstance(text, str) and len(text) > longest:
                raise SchemaError(where, f"expected at most {longest} characters, found {len(text):,}: "
                                         f"{describe(text)}")
    if meta.get("unique_items") and isinstance(value, tuple):
        first: dict[Any, int] = {}
        for i, item in enumerate(value):
            try:
                earlier = first.setdefault(item, i)
            except TypeError:  # an unhashable item (a mapping): not a list this applies to
                return
            if earlier != i:
                raise SchemaError(_join(key, i), f"{describe(item)} repeats {_join(key, earlier)}; "
                                                 f"list it once")


def json_schema(cls: type, title: str | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of dataclass ``cls``."""
    defs: dict[str, dict] = {}
    _schema(cls, defs)
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if title:
        schema["title"] = title
    schema.update(defs.pop(cls.__name__))
    if defs:
        schema["$defs"] = dict(sorted(defs.items()))
    return schema


def _schema(tp: Any, defs: dict[str, dict]) -> dict:
    if _is_optional(tp):
        return {"anyOf": [_schema(_strip_optional(tp), defs), {"type": "null"}]}
    if _is_union(tp):
        return {"anyOf": [_schema(a, defs) for a in get_args(tp)]}
    origin = get_origin(tp)
    if dataclasses.is_dataclass(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder against recursion
            hints = get_type_hints(tp)
            props = {}
            required = []
            for f in dataclasses.fields(tp):
                prop = dict(_schema(hints[f.name], defs))
                _schema_bounds(f.metadata, prop)
                doc = f.metadata.get("doc")
                if doc:
                    prop["description"] = doc
                if f.default is not dataclasses.MISSING and f.default is not None:
                    prop["default"] = f.default
                props[f.name] = prop
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    required.append(f.name)
            body: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
            if required:
                body["required"] = required
            if tp.__doc__:
                body["description"] = " ".join(tp.__doc__.split())
            defs[name] = body
        return {"$ref": f"#/$defs/{name}"}
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin is list:
        return {"type": "array", "items": _schema(get_args(tp)[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(get_args(tp)[1], defs)}
    if tp is dt.date:
        return {"type": "string", "format": "date"}
    return {str: {"type": "string"}, bool: {"type": "boolean"}, int: {"type": "integer"},
            float: {"type": "number"}}[tp]


def _schema_bounds(meta: Any, prop: dict) -> None:
    """The field's bounds in JSON Schema words, on the field's own schema (or its non-null branch)."""
    target = prop["anyOf"][0] if "anyOf" in prop else prop
    if meta.get("max_items") is not None:
        target["maxProperties" if target.get("type") == "object" else "maxItems"] = meta["max_items"]
    if meta.get("unique_items"):
        target["uniqueItems"] = True
    if meta.get("max_length") is not None:
        text = target["items"] if target.get("type") == "array" else target
        text["maxLength"] = meta["max_length"]


def doc(text: str, *, max_items: int | None = None, unique_items: bool = False, max_length: int | None = None,
        max_items_why: str | None = None, **kwargs: Any) -> Any:
    """A dataclass field with documentation (shown in the JSON Schema), and optional bounds checked
    on load and shown in the schema: ``max_items`` (with ``max_items_why``, what to do instead),
    ``unique_items``, ``max_length``."""
    meta: dict[str, Any] = {"doc": text}
    if max_items is not None:
        meta["max_items"] = max_items
    if max_items_why:
        meta["max_items_why"] = max_items_why
    if unique_items:
        meta["unique_items"] = True
    if max_length is not None:
        meta["max_length"] = max_length
    return dataclasses.field(metadata=meta, **kwargs)


__all__ = ["SchemaError", "describe", "doc", "json_schema", "load", "type_name"]
