"""Sign-off and keys: `glossary sign`, `node init` and `key line`."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import click
from rich.markup import escape

from glossary import checks
from glossary.cli.common import Problems, cli, console, entries_dir_of, one_entry
from glossary.settings import GlossaryError, Settings
from glossary.verdicts import review, signoff, trust
from glossary.verdicts.gate import is_real_name
from measure import attest, store


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
    entries_dir = entries_dir_of(ctx)
    target = one_entry(ctx, entry)
    slug = target.slug
    problem = review.signer_problem(target, name)
    if problem:
        raise Problems(f"not signed: {problem}")
    try:
        settings = Settings.for_project(entries_dir)
        policy, catalog = settings.load_trust(), settings.load_catalog()
    except GlossaryError as err:
        raise Problems(f"not signed: {err}") from None
    signer = _reviewer_key(key_file, passphrase_env) if policy.signed else None
    try:
        done = signoff.sign(target, name, date.date() if date else dt.date.today(), signer, policy, catalog)
    except signoff.SignOffError as err:
        raise Problems(f"not signed: {err}") from None
    out = console()
    how = f"with key {done.keyid}" if done.keyid else "by name only (trust: names)"
    out.print(f"Signed {escape(slug)} as {escape(' '.join(name.split()))} on {done.day.isoformat()} {how}: "
              f"review fingerprint {done.review.short}.")
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
