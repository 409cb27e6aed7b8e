"""A body that opens by repeating the summary (issue 21): `glossary check` warns, naming the file,
and the page and its search snippet leave the repeated sentence out; the lead stays.
Fixture entries only."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, mkdocs
from gate_fixture import COPY, make_project
from glossary.build import GlossaryBuild
from glossary.cli import cli
from glossary.entries.lead import repeated_lead, without_repeated_lead
from glossary.settings import Settings

SUMMARY = "A kernel that moves every element of one buffer into another at the speed of DRAM."
FIRST = "A copy kernel reads each element once and writes it once"


@pytest.mark.parametrize("opening", [
    SUMMARY,
    "a kernel that moves every element of one buffer\ninto another at the speed of DRAM.",
    "A kernel that moves *every* element of one buffer into another at the speed of **DRAM**!",
    "A kernel, that moves every element of one buffer into another -- at the speed of `DRAM`.",
])
def test_a_repeated_first_sentence_is_found_and_left_out(opening):
    body = f"{opening} It then says more.\n\nA second paragraph.\n"
    assert repeated_lead(SUMMARY, body) is not None
    assert without_repeated_lead(SUMMARY, body) == "It then says more.\n\nA second paragraph.\n"


@pytest.mark.parametrize("body", [
    "A kernel that moves every element of one buffer into another at the speed of DRAM, and more.\n",
    "A kernel that moves every element of one buffer into another at the speed of DRAM and L2.\n",
    "A kernel that moves every element.\n",
    "# A kernel that moves every element of one buffer into another at the speed of DRAM.\n",
    "```\nA kernel that moves every element of one buffer into another at the speed of DRAM.\n```\n",
    "- A kernel that moves every element of one buffer into another at the speed of DRAM.\n",
    "Something else first. A kernel that moves every element of one buffer into another at the speed of DRAM.\n",
])
def test_a_body_that_does_not_open_with_the_summary_is_kept_whole(body):
    assert repeated_lead(SUMMARY, body) is None
    assert without_repeated_lead(SUMMARY, body) == body


def test_a_paragraph_that_is_only_the_summary_goes_with_its_blank_lines():
    assert without_repeated_lead(SUMMARY, f"{SUMMARY}\n\n\nNext.\n") == "Next.\n"


def _repeating(tmp_path: Path) -> Path:
    text = COPY.replace(FIRST, f"{SUMMARY}\n{FIRST}")
    return make_project(tmp_path, text)


def test_glossary_check_warns_naming_the_file(tmp_path):
    project = _repeating(tmp_path)
    run = CliRunner().invoke(cli, ["--entries", str(project / "entries"), "check", "--json"])
    report = json.loads(run.stdout)
    warnings = [p for e in report["entries"] for p in e["problems"] if p["severity"] == "warning"]
    repeat = [p for p in warnings if "repeats the summary" in p["message"]]
    assert len(repeat) == 1 and str(project / "entries" / "copy.md") in repeat[0]["message"]
    assert repeat[0]["check"] == "content" and not repeat[0]["refusal"]
    plain = CliRunner().invoke(cli, ["--entries", str(project / "entries"), "check"])
    assert "copy.md" in plain.output and "repeats the summary" in plain.output


def test_no_warning_where_the_body_says_something_new(tmp_path):
    project = make_project(tmp_path)
    run = CliRunner().invoke(cli, ["--entries", str(project / "entries"), "check", "--json"])
    assert "repeats the summary" not in run.stdout


def test_the_page_shows_the_summary_once_as_its_lead(tmp_path):
    project = _repeating(tmp_path)
    options = Settings.for_project(project / "entries")
    built = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-lead"))
    built.load()
    page = built.render_page("copy.md")
    assert page.count(SUMMARY) == 1
    lead = page.index(SUMMARY)
    assert page.index("{: .glossary-summary }") > lead and FIRST in page


def test_the_search_snippet_has_the_summary_once(tmp_path):
    project = _repeating(tmp_path)
    run = mkdocs(project, "build")
    assert run.returncode == 0, run.stderr
    index = json.loads((project / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))
    texts = " ".join(d["text"] for d in index["docs"] if d["location"].startswith("copy/"))
    assert texts.count("at the speed of DRAM") == 1, texts
    assert "A copy kernel reads each element once" in texts
    html = (project / "site" / "copy" / "index.html").read_text(encoding="utf-8")
    assert html.count("at the speed of DRAM") == 1
