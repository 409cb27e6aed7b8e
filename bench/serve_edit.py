"""How long a prose edit takes to show under `mkdocs serve` (issue 34).

    python bench/serve_edit.py PROJECT CODE [serve flags, e.g. --dirty]

Starts `mkdocs serve` in PROJECT (a glossary such as `bench/gen_entries.py` writes) with CODE (a checkout
of this repository) first on PYTHONPATH, waits for the first build, then edits the body of
`entries/term-0001.md` three times, 3 s apart, and reads the page every 50 ms until the new word shows.
Prints the first build's time and each edit's; restores the entry when done.  Run two checkouts in
alternating rounds to compare them; MkDocs' own "Documentation built in" lines are in the log it names.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PAGE = "term-0001"
ANCHOR = "This entry is a benchmark fixture"


def _get(url: str) -> str:
    try:
        return urllib.request.urlopen(url, timeout=10).read().decode()
    except OSError:
        return ""


def main() -> None:
    project, code, flags = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = Path(tempfile.mkstemp(prefix="serve-edit-", suffix=".log")[1])
    entry = project / "entries" / f"{PAGE}.md"
    original = entry.read_text()
    if ANCHOR not in original:
        sys.exit(f"{entry}: no line starting {ANCHOR!r} to edit")
    env = dict(os.environ, PYTHONPATH=code, NO_MKDOCS_2_WARNING="1", GLOSSARY_MEASURE="never")
    started = time.perf_counter()
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", *flags, "-a", f"127.0.0.1:{port}"],
                                  cwd=project, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        base = f"http://127.0.0.1:{port}/cuda-glossary/{PAGE}/"
        while "<article" not in _get(base) and time.perf_counter() - started < 600:
            time.sleep(0.5)
        print(f"first build served after {time.perf_counter() - started:.1f} s (log: {log})", flush=True)
        for i in range(3):
            time.sleep(3)
            word = f"zebrafish{i}x{time.time_ns()}"
            entry.write_text(original.replace(ANCHOR, f"This entry {word} is a benchmark fixture", 1))
            edited = time.perf_counter()
            while word not in _get(base) and time.perf_counter() - edited < 120:
                time.sleep(0.05)
            print(f"edit {i}: visible after {time.perf_counter() - edited:.2f} s", flush=True)
    finally:
        entry.write_text(original)
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
