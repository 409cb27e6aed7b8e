"""What a build keeps to the end is out of the cycle collector's sight, and only for that build
(glossary.heap, issue 34): a process that builds again gets the first build's leftovers collected,
and `mkdocs serve` keeps nothing this way."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import weakref

from conftest import ROOT, write_project
from glossary import heap

ENTRY = """\
---
title: Warp
summary: Thirty-two threads that issue together.
author: Ada Example
written_on: 2026-01-01
---
A warp is the unit the scheduler issues.
"""


class _Node:
    """An object in a cycle of its own: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


def _frozen_cycle(freeze) -> weakref.ref:
    """A weak reference to a cycle that nothing else holds, made before ``freeze`` runs."""
    node = _Node()
    freeze()
    return weakref.ref(node)


def test_keeping_freezes_what_is_alive_and_releasing_collects_what_died_since():
    seen = _frozen_cycle(heap.keep_to_the_end)
    try:
        gc.collect()
        assert seen() is not None  # kept: a collection does not look at it
        heap.release()
        assert seen() is None  # given back, and collected at once
        assert gc.get_freeze_count() == 0
        heap.release()  # nothing kept: nothing to do
    finally:
        gc.unfreeze()


def test_release_leaves_a_freeze_of_someone_else_s():
    seen = _frozen_cycle(gc.freeze)
    try:
        heap.release()
        gc.collect()
        assert seen() is not None  # still frozen: release neither unfroze nor collected it
    finally:
        gc.unfreeze()
    gc.collect()
    assert seen() is None


SCRIPT = textwrap.dedent("""\
    import gc, sys, weakref
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    def once(command):
        config = load_config(sys.argv[1], site_dir=sys.argv[2])
        config.plugins.on_startup(command=command, dirty=False)
        build(config, serve_url="http://127.0.0.1:8000/" if command == "serve" else None)
        return config

    first = weakref.ref(once("build"))
    print("after a build", gc.get_freeze_count() > 0, first() is not None)
    gc.collect()
    print("kept", first() is not None)
    once("build")
    print("after a second build", gc.get_freeze_count() > 0, first() is not None)
    gc.unfreeze()
    gc.collect()
    third = weakref.ref(once("serve"))
    print("after serve", gc.get_freeze_count() > 0)
""")


def test_a_build_keeps_its_own_heap_a_second_build_frees_the_first_s_and_serve_keeps_none(tmp_path):
    project = write_project(tmp_path, {"warp": ENTRY})
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(project / "mkdocs.yml"), str(tmp_path / "site")],
                          cwd=project, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1",
                               "GLOSSARY_MEASURE": "never", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "after a build True True",  # what the build made is kept
        "kept True",  # a collection does not free it (the config is in cycles)
        "after a second build True False",  # the second build let the first one's be collected
        "after serve False",
    ], done.stdout + done.stderr
