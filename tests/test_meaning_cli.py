"""Issue 32, item 10: what a newcomer trips on.  `glossary check` names lines of the file, not of
the body; `glossary status` piped to a file keeps each row on one line; the README says where
`mkdocs serve` serves."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from glossary.cli import cli

ROOT = Path(__file__).resolve().parent.parent

# The scaffold's TODO on the body's lines 3 and 5, which are the file's lines 9 and 11.
TODO_ENTRY = """\
---
title: Warp
summary: Thirty-two threads that a multiprocessor schedules and issues as one unit.
author: pending
reviewer: pending
---
A warp executes one instruction at a time for all of its threads.

TODO: say what a warp is.

TODO: and what it is not.  It moves 1200 GB/s.
"""


def _entries(tmp_path: Path) -> Path:
    folder = tmp_path / "entries"
    folder.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    (folder / "warp.md").write_text(TODO_ENTRY)
    return folder


def _run(entries: Path, *args: str):
    return CliRunner().invoke(cli, ["--entries", str(entries), *args], catch_exceptions=False)


def test_check_names_lines_of_the_file(tmp_path):
    entries = _entries(tmp_path)
    report = json.loads(_run(entries, "check", "--json").stdout)
    problems = report["entries"][0]["problems"]
    todo = [p["message"] for p in problems if "scaffold text" in p["message"]]
    assert todo and "body (lines 9, 11 of the file)" in todo[0], todo
    figures = [p for p in problems if p["check"] == "figures"]
    assert figures and all(p["line"] == 11 for p in figures), figures


def test_status_piped_keeps_every_row_on_one_line(tmp_path):
    entries = _entries(tmp_path)
    long_reason = "x" * 300
    (entries / "warp.md").write_text(TODO_ENTRY.replace("reviewer: pending", f"reviewer: pending\nrelated: [{long_reason}]"))
    (entries / "lane.md").write_text(TODO_ENTRY.replace("title: Warp", "title: Lane"))
    out = _run(entries, "status").stdout  # CliRunner's output is no terminal, as a pipe is not
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 2, out  # one line per entry, however long its reasons
    assert max(len(line) for line in out.splitlines()) > 80


def test_readme_says_where_mkdocs_serve_serves():
    site_url = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M).group(1)
    path = re.sub(r"^https?://[^/]+", "", site_url)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"http://127.0.0.1:8000{path}<slug>/" in readme and "is a 404" in readme
