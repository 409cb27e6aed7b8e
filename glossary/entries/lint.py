"""Lint: numbers in an entry's body that look like hand-typed figures.

A figure on a page is either measured, bound to recorded results with ``{{ fig... }}``
(``glossary.figures.fig``), or cited from one of the entry's sources with ``{{ cite(...) }}`` /
``{% call cite_table(...) %}`` (``glossary.figures.cite``).  This finds the numbers with a
figure's unit (ms, msec, µs, GB/s, TB/sec, GB per second, TFLOPS, billion FLOPS, B/elem, MHz, W,
a capacity such as "50 MiB L2", Chinese TB/秒 and 毫秒, ...), in digits, in scientific notation
("1.1e4 GB/s") or spelled as words ("nine PFLOPS"), the ×-, -fold and 倍 ratios and the table
columns of such numbers that are written as plain text instead.  "FLOPs" is a count, not a rate.

Not flagged, because they are not figures:

- code (fences, spans), template expressions, cited tables and ``{{ nofig("...") }}``;
- arithmetic that holds ("32 × 4 = 128 bytes", "16 × 8 × 16 = 2,048") or a product without a
  result ("32 threads × 4 bytes"); arithmetic that does not hold is flagged as such;
- a number in a sentence that says it is hypothetical or conditional ("suppose", "imagine",
  "say,", "e.g.", "for example", "for instance", "hypothetical", "if", "would", "could",
  "might", "assume", and in Chinese 如果, 假设, 假如, 例如, ...): measurements are reported as what happened;
- a count or a problem size ("2 FLOPs per element", "a 256 MiB buffer");
- an order of magnitude: a round power of ten of 100 or more as a ratio ("1000x faster").
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass

from glossary.entries.model import Entry
from glossary.entries.masking import code_regions

# A number starts after no Latin letter, digit or separator ("H100", "sm_90" hold none), but may
# follow a CJK character: running Chinese has no spaces ("带宽为3.35TB/秒").
_DIGITS = r"(?<![.,0-9A-Za-z_\u00C0-\u024F])\d[\d,]*(?:\.\d+)?"
# Numbers spelled as words ("nine PFLOPS", "twenty-four hundred GB/s"), for figures with a unit.
_UNIT_WORDS = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
               "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety")
_WORD_NUMBER = (rf"(?<![\w-])(?:(?:{_UNIT_WORDS})(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
                r"(?:\s+(?:hundred|thousand|million|billion|trillion)){0,2}"
                r"|an?(?:\s+(?:hundred|thousand|million|billion|trillion)){1,2})(?![\w-])")
_NUMBER = rf"(?:{_DIGITS}(?:[eE][+-]?\d+)?|{_WORD_NUMBER})"  # "1.1e4 GB/s" too
_SCALE = r"(?:thousand|million|billion|trillion)"
# Units; (?-i:...) where case carries the meaning: "FLOPS" and "FLOP/s" are rates, "FLOPs" a count
# (not a figure unless per second), "W" is watts and "w" nothing.  Chinese units end without \b:
# CJK characters are word characters, so "TB/秒的" has no word boundary after 秒.
_UNITS = [
    ("time", r"(?:(?:ms|msecs?|µs|μs|us|usecs?|µsecs?|μsecs?|ns|nsecs?|secs?|seconds?|milliseconds?|microseconds?|"
             r"nanoseconds?)\b|毫秒|微秒|纳秒|秒)"),
    ("bandwidth", r"(?:[KMGTP]i?B/s(?:ec)?\b|[KMGTP]i?Bps\b|[KMGTP]i?B\s+(?:per|a|each)\s+second\b|"
                  r"(?:kilo|mega|giga|tera|peta)bytes?\s+(?:per|a|each)\s+second\b|[KMGTP]i?B\s*(?:/|／|每)\s*秒)"),
    ("rate", rf"(?:(?-i:[KMGTPE]?FLOP/s(?:ec)?|[KMGTPE]?FLOPS|[KMGTPE]?FLOPs(?:/s|\s+per\s+second)|[KMGTPEkmgtpe]?flops|"
             rf"[KMGTPE]flop/s|[KMGTPE]?Flops|[KMGTP]OPS)|(?:kilo|mega|giga|tera|peta|exa)flops|"
             rf"{_SCALE}\s+(?:(?-i:FLOPS|FLOP/s|flops)|operations\s+per\s+second))\b"),
    ("bytes per element", r"(?:B/elem|bytes?/elem(?:ent)?|bytes?\s+per\s+element)\b"),
    ("clock", r"(?:[kKMG]Hz|(?:kilo|mega|giga)hertz)\b"),
    ("power", r"(?:(?-i:k?W)|watts?|kilowatts?)\b"),
    ("speedup", r"(?:x|×)(?!\s*\d)(?![\w])"),
]
_HEADER_KINDS = ("time", "bandwidth", "rate", "bytes per element", "clock", "power")  # table columns of figures
# A size is a figure when it is a capacity of the hardware ("50 MiB L2", "228 KiB of shared memory",
# "an L2 cache of 50 MiB"), not a problem size ("a 256 MiB buffer"): binary units, the part named beside them.
_PART = r"(?:L[123](?:\s+cache)?|caches?|shared\s+memory|register\s+files?|HBM\w*|VRAM|GDDR\w*|共享内存|缓存|寄存器|显存)"
_SIZE = r"[KMGT]iB"
_PATTERNS = [(kind, rf"{_NUMBER}\s*{unit}" if kind != "speedup" else rf"{_DIGITS}\s*{unit}")
             for kind, unit in _UNITS] + [
    ("speedup", r"(?<![\w.])\d+\.\d+\s+times\b"),
    ("speedup", rf"(?:{_DIGITS}|{_WORD_NUMBER})\s*-?\s*fold\b|(?<![\w-])(?:two|three|four|five|six|seven|eight|nine|ten|"
                rf"twenty|hundred|thousand)fold\b|{_DIGITS}\s*倍"),
    ("percent of a ceiling", rf"{_DIGITS}\s*%\s+of\s+(?:the\s+)?(?:copy\s+)?(?:floor|peak|bandwidth)"),
    ("size", rf"{_NUMBER}\s*{_SIZE}\s+(?:of\s+)?(?:[\w-]+\s+){{0,2}}?{_PART}(?!\w)|"
             rf"(?<!\w){_PART}\s+(?:[\w-]+\s+){{0,4}}?{_NUMBER}\s*{_SIZE}\b|{_NUMBER}\s*{_SIZE}\s*(?:的)?{_PART}"),
]
_REGEX = re.compile("|".join(f"(?P<p{i}>{p})" for i, (_, p) in enumerate(_PATTERNS)), re.I)
# Where a match of _REGEX can start: every pattern begins with a digit, a spelled number (_WORD_NUMBER,
# "twofold", "hundredfold") or a part's name (_PART), each at the start of a word.  Trying _REGEX only
# there finds what its finditer finds, without trying its fifteen alternatives at every character
# (10 µs a character), nor at every word.  The words are looked ahead at, so no start is consumed.
_CAN_START = re.compile(rf"\d|(?<![\w-])(?=(?:{_UNIT_WORDS}|an?|hundred|thousand))|(?<!\w)(?={_PART})", re.I)
# A table header naming a figure's unit: "Memory bandwidth (TB/s)", "TFLOPS", "Latency [ns]".
_HEADER_UNIT = re.compile("|".join(f"(?P<p{i}>(?<![\\w/]){u})" for i, (kind, u) in enumerate(_UNITS)
                                   if kind in _HEADER_KINDS), re.I)
_BARE_NUMBER = re.compile(r"^[~≈<>]?\s*\d[\d,]*(?:\.\d+)?\s*\*{0,2}$")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
TABLE_CELL = re.compile(r"(?<!\\)\|")

# Arithmetic: numbers joined by operators, each with up to three words of unit after it, perhaps
# with a result: "32 threads × 4 bytes = 128 bytes".  Bounded repetitions: the scan stays linear.
_WORDS = r"(?:[ \t]+[A-Za-z][A-Za-z-]{0,24}){0,3}"
_OP = r"[ \t]*(?:×|\*|·|/|\+|−|–|(?<=[ \t])x(?=[ \t])|(?<=[ \t])-(?=[ \t]))[ \t]*"
_ARITH = re.compile(rf"({_DIGITS}){_WORDS}(?:{_OP}\d[\d,]*(?:\.\d+)?{_WORDS})+(?:[ \t]*=[ \t]*(\d[\d,]*(?:\.\d+)?))?")
_SCALED = re.compile(r"[ \t]*(?:[KMGTP]i?B\b|[kKMGTP]\b|thousand|million|billion|trillion|%)")
_OPS = {"×": "*", "*": "*", "·": "*", "x": "*", "/": "/", "+": "+", "−": "-", "–": "-", "-": "-"}
_ARITH_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

# Chinese words of a supposition (如果, 假设: "if", "suppose"; 假如, 倘若, 若是, 假定, 例如, 比如) stand
# inside running text without spaces, so they carry no \b.
_HYPOTHETICAL = re.compile(r"\b(?:suppose|supposing|imagine|hypothetical(?:ly)?|say,|e\.g\.|for\s+example|"
                           r"for\s+instance|if|would|could|might|assume|assuming)(?!\w)"
                           r"|如果|假设|假如|倘若|若是|假定|例如|比如|譬如", re.I)
_ORDER_OF_MAGNITUDE = re.compile(r"^10{2,}\s*(?:x|×|-?\s*fold)$", re.I)
# A sentence ends at . ! ? before a space (not the dot of "e.g.", "i.e.", "vs.", "etc.", "cf.") or at a blank line.
# ... and at 。！？ (Chinese sentences end with no space after).
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\betc)(?<!\bcf)[.!?](?=\s|$)|[。！？]|\n\s*\n")

_HOW = ('bind it to the results with {{{{ fig... }}}}, cite its source with {{{{ cite("{text}", "<source id>") }}}}, '
        'or mark it as no figure with {{{{ nofig("{text}") }}}} (see docs/maintainers/writing-an-entry.md, '
        '"Figures: measured, cited or none")')


@dataclass(frozen=True)
class Finding:
    """One suspicious figure: where it is and what it looks like."""

    path: str
    line: int
    text: str
    kind: str
    why: str = ""  # for arithmetic that does not hold and table columns: what is wrong

    def __str__(self) -> str:
        if self.kind == "arithmetic":
            return f"{self.path}:{self.line}: '{self.text}' does not hold ({self.why}); correct it"
        if self.kind == "table column":
            return (f"{self.path}:{self.line}: {self.why}; wrap the table in {{% call cite_table(\"<source id>\") %}} "
                    f"... {{% endcall %}} to cite its source, or bind its figures with {{{{ fig... }}}}")
        return f"{self.path}:{self.line}: '{self.text}' looks like a hand-typed {self.kind} figure; " + \
            _HOW.format(text=self.text.replace('"', "'"))


_TEMPLATE_OPEN = re.compile(r"\{[{%#]")
_TEMPLATE_CLOSE = {"{{": "}}", "{%": "%}", "{#": "#}"}
_CITED_OPEN = re.compile(r"\{%-?\s*call\s+cite_table\b")
_CITED_CLOSE = re.compile(r"\{%-?\s*endcall\s*-?%\}")


def _mask(body: str) -> str:
    """Blank out code, cited tables and template expressions, keeping line numbers.

    Each scan finds an opener, then its closer after it, and goes on from there; an opener with
    no closer ends that kind's scan (no later one can close either), so hostile input of many
    unclosed openers costs one pass, not one pass per opener."""
    chars = list(body)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    for start, end in code_regions(body):
        blank(start, end)
    text = "".join(chars)
    at = 0
    while (opened := _CITED_OPEN.search(text, at)) and (closed := _CITED_CLOSE.search(text, opened.end())):
        blank(opened.start(), closed.end())
        at = closed.end()
    text = "".join(chars)
    at, exhausted = 0, set()
    while (opened := _TEMPLATE_OPEN.search(text, at)) is not None:
        kind = opened.group(0)
        end = -1 if kind in exhausted else text.find(_TEMPLATE_CLOSE[kind], opened.end())
        if end < 0:
            exhausted.add(kind)
            at = opened.end()
            continue
        blank(opened.start(), end + 2)
        at = end + 2
    return "".join(chars)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _evaluate(expression: str) -> float | None:
    """The value of numbers and + - * / (no names, no calls), or None."""
    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH_OPS:
            return _ARITH_OPS[type(node.op)](value(node.left), value(node.right))
        raise ValueError(expression)
    try:
        return float(value(ast.parse(expression, mode="eval").body))
    except (ValueError, SyntaxError, ZeroDivisionError, RecursionError):
        return None


def _arithmetic(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, str, str]]]:
    """Spans of arithmetic (not figures), and (offset, text, why) of each that does not hold."""
    spans, wrong = [], []
    for match in _ARITH.finditer(text):
        whole = match.group(0)
        left = whole.split("=")[0]
        numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", left)
        ops = [_OPS[o.strip()] for o in re.findall(_OP, left)]
        if len(ops) != len(numbers) - 1:
            continue
        expression = numbers[0].replace(",", "") + "".join(o + n.replace(",", "") for o, n in zip(ops, numbers[1:]))
        spans.append(match.span())
        result = match.group(2)
        lhs = _evaluate(expression)
        if result is None or lhs is None:
            continue
        if _SCALED.match(text, match.end()):
            continue  # "4096 × 4096 × 4 bytes = 64 MiB": the result is in other units
        rhs = _number(result)
        shown = 0.5 * 10 ** -len(result.split(".")[1]) if "." in result else 0.5
        if abs(lhs - rhs) > shown:
            wrong.append((match.start(), whole.strip(), f"{expression.replace('*', ' × ')} is {lhs:,.6g}"))
    return spans, wrong


def _hypothetical(text: str, at: int) -> bool:
    """Whether the sentence holding offset ``at`` says it is hypothetical or conditional ("suppose",
    "imagine", "say,", "e.g.", "for example", "if", "would", "could", "might", "assume"). Only the
    400 characters either side are read, so a long text costs the same per number."""
    start = 0
    for end in _SENTENCE_END.finditer(text, max(0, at - 400), at):
        start = end.end()
    after = _SENTENCE_END.search(text, at, at + 400)
    stop = after.end() if after else min(len(text), at + 400)
    return _HYPOTHETICAL.search(text, max(start, at - 400), stop) is not None


def _table_columns(text: str) -> list[tuple[int, str, int]]:
    """(offset, header, count) of each table column whose header names a figure's unit and whose
    cells hold bare numbers."""
    out = []
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    i = 0
    while i < len(lines) - 1:
        if "|" in lines[i] and TABLE_SEPARATOR.match(lines[i + 1]) and "-" in lines[i + 1]:
            header = [c.strip() for c in TABLE_CELL.split(lines[i].strip().strip("|"))]
            j = i + 2
            counts = [0] * len(header)
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                cells = [c.strip() for c in TABLE_CELL.split(lines[j].strip().strip("|"))]
                for k, cell in enumerate(cells[:len(header)]):
                    counts[k] += bool(_BARE_NUMBER.match(cell))
                j += 1
            for k, name in enumerate(header):
                if counts[k] and _HEADER_UNIT.search(name):
                    out.append((offsets[i], name, counts[k]))
            i = j
        else:
            i += 1
    return out


def _figure_matches(text: str):
    """``_REGEX.finditer(text)``'s matches, tried only where one can start (``_CAN_START``)."""
    end = 0
    for start in _CAN_START.finditer(text):
        if start.start() < end:
            continue
        match = _REGEX.match(text, start.start())
        if match is not None:
            end = match.end()
            yield match


