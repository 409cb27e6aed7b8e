"""Seconds from a prose edit to the served page showing it, under a real `mkdocs serve` (issue 34).

For each checkout given (this one by default), alternating over ROUNDS: copy its project (entries, data,
templates, trust, hooks, mkdocs.yml) to a temporary folder, start `mkdocs serve` with that checkout's
packages first on PYTHONPATH, wait for the first build, then make three prose edits to
entries/kernel-fusion.md, each timed until the served page holds the new word.  It also counts the
builds the log reports (one first build and one per edit is right) and the draft lines it logged.

    python3 bench/serve_latency.py [--rounds N] [--dirty] [CHECKOUT ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITS = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _until(what, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise RuntimeError("mkdocs serve did not show the page in time")
        time.sleep(0.05)


def one(code: Path, dirty: bool) -> tuple[list[float], int, int]:
    """(seconds per edit, builds logged, draft lines logged) for one `mkdocs serve` of ``code``."""
    work = Path(tempfile.mkdtemp(prefix="serve-latency-"))
    project = work / "repo"
    project.mkdir()
    for name in ("entries", "data", "templates", "trust", "hooks"):
        shutil.copytree(code / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(code / "mkdocs.yml", project / "mkdocs.yml")
    (project / "build" / "docs").mkdir(parents=True)
    port = _free_port()
    page = f"http://127.0.0.1:{port}/cuda-glossary/kernel-fusion/"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(code), *filter(None, [os.environ.get("PYTHONPATH")])]),
               NO_MKDOCS_2_WARNING="1", GLOSSARY_MEASURE="never")
    env.pop("GLOSSARY_PREVIEW", None)
    log_path = work / "serve.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}",
                                 *(["--dirty"] if dirty else [])], cwd=project, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        try:
            _until(lambda: "Kernel fusion" in _get(page))
            time.sleep(3)
            entry = project / "entries" / "kernel-fusion.md"
            seconds = []
            for i in range(EDITS):
                word = f"Quokka{i}x{os.getpid()}"
                text = entry.read_text(encoding="utf-8")
                text = (text.replace("\n---\n", f"\n---\n{word} was here.\n\n", 1) if i == 0
                        else text.replace(f"Quokka{i - 1}x", f"Quokka{i}x"))
                start = time.monotonic()
                entry.write_text(text, encoding="utf-8")
                _until(lambda: word in _get(page))
                seconds.append(time.monotonic() - start)
                time.sleep(4)  # any further build the edit set off finishes before the next edit
        finally:
            proc.terminate()
            proc.wait()
    text = log_path.read_text(errors="replace")
    shutil.rmtree(work, ignore_errors=True)
    return seconds, text.count("Documentation built in"), text.count("shown as a draft")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("checkouts", nargs="*", type=Path, default=[ROOT])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--dirty", action="store_true", help="run `mkdocs serve --dirty`")
    opts = ap.parse_args(argv)
    for r in range(opts.rounds):
        for code in opts.checkouts:
            seconds, builds, drafts = one(code.resolve(), opts.dirty)
            print(f"round {r + 1} {code}: edit visible after {', '.join(f'{s:.2f}' for s in seconds)} s; "
                  f"{builds} builds (1 first + {EDITS} edits is right); {drafts} draft lines logged", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
