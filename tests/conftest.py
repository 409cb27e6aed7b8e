"""Shared test set-up: the `gpu` marker skips cleanly where pycuda or a CUDA device is missing."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import forked

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# The suite starts hundreds of Python children (mkdocs builds, the glossary command).  Where the
# environment says PYTHONDONTWRITEBYTECODE (the shared development machine does), each of them compiled
# every module of the project and its libraries from source again, about half a second a child
# (issue 34).  The children of the suite write their bytecode once, into a folder of their own outside
# the repository, and reuse it; Python checks each file's source date and size, so an edit is never
# missed.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault("PYTHONPYCACHEPREFIX",
                          str(Path(tempfile.gettempdir()) / f"glossary-tests-pycache-{os.getuid()}"))


@functools.lru_cache(maxsize=1)
def _gpu() -> tuple[bool, str]:
    from glossary.measuring.plan import probe

    return probe()


# The files that take longest, longest first: each file's wall time in a whole run of the suite on the
# 2-core machine (session 19, issue 34), the files over about 10 s.  pytest-xdist's --dist loadfile hands
# out files in collection order (pyproject's --no-loadscope-reorder: by default it hands out the files
# with the most tests first, which left test_store_safety's 4 tests and test_serve's 2, 44 s between
# them, to run last while the other workers idled).  With these first, a long file no longer starts
# last (longest processing time first).  tests/test_layout.py checks that each is a test file.
SLOW_FILES = ("test_compile.py", "test_xss_browser.py", "test_signed_subsets.py", "test_browser.py",
              "test_meaning_browser.py", "test_hostile.py", "test_entries_issue18.py", "test_tooltips_issue31.py",
              "test_parallel.py", "test_pool.py", "test_sandbox.py", "test_store_safety.py", "test_publish_gate.py",
              "test_serve_pages.py", "test_serve.py", "test_realistic_glossary.py", "test_import_odd_trees.py",
              "test_render_stage.py", "test_html_ahead.py", "test_spec_shapes.py", "test_tables_fit.py",
              "test_progress_configs.py", "test_plots_readable.py", "test_bounds.py")


def _slow_first(items: list) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each file keeps its order


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): one pytest-xdist worker more than the cores this process may
    run on.  Many tests wait rather than compute (on Chromium, on a served site, on a sandbox's
    wall-clock limit, on a child process), and a worker more fills those waits: on the 2-core machine
    the suite went from 304 to 266 s (issue 34).  ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides
    where it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    from measure import tools

    return tools.cores() + 1  # the process's affinity where the platform has one, else the core count


def pytest_collection_modifyitems(config, items):
    _slow_first(items)
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return
    ok, why = _gpu()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA GPU: {why}")
    for item in gpu_items:
        item.add_marker(skip)


def write_project(tmp_path: Path, entries: dict[str, str], files: dict[str, str | bytes] | None = None,
                  extra_yaml: str = "", trust: str = "names") -> Path:
    """A tiny MkDocs project using this repo's hook and templates, with the given entries.

    ``trust`` is its ``extra.glossary.trust``: "names" by default, so tests of the names gate
    need no keys; tests of signed results and reviews pass "signed" and write keys of their
    own (tests/gate_fixture.py).
    """
    project = Path(tempfile.mkdtemp(prefix="project-", dir=tmp_path))
    (project / "entries").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: Fixture glossary
        docs_dir: entries
        site_dir: site
        theme:
          name: material
          features: [content.tooltips]
        hooks:
          - {ROOT / 'hooks' / 'glossary_hooks.py'}
        plugins:
          - search
        markdown_extensions:
          - abbr
          - admonition
          - attr_list
          - tables
          - pymdownx.details
          - pymdownx.superfences
          - pymdownx.tabbed:
              alternate_style: true
        extra:
          glossary:
            measure: never
            templates: {ROOT / 'templates'}
            trust: {trust}
        """) + extra_yaml)
    for slug, text in entries.items():
        (project / "entries" / f"{slug}.md").write_text(textwrap.dedent(text))
    for rel, content in (files or {}).items():
        path = project / "entries" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return project


def fresh_python(code: str) -> subprocess.CompletedProcess:
    """``python -c code`` in a new interpreter (nothing this test process imported is there), with this
    checkout first on its path: for what a module imports, or does not, when it is imported alone."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


def mkdocs(project: Path, *args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real `mkdocs` command in a fixture project (as `python -m mkdocs`, which works with or
    without a console script, e.g. on the GPU node where packages are installed with --target), in a
    fork of the test's process where it can (tests/forked.py)."""
    full_env = dict(os.environ, NO_MKDOCS_2_WARNING="1", GLOSSARY_MEASURE="never")
    full_env.pop("GLOSSARY_PREVIEW", None)
    full_env.update(env or {})
    with _one_build_of(project):
        return forked.run_module("mkdocs", list(args), cwd=project, env=full_env, timeout=timeout)


@contextlib.contextmanager
def _one_build_of(project: Path):
    """This repository's own project is built by one test at a time: the tests run in parallel
    (pytest-xdist), and two builds of it would write its render folder (build/) at once."""
    if Path(project).resolve() != ROOT:
        yield
        return
    import fcntl

    import hashlib

    name = f"glossary-tests-build-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}.lock"
    with open(Path(tempfile.gettempdir()) / name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def project(tmp_path):
    def make(entries, files=None, extra_yaml=""):
        return write_project(tmp_path, entries, files, extra_yaml)

    return make


def current_result(entries_dir: Path, slug: str, result: dict) -> dict:
    """``result`` as the harness would record it for the entry as it is now: measured, with the
    entry's current measurement fingerprint (so the gate counts it as a current result)."""
    from glossary.entries.model import parse_entry
    from glossary.entries.model import measurement_fingerprint

    entry = parse_entry(entries_dir / f"{slug}.md", entries_dir)
    out = dict(result, entry=slug, provenance="measured", fingerprint=measurement_fingerprint(entry))
    out.pop("imported_from", None)
    return out


def sign_entry_file(path: Path, name: str, day, results: dict | None = None) -> str:
    """Sign the entry at ``path`` as `glossary sign` does; returns the review fingerprint."""
    from glossary.verdicts import review
    from glossary.entries.model import parse_entry
    from measure import store

    from glossary.settings import Settings

    from measure.results import parse

    entry = parse_entry(path, path.parent)
    if results is None:
        results = store.load_results(entry.folder)
    results = {key: parse(r) if isinstance(r, dict) else r for key, r in results.items()}
    catalog = Settings.for_project(path.parent).load_catalog()  # the project's lessons, as `glossary sign` reads them
    text, fingerprint = review.sign_entry(entry, path.read_text(encoding="utf-8"), name, day, results, catalog)
    path.write_text(text, encoding="utf-8")
    return fingerprint
