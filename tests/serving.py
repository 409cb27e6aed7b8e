"""A built site served on localhost for the browser tests, and this repository's preview site."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

from conftest import ROOT, mkdocs


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` served on a free localhost port; yields its base URL (ending in /)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def build_preview(folder: Path) -> Path:
    """This repository's preview site (drafts included, nothing measured) built into ``folder``."""
    run = mkdocs(ROOT, "build", "-q", "-d", str(folder), env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    return folder
