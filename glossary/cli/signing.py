"""Sign-off and keys: `glossary sign` and `key line` (a node's key: glossary/cli/node.py)."""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
import re
from pathlib import Path

import click

from glossary.cli.common import Problems, cli, console, entries_dir_of, escape, lazy, usage

attest = lazy("measure.attest")
checks = lazy("glossary.checks")
gate = lazy("glossary.verdicts.gate")
review = lazy("glossary.verdicts.review")
signoff = lazy("glossary.verdicts.signoff")
trust = lazy("glossary.verdicts.trust")


@cli.command()
@click.argument("entries", nargs=-1, metavar="[ENTRY]...")
@click.option("--as", "name", required=True, metavar="NAME",
              help="Your real name: the entry's author signs as author, anyone else as reviewer.")
@click.option("--all-pending", is_flag=True,
              help="Also sign every entry NAME may sign that lacks NAME's current signature: as author, those "
                   "NAME wrote; as reviewer, the others whose author has signed.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Your Ed25519 private key (OpenSSH format; default: $GLOSSARY_SIGNING_KEY, "
                   "else ~/.ssh/id_ed25519). Its public half must be listed under NAME in "
                   "trust/people.allowed_signers.")
@click.option("--passphrase-env", metavar="VAR", default=None,
              help="Read the key's passphrase from this environment variable.")
