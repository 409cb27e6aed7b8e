"""The whole author → reviewer → publish → edit → stale flow, through the command line and real builds."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from conftest import mkdocs, write_project

from glossary.cli import cli

BODY = """
Threads of a block share a small on-chip memory split into banks. When two
threads of one warp touch different addresses in the same bank, the accesses
are serialised, and the load takes as many passes as the busiest bank needs.
"""


def test_new_fill_check_sign_build_edit_build_status(tmp_path):
    project = write_project(tmp_path, {})
    entries = project / "entries"
    runner = CliRunner()

    def glossary(*args: str):
        return runner.invoke(cli, ["--entries", str(entries), *args], catch_exceptions=False)

    # 1. new
    made = glossary("new", "Shared-memory bank conflicts")
    assert made.exit_code == 0, made.output
    page = entries / "shared-memory-bank-conflicts.md"
    slug = page.stem
    assert page.read_text().startswith("---\n# yaml-language-server: $schema=../schema/entry.schema.json\n")

    # 2. fill in the entry, with an author
    text = page.read_text()
    text = re.sub(r"(?m)^summary: .*$", "summary: Accesses serialised because threads of a warp hit one bank.", text)
    text = text.replace("author: pending ", "author: Ada Lovelace ").replace("written_on: null", "written_on: 2026-10-01")
    # no measurement in this flow (tests/test_publish_gate.py has measured ones): the scaffold's
    # spec block goes, as its comment says, so the gate does not wait for a result
    text = re.sub(r"(?ms)^measure:.*?(?=^---$)", "", text)
    text = text[:text.index("\n---\n") + 5] + BODY
    page.write_text(text)

    # 3. check fails: no reviewer
    checked = glossary("check", "--json")
    assert checked.exit_code == 1
    report = json.loads(checked.stdout)
    messages = [p["message"] for p in report["entries"][0]["problems"] if p["severity"] == "error"]
    assert messages == ["no named reviewer (reviewer is 'pending')"]

    # 4. sign as the author: refused, file untouched
    before = page.read_bytes()
    refused = glossary("sign", slug, "--as", "ada  LOVELACE")
    assert refused.exit_code == 1
    assert "is the author" in refused.output
    assert page.read_bytes() == before

    # 5. sign as another person
    signed = glossary("sign", slug, "--as", "Charles Babbage", "--date", "2026-10-02")
    assert signed.exit_code == 0, signed.output
    short = re.search(r"review fingerprint ([0-9a-f]{12})", signed.output).group(1)
    assert glossary("check", slug).exit_code == 0

    # 6. build: published, and the byline says what was signed
    built = mkdocs(project, "build")
    assert built.returncode == 0, built.stderr
    html = (project / "site" / slug / "index.html").read_text()
    assert "bound to this exact text, kernels and results" in html  # trust: names, so "name only"
    assert "names only, not signed" in html
    assert short in html
    assert "review is stale" not in built.stderr

    # 7. edit the body
    page.write_text(page.read_text().replace("are serialised,", "are serialized,"))

    # 8. build: refused as stale, naming what changed and the review date
    rebuilt = mkdocs(project, "build")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert not (project / "site" / slug).exists()
    assert f"entries/{slug}.md" in rebuilt.stderr
    assert "review is stale: the body changed since Charles Babbage reviewed it on 2026-10-02" in rebuilt.stderr

    # 9. status --json shows why
    status = glossary("status", "--json")
    assert status.exit_code == 1
    (row,) = json.loads(status.stdout)
    assert row["slug"] == slug
    assert row["publishable"] is False
    assert row["stale_review"] is True and row["stale_results"] is False
    assert row["review"]["changed"] == ["body"]
    assert row["review"]["reviewed_on"] == "2026-10-02"
    assert any(reason.startswith("review is stale: the body changed") for reason in row["why_not"])
