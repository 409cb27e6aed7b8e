"""SASS, the compiled code: ``cuobjdump -sass`` output read into opcode counts per kernel (pure).

A variant's meaning can rest on the instructions nvcc emits (``LDGSTS`` for cp.async, ``HMMA`` for
tensor cores, ``REDUX`` for a warp-aggregated atomic), so a claim may assert them
(``{kind: sass, variant: async, has: LDGSTS}``).  The harness disassembles each cubin it loads on
the node, in the sandbox (``measure.sandbox.sass``); this module reads what the tool printed, as
untrusted text: bounded in bytes, functions and distinct instructions.

An instruction is counted by its full mnemonic (``LDG.E.128.CONSTANT``); a claim's pattern
``LDG.E.128`` matches every mnemonic of that opcode carrying at least those modifiers, in any order
(``matches``).
"""

from __future__ import annotations

import re

# What is read of the tool's output, at most: a cubin of the largest real kernels prints a few MB.
MAX_TEXT_BYTES = 32 << 20
MAX_FUNCTIONS = 4096
MAX_MNEMONICS = 1024          # distinct mnemonics per function
MAX_MNEMONIC_CHARS = 64

_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S{1,512})\s*$")
# /*0040*/   @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;   (a predicate, and on old archs a "{" of a pair)
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-fA-F]{4,}\*/\s*\{?\s*(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")
# What a claim may name: an opcode and modifiers, LDGSTS or LDG.E.128
PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{0,31}(\.[A-Z0-9_]{1,31}){0,7}$")
# A count a claim expects: ">= 1", "== 0", "< 4", "2" (exactly).
COUNT = re.compile(r"^\s*(>=|<=|==|>|<|=)?\s*(\d{1,9})\s*$")


class SassError(ValueError):
    """Output that is not what ``cuobjdump -sass`` prints, or past the bounds."""


def parse_sass(text: str) -> dict[str, dict[str, int]]:
    """{function: {mnemonic: count}} from ``cuobjdump -sass`` text (pure, bounded)."""
    if len(text) > MAX_TEXT_BYTES:
        raise SassError(f"the disassembly is over {MAX_TEXT_BYTES >> 20} MiB")
    out: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    for line in text.splitlines():
        found = _FUNCTION.match(line)
        if found:
            if len(out) >= MAX_FUNCTIONS:
                raise SassError(f"the disassembly has more than {MAX_FUNCTIONS} functions")
            current = out.setdefault(found.group(1), {})
            continue
        if current is None:
            continue
        found = _INSTRUCTION.match(line)
        if found:
            mnemonic = found.group(1)[:MAX_MNEMONIC_CHARS]
            if mnemonic not in current and len(current) >= MAX_MNEMONICS:
                raise SassError(f"a function has more than {MAX_MNEMONICS} distinct instructions")
            current[mnemonic] = current.get(mnemonic, 0) + 1
    return out


def matches(pattern: str, mnemonic: str) -> bool:
    """Whether ``mnemonic`` (LDG.E.128.CONSTANT) is an instance of ``pattern`` (LDG.E.128): the same
    opcode, with every modifier the pattern names."""
    want, have = pattern.split("."), mnemonic.split(".")
    return want[0] == have[0] and set(want[1:]) <= set(have[1:])


def count(pattern: str, histogram: dict[str, int]) -> int:
    """Instructions of ``histogram`` that ``pattern`` matches."""
    return sum(n for mnemonic, n in histogram.items() if matches(pattern, mnemonic))


def parse_count(text: str) -> tuple[str, int]:
    """('>=', 1) from '>= 1'; a bare number is exact ('==').  ValueError where it is not one."""
    found = COUNT.match(str(text))
    if found is None:
        raise ValueError(f"expected a count such as \">= 1\", \"== 0\" or \"4\", found {text!r}")
    op = found.group(1) or "=="
    return ("==" if op == "=" else op), int(found.group(2))


def compare(value: int, op: str, bound: int) -> bool:
    return {">=": value >= bound, "<=": value <= bound, "==": value == bound, ">": value > bound,
            "<": value < bound}[op]
