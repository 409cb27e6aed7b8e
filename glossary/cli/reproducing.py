"""`glossary reproduce`: measure entries again on this GPU and compare every published number."""

from __future__ import annotations

import datetime as dt
import logging

import click

from glossary.cli.common import (Problems, cli, console, entries_dir_of, escape, gpus_here, lazy, load_all,
                                 project_trust, usage)
from glossary.cli.node import default_name, display_path
from glossary.measuring import DEFAULT_DEADLINE_S  # --help shows it without importing the pool

agreement = lazy("glossary.verdicts.agreement")
attest = lazy("measure.attest")
checks = lazy("glossary.checks")
fmt = lazy("glossary.figures.fmt")
pool = lazy("glossary.measuring.pool")
reproduce_mod = lazy("glossary.verdicts.reproduce")
trust = lazy("glossary.verdicts.trust")


@cli.command()
@click.argument("entries", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Every entry with a committed record for a GPU model here.")
@click.option("--node", "node_name", envvar="GLOSSARY_NODE_NAME", default=None,
              help="This node's name, as its line in trust/reproducers.allowed_signers gives it "
                   "(default: $GLOSSARY_NODE_NAME, else <gpu>-node-<date>).")
@click.option("--gpus", default="all", show_default=True, help="GPUs to measure on: all, a count or indices.")
@click.option("--deadline", type=click.FloatRange(min=1), default=DEFAULT_DEADLINE_S, show_default=True,
              help="Seconds one entry may take before its process is killed and the entry is reported.")
@click.option("--numbers/--no-numbers", default=True, show_default=True,
              help="Print every number's ratio, not only each regime's worst.")
@click.pass_context
def reproduce(ctx: click.Context, entries: tuple[str, ...], everything: bool, node_name: str | None, gpus: str,
              deadline: float, numbers: bool) -> None:
    """Measure ENTRIES again on this machine's GPU and compare them with the committed records.

    For each entry with a committed, verified, current record for a GPU model here, the harness
    measures it again (in the sandbox, counters profiled anew; nothing is recorded in results/)
    and every published number is compared with the record's: each variant's time at each size,
    each counter reading, each floor. Prints each number's ratio, the worst difference per size
    regime, and each claim's verdict on both runs. With a node key (`glossary node init`), writes
    the signed reproduction to entries/<slug>/reproductions/<device>-<node>.json. A model with no
    committed record is reported, never compared. Exits 1 when a reproduction disagrees beyond its
    tolerance or a measurement fails.
    """
    entries_dir = entries_dir_of(ctx)
    if not entries and not everything:
        raise usage(ctx, ValueError("name the entries to reproduce, or pass --all"))
    try:
        slugs = checks.resolve_slugs(entries_dir, entries) if entries else None
    except checks.CheckError as err:
        raise usage(ctx, err) from None
    loaded = load_all(entries_dir)
    policy = project_trust(entries_dir)
    chosen = [e for s, e in loaded.items() if slugs is None or s in slugs]
    available = gpus_here("no GPU to reproduce on here: {why}. `glossary reproduce` runs on a machine with a "
                          "CUDA GPU and pycuda (pip install -e '.[gpu]').")
    try:
        signer = attest.node_signer()
    except attest.AttestError as err:
        raise Problems(f"the node key {attest.node_key_path()} cannot be used: {err}") from None
    node = node_name or default_name()
    log = logging.getLogger("glossary.cli.reproduce")
    out = console()
    shown: list[reproduce_mod.Report] = []

    def arrived(report: reproduce_mod.Report) -> None:  # each comparison as its measurement ends
        shown.append(report)
        show(out, [report], numbers)

    try:
        reports = reproduce_mod.reproduce(chosen, policy, log, node=node, signer=signer, gpus=gpus,
                                          deadline_s=deadline, available=available, on_report=arrived,
                                          say=lambda who, line: out.print(f"[dim]{escape(who)}: {escape(line)}[/]"))
    except pool.PoolError as err:
        raise usage(ctx, err) from None
    show(out, [r for r in reports if not any(r is s for s in shown)], numbers)
    bad = sum(r.status == "failed" or (r.agreement is not None and not r.agreement.agrees) for r in reports)
    written = [r for r in reports if r.path is not None]
    if written and signer is not None:
        line = trust.allowed_signers_line(node, signer.public, trust.REPRODUCTION_NAMESPACE,
                                          valid_after=dt.date.today())
        out.print(f"{len(written)} reproduction{'' if len(written) == 1 else 's'} written and signed by "
                  f"{escape(signer.public.keyid)}. For the site to count them, add this line to "
                  f"{trust.REPRODUCERS_FILE} in a reviewed change, with the files:")
        click.echo(line)
    if bad:
        ctx.exit(1)


def show(out, reports: list[reproduce_mod.Report], numbers: bool = True) -> int:
    """Print the agreement report; return how many entries failed or disagreed."""
    bad = 0
    for r in reports:
        head = f"{escape(r.slug)} on {escape(r.device)}"
        if r.status != "compared":
            colour = "red" if r.status == "failed" else "yellow"
            out.print(f"[{colour}]{r.status.replace('-', ' ')}[/] {head}: {escape(r.reason)}")
            bad += r.status == "failed"
            continue
        agreed = r.agreement
        verdict = "[green]agrees[/]" if agreed.agrees else "[red]DISAGREES[/]"
        out.print(f"{verdict} {head}: {len(agreed.numbers)} numbers compared with the committed record")
        if numbers:
            for n in agreed.numbers:
                ratio = "missing" if n.ratio is None else f"{n.ratio:.4f}"
                mark = "ok" if n.ok else "[red]OUTSIDE[/]"
                out.print(f"  {escape(fmt.params(n.params)):>18}  {escape(n.what):40s} {ratio:>8}  "
                          f"{agreement.REGIME_TEXT[n.regime]}, within {agreement.percent(n.tolerance)}"
                          f"{' (declared)' if n.declared else ''}: {mark}")
        for g in agreed.regimes():
            out.print(f"  {g.text}: {g.count} numbers, worst difference {agreement.percent(g.worst)} "
                      f"({escape(g.worst_number.where)}), tolerance {g.tolerance_text}; "
                      f"{len(g.outside)} outside")
        for statement, before, after in r.claims:
            same = "" if before == after else "  [red](differs)[/]"
            out.print(f"  claim: {escape(statement)}: {before} on the record, {after} on this run{same}")
        if agreed.extra_sizes:
            out.print(f"  sizes measured here that the record lacks (not compared): {', '.join(agreed.extra_sizes)}")
        if r.path is not None:
            out.print(f"  written: {escape(display_path(r.path))}")
        else:
            out.print(f"  [yellow]not written[/]: {escape(r.unsigned_why)}")
        bad += not agreed.agrees
    return bad