@click.option("--date", "date", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The review date, YYYY-MM-DD (default: today).")
@click.pass_context
def sign(ctx: click.Context, entries: tuple[str, ...], name: str, all_pending: bool, key_file: Path | None,
         passphrase_env: str | None, date: dt.datetime | None) -> None:
    """Sign each ENTRY as NAME with NAME's key, bound to its text, kernels, images and results.

    Where NAME is the entry's author, signs as author: an authorship statement over the
    content fingerprint, written beside the entry (entries/<slug>/author.dsse.json), the
    entry's text unchanged. Anyone else signs as reviewer, after the author: writes
    reviewer, reviewed_on and review_fingerprint into the front-matter, changing nothing
    else, and the signed review, naming the authorship statement reviewed, beside the entry
    (entries/<slug>/review.dsse.json). An entry publishes under `trust: signed` only with both.

    ENTRY is a slug, an entry file, a file in its folder, or a quoted glob of slugs or
    files ('copy-*', 'entries/t*.md'); --all-pending adds every entry that lacks NAME's
    current signature. The key is loaded once; each entry is signed on its own, and one that
    cannot be signed is named and left as it was while the others go ahead (exit status 1 at
    the end). Refuses the author's key as reviewer, placeholders, and a key the repository
    does not list under NAME. Under `trust: names` no key is needed, the review is recorded
    by name only, and authors sign nothing.
    """
    from glossary.settings import GlossaryError, Settings

    entries_dir = entries_dir_of(ctx)
    if not entries and not all_pending:
        raise click.UsageError("name the entries to sign (slugs, files or a quoted glob), or pass --all-pending",
                               ctx=ctx)
    try:
        slugs = _selected(entries_dir, entries)
    except checks.CheckError as err:
        raise usage(ctx, err) from None
    if not gate.is_real_name(name):  # the same refusal for every entry: say it once
        raise Problems(f"not signed: {name!r}: the name {gate.name_problem(name) or 'is not a name'}; sign with the reviewer's "
                       f"real name, e.g. --as \"Firstname Lastname\"")
    try:
        settings = Settings.for_project(entries_dir)
        policy, catalog = settings.load_trust(), settings.load_catalog()
    except GlossaryError as err:
        raise Problems(f"not signed: {err}") from None
    out = console()
    for line in settings.override_warnings():
        out.print(f"[yellow]warning[/]: {escape(line)}")
    left_out: list[str] = []
    if all_pending:
        pending, left_out = _pending(entries_dir, name, policy)
        slugs += [s for s in pending if s not in slugs]
    if not slugs:
        out.print("Nothing to sign: no entry lacks your signature" +
                  (f" ({len(left_out)} left out: {escape(', '.join(left_out))})" if left_out else "") + ".")
        return
    signer = _reviewer_key(key_file, passphrase_env) if policy.signed else None  # loaded once, for every entry
    day = date.date() if date else dt.date.today()
    known = [p.stem for p in checks.entry_paths(entries_dir)]
    signed: list[str] = []
    failed: list[tuple[str, str]] = []
    for slug in slugs:
        try:
            done = _sign_one(entries_dir, slug, known, name, day, signer, policy, catalog)
        except signoff.SignOffError as err:
            failed.append((slug, str(err)))
            click.echo(f"Error: not signed: {slug}: {err}", err=True)
            continue
        signed.append(slug)
        how = f"with key {done.keyid}" if done.keyid else "by name only (trust: names)"
        what = "content fingerprint" if done.role == "author" else "review fingerprint"
        out.print(f"Signed {escape(slug)} as {done.role} {escape(' '.join(name.split()))} on "
                  f"{done.day.isoformat()} {how}: {what} {done.fingerprint}.")
    if signed:
        reports = checks.inspect(entries_dir, signed, lint=False, policy=policy)[0]
        for report in reports:
            stale = [d.gpu for d in report.devices if d.stale]
            if stale:
                out.print(f"[yellow]warning[/]: {escape(report.slug)}: the results for {escape(', '.join(stale))} "
                          f"are stale; re-measuring them will make this review stale too.")
    if len(slugs) > 1 or failed or left_out:
        line = f"Signed {len(signed)} of {len(slugs)} entries"
        if failed:
            line += f"; not signed: {', '.join(slug for slug, _ in failed)}"
        if left_out:
            line += f"; left out (no named author, or waiting for the author's signature): {', '.join(left_out)}"
        out.print(escape(line) + ".")
    if failed:
        raise Problems(f"{len(failed)} of {len(slugs)} entries not signed: "
                       f"{', '.join(slug for slug, _ in failed)} (each reason above)")


_GLOB = re.compile(r"[*?\[]")


def _selected(entries_dir: Path, names: tuple[str, ...]) -> list[str]:
    """Slugs for ENTRY arguments, in order, each once; a glob matches slugs or entry files.
    CheckError for a name, or a glob, that finds no entry: nothing is signed then."""
    out: list[str] = []
    for name in names:
        if _GLOB.search(name):
            paths = checks.entry_paths(entries_dir)
            found = [p.stem for p in paths
                     if fnmatch.fnmatchcase(p.stem, name) or fnmatch.fnmatchcase(p.name, name)
                     or fnmatch.fnmatchcase(str(p), name) or fnmatch.fnmatchcase(str(p.resolve()), name)]
            if not found:
                raise checks.CheckError(f"no entry matches {name!r} in {entries_dir}")
        else:
            found = checks.resolve_slugs(entries_dir, [name])
        out += [slug for slug in found if slug not in out]
    return out


def _pending(entries_dir: Path, name: str, policy: trust.Trust) -> tuple[list[str], list[str]]:
    """(entries that lack NAME's current signature and NAME may sign, entries left out: no named
    author yet, or, for a reviewer, the author has not signed). As author: entries NAME wrote whose
    author's signature is missing or stale (none under `trust: names`, where authors sign nothing).
    As reviewer: the others whose review is not current. A malformed entry counts as pending, so
    its error is shown."""
    pending, left_out = [], []
    for report in checks.inspect(entries_dir, lint=False, policy=policy)[0]:
        entry = report.entry
        if entry is None:
            pending.append(report.slug)
            continue
        author_missing = any(p.check == "author" and p.refusal for p in report.problems)
        if review.signs_as_author(entry, name):
            if author_missing:
                pending.append(report.slug)
            continue
        current = (report.review is not None and report.review.status == "current"
                   and not any(p.check == "review" and p.refusal for p in report.problems))
        if current:
            continue
        if review.signer_problem(entry, name) is not None or author_missing:
            left_out.append(report.slug)
        else:
            pending.append(report.slug)
    return pending, left_out


def _sign_one(entries_dir: Path, slug: str, known: list[str], name: str, day: dt.date,
              signer: attest.Signer | None, policy: trust.Trust, catalog: dict) -> signoff.SignedReview:
    """Sign one entry; SignOffError (its files unchanged) naming why it cannot be."""
    from glossary.entries.errors import EntryError
    from glossary.entries.model import parse_entry, related_problems

    try:
        target = parse_entry(entries_dir / f"{slug}.md", entries_dir)
    except EntryError as err:
        raise signoff.SignOffError(f"{err} (fix the entry first; `glossary check` lists every problem)") from None
    broken = related_problems(target, known, entries_dir)
    if broken:
        raise signoff.SignOffError("; ".join(str(err) for err in broken))
    return signoff.sign(target, name, day, signer, policy, catalog)


def _reviewer_key(key_file: Path | None, passphrase_env: str | None) -> attest.Signer:
    path = key_file or Path(os.environ.get("GLOSSARY_SIGNING_KEY") or Path.home() / ".ssh" / "id_ed25519")
    password = os.environ.get(passphrase_env, "").encode() if passphrase_env else None
    try:
        return attest.Signer.from_file(path.expanduser(), password=password)
    except attest.AttestError as err:
        raise Problems(f"not signed: {err}") from None


# -- keys ---------------------------------------------------------------------------


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
    if not for_node and not gate.is_real_name(name):
        raise Problems(f"{name!r} is not a person's name")
    namespace = trust.RESULT_NAMESPACE if for_node else trust.REVIEW_NAMESPACE
    click.echo(trust.allowed_signers_line(" ".join(name.split()), public, namespace,
                                          valid_after=dt.date.today() if for_node else None))
