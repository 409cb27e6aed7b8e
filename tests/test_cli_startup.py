"""The command line starts fast (issue 34): `glossary --help` imports none of NumPy, ml-dtypes, Jinja2,
Rich's console, the gate or the harness; `glossary check` imports the harness only to run an entry's
code, and not again once that code ran cleanly as it is (glossary.trial_cache)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, write_project

HEAVY = ("numpy", "ml_dtypes", "jinja2", "rich.console", "measure.harness.workspace", "measure.harness.check",
         "glossary.checks", "glossary.verdicts.assess", "glossary.entries.model", "measure.attest", "markdown",
         "cryptography.hazmat")

# Runs the command line in a fresh interpreter and prints, after its output, which modules it loaded.
_PROBE = textwrap.dedent("""\
    import json, sys
    from glossary.cli import cli
    try:
        cli(sys.argv[1:], prog_name="glossary")
    except SystemExit:
        pass
    print("\\nMODULES " + json.dumps(sorted(sys.modules)))
    """)


def _loaded(*args: str, cwd: Path = ROOT, **extra: str) -> tuple[set[str], str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **extra)
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    out, _, modules = done.stdout.rpartition("\nMODULES ")
    assert modules, done.stdout + done.stderr
    return set(json.loads(modules)), out


def _heavy(modules: set[str], allowed: tuple[str, ...] = ()) -> list[str]:
    return sorted(m for m in HEAVY if m not in allowed and (m in modules or any(n.startswith(m + ".") for n in modules)))


def test_help_imports_no_heavy_module():
    modules, out = _loaded("--help")
    assert "Commands:" in out and "check" in out and "measure" in out
    assert _heavy(modules) == []


@pytest.mark.parametrize("command", ["check", "measure", "sign", "node", "try", "render", "import", "reproduce"])
def test_a_command_s_help_imports_no_heavy_module(command):
    modules, out = _loaded(command, "--help")
    assert "Usage:" in out
    assert _heavy(modules) == []


def test_measure_help_shows_the_pools_deadline():
    from glossary.measuring.pool import DEFAULT_DEADLINE_S

    _, out = _loaded("measure", "--help")
    assert f"{DEFAULT_DEADLINE_S}" in out


def test_check_of_an_entry_without_a_spec_imports_neither_numpy_nor_the_harness(tmp_path):
    project = write_project(tmp_path, {"plain": """\
        ---
        title: Plain
        summary: An entry that measures nothing.
        ---
        Some prose.
        """})
    modules, out = _loaded("--entries", "entries", "check", "--json", "plain", cwd=project)
    report = json.loads(out)
    assert [e["slug"] for e in report["entries"]] == ["plain"]
    # the gate binds figures through Jinja2's parser: check needs jinja2, nothing heavier
    assert _heavy(modules, allowed=("jinja2", "glossary.checks", "glossary.verdicts.assess", "glossary.entries.model",
                                    "measure.attest", "markdown")) == []
    # nor the site's pages and templates: the stray files of the entry's folder are read without them
    assert {"glossary.site.sitefiles", "glossary.site.page", "glossary.site.render"} & modules == set()


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed: the trial runs no code")
def test_a_second_check_of_an_unchanged_entry_runs_its_code_no_more(tmp_path):
    project = tmp_path / "repo"
    shutil.copytree(ROOT / "entries" / "kernel-fusion", project / "entries" / "kernel-fusion",
                    ignore=shutil.ignore_patterns("results"))
    shutil.copy(ROOT / "entries" / "kernel-fusion.md", project / "entries" / "kernel-fusion.md")
    (project / "mkdocs.yml").write_text("site_name: t\ndocs_dir: entries\nextra:\n  glossary:\n    measure: never\n")

    def check() -> tuple[set[str], dict]:
        modules, out = _loaded("--entries", "entries", "check", "--json", "kernel-fusion", cwd=project,
                               XDG_CACHE_HOME=str(tmp_path / "user-cache"))
        return modules, json.loads(out)

    first_modules, first = check()
    codes = [p for e in first["entries"] for p in e["problems"] if p["check"] == "code"]
    assert codes == [], codes
    assert "glossary.trial" in first_modules
    markers = list((tmp_path / "user-cache" / "glossary" / "trials").glob("kernel-fusion-*.ok"))
    assert len(markers) == 1
    # never in the project, where a pull request could commit one
    assert not list(project.rglob("*.ok"))
    again_modules, again = check()
    assert "glossary.trial" not in again_modules and "numpy" not in again_modules
    assert again["entries"][0]["problems"] == first["entries"][0]["problems"]


def test_the_trial_marker_names_everything_the_trial_runs(tmp_path):
    from glossary import trial_cache
    from glossary.entries.model import parse_entry

    entries = tmp_path / "entries"
    shutil.copytree(ROOT / "entries" / "kernel-fusion", entries / "kernel-fusion", ignore=shutil.ignore_patterns("results"))
    shutil.copy(ROOT / "entries" / "kernel-fusion.md", entries / "kernel-fusion.md")
    cache = tmp_path / "cache"

    def marker() -> Path:
        return trial_cache.marker(cache, parse_entry(entries / "kernel-fusion.md", entries))

    first = marker()
    assert first == marker() and first.parent == cache / "trials"
    assert not trial_cache.passed(first)
    trial_cache.remember(first)
    assert trial_cache.passed(first)
    reference = entries / "kernel-fusion" / "reference.py"
    reference.write_text(reference.read_text() + "\n# edited\n")
    after_code = marker()
    assert after_code != first and not trial_cache.passed(after_code)
    reference.write_text(reference.read_text().replace("\n# edited\n", ""))
    page = entries / "kernel-fusion.md"
    page.write_text(page.read_text().replace("  reference_elementwise: true", "  reference_elementwise: false"))
    after_spec = marker()
    assert after_spec not in (first, after_code)
    trial_cache.remember(after_spec)  # the entry's older state is forgotten
    assert sorted(p.name for p in (cache / "trials").iterdir()) == [after_spec.name]
    assert trial_cache.marker(None, parse_entry(page, entries)) is None


def test_a_file_and_line_never_turns_into_an_emoji():
    """rich reads ':100:' as an emoji code: 'entry.md:100:' printed as 'entry.md💯' in check's output."""
    from glossary.cli.common import console

    out = console()
    with out.capture() as captured:
        out.print("entries/x.md:100: {{ fig.ms(\"a\") }}: no data")
    assert "entries/x.md:100:" in captured.get()
