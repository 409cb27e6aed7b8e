"""The verification node's key: `glossary node init` makes one, `glossary node retire` closes one."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import click

from glossary.cli.common import Problems, cli, console, entries_dir_of, escape, lazy

attest = lazy("measure.attest")
retired = lazy("glossary.verdicts.retired")
store = lazy("measure.store")
trust = lazy("glossary.verdicts.trust")


def display_path(path: Path) -> str:
    from glossary.entries.model import display_path as shown

    return shown(path)

GONE = "its machine is gone (a node key lives only as long as its machine)"
SHOWN = 20  # listed results printed per key; the record holds them all


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
    label = name or default_name()
    click.echo(f"# private key: {path} (stays on this machine)", err=True)
    click.echo(trust.allowed_signers_line(label, signer.public, trust.RESULT_NAMESPACE, valid_after=today))


def default_name() -> str:
    """A node's name where none is given: <gpu-or-host>-<date> (`glossary reproduce` names it so too)."""
    return f"{_node_label()}-{dt.date.today().isoformat()}"


def _node_label() -> str:
    try:
        from measure import harness

        gpus = harness.list_gpus()
        if gpus:
            return store.device_key(gpus[0]["name"]) + "-node"
    except Exception:  # no GPU, no pycuda: the host's name will do
        pass
    return re.sub(r"[^a-z0-9-]+", "-", os.uname().nodename.lower()).strip("-") or "node"


@node.command("retire")
@click.argument("names", nargs=-1, required=True, metavar="NAME...")
@click.option("--reason", default=GONE, show_default=True, help="Why the key is retired (kept in its record).")
@click.option("--reproducer", is_flag=True,
              help="Retire reproducing keys of trust/reproducers.allowed_signers: list the reproductions "
                   "(entries/*/reproductions/) each signed, in trust/retired-reproducers/NAME.json.")
@click.pass_context
def node_retire(ctx: click.Context, names: tuple[str, ...], reason: str, reproducer: bool) -> None:
    """Retire each node key NAME: list what it signed, and refuse anything else it signs.

    Scans every result file and failure record under entries/*/results/ for the statements
    whose signature verifies under the key, writes their digests, the key's line, the date
    and the reason to trust/retired-nodes/NAME.json, and takes the line out of
    trust/nodes.allowed_signers: from then on a result by that key verifies only if it is on
    the list, whatever date it claims. Run it in the change that commits the key's results.
    Retiring a key again changes nothing (a retired key's later signatures are never added).
    """
    from glossary.settings import GlossaryError, Settings

    entries_dir = entries_dir_of(ctx)
    try:
        settings = Settings.for_project(entries_dir)
        nodes_file = (settings.trust_root or Path.cwd()) / settings.trusted_nodes
        folder = retired.folder_of(nodes_file)
        scanner = retired.scan
        if reproducer:  # the same record format, for the keys that sign reproductions
            nodes_file = nodes_file.parent / Path(trust.REPRODUCERS_FILE).name
            folder = nodes_file.parent / trust.RETIRED_REPRODUCERS
            scanner = _reproductions_scan
        nodes = trust.load_keyring(nodes_file)
        records = retired.load_retired(folder)
    except (GlossaryError, trust.TrustError, retired.RetiredError) as err:
        raise Problems(f"nothing retired: {err}") from None
    live = {t.name: t for t in nodes.keys.values()}
    twice = [n for n in names if sum(t.name == n for t in nodes.keys.values()) > 1]
    if twice:
        lines = ", ".join(t.where for t in nodes.keys.values() if t.name == twice[0])
        raise Problems(f"nothing retired: {twice[0]!r} names more than one key ({lines}); give each its own name")
    done = {r.name: r for r in records.values()}
    unknown = [n for n in names if n not in live and n not in done]
    if unknown:
        known = ", ".join(sorted(live)) or "none"
        gone = f"; retired already: {', '.join(sorted(done))}" if done else ""
        raise Problems(f"nothing retired: no node key named {', '.join(map(repr, unknown))} in "
                       f"{display_path(nodes_file)} (its keys: {known}{gone})")
    clash = [n for n in names if n in live and n in done and live[n].key.keyid != done[n].keyid]
    if clash:
        raise Problems(f"nothing retired: {clash[0]!r} names a live key ({live[clash[0]].where}) and a retired one "
                       f"({display_path(done[clash[0]].path)}); give the live key another name")
    out = console()
    changed: list[Path] = []
    dropped = []
    for name in dict.fromkeys(names):
        record = done.get(name)
        if record is None:
            changed.append(_retire(out, entries_dir, nodes_file, folder, live[name], reason, scanner))
            dropped.append(live[name])
        else:
            _already(out, entries_dir, record, scanner)
            dropped.append(nodes.keys.get(record.keyid))  # a line of a retired key, left or put back
    # bottom up, so the line numbers read above still hold
    for key in sorted(filter(None, dropped), key=_line_number, reverse=True):
        if _drop_line(nodes_file, key):
            changed.append(nodes_file)
    if changed:
        paths = " ".join(dict.fromkeys(display_path(p) for p in changed))
        out.print(f"Commit, in the change that holds these results: git add {escape(paths)} && git commit -m "
                  f"\"Retire node key{'s' if len(names) > 1 else ''} {escape(' '.join(dict.fromkeys(names)))}\"")
    else:
        out.print("Nothing changed.")


