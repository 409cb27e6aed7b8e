"""Authoring commands: `glossary new`, `check`, `status` and `schema`."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import click

from glossary.cli.common import (Problems, cli, console, entries_dir_of, escape, fewer_collections, lazy, quick_exit,
                                 usage)

if TYPE_CHECKING:
    from rich.table import Table

checks = lazy("glossary.checks")
scaffold = lazy("glossary.entries.scaffold")


@cli.command()
@click.argument("term")
@click.pass_context
def new(ctx: click.Context, term: str) -> None:
    """Scaffold an entry for TERM: the page, a kernel stub, a reference stub and a spec skeleton."""
    entries_dir = entries_dir_of(ctx)
    if not entries_dir.is_dir():
        raise click.UsageError(f"no entries folder at {entries_dir}; run from the repository root or pass "
                               f"--entries DIR", ctx=ctx)
    if not scaffold.slugify(term):
        raise click.UsageError(f"cannot make a file name from {' '.join(term.split())!r}; use letters or digits",
                               ctx=ctx)
    try:
        page, kernel, reference = scaffold.create(entries_dir, term)
    except scaffold.ScaffoldError as err:
        raise Problems(str(err)) from None
    out = console()
    out.print(f"Created {escape(str(page))}, {escape(str(kernel))} and {escape(str(reference))}.")
    out.print("Next: write the summary and body, put your name in `author:`, shape the `measure:` spec, "
              f"then run `glossary check {page.stem}`. See docs/maintainers/writing-an-entry.md.")


# -- check --------------------------------------------------------------------------


@cli.command()
@click.argument("entries", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--strict", is_flag=True, help="Warnings fail too, as in `mkdocs build --strict`.")
@click.option("--drafts-ok", is_flag=True,
              help="What a draft lacks by design (no reviewer yet, a stale review, no current result, scaffold "
                   "text, a failing claim, an unsigned result) is reported but does not fail: for pre-commit, "
                   "where drafts are normal. Spec, content and figure errors still fail.")
@click.pass_context
def check(ctx: click.Context, entries: tuple[str, ...], as_json: bool, strict: bool, drafts_ok: bool) -> None:
    """Check the schema, links, publish gate, stale results, stale reviews and unbound figures of ENTRIES.

    Without ENTRIES, every entry.  Exits 1 when something blocks publishing.
    """
    with fewer_collections():  # over the report's printing too: it is made of everything checked
        _check(ctx, entries, as_json, strict, drafts_ok)


def _check(ctx: click.Context, entries: tuple[str, ...], as_json: bool, strict: bool, drafts_ok: bool) -> None:
    entries_dir = entries_dir_of(ctx)
    try:
        only = checks.resolve_slugs(entries_dir, entries) if entries else None
        reports, general = checks.inspect(entries_dir, only, run_code=True)
    except checks.CheckError as err:
        raise usage(ctx, err) from None
    problems = [p for r in reports for p in r.problems] + general
    failing = [p for p in problems if (p.severity == "error" or strict) and not (drafts_ok and p.refusal)]
    if as_json:
        click.echo(json.dumps({
            "ok": not failing,
            "errors": sum(p.severity == "error" for p in problems),
            "warnings": sum(p.severity == "warning" for p in problems),
            "entries": [{"slug": r.slug, "path": str(r.path), "publishable": r.publishable,
                         "problems": [p.to_json() for p in r.problems]} for r in reports],
            "general": [p.to_json() for p in general],
        }, indent=2))
    else:
        _print_check(reports, general, failing)
    quick_exit()  # every pool, sandbox and scratch folder of the check is closed by now
    if failing:
        ctx.exit(1)


def _print_check(reports: list[checks.EntryReport], general: list[checks.Problem],
                 failing: list[checks.Problem]) -> None:
    out = console()
    style = {"error": "bold red", "warning": "yellow"}
    for report in reports:
        state = "[green]publishable[/]" if report.publishable else "[red]refused[/]"
        out.print(f"[bold]{escape(report.slug)}[/] ({escape(str(report.path))}): {state}")
        for p in report.problems:
            out.print(f"  [{style[p.severity]}]{p.severity:7}[/] {p.check:8} {escape(p.message)}")
    for p in general:
        out.print(f"[{style[p.severity]}]{p.severity}[/] {p.check}: {escape(p.message)}")
    errors = sum(len(r.errors) for r in reports) + sum(p.severity == "error" for p in general)
    warnings = sum(len(r.warnings) for r in reports) + sum(p.severity == "warning" for p in general)
    publishable = sum(r.publishable for r in reports)
    verdict = "[red]FAILED[/]" if failing else "[green]OK[/]"
    out.print(f"{verdict}: {len(reports)} entr{'y' if len(reports) == 1 else 'ies'}, {publishable} publishable; "
              f"{errors} error(s), {warnings} warning(s).")


# -- status -------------------------------------------------------------------------


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """One row per entry: publishable or why not, devices with capture dates, stale flags.

    Exits 1 when some entry would not be published.
    """
    try:
        reports, _ = checks.inspect(entries_dir_of(ctx), lint=False)
    except checks.CheckError as err:
        raise usage(ctx, err) from None
    rows = [checks.status_row(r) for r in reports]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table("entry", "publishable", "devices (captured)", "stale", "review")
        for row in rows:
            why = "yes" if row["publishable"] else "no: " + "; ".join(row["why_not"])
            devices = ", ".join(f"{d['gpu']} ({d['captured_on']}, {d['attestation']})"
                                for d in row["devices"]) or "–"
            stale = ", ".join(k for k in ("results", "review") if row[f"stale_{k}"]) or "–"
            rv = row["review"]
            signed = (f"{rv['reviewer']} {rv['reviewed_on']} {rv['status']}"
                      f"{' ' + rv['fingerprint'] if rv['fingerprint'] else ''}") if rv["reviewer"] else "–"
            table.add_row(*(escape(str(c)) for c in (row["slug"], why, devices, stale, signed)))
        out = console()
        if not out.is_terminal:
            # piped or redirected: no terminal's width to fit, so every cell keeps its line whole
            # (at Rich's default 80 columns a reason became a cell thirty lines tall)
            out = Console(highlight=False, soft_wrap=True, emoji=False, width=_unwrapped_width(table))
        out.print(table)
    if not all(row["publishable"] for row in rows):
        ctx.exit(1)


def _unwrapped_width(table: Table) -> int:
    """The width at which no cell of ``table`` wraps: every column as wide as its widest cell,
    plus the borders and padding Rich draws (a generous 4 a column)."""
    widths = [max([len(str(c.header))] + [len(str(cell)) for cell in c.cells]) for c in table.columns]
    return sum(widths) + 4 * len(widths) + 4


# -- sign ---------------------------------------------------------------------------


# -- schema -------------------------------------------------------------------------


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the front-matter (glossary schema > schema/entry.schema.json)."""
    from glossary.entries.model import front_matter_schema

    click.echo(json.dumps(front_matter_schema(), indent=2))
