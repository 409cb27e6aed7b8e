"""`glossary try`: an author's quick look on a GPU machine; nothing is recorded."""

from __future__ import annotations

import time

import click

from glossary.cli.common import Problems, cli, console, escape, lazy, one_entry, usage

plan = lazy("glossary.measuring.plan")
quick = lazy("glossary.measuring.quick")


@cli.command("try")
@click.argument("entry")
@click.option("--size", "size", multiple=True, metavar="K=V",
              help="A size parameter other than the headline's, e.g. --size n=1048576 (repeatable).")
@click.pass_context
def try_(ctx: click.Context, entry: str, size: tuple[str, ...]) -> None:
    """Compile, check and time ENTRY at its headline size on this GPU, without counters.

    Prints the table and the ratios; records nothing (a published figure comes only from
    `glossary measure` on the verification node). Exits 1 when there is no GPU here or the
    entry fails its correctness check.
    """
    target = one_entry(ctx, entry)
    slug = target.slug
    if target.meta.measure is None:
        raise Problems(f"{target.path} has no measure: spec; there is nothing to try")
    try:
        spec = quick.quick_spec(target.meta.measure, quick.parse_size(size))
    except quick.QuickError as err:
        raise usage(ctx, err) from None
    ok, why = plan.probe()
    if not ok:
        raise Problems(f"no GPU to try on here: {why}")
    from rich.table import Table

    from glossary.figures import views
    from measure import harness, results
    from measure.harness.phases import breakdown

    out = console()
    no_sandbox = plan.sandbox_problem()
    if no_sandbox:  # the entry's code runs confined or not at all, even for a look nothing records
        raise Problems(no_sandbox)
    started = time.monotonic()
    try:
        data = harness.measure_entry(slug, target.folder, spec, "quick-look (not recorded)",
                                     progress=lambda line: out.print(f"[dim]{escape(line)}[/]"),
                                     covered=set(target.kernel_files))
    except harness.MeasurementError as err:
        raise Problems(f"{slug}: {err}") from None
    result = results.parse_measured(data)
    (view,) = views.device_views(target, {result.device: result})  # the page's own figures
    size = view.sizes[0]
    table = Table(title=f"{escape(slug)} at {escape(str(size.params))} on {escape(view.gpu)} "
                        f"({result.method.statistic}; not recorded)")
    for column in ("variant", "ms", "GB/s", "of copy floor"):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for row in size.rows:
        table.add_row(escape(row.name), f"{row.ms:.4f}", f"{row.gbps:,.0f}",
                      f"{row.fraction_of_floor:.0%}" if row.fraction_of_floor is not None else "–")
    out.print(table)
    for ratio in size.ratios:
        out.print(f"{escape(ratio.num)} / {escape(ratio.den)}: time {ratio.time_ratio:.2f}x, "
                  f"bytes {ratio.byte_ratio:.2f}x")
    if result.phases:
        out.print(f"{time.monotonic() - started:.1f} s here; {breakdown(result.phases)}")
