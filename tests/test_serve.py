"""`mkdocs serve` (issue 34): an edit rebuilds only what it touches and logs one line, and an entry whose
front-matter does not parse shows its error on its own page while every other page keeps serving.

A real `mkdocs serve` subprocess over a copy of this repository's project (its entries, data,
templates and trust files, rendered into build/preview as the real one is)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT

SLUG = "kernel-fusion"
OTHER = "roofline"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", "replace")


class Served:
    """`mkdocs serve` over ``project``, its log collected."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}/cuda-glossary/"
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1", GLOSSARY_MEASURE="never")
        env.pop("GLOSSARY_PREVIEW", None)
        self.log_path = project / "serve.log"
        self.log_file = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{self.port}"],
                                     cwd=project, env=env, stdout=self.log_file, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for(self, what, timeout: float = 90.0) -> float:
        """Seconds until ``what()`` holds (polled), or the test fails with the log."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if self.proc.poll() is not None:
                pytest.fail(f"mkdocs serve exited with {self.proc.returncode}:\n{self.log()[-4000:]}")
            try:
                if what():
                    return time.monotonic() - start
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            time.sleep(0.05)
        pytest.fail(f"not seen within {timeout} s; the log:\n{self.log()[-4000:]}")

    def builds(self) -> int:
        return self.log().count("Documentation built in")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log_file.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One `mkdocs serve` for the module's tests (its first build is most of what each cost alone): each
    test's edit is its own, and what it checks of the log is what came after that edit."""
    project = tmp_path_factory.mktemp("serve") / "repo"
    project.mkdir()
    for name in ("entries", "data", "templates", "trust"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    (project / "hooks").mkdir()
    shutil.copy(ROOT / "hooks" / "glossary_hooks.py", project / "hooks" / "glossary_hooks.py")
    (project / "build" / "docs").mkdir(parents=True)
    server = Served(project)
    try:
        server.wait_for(lambda: _get(server.base + f"{SLUG}/")[0] == 200)
        yield server
    finally:
        server.close()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _first_prose_line(path: Path) -> str:
    body = path.read_text(encoding="utf-8").split("\n---\n", 1)[1]
    return next(line for line in body.splitlines() if re.match(r"^[A-Z][a-z]+ [a-z]", line))


def test_a_prose_edit_rebuilds_once_logs_one_line_and_shows(served):
    entry = served.project / "entries" / f"{SLUG}.md"
    drafts_at_start = served.log().count("shown as a draft in this preview")
    assert drafts_at_start >= 2  # the first build says why each draft is one
    line = _first_prose_line(entry)
    builds = served.builds()
    _edit(entry, line, "Zanzibar quokkas " + line)
    seconds = served.wait_for(lambda: "Zanzibar quokkas" in _get(served.base + f"{SLUG}/")[1])
    served.wait_for(lambda: served.builds() > builds)
    time.sleep(1.5)  # a second rebuild, had the render folder been watched, would have started by now
    log = served.log()
    after = log[log.rindex("Building documentation..."):]
    assert served.builds() == builds + 1, log[-3000:]
    assert "rebuilt: 1 of" in after, after
    assert "shown as a draft in this preview" not in after  # not every draft again
    print(f"prose edit visible after {seconds:.2f} s")  # issue 34's serve row: `pytest -s` shows it


def test_a_broken_front_matter_shows_on_its_page_and_the_rest_keeps_serving(served):
    entry = served.project / "entries" / f"{SLUG}.md"
    good = entry.read_text(encoding="utf-8")
    _edit(entry, "title:", "title: [unclosed\nsummary_x:")
    served.wait_for(lambda: "does not parse" in _get(served.base + f"{SLUG}/")[1])
    status, page = _get(served.base + f"{SLUG}/")
    assert status == 200 and "kernel-fusion.md" in page
    status, other = _get(served.base + f"{OTHER}/")
    assert status == 200 and "does not parse" not in other  # every other page keeps serving
    assert _get(served.base)[0] == 200
    assert "An error happened during the rebuild" not in served.log()
    entry.write_text(good, encoding="utf-8")  # fixed: the entry's own page comes back
    served.wait_for(lambda: "does not parse" not in _get(served.base + f"{SLUG}/")[1])
    assert "Kernel fusion" in _get(served.base + f"{SLUG}/")[1]
