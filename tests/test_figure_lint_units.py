"""The hand-typed-figure lint reads units as prose writes them (issue 31, classes 9 and 10): counts
apart from rates, clocks, power, capacities, numbers spelled as words, scientific notation, "msec",
"-fold", "per second" spelled out, and Chinese prose with its own units and words of supposition."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from glossary.entries import lint
from glossary.entries.model import load_entries


def _found(tmp_path: Path, body: str) -> list[tuple[str, str]]:
    (tmp_path / "term.md").write_text("---\ntitle: T\nsummary: S\n---\n" + body + "\n", encoding="utf-8")
    return [(f.text, f.kind) for f in lint.unbound_figures(load_entries(tmp_path)["term"])]


FLAGGED = [
    # scientific notation, "msec", "-fold" and "per second" spelled out: what the lint missed before
    ("The copy sustains about 1.1e4 GB/s on paper.", [("1.1e4 GB/s", "bandwidth")]),
    ("A launch costs 9 msec when the driver is cold.", [("9 msec", "time")]),
    ("Fusion gave a *3.5-fold* gain on the T4.", [("3.5-fold", "speedup")]),
    ("Fusion gave a 3.5 fold gain.", [("3.5 fold", "speedup")]),
    ("HBM3 moves 4,200 GB per\nsecond between the stacks and the SMs.", [("4,200 GB per\nsecond", "bandwidth")]),
    ("It moves 4.2 terabytes a second.", [("4.2 terabytes a second", "bandwidth")]),
    ("Transfers ran at 12 GBps over the link.", [("12 GBps", "bandwidth")]),
    # FLOPS is a rate; FLOPs a count, a rate only per second
    ("The B200 peaks at nine PFLOPS of FP4.", [("nine PFLOPS", "rate")]),
    ("The part reaches 66.9 TFLOPS and 989 TFLOP/s.", [("66.9 TFLOPS", "rate"), ("989 TFLOP/s", "rate")]),
    ("It sustained 2.1 PFLOPs per second for an hour.", [("2.1 PFLOPs per second", "rate")]),
    ("A laptop GPU does 5 Tflops, a phone 2 gigaflops.", [("5 Tflops", "rate"), ("2 gigaflops", "rate")]),
    ("Twenty-four hundred GB/s is the figure the vendor quotes.", [("Twenty-four hundred GB/s", "bandwidth")]),
    # clocks, power and capacities of the hardware
    ("The SMs boost to 1,980 MHz and the board draws 700 W.", [("1,980 MHz", "clock"), ("700 W", "power")]),
    ("It clocks at 1.4 GHz, within a 300-watt budget.", [("1.4 GHz", "clock")]),
    ("Each board is rated at 350 watts.", [("350 watts", "power")]),
    ("Hopper has a 50 MiB L2 and up to 228 KiB of shared memory per SM.",
     [("50 MiB L2", "size"), ("228 KiB of shared memory", "size")]),
    ("The L2 cache of the H100 holds 50 MiB.", [("L2 cache of the H100 holds 50 MiB", "size")]),
    ("The card carries 80 GiB of HBM3.", [("80 GiB of HBM3", "size")]),
    ("A 64 KiB register file per SM.", [("64 KiB register file", "size")]),
    # Chinese: 秒 units, numbers right after CJK text, 。 ends the sentence before a supposition
    ("H200的带宽为4.8TB/秒。", [("4.8TB/秒", "bandwidth")]),
    ("带宽约为 3.35 TB/秒，峰值为 989 TFLOPS。", [("3.35 TB/秒", "bandwidth"), ("989 TFLOPS", "rate")]),
    ("一次启动耗时0.8毫秒。如果驱动是冷的，耗时2毫秒。", [("0.8毫秒", "time")]),
    ("融合之后快了3.5倍。", [("3.5倍", "speedup")]),
    ("整个测量耗时12秒，每秒拷贝一次。", [("12秒", "time")]),
    ("每个SM有228 KiB的共享内存。", [("228 KiB的共享内存", "size")]),
    ("拷贝达到 3,000 GB每秒。", [("3,000 GB每秒", "bandwidth")]),
    ("全宽斜线：带宽为1.5 TB／秒。", [("1.5 TB／秒", "bandwidth")]),
]

QUIET = [
    # counts, problem sizes and arithmetic are no figures
    "The loop does 2 FLOPs per element, so a GEMM of n³ does 2n³ FLOPs.",
    "Sixteen rounds x 32 steps x 2 FLOPs: the count, not a rate.",
    "A 256 MiB buffer, split into 64 MiB chunks; copies of 64 KiB to 1 GiB.",
    "Four loads of 4096 × 4096 × 4 bytes = 64 MiB each.",
    "The working set of 256 MiB is well past what the card caches.",
    # hypotheticals, English and Chinese
    "Suppose the board draws 700 W and clocks at 1,980 MHz.",
    "If the copy sustained 1.1e4 GB/s, it would be twice the peak.",
    "如果带宽为3.35TB/秒，那么拷贝1 GiB需要约0.3毫秒。",
    "假设一次启动耗时5微秒。",
    "例如，H100的峰值为989 TFLOPS。",
    # orders of magnitude, idioms, names with digits, marked and code
    "A 1000-fold gap separates registers from disk, and a 100x one the network.",
    "We waited a second; an H100 GPU and sm_90 W-states are names.",
    "It runs at `700 W` in the spec and {{ nofig(\"1,980 MHz\") }} in the note.",
    "```\nclock = 1980 MHz\npower = 700 W\n```",
]


@pytest.mark.parametrize("body,expected", FLAGGED, ids=[b[:40] for b, _ in FLAGGED])
def test_the_lint_flags_the_figure_as_prose_writes_it(tmp_path, body, expected):
    assert _found(tmp_path, body) == expected


@pytest.mark.parametrize("body", QUIET, ids=[b[:40] for b in QUIET])
def test_the_lint_keeps_quiet_on_counts_sizes_hypotheticals_and_idioms(tmp_path, body):
    assert _found(tmp_path, body) == []


def test_a_table_column_of_clocks_or_watts_is_flagged(tmp_path):
    body = "| GPU | Boost clock (MHz) | TDP (W) | SMs |\n|:--|--:|--:|--:|\n| H100 | 1980 | 700 | 132 |\n"
    assert _found(tmp_path, body) == [("Boost clock (MHz)", "table column"), ("TDP (W)", "table column")]


def test_messy_prose_finds_each_figure_on_its_line(tmp_path):
    body = ("Fusion *helps*: [the T4](https://example.org/t4) went from 1.2 ms\n"
            "to 0.4 msec, a **3-fold** gain. The FLOPs did not change (2 FLOPs per element).\n\n"
            "在T4上，带宽从 220 GB/秒 提高到 300 GB/秒。假设 L2 为 4 MiB，那么不会命中。\n")
    found = lint.unbound_figures(_entry(tmp_path, body))
    assert [(f.text, f.line) for f in found] == [("1.2 ms", 5), ("0.4 msec", 6), ("3-fold", 6),
                                                 ("220 GB/秒", 8), ("300 GB/秒", 8)]


def _entry(tmp_path: Path, body: str):
    (tmp_path / "term.md").write_text("---\ntitle: T\nsummary: S\n---\n" + body, encoding="utf-8")
    return load_entries(tmp_path)["term"]


def test_the_new_units_stay_linear_on_hostile_lines(tmp_path):
    started = time.perf_counter()
    _found(tmp_path, "nine hundred thousand " * 2000 + "\n" + "1 MiB of of of " * 2000 + "\n"
           + "L2 cache " * 3000 + "1e" * 3000 + "\n" + "如果" * 5000 + "3倍" * 3000)
    assert time.perf_counter() - started < 5


def test_trying_only_where_a_figure_can_start_finds_what_the_full_scan_finds():
    """``lint._figure_matches`` tries the figure pattern only at digits and word starts (issue 34): on
    the real entries, the hostile corpus and mixtures of the tokens the patterns turn on, it finds
    exactly the matches, kinds and spans of a scan that tries every character."""
    import random

    from conftest import ROOT

    texts = [p.read_text(encoding="utf-8", errors="replace")
             for folder in (ROOT / "entries", ROOT / "tests" / "hostile") for p in sorted(folder.rglob("*.md"))]
    tokens = ["3", "3.5", "1,000", "1.1e4", " ", "-", "fold", "twenty", "-four", "hundred", "GB/s", "TB/秒", "x", "×",
              "%", " of the peak", "L2", " cache", "50", "MiB", "an", "a", " thousand", " times", "ms", "µs", "W",
              "kW", "H100", "sm_90", ".", "共享内存", "倍", "\n", "é", "FLOPS", "flops", " per second",
              " bytes per element", "的", "٣", "_", "shared memory", "of", "caches", "Register File", "HBM3e", "VRAM",
              "GDDR6X", "缓存", "寄存器", "显存", "L1", "l3", "One", "NINETY", " million", "Shared Memory", "tenfold",
              "Thousandfold", "seven", "An", "-", "—"]
    draw = random.Random(34)
    texts += ["".join(draw.choice(tokens) for _ in range(draw.randint(1, 40))) for _ in range(3000)]
    found = 0
    for text in texts:
        every = [(m.span(), m.lastgroup) for m in lint._REGEX.finditer(text)]
        assert [(m.span(), m.lastgroup) for m in lint._figure_matches(text)] == every, text
        found += len(every)
    assert found > 200  # the texts do hold figures
