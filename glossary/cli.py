"""`glossary`: the command line of authors and reviewers.

Exit codes, for every subcommand: 0 all is well; 1 problems found (an entry
that would not publish, a refused signature, no GPU to measure on); 2 a usage
error (an unknown option or entry, a missing entries folder).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
from pathlib import Path

import click
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from glossary.verdicts import assess, review, trust
from glossary import checks
from glossary.measuring import plan, pool
from glossary.entries import scaffold
from glossary.settings import GlossaryError, Settings
from glossary.verdicts.gate import is_real_name
from glossary.entries.model import EntryError, front_matter_schema, load_entries, parse_entry
from measure import attest, store



class Problems(click.ClickException):
    """Problems found: exit status 1, message on stderr."""

    exit_code = 1


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _entries_dir(ctx: click.Context) -> Path:
    return ctx.obj["entries"]


def _usage(ctx: click.Context, err: Exception) -> click.UsageError:
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
    cli(prog_name="glossary")


# -- new ----------------------------------------------------------------------------


@cli.command()
@click.argument("term")
@click.pass_context
def new(ctx: click.Context, term: str) -> None:
    """Scaffold an entry for TERM: the page, a kernel stub, a reference stub and a spec skeleton."""
    entries_dir = _entries_dir(ctx)
    if not entries_dir.is_dir():
        raise click.UsageError(f"no entries folder at {entries_dir}; run from the repository root or pass "
                               f"--entries DIR", ctx=ctx)
    term = " ".join(term.split())
    slug = scaffold.slugify(term)
    if not slug:
        raise click.UsageError(f"cannot make a file name from {term!r}; use letters or digits", ctx=ctx)
    page, folder = entries_dir / f"{slug}.md", entries_dir / slug
    taken = [str(p) for p in (page, folder) if p.exists()]
    if taken:
        raise Problems(f"{' and '.join(taken)} already exist(s); refusing to overwrite. "
                       f"Edit the entry, or choose another term.")
    files = {page: scaffold.page(term, slug), folder / f"{slug}.cu": scaffold.kernel(term),
             folder / "reference.py": scaffold.reference(term)}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    try:
        parse_entry(page, entries_dir)
    except EntryError as err:  # a scaffold that does not parse is a bug here, not the author's
        raise Problems(f"the scaffold does not parse ({err}); please report this") from None
    out = _out()
    out.print(f"Created {escape(str(page))}, {escape(str(folder / f'{slug}.cu'))} and "
              f"{escape(str(folder / 'reference.py'))}.")
    out.print("Next: write the summary and body, put your name in `author:`, shape the `measure:` spec, "
              f"then run `glossary check {slug}`. See docs/maintainers/writing-an-entry.md.")


# -- check --------------------------------------------------------------------------


@cli.command()
@click.argument("entries", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--strict", is_flag=True, help="Warnings fail too, as in `mkdocs build --strict`.")
@click.option("--drafts-ok", is_flag=True,
              help="Publish-gate refusals (no reviewer yet, a stale review, no current result, scaffold "
                   "text, a failing claim, an unsigned result) are reported but do not fail: for pre-commit, "
                   "where drafts are normal.")
@click.pass_context
def check(ctx: click.Context, entries: tuple[str, ...], as_json: bool, strict: bool, drafts_ok: bool) -> None:
    """Check the schema, links, publish gate, stale results, stale reviews and unbound figures of ENTRIES.

    Without ENTRIES, every entry.  Exits 1 when something blocks publishing.
    """
    entries_dir = _entries_dir(ctx)
    try:
        only = checks.resolve_slugs(entries_dir, entries) if entries else None
        reports, general = checks.inspect(entries_dir, only)
    except checks.CheckError as err:
        raise _usage(ctx, err) from None
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
    if failing:
        ctx.exit(1)


def _print_check(reports: list[checks.EntryReport], general: list[checks.Problem],
                 failing: list[checks.Problem]) -> None:
    out = _out()
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
        reports, _ = checks.inspect(_entries_dir(ctx), lint=False)
    except checks.CheckError as err:
        raise _usage(ctx, err) from None
    rows = [checks.status_row(r) for r in reports]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
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
        _out().print(table)
    if not all(row["publishable"] for row in rows):
        ctx.exit(1)


# -- sign ---------------------------------------------------------------------------


@cli.command()
@click.argument("entry")
@click.option("--as", "name", required=True, metavar="NAME", help="The reviewer's real name.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The reviewer's Ed25519 private key (OpenSSH format; default: $GLOSSARY_SIGNING_KEY, "
                   "else ~/.ssh/id_ed25519). Its public half must be listed under NAME in "
                   "trust/people.allowed_signers.")
@click.option("--passphrase-env", metavar="VAR", default=None,
              help="Read the key's passphrase from this environment variable.")
@click.option("--date", "date", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The review date, YYYY-MM-DD (default: today).")
@click.pass_context
def sign(ctx: click.Context, entry: str, name: str, key_file: Path | None, passphrase_env: str | None,
         date: dt.datetime | None) -> None:
    """Sign ENTRY's review as NAME with NAME's key, bound to its text, kernels and recorded results.

    Writes reviewer, reviewed_on and review_fingerprint into the front-matter,
    changing nothing else, and the signed review beside the entry
    (entries/<slug>/review.dsse.json). Refuses the author's name and key,
    placeholders, and a key the repository does not list under NAME. Under
    `trust: names` no key is needed and the review is recorded by name only.
    """
    entries_dir = _entries_dir(ctx)
    try:
        slug = checks.resolve_slugs(entries_dir, [entry])[0]
    except checks.CheckError as err:
        raise _usage(ctx, err) from None
    target = _load(entries_dir)[slug]
    problem = review.signer_problem(target, name)
    if problem:
        raise Problems(f"not signed: {problem}")
    try:
        options = Settings.for_project(entries_dir)
        policy, catalog = options.load_trust(), options.load_catalog()
    except GlossaryError as err:
        raise Problems(f"not signed: {err}") from None
    signer = None
    if policy.signed:
        signer = _reviewer_key(key_file, passphrase_env)
        why = trust.signing_problem(target, name, signer, policy)
        if why:
            raise Problems(f"not signed: {why}")
    try:
        results = store.load_results(target.folder)
    except store.StoreError as err:
        raise Problems(f"not signed: {err}") from None
    day = date.date() if date else dt.date.today()
    raw = target.path.read_bytes()
    try:
        signed, fingerprint = review.sign_entry(target, raw.decode("utf-8"), name, day, results, catalog)
    except review.ReviewError as err:
        raise Problems(f"not signed: {target.path}: {err}") from None
    store.write_bytes_atomic(target.path, signed.encode("utf-8"))
    envelope = trust.review_path(target)
    old_envelope = envelope.read_bytes() if envelope.exists() else None
    try:
        again_entry = parse_entry(target.path, entries_dir)
        if signer is not None:
            trust.write_review_signature(again_entry, again_entry.meta.reviewer, day, fingerprint, signer)
        judged = assess.assess(again_entry, results, policy, catalog)
        again, why = judged.review, judged.review.status
        refused = [f.message for f in judged.refusals if f.check in ("gate", "review")]
    except EntryError as err:
        again, why, refused = None, str(err), []
    if again is None or again.status != "current" or refused:
        store.write_bytes_atomic(target.path, raw)
        if old_envelope is None:
            envelope.unlink(missing_ok=True)
        else:
            store.write_bytes_atomic(envelope, old_envelope)
        raise Problems(f"not signed: re-reading {target.path} after signing did not give a current, signed "
                       f"review ({'; '.join(refused) or why}); the files are unchanged")
    out = _out()
    how = (f"with key {signer.public.keyid}" if signer is not None else "by name only (trust: names)")
    out.print(f"Signed {escape(slug)} as {escape(' '.join(name.split()))} on {day.isoformat()} {how}: "
              f"review fingerprint {again.short}.")
    stale = [d.gpu for d in checks.inspect(entries_dir, [slug], lint=False, policy=policy)[0][0].devices
             if d.stale]
    if stale:
        out.print(f"[yellow]warning[/]: the results for {escape(', '.join(stale))} are stale; re-measuring them "
                  f"will make this review stale too.")


def _reviewer_key(key_file: Path | None, passphrase_env: str | None) -> attest.Signer:
    path = key_file or Path(os.environ.get("GLOSSARY_SIGNING_KEY") or Path.home() / ".ssh" / "id_ed25519")
    password = os.environ.get(passphrase_env, "").encode() if passphrase_env else None
    try:
        return attest.Signer.from_file(path.expanduser(), password=password)
    except attest.AttestError as err:
        raise Problems(f"not signed: {err}") from None


# -- keys ---------------------------------------------------------------------------


@cli.group()
def node() -> None:
    """The verification node's signing key."""


