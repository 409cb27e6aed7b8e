"""Claims of kind sass: a variant's compiled code against the instructions the entry says it has.

Judged once per device, from the disassembly the result records (``measure.results.SassRecord``,
read on the node by ``cuobjdump -sass``): each instruction of ``has`` present, none of ``lacks``,
each count of ``count`` met, summed over the variant's kernels (or ``kernel`` alone).  A result
without a disassembly (measured where cuobjdump was not, or before results carried one) leaves the
claim "not checked", never held.  The verdict's numbers are the counts, so the page shows them
where the claim is.
"""

from __future__ import annotations

from typing import Any

from measure import sass
from measure.spec import Claim


def describe_sass(claim: Claim, variant: str | None) -> str:
    """The claim in words: 'the compiled code of async has LDGSTS and lacks LDG.E.128'."""
    parts = []
    if claim.sass_has:
        parts.append("has " + _and(claim.sass_has))
    if claim.sass_lacks:
        parts.append("has no " + _or(claim.sass_lacks))
    for name, bound in (claim.count or {}).items():
        op, n = sass.parse_count(bound)
        parts.append(f"{_OP_WORDS[op]} {n:,} {name}")
    whose = f"kernel {claim.kernel} of {variant}" if claim.kernel else variant
    return f"the compiled code of {whose} " + _and(parts)


_OP_WORDS = {">=": "at least", "<=": "at most", "==": "exactly", ">": "more than", "<": "fewer than"}


def judge_sass(claim: Claim, record: Any) -> tuple[str, str]:
    """(status, numbers) of a sass claim against a result's disassembly record (None: none)."""
    if record is None:
        return "n/a", "not checked: the result holds no disassembly (measured before results recorded SASS)"
    if record.unavailable:
        return "n/a", f"not checked: {record.unavailable}"
    kernels = (record.variants or {}).get(claim.variant)
    if kernels is None:
        return "n/a", f"not checked: the disassembly has no kernels of {claim.variant}"
    if claim.kernel is not None:
        kernels = {claim.kernel: kernels.get(claim.kernel, {})}
    total: dict[str, int] = {}
    for histogram in kernels.values():
        for mnemonic, n in histogram.items():
            total[mnemonic] = total.get(mnemonic, 0) + n
    failed, shown = [], []
    for pattern in claim.sass_has:
        n = sass.count(pattern, total)
        shown.append(f"{pattern} {n:,}")
        if n < 1:
            failed.append(pattern)
    for pattern in claim.sass_lacks:
        n = sass.count(pattern, total)
        shown.append(f"{pattern} {n:,}")
        if n:
            failed.append(pattern)
    for pattern, bound in (claim.count or {}).items():
        n = sass.count(pattern, total)
        op, want = sass.parse_count(bound)
        shown.append(f"{pattern} {n:,}")
        if not sass.compare(n, op, want):
            failed.append(pattern)
    where = ", ".join(sorted(kernels))
    arch = f" ({record.arch} cubin, {record.tool})" if record.arch else ""
    numbers = f"{'; '.join(shown)} instructions in {where}{arch}"
    return ("fails" if failed else "holds"), numbers


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _or(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