def _reproductions_scan(entries_dir: Path, key: attest.PublicKey) -> retired.Scan:
    from glossary.verdicts import reproductions

    signed = reproductions.scan(entries_dir, key)
    return retired.Scan(signed=signed, results=len(signed))


def _retire(out, entries_dir: Path, nodes_file: Path, folder: Path, key: trust.TrustedKey, reason: str,
            scanner=None) -> Path:
    found = (scanner or retired.scan)(entries_dir, key.key)  # a default of retired.scan would import it for --help
    path = retired.record_path(folder, key.name)
    if path.exists():  # another key's record whose name reads the same as a file name
        raise Problems(f"{key.name} not retired: {display_path(path)} holds another key's record; give the key "
                       f"another name")
    data = retired.record_data(key.name, _raw_line(nodes_file, key), key.key, dt.date.today(),
                               " ".join(reason.split()) or GONE, found.signed)
    try:
        retired.write_record(path, data)
    except (retired.RetiredError, OSError) as err:
        raise Problems(f"{key.name} not retired: {err}") from None
    what = "reproduction" if scanner is _reproductions_scan else "result"
    out.print(f"Retired {escape(key.name)} ({key.key.keyid}): listed {found.results} {what}"
              f"{'' if found.results == 1 else 's'} and {found.failures} failure record"
              f"{'' if found.failures == 1 else 's'} it signed, in {escape(display_path(path))}; anything "
              f"else it signs is refused.")
    _show(out, found)
    return path


def _already(out, entries_dir: Path, record: retired.RetiredKey, scanner=None) -> None:
    found = (scanner or retired.scan)(entries_dir, attest.PublicKey.parse(record.line[record.line.index("ssh-ed25519"):]))
    refused = {d: what for d, what in found.signed.items() if d not in record.signed}
    out.print(f"{escape(record.name)} was retired on {record.retired_on} with {len(record.signed)} signatures "
              f"listed ({escape(display_path(record.path))}); nothing added.")
    for what in list(refused.values())[:SHOWN]:
        out.print(f"  [yellow]refused[/]: {escape(what)} is signed by it and not listed")


def _show(out, found: retired.Scan) -> None:
    shown = list(found.signed.values())
    for what in shown[:SHOWN]:
        out.print(f"  {escape(what)}")
    if len(shown) > SHOWN:
        out.print(f"  ... and {len(shown) - SHOWN} more")
    for why in found.unreadable[:SHOWN]:
        out.print(f"  [yellow]not read[/] (so not listed): {escape(why)}")


def _line_number(key: trust.TrustedKey) -> int:
    """The line of the nodes file ``key`` was read from (``TrustedKey.where`` is FILE:LINE)."""
    return int(key.where.rsplit(":", 1)[1])


def _raw_line(nodes_file: Path, key: trust.TrustedKey) -> str:
    """The key's line as it stands in the nodes file (its options kept)."""
    return nodes_file.read_text(encoding="utf-8").splitlines()[_line_number(key) - 1].strip()


def _drop_line(nodes_file: Path, key: trust.TrustedKey | None) -> bool:
    """Take a retired key's line out of the nodes file (its record trusts it now); True if it was there."""
    if key is None:
        return False
    lines = nodes_file.read_text(encoding="utf-8").splitlines(keepends=True)
    del lines[_line_number(key) - 1]
    store.write_bytes_atomic(nodes_file, "".join(lines).encode("utf-8"))
    return True