@node.command("init")
@click.option("--name", default=None, help="The node's name in trust/nodes.allowed_signers "
                                           "(default: <gpu-or-host>-<date>).")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to keep the private key (default: $GLOSSARY_NODE_KEY, else "
                   "~/.config/verified-cuda-glossary/node_ed25519). Never inside the repository.")
def node_init(name: str | None, key_file: Path | None) -> None:
    """Make this node's Ed25519 signing key and print the line for trust/nodes.allowed_signers.

    The private key stays on this machine (mode 0600); only the printed public line goes
    into the repository, where its review makes the node trusted.
    """
    path = (key_file or attest.node_key_path()).expanduser().resolve()
    repo = Path.cwd().resolve()
    if (repo / ".git").exists() and repo in path.parents:
        raise Problems(f"refusing to keep a private key inside the repository ({path}); choose a path outside it")
    if path.exists():
        raise Problems(f"{path} exists already; its public line: "
                       f"{(path.with_name(path.name + '.pub')).read_text().strip() if path.with_name(path.name + '.pub').exists() else '?'}"
                       f" (remove the key first to make a new one)")
    signer = attest.Signer.generate()
    signer.save(path)
    today = dt.date.today()
    label = name or f"{_node_label()}-{today.isoformat()}"
    click.echo(f"# private key: {path} (stays on this machine)", err=True)
    click.echo(trust.allowed_signers_line(label, signer.public, trust.RESULT_NAMESPACE, valid_after=today))


