"""Links to entries the site does not show become their text, in every form (issue 31, class 1:
a shown page never links a refused entry, so partial sign-off leaves no dead link and no leak)."""

from __future__ import annotations

import time

import pytest

from glossary.site.hidden_links import unlink

HIDDEN = {"warp", "device-software"}

CASES = [
    ("See [the warp](warp.md).", "See the warp."),
    ("See [the warp](./warp.md#lockstep \"Warp\").", "See the warp."),
    ("See [the warp](<warp.md>).", "See the warp."),
    ("See [the warp](../warp/) and [its page](../warp/index.html).", "See the warp and its page."),
    ("See [**the** warp](warp.md 'Warp').", "See **the** warp."),
    ("See [`warp`](warp.md).", "See `warp`."),
    ("See [the warp][w] and [Device  software][].\n\n[w]: warp.md\n[device software]: device-software.md \"DS\"\n",
     "See the warp and Device  software.\n\n"),
    ("See [warp] here.\n\n[warp]: ./warp.md#top\n", "See warp here.\n\n"),
    ('See <a href="warp.md" title="w">the <em>warp</em></a>.', "See the <em>warp</em>."),
    ('See <a class="x" href="../device-software/#top">the section</a>.', "See the section."),
]

KEPT = [
    "See [CUDA](cuda.md), [a warp pic](assets/images/warp.png) and ![warp](warp.md).",
    "See [the kernel](warp/warp.cu) and [NVIDIA](https://docs.nvidia.com/warp/).",
    "Code: `[the warp](warp.md)` and\n\n```\n[w]: warp.md\n<a href=\"warp.md\">x</a>\n```\n",
    "See [the cuda][c].\n\n[c]: cuda.md\n",
    "A footnote[^warp] and an abbreviation.\n\n*[warp]: a group of threads\n",
]


@pytest.mark.parametrize("markdown,expected", CASES)
def test_a_link_to_a_hidden_entry_becomes_its_text(markdown, expected):
    assert unlink(markdown, HIDDEN) == expected


@pytest.mark.parametrize("markdown", KEPT)
def test_other_links_and_code_are_kept(markdown):
    assert unlink(markdown, HIDDEN) == markdown


def test_unlinking_is_linear_on_hostile_lines():
    started = time.perf_counter()
    unlink("[" * 20000 + "](warp.md" * 5000 + "\n" + "<a href='warp.md'" * 5000 + "\n[x]: warp.md\n"
           + "[x]" * 20000 + "\n" + "<a href='warp.md'>" * 5000, HIDDEN)
    assert time.perf_counter() - started < 2
