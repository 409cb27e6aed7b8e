"""A spec as plain data, each field left out where it holds its default (``canonical``): what a measurement's
fingerprint (``measure.results.identity``) and a trial's marker (``glossary.trial_cache``) are keyed by.
Here, beside the spec, so that keying a trial does not import the results model."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any


def canonical(value: Any) -> Any:
    """A spec as plain data, each field left out where it holds its default: what a measurement is
    for, written so that a key the schema gains later (with a default that changes nothing) leaves
    every recorded fingerprint as it was."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = canonical(getattr(value, f.name))
            default = _canonical_default(type(value), f.name)
            if default is not dataclasses.MISSING and _plain(item) == default:
                continue
            out[f.name] = item
        return out
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


@functools.cache
def _canonical_default(cls: type, name: str) -> Any:
    """The field's default as ``_plain(canonical(...))`` sees it (MISSING where it has none): worked
    out once per field, where it was worked out (a default made anew) for every field of every spec."""
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    default = f.default if f.default is not dataclasses.MISSING else \
        f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING
    return default if default is dataclasses.MISSING else _plain(canonical(default))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