def _node_label() -> str:
    try:
        from measure import harness

        gpus = harness.list_gpus()
        if gpus:
            return store.device_key(gpus[0]["name"]) + "-node"
    except Exception:  # no GPU, no pycuda: the host's name will do
        pass
    return re.sub(r"[^a-z0-9-]+", "-", os.uname().nodename.lower()).strip("-") or "node"


@cli.group()
def key() -> None:
    """Public keys for the trust files."""


@key.command("line")
@click.option("--as", "name", required=True, metavar="NAME", help="The person's real name (or a node's name).")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="An Ed25519 public key file (default: ~/.ssh/id_ed25519.pub).")
@click.option("--node", "for_node", is_flag=True, help="A line for trust/nodes.allowed_signers instead.")
def key_line(name: str, key_file: Path | None, for_node: bool) -> None:
    """Print the allowed-signers line for NAME's public key, to add to trust/people.allowed_signers."""
    path = (key_file or Path.home() / ".ssh" / "id_ed25519.pub").expanduser()
    try:
        public = attest.PublicKey.parse(path.read_text(encoding="utf-8"))
    except (OSError, attest.AttestError) as err:
        raise Problems(f"{path}: {getattr(err, 'strerror', None) or err}") from None
    if not for_node and not is_real_name(name):
        raise Problems(f"{name!r} is not a person's name")
    namespace = trust.RESULT_NAMESPACE if for_node else trust.REVIEW_NAMESPACE
    click.echo(trust.allowed_signers_line(" ".join(name.split()), public, namespace,
                                          valid_after=dt.date.today() if for_node else None))


def _load(entries_dir: Path):
    if not entries_dir.is_dir():
        raise click.UsageError(f"no entries folder at {entries_dir}; run from the repository root or pass "
                               f"--entries DIR")
    try:
        return load_entries(entries_dir)
    except EntryError as err:
        count = len(getattr(err, "errors", [err]))
        which = "this entry" if count == 1 else f"these {count} entries"
        raise Problems(f"{err}\nFix {which} first (`glossary check` lists every problem).") from None


# -- measure ------------------------------------------------------------------------


