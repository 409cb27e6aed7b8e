"""`glossary import`: a folder of Markdown terms as draft entries, with a report of what did not map."""

from __future__ import annotations

import json
from pathlib import Path

import click

from glossary.cli.common import cli, console, entries_dir_of, escape, lazy

importer = lazy("glossary.importer")

_STYLE = {"error": "bold red", "info": "yellow"}


@cli.command("import")
@click.argument("source", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Write nothing; print what the import would do.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the report to FILE: JSON where FILE ends in .json, Markdown otherwise.")
@click.option("--overwrite", is_flag=True,
              help="Replace entries that an earlier `glossary import` wrote (never other entries).")
@click.option("--rename", "renames", multiple=True, metavar="OLD=NEW",
              help="Import the term whose slug would be OLD as NEW (repeatable).")
@click.option("--merge-into", "merges", multiple=True, metavar="OLD[=ENTRY]",
              help="Write no entry for the term OLD; its links point at ENTRY (default: the entry OLD already "
                   "there). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the files with errors and the totals.")
@click.pass_context
def import_(ctx: click.Context, source: Path, dry_run: bool, report_file: Path | None, overwrite: bool,
            renames: tuple[str, ...], merges: tuple[str, ...], as_json: bool, quiet: bool) -> None:
    """Import the Markdown terms under DIR (front-matter, section folders) as draft entries.

    Each term becomes entries/<slug>.md with author and reviewer 'pending'; links between terms,
    images, the first sentence (the summary), section folders (tags) and link texts (aliases)
    are mapped as docs/maintainers/importing.md describes; links, FIFOs, devices, deep folders
    and names that are not UTF-8 are reported, never followed or opened. Exits 1 when a term (or a
    part of DIR) could not be imported, 2 when DIR, the entries folder or the report file is unusable.
    """
    if not source.is_dir():
        raise click.UsageError(f"no folder to import at {source}", ctx=ctx)
    entries_dir = entries_dir_of(ctx)
    if not entries_dir.is_dir():
        raise click.UsageError(f"no entries folder at {entries_dir}; run from the repository root or pass "
                               f"--entries DIR", ctx=ctx)
    renamed = _pairs(ctx, "--rename", renames, need_new=True)
    merged = _pairs(ctx, "--merge-into", merges, need_new=False)
    if report_file is not None:
        try:
            importer.check_report_path(report_file)
        except importer.ReportFileError as err:
            raise click.UsageError(str(err), ctx=ctx) from None
    out = console()
    def progress(done: int, total: int) -> None:
        if done == total or done % 100 == 0:
            out.print(f"  {done}/{total} entries", end="\r" if done < total else "\n")
    try:
        report = importer.import_glossary(source, entries_dir, dry_run=dry_run, overwrite=overwrite,
                                          progress=progress if out.is_terminal and not as_json else None,
                                          renames=renamed, merges=merged)
    except importer.SourceFolderError as err:
        raise click.UsageError(str(err), ctx=ctx) from None
    if report_file is not None:
        try:
            importer.write_report(report, report_file)
        except importer.ReportFileError as err:
            raise click.UsageError(str(err), ctx=ctx) from None
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        _print(report, quiet)
        if report_file is not None:
            out.print(f"Report written to {escape(str(report_file))}.")
    if not report.ok:
        ctx.exit(1)


def _pairs(ctx: click.Context, option: str, values: tuple[str, ...], need_new: bool) -> dict[str, str]:
    """'OLD=NEW' values as {OLD: NEW}; a value without '=' maps OLD to itself where allowed."""
    from glossary.entries.model import SLUG_RE

    out: dict[str, str] = {}
    for value in values:
        old, eq, new = value.partition("=")
        old, new = old.strip(), (new.strip() if eq else old.strip())
        if (need_new and not eq) or not SLUG_RE.match(old) or not SLUG_RE.match(new):
            form = "OLD=NEW" if need_new else "OLD or OLD=ENTRY"
            raise click.UsageError(f"{option} {value!r}: expected {form}, each a slug (lowercase words joined by "
                                   f"'-')", ctx=ctx)
        out[old] = new
    return out


def _print(report: importer.ImportReport, quiet: bool) -> None:
    out = console()
    for note in report.general:
        out.print(f"[{_STYLE[note.severity]}]{note.severity}[/] {note.kind}: {escape(note.message)}")
    for file in report.files:
        notes = [n for n in file.notes if n.severity == "error" or not quiet]
        if not notes:
            continue
        where = f"-> {escape(str(file.entry))}" if file.imported else "[red]not imported[/]"
        out.print(f"[bold]{escape(file.source)}[/] {where}")
        for n in notes:
            out.print(f"  [{_STYLE[n.severity]}]{n.severity:5}[/] {n.kind:12} {escape(n.message)}")
    verdict = "[green]OK[/]" if report.ok else "[red]FAILED[/]"
    out.print(f"{verdict}: {escape(report.summary_line())}.")
    if report.imported and not report.dry_run:
        out.print("Next: read each entry, put the real author's name in `author:`, then `glossary check`.")
