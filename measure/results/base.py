"""What every record of a results file checks: numbers finite and within their field's bound,
then the record's own rules (``measure.typed.load`` calls ``validate`` once the fields are converted)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from typing import Any

from measure.typed import SchemaError


def field(text: str, *, above: float | None = None, at_least: float | None = None, **kwargs: Any) -> Any:
    """A documented field; ``above`` / ``at_least`` bound its numbers (every number in it, for a
    list or mapping), both when loading and in the JSON Schema."""
    meta: dict[str, Any] = {"doc": text}
    if above is not None:
        meta["bound"] = ("above", above)
    elif at_least is not None:
        meta["bound"] = ("at_least", at_least)
    return dataclasses.field(metadata=meta, **kwargs)


def _shown(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return repr(value)


def _check_number(key: str, value: Any, bound: tuple[str, float] | None) -> None:
    """Every number finite; within its field's bound where it has one (lists and mappings item by item)."""
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, tuple):
        kind, limit = bound or ("", 0.0)
        # The common case (samples: all finite and in bounds) in one pass; item by item only to name a bad one.
        if all(type(x) is float and math.isfinite(x) and (x > limit if kind == "above" else
                                                          x >= limit if kind == "at_least" else True)
               for x in value):
            return
        for i, item in enumerate(value):
            _check_number(f"{key}[{i}]", item, bound)
        return
    if isinstance(value, dict):
        for name, item in value.items():
            _check_number(f"{key}.{name}", item, bound)
        return
    if not isinstance(value, (int, float)):
        return  # a nested record: it checked itself when it was loaded
    what = "an integer" if isinstance(value, int) else "a number"
    if not math.isfinite(value):
        raise SchemaError(key, f"expected a finite number, found {_shown(value)}")
    if bound is None:
        return
    kind, limit = bound
    if kind == "above" and not value > limit:
        raise SchemaError(key, f"expected {what} above {_shown(float(limit))}, found {_shown(value)}")
    if kind == "at_least" and not value >= limit:
        raise SchemaError(key, f"expected {what} of at least {_shown(float(limit))}, found {_shown(value)}")


class Record:
    """Checks shared by every record: numbers finite and within bounds, then the record's own rules."""

    KEEP_SOURCE = True  # measure.typed.load keeps the JSON data each record was read from

    def plain(self) -> Any:
        """The JSON data this record was read from, as written (key order included); for a record
        built in code, its fields as plain data, None left out (as the harness writes them)."""
        source = getattr(self, "_source", None)
        return source if source is not None else to_plain(self)

    def validate(self) -> None:  # called by measure.typed.load once the fields are converted
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            _check_number(f.name, getattr(self, f.name), f.metadata.get("bound"))
        self._rules()

    def _rules(self) -> None:
        """Rules between fields; raise SchemaError(key relative to this record, message)."""


def nonempty(key: str, value: str | None) -> None:
    if value is not None and not value.strip():
        raise SchemaError(key, "expected text, found an empty string")


def timestamp(key: str, text: str) -> None:
    """An ISO-8601 date or time, or a SchemaError naming ``key``."""
    try:
        dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise SchemaError(key, f"expected a date or an ISO-8601 time (2026-11-29T12:06:48Z), "
                               f"found {text!r}") from None


def to_plain(value: Any) -> Any:
    """A record (or a list or mapping of them) as plain JSON data, None-valued keys left out."""
    if dataclasses.is_dataclass(value):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if getattr(value, f.name) is not None}
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value
