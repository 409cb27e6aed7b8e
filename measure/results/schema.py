"""The JSON Schema of a results file, generated from the model (``python -m measure.results``
writes ``schema/result.schema.json``; a test checks the committed one is current)."""

from __future__ import annotations

import dataclasses
import json

from measure.results.model import FORMAT, Result
from measure.typed import json_schema


def result_schema() -> dict:
    """The JSON Schema of a results file, with the model's numeric bounds."""
    schema = json_schema(Result, title="Verified CUDA glossary results file")
    records = {cls.__name__: cls for cls in _records(Result)}
    for name, body in [("Result", schema)] + list(schema.get("$defs", {}).items()):
        cls = records[name]
        for f in dataclasses.fields(cls):
            bound = f.metadata.get("bound")
            if bound is not None:
                _bound_schema(body["properties"][f.name], bound)
    schema["properties"]["format"]["const"] = FORMAT
    return json.loads(json.dumps(schema))  # plain JSON data: tuple defaults become lists


def _records(cls: type, seen: dict[str, type] | None = None) -> list[type]:
    from typing import get_args, get_type_hints

    seen = {} if seen is None else seen
    if cls.__name__ in seen:
        return []
    seen[cls.__name__] = cls
    stack = list(get_type_hints(cls).values())
    while stack:
        tp = stack.pop()
        if dataclasses.is_dataclass(tp):
            _records(tp, seen)
        stack.extend(get_args(tp))
    return list(seen.values())


def _bound_schema(prop: dict, bound: tuple[str, float]) -> None:
    """Put the bound on every number the property holds (through null, arrays and mappings)."""
    if prop.get("type") in ("number", "integer"):
        kind, limit = bound
        prop["exclusiveMinimum" if kind == "above" else "minimum"] = limit
    for option in prop.get("anyOf", ()):
        _bound_schema(option, bound)
    if isinstance(prop.get("items"), dict):
        _bound_schema(prop["items"], bound)
    if isinstance(prop.get("additionalProperties"), dict):
        _bound_schema(prop["additionalProperties"], bound)
