"""An author's quick look (`glossary try`): one size, no counters, nothing recorded.

The spec is cut down to one size (the headline, or the one asked for) with the counter pass
off; the harness checks every output element and times as always, and the figures (the page's
own views of them, ``glossary.figures.views``) go to the terminal only: a published figure still comes only from a full measurement on the node.
"""

from __future__ import annotations

import dataclasses

from measure.spec import MeasureSpec


class QuickError(ValueError):
    """The size asked for cannot be measured; the message says why."""


def parse_size(pairs: tuple[str, ...] | list[str]) -> dict[str, int]:
    """['n=1048576'] -> {'n': 1048576}; QuickError names a pair that is not NAME=INTEGER."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            out[name.strip()] = int(value.replace("_", "").replace(",", ""))
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise QuickError(f"--size {pair!r}: expected NAME=INTEGER, e.g. n=1048576")
    return out


def quick_spec(spec: MeasureSpec, size: dict[str, int] | None = None) -> MeasureSpec:
    """``spec`` at one size (its headline, with ``size``'s values over it) and without counters."""
    point = dict(spec.headline, **(size or {}))
    unknown = sorted(set(point) - set(spec.headline))
    if unknown:
        raise QuickError(f"--size {', '.join(unknown)}: not a size parameter of this entry "
                         f"(its sizes have {', '.join(sorted(spec.headline))})")
    return dataclasses.replace(spec, sizes=[point], headline=point, counters=False)
