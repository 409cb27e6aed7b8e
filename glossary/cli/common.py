"""What every command shares: the group, exit codes, the console, the entries folder."""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console

    from glossary.entries.model import Entry


class lazy:  # noqa: N801 - reads as a module
    """A module imported on first use: ``checks = lazy("glossary.checks")``.

    `glossary --help` then loads click and the command modules alone (issue 34): the gate, the
    harness, NumPy, Jinja2 and Rich are imported by the commands that run them.  Each attribute is
    looked up on the real module, so a test's monkeypatch of that module still applies.
    """

    def __init__(self, name: str) -> None:
        if name.split(".")[0] not in ("glossary", "measure"):  # the project's own modules, never an entry's
            raise ValueError(f"lazy({name!r}): only glossary.* and measure.* modules load lazily")
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """No full pass of Python's cyclic garbage collector while a command builds what it keeps to its end.

    A check parses every entry and its results into objects that live until the report is printed;
    the collector's full passes walk all of them, and one took 0.05 s of a check of one entry (issue
    34).  The young passes go on as before, so short-lived cycles (a trial's arrays among them) are
    freed as promptly as ever; the collector's setting comes back when the block ends."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], max(before[2], 1000))
    try:
        yield
    finally:
        gc.set_threshold(*before)


def escape(text: str) -> str:
    """Rich's markup escape, imported when something is printed."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


class Problems(click.ClickException):
    """Problems found: exit status 1, message on stderr."""

    exit_code = 1


def console() -> Console:
    """Where the commands print: no highlighting, long lines kept whole."""
    from rich.console import Console

    # emoji=False: rich reads ":100:" as an emoji code, and "entry.md:100:" (a file and line) became "entry.md💯"
    return Console(highlight=False, soft_wrap=True, emoji=False)


def entries_dir_of(ctx: click.Context) -> Path:
    """The --entries folder."""
    return ctx.obj["entries"]


def usage(ctx: click.Context, err: Exception) -> click.UsageError:
    """A usage error (exit status 2) with the message of ``err``."""
    return click.UsageError(str(err), ctx=ctx)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--entries", "entries_dir", default="entries", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="The folder of entry files.")
@click.pass_context
def cli(ctx: click.Context, entries_dir: Path) -> None:
    """Write, check, measure, review and sign verified glossary entries."""
    ctx.obj = {"entries": entries_dir}


def main() -> None:
    """Entry point of the `glossary` script."""
    try:
        cli(prog_name="glossary")
    except SystemExit as done:
        if _QUICK_EXIT and (done.code is None or isinstance(done.code, int)):
            _exit_now(done.code or 0)
        raise


_QUICK_EXIT: list[bool] = []


def quick_exit() -> None:
    """Say that the command has written everything it will and holds nothing that must be closed (no
    pool, no process, no temporary file): the `glossary` script then ends the process at once instead
    of tearing the interpreter down, which frees every object one by one (0.15-0.2 s after a check of
    an entry, the parsed results and the gate's tables: issue 34).  Commands run through ``cli``
    itself (tests, CliRunner) are not affected."""
    _QUICK_EXIT.append(True)


def _exit_now(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`glossary check | head`): nothing more to say
            pass
    os._exit(code)


def load_all(entries_dir: Path):
    """Every entry, or Problems listing each malformed one."""
    from glossary.entries.model import EntryError, load_entries

    if not entries_dir.is_dir():
        raise click.UsageError(f"no entries folder at {entries_dir}; run from the repository root or pass "
                               f"--entries DIR")
    try:
        return load_entries(entries_dir)
    except EntryError as err:
        count = len(getattr(err, "errors", [err]))
        which = "this entry" if count == 1 else f"these {count} entries"
        raise Problems(f"{err}\nFix {which} first (`glossary check` lists every problem).") from None


def project_trust(entries_dir: Path):
    """The project's trust policy and keys (``glossary.verdicts.trust``), or Problems naming the bad line."""
    from glossary.settings import GlossaryError, Settings

    try:
        return Settings.for_project(entries_dir).load_trust()
    except GlossaryError as err:
        raise Problems(str(err)) from None


def gpus_here(no_gpu: str) -> list[dict]:
    """This machine's GPUs, once author code can be confined here; else Problems: ``no_gpu`` (with
    ``{why}`` filled in) where there is no GPU, the sandbox's own line where there is no sandbox."""
    from glossary.measuring import plan

    available, why = plan.available_gpus()
    if not available:
        raise Problems(no_gpu.format(why=why))
    no_sandbox = plan.sandbox_problem()
    if no_sandbox:  # author code runs only confined: nothing is measured, so nothing unconfined is signed
        raise Problems(no_sandbox)
    return available


def one_entry(ctx: click.Context, name: str) -> Entry:
    """The entry an ENTRY argument names (a slug, its file or a file in its folder); a usage error
    where there is none, Problems where the entries do not load."""
    from glossary import checks

    entries_dir = entries_dir_of(ctx)
    try:
        slug = checks.resolve_slugs(entries_dir, [name])[0]
    except checks.CheckError as err:
        raise usage(ctx, err) from None
    return load_all(entries_dir)[slug]
