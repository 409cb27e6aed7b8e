"""Lint: numerals in an entry's body that look like hand-typed measurements.

Measured figures belong in template expressions bound to recorded results
(see ``glossary.figures.fig``).  This finds numbers with a measurement's unit (ms,
µs, GB/s, GFLOP/s, B/elem, bytes per element) and ×-speedups written as
plain text.  Code blocks, inline code and template expressions are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from glossary.entries.model import Entry

_NUMBER = r"(?<![\w.])\d[\d,]*(?:\.\d+)?"
_PATTERNS = [
    ("time", rf"{_NUMBER}\s*(?:ms|µs|us|ns|milliseconds?|microseconds?|nanoseconds?)\b"),
    ("bandwidth", rf"{_NUMBER}\s*(?:[GTM]B/s|[GT]iB/s|gigabytes per second)"),
    ("rate", rf"{_NUMBER}\s*(?:[GT]FLOP/?s|[GT]FLOPS)\b"),
    ("bytes per element", rf"{_NUMBER}\s*(?:B/elem|bytes?/elem(?:ent)?|bytes? per element)\b"),
    ("speedup", rf"{_NUMBER}\s*(?:x|×)(?![\w])"),
    ("speedup", r"(?<![\w.])\d+\.\d+\s+times\b"),
    ("percent of a ceiling", rf"{_NUMBER}\s*%\s+of\s+(?:the\s+)?(?:copy\s+)?(?:floor|peak|bandwidth)"),
]
_REGEX = re.compile("|".join(f"(?P<p{i}>{p})" for i, (_, p) in enumerate(_PATTERNS)), re.I)


@dataclass(frozen=True)
class Finding:
    """One suspicious figure: where it is and what it looks like."""

    path: str
    line: int
    text: str
    kind: str

    def __str__(self) -> str:
        return (f"{self.path}:{self.line}: '{self.text}' looks like a hand-typed {self.kind} figure; "
                f"bind it to the results with {{{{ fig... }}}} (see glossary/figures/fig.py for the figures)")


def _mask(body: str) -> str:
    """Blank out code fences, inline code and template expressions, keeping line numbers."""
    def blank(match: re.Match) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    body = re.sub(r"^(```|~~~).*?^\1[^\n]*$", blank, body, flags=re.S | re.M)
    body = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", blank, body, flags=re.S)
    body = re.sub(r"`[^`\n]*`", blank, body)
    return body


def unbound_figures(entry: Entry) -> list[Finding]:
    """Every numeral in the body that looks like an unbound measurement."""
    text = _mask(entry.body)
    front_lines = entry.path.read_text(encoding="utf-8").count("\n") - entry.body.count("\n") if entry.path.exists() else 0
    findings = []
    for match in _REGEX.finditer(text):
        kind = next(_PATTERNS[int(name[1:])][0] for name, value in match.groupdict().items() if value)
        line = text.count("\n", 0, match.start()) + 1 + front_lines
        findings.append(Finding(str(entry.path), line, match.group(0), kind))
    return findings
