"""Run `python -m mkdocs ...` or `python -m glossary.cli ...` for a test as a fork of the test's own
process, which has already imported MkDocs, Material and the glossary (issue 34).

A fresh interpreter spent about half of a small fixture build starting Python and importing the
same libraries again (1.4 s against 0.7 s forked, on the 2-core development machine), and the suite
runs hundreds of them.  The fork is a new process all the same: it takes the asked environment and
working folder, its standard output and error go to files of its own, its exit status is the
command's (an uncaught exception prints its traceback and exits 1, as Python does), and nothing it
changes reaches the test.  Whatever could differ from a fresh start is reset in the child: the
warnings filters a fresh interpreter has, the command-line loggers' handlers, every memoised
function of the glossary's and the harness's modules.

A command whose environment changes how Python itself starts (a ``PYTHON*`` variable that differs
from the test's) runs as a real subprocess instead, and so does every command once the test's process
has loaded CUDA (the GPU probe does, on a GPU node: a forked child cannot use a CUDA context made
before the fork, and its builds measured nothing), and every command where fork is not available or
``GLOSSARY_TESTS_FORK=0`` is set.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

# The filters a fresh interpreter starts with, read before pytest installs any of its own.
_FRESH_FILTERS = list(warnings.filters)
_MODULES = ("mkdocs", "glossary.cli")
_CUDA = ("pycuda", "pycuda.driver", "cuda.bindings", "cuda")  # loaded by the suite's GPU probe, on a GPU node
_POLL_S = 0.005


def run(cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)``,
    forked where ``cmd`` is ``python -m mkdocs ...`` or ``python -m glossary.cli ...``."""
    env = dict(os.environ) if env is None else env
    if len(cmd) >= 3 and cmd[0] == sys.executable and cmd[1] == "-m" and cmd[2] in _MODULES:
        return run_module(cmd[2], list(cmd[3:]), cwd=cwd, env=env, timeout=timeout)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def run_module(module: str, args: list[str], *, cwd: Path, env: dict[str, str],
               timeout: float | None = None) -> subprocess.CompletedProcess:
    """``python -m module *args`` in ``cwd`` with exactly ``env``, as ``subprocess.run(...,
    capture_output=True, text=True, timeout=timeout)`` would return it."""
    cmd = [sys.executable, "-m", module, *args]
    if not _can_fork(module, env):
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    _warm(module)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():  # Python 3.12 warns of fork in a threaded process; the child runs no thread
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: never returns
            _child(module, args, cwd, env, out.fileno(), err.fileno())
        code = _wait(pid, timeout, cmd)
        return subprocess.CompletedProcess(cmd, code, _read(out), _read(err))


def _can_fork(module: str, env: dict[str, str]) -> bool:
    if module not in _MODULES or not hasattr(os, "fork") or os.environ.get("GLOSSARY_TESTS_FORK") == "0":
        return False
    if any(name in sys.modules for name in _CUDA):  # CUDA's state does not survive a fork: the GPU
        return False                              # probe loaded it, so a measuring build needs a fresh process
    startup = {k for k in set(env) | set(os.environ) if k.startswith("PYTHON")}
    return all(env.get(k) == os.environ.get(k) for k in startup)


def _warm(module: str) -> None:
    """Import in the test's process what every such command imports, once, so no child pays for it."""
    import mkdocs.__main__  # noqa: F401
    import mkdocs.commands.build  # noqa: F401
    import material.plugins.search.plugin  # noqa: F401
    import pymdownx.details  # noqa: F401
    import pymdownx.superfences  # noqa: F401
    import pymdownx.tabbed  # noqa: F401
    import glossary.build  # noqa: F401
    import glossary.cli  # noqa: F401
    from glossary.site import headings, plots, publish, render, sanitize, sitefiles, sitemap  # noqa: F401
    from glossary.site import tooltip_html, tooltips  # noqa: F401


def _child(module: str, args: list[str], cwd: Path, env: dict[str, str], out: int, err: int) -> None:
    code = 1
    try:
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.path.insert(0, str(cwd))  # as `python -m` puts its working folder first
        sys.argv = [module, *args]
        warnings.resetwarnings()
        warnings.filters[:] = _FRESH_FILTERS
        for name in ("mkdocs", "glossary", ""):
            logger = logging.getLogger(name)
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
        logging.getLogger().setLevel(logging.WARNING)
        _forget_memoised()
        try:
            if module == "mkdocs":
                from mkdocs.__main__ import cli
                cli.main(args=args, prog_name="mkdocs")
            else:
                from glossary.cli import main
                sys.argv[0] = "glossary"
                main()
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            if done.code is not None and not isinstance(done.code, int):
                print(done.code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 -- an uncaught exception ends the command as Python ends it
            traceback.print_exc()
            code = 1
    finally:
        try:
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _forget_memoised() -> None:
    """Clear what the project's modules memoised in the test's process (a probe made under another
    environment, say): a fresh process starts with none of it."""
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(("glossary", "measure")):
            continue
        for value in list(vars(mod).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", None) == name:
                clear()


def _wait(pid: int, timeout: float | None, cmd: list[str]) -> int:
    deadline = None if timeout is None else time.monotonic() + timeout
    delay = _POLL_S
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if deadline is not None and time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise subprocess.TimeoutExpired(cmd, timeout)
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _read(file) -> str:
    file.seek(0)
    return file.read().decode("utf-8", "replace")