def unbound_figures(entry: Entry) -> list[Finding]:
    """Every number in the body that looks like a hand-typed figure, and every arithmetic that does not hold."""
    text = _mask(entry.body)
    front_lines = entry.path.read_text(encoding="utf-8").count("\n") - entry.body.count("\n") if entry.path.exists() else 0

    def line(at: int) -> int:
        return text.count("\n", 0, at) + 1 + front_lines

    spans, wrong = _arithmetic(text)
    found = [(at, Finding(str(entry.path), line(at), shown, "arithmetic", why)) for at, shown, why in wrong]
    inside = iter(sorted(spans))
    span = next(inside, None)
    for match in _figure_matches(text):
        while span is not None and span[1] <= match.start():
            span = next(inside, None)
        if span is not None and span[0] <= match.start() < span[1]:
            continue
        figure = match.group(0)
        if _ORDER_OF_MAGNITUDE.match(figure) or _hypothetical(text, match.start()):
            continue
        kind = next(_PATTERNS[int(name[1:])][0] for name, value in match.groupdict().items() if value)
        found.append((match.start(), Finding(str(entry.path), line(match.start()), figure, kind)))
    for at, header, count in _table_columns(text):
        why = (f"the table's column '{header}' holds {count} hand-typed figure{'s' if count != 1 else ''}")
        found.append((at, Finding(str(entry.path), line(at), header, "table column", why)))
    return [finding for _, finding in sorted(found, key=lambda pair: pair[0])]