@cli.command()
@click.argument("entries", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Re-measure even results that are current.")
@click.option("--gpus", default="all", show_default=True,
              help="GPUs to measure on, one worker process each: all, a count (2) or indices (0,2).")
@click.option("--shard", metavar="I/N", default=None,
              help="Measure only shard I of N (1-based): every node of a fleet runs one shard.")
@click.option("--deadline", type=click.FloatRange(min=1), default=pool.DEFAULT_DEADLINE_S, show_default=True,
              help="Seconds one entry may take before its process is killed and the entry is reported.")
@click.pass_context
def measure(ctx: click.Context, entries: tuple[str, ...], everything: bool, gpus: str, shard: str | None,
            deadline: float) -> None:
    """Measure ENTRIES (default: every entry with a spec) on this machine's GPUs.

    Only missing, failed or stale results are measured, unless --all. Each GPU
    runs a worker process that takes entries from one queue; a failure is
    recorded beside the last good result. Exits 1 when there is no GPU here or
    a measurement fails.
    """
    entries_dir = _entries_dir(ctx)
    try:
        slugs = checks.resolve_slugs(entries_dir, entries) if entries else None
        shard_of = pool.parse_shard(shard) if shard else None
    except (checks.CheckError, pool.PoolError) as err:
        raise _usage(ctx, err) from None
    loaded = _load(entries_dir)
    chosen = [e for s, e in loaded.items() if slugs is None or s in slugs]
    available, why = plan.available_gpus()
    if not available:
        raise Problems(f"no GPU to measure on here: {why}. Run `glossary measure` on the verification node "
                       f"(a machine with a CUDA GPU and pycuda: pip install -e '.[gpu]').")
    try:
        gpu_list = pool.select_gpus(gpus, available)
    except pool.PoolError as err:
        raise _usage(ctx, err) from None
    # Planned here for the message and the progress bar's total; measure_entries plans again once it
    # holds the GPUs, so results another run recorded meanwhile are not measured twice.
    jobs = plan.plan(chosen, gpu_list, only_stale=not everything, shard=shard_of)
    models = " and ".join(dict.fromkeys(g["name"] for g in gpu_list))
    out = _out()
    if not jobs:
        where = f" in shard {shard}" if shard else ""
        out.print(f"Nothing to measure{where}: every chosen entry's results for {escape(models)} are current.")
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=out, transient=False) as progress:
        log = logging.getLogger("glossary.cli.measure")
        log.propagate = False
        log.handlers[:] = [RichHandler(console=progress.console, show_path=False)]
        log.setLevel(logging.INFO)
        overall = progress.add_task(f"{len(jobs)} job(s) on {len(gpu_list)} GPU(s)", total=len(jobs))
        lanes = {f"GPU {g['index']}": progress.add_task(f"GPU {g['index']} ({escape(g['name'])}): starting",
                                                        total=None) for g in gpu_list}

        def say(who: str, line: str) -> None:
            if who in lanes:
                progress.update(lanes[who], description=f"{who}: {escape(line)}")

        outcomes = plan.measure_entries(chosen, log, only_stale=not everything, gpus=gpus, shard=shard_of,
                                             deadline_s=deadline, available=available, say=say,
                                             on_done=lambda outcome: progress.advance(overall))
        for lane in lanes.values():
            progress.update(lane, total=1, completed=1)
    failed = [o for o in outcomes if not o.ok]
    for outcome in failed:
        out.print(f"[red]failed[/] {escape(outcome.job.slug)} on {outcome.job.device}: {escape(outcome.error)}")
    devices = list(dict.fromkeys(o.job.device for o in outcomes))
    names = devices[0] if len(devices) == 1 else "{" + ",".join(devices) + "}"
    out.print(f"{len(outcomes) - len(failed)} of {len(outcomes)} measured on {escape(models)}; results are in "
              f"{escape(str(entries_dir))}/<slug>/results/{names}.json. Commit them.")
    if failed:
        ctx.exit(1)


# -- schema -------------------------------------------------------------------------


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the front-matter (glossary schema > schema/entry.schema.json)."""
    click.echo(json.dumps(front_matter_schema(), indent=2))


if __name__ == "__main__":
    main()
