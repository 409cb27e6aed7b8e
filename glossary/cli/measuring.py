"""`glossary measure`: measure entries on this machine's GPUs, with progress."""

from __future__ import annotations

import logging

import click

from glossary.cli.common import (cli, console, entries_dir_of, escape, gpus_here, lazy, load_all, project_trust,
                                 usage)
from glossary.measuring import DEFAULT_DEADLINE_S  # --help shows it without importing the pool

checks = lazy("glossary.checks")
plan = lazy("glossary.measuring.plan")
pool = lazy("glossary.measuring.pool")
results = lazy("measure.results")
trust = lazy("glossary.verdicts.trust")


# -- measure ------------------------------------------------------------------------


@cli.command()
@click.argument("entries", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Re-measure even results that are current.")
@click.option("--gpus", default="all", show_default=True,
              help="GPUs to measure on, one worker process each: all, a count (2) or indices (0,2).")
@click.option("--shard", metavar="I/N", default=None,
              help="Measure only shard I of N (1-based): every node of a fleet runs one shard.")
@click.option("--recount", is_flag=True,
              help="Profile the counters again even where a verified earlier result has them for the same "
                   "kernels, launches, inputs, device and ncu.")
@click.option("--deadline", type=click.FloatRange(min=1), default=DEFAULT_DEADLINE_S, show_default=True,
              help="Seconds one entry may take before its process is killed and the entry is reported.")
@click.pass_context
def measure(ctx: click.Context, entries: tuple[str, ...], everything: bool, gpus: str, shard: str | None,
            deadline: float, recount: bool) -> None:
    """Measure ENTRIES (default: every entry with a spec) on this machine's GPUs.

    Only missing, failed or stale results are measured, unless --all. Each GPU
    runs a worker process that takes entries from one queue; a failure is
    recorded beside the last good result. Exits 1 when there is no GPU here or
    a measurement fails.
    """
    entries_dir = entries_dir_of(ctx)
    try:
        slugs = checks.resolve_slugs(entries_dir, entries) if entries else None
        shard_of = pool.parse_shard(shard) if shard else None
    except (checks.CheckError, pool.PoolError) as err:
        raise usage(ctx, err) from None
    loaded = load_all(entries_dir)
    policy = project_trust(entries_dir)
    carry = None if recount else (lambda entry, device: trust.counters_to_carry(entry, device, policy))
    chosen = [e for s, e in loaded.items() if slugs is None or s in slugs]
    available = gpus_here("no GPU to measure on here: {why}. Run `glossary measure` on the verification node "
                          "(a machine with a CUDA GPU and pycuda: pip install -e '.[gpu]').")
    try:
        gpu_list = pool.select_gpus(gpus, available)
    except pool.PoolError as err:
        raise usage(ctx, err) from None
    # Planned here for the message and the progress bar's total; measure_entries plans again once it
    # holds the GPUs, so results another run recorded meanwhile are not measured twice.
    jobs = plan.plan(chosen, gpu_list, only_stale=not everything, shard=shard_of, carry=carry)
    models = " and ".join(dict.fromkeys(g["name"] for g in gpu_list))
    out = console()
    if not jobs:
        where = f" in shard {shard}" if shard else ""
        out.print(f"Nothing to measure{where}: every chosen entry's results for {escape(models)} are current.")
        return
    from rich.logging import RichHandler
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from glossary.measuring.progress import Tally, configurations
    from measure.harness.phases import breakdown

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=out, transient=False) as progress:
        log = logging.getLogger("glossary.cli.measure")
        log.propagate = False
        log.handlers[:] = [RichHandler(console=progress.console, show_path=False)]
        log.setLevel(logging.INFO)
        by_slug = {e.slug: e for e in chosen}
        tally = Tally({job: configurations(by_slug[job.slug]) for job in jobs})
        overall = progress.add_task(overall_description(tally.total, len({j.slug for j in jobs}), len(gpu_list)),
                                    total=tally.total)
        lanes = {f"GPU {g['index']}": progress.add_task(f"GPU {g['index']} ({escape(g['name'])}): starting",
                                                        total=None) for g in gpu_list}

        def say(who: str, line: str) -> None:
            if who in lanes:
                progress.update(lanes[who], description=f"{who}: {escape(line)}")

        def on_configs(job: pool.Job, done: float, total: int) -> None:
            tally.update(job, done, total)
            progress.update(overall, total=tally.total, completed=tally.completed)

        def on_done(outcome: pool.Outcome) -> None:
            tally.finish(outcome.job)
            progress.update(overall, total=tally.total, completed=tally.completed)

        outcomes = plan.measure_entries(chosen, log, only_stale=not everything, gpus=gpus, shard=shard_of,
                                        deadline_s=deadline, available=available, say=say,
                                        on_done=on_done, on_configs=on_configs, carry=carry)
        for lane in lanes.values():
            progress.update(lane, total=1, completed=1)
    failed = [o for o in outcomes if not o.ok]
    timed = [(o, results.parse_measured(o.result).phases) for o in outcomes if o.ok]
    if any(phases for _, phases in timed):
        out.print("Where the time went (wall seconds per phase):")
        for outcome, phases in timed:
            if phases:
                out.print(f"  {escape(outcome.job.slug)} on {outcome.job.device}: {breakdown(phases)}")
    for outcome in failed:
        out.print(f"[red]failed[/] {escape(outcome.job.slug)} on {outcome.job.device}: {escape(outcome.error)}")
    devices = list(dict.fromkeys(o.job.device for o in outcomes))
    names = devices[0] if len(devices) == 1 else "{" + ",".join(devices) + "}"
    out.print(f"{len(outcomes) - len(failed)} of {len(outcomes)} measured on {escape(models)}; results are in "
              f"{escape(str(entries_dir))}/<slug>/results/{names}.json. Commit them.")
    if failed:
        ctx.exit(1)


def overall_description(count: int, entries: int, gpus: int) -> str:
    """What the overall bar counts: "20 configurations of 1 entry on 1 GPU"."""
    return (f"{count} configuration{'' if count == 1 else 's'} of "
            f"{entries} entr{'y' if entries == 1 else 'ies'} on {gpus} GPU{'' if gpus == 1 else 's'}")
