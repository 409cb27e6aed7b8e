"""Retired node keys stay closed (issue 28, item 6), with keys made in the test and never committed.

A node key retired with its result listed still verifies that result; anything else
the same key signs afterwards -- another result, the same one re-signed with another
date, a backdated one, a failure record -- is refused, naming the key and "retired".
A record that was edited or is malformed is an error naming the file and the key.
"""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from gate_fixture import Keys, make_project
from glossary.build import GlossaryBuild
from glossary.cli import cli
from glossary.settings import Settings
from glossary.verdicts import retired, trust
from measure import attest, store

NODE = "test-node"


@pytest.fixture
def keys() -> Keys:
    return Keys.make()


def glossary(project: Path, *args: str):
    return CliRunner().invoke(cli, ["--entries", str(project / "entries"), *args], catch_exceptions=False)


def result_file(project: Path) -> Path:
    return project / "entries" / "copy" / "results" / "nvidia-h200.json"


def record_file(project: Path) -> Path:
    return project / "trust" / "retired-nodes" / f"{NODE}.json"


def policy(project: Path) -> trust.Trust:
    return trust.load_trust(project, "signed")


def checked(project: Path) -> trust.ResultCheck:
    return trust.check_result("copy", "nvidia-h200", store.load_file(result_file(project)), policy(project))


def resign(project: Path, signer: attest.Signer, signed_at: str | None = None, **changes) -> None:
    """The copy result signed again by ``signer`` (with ``changes`` to its data), as a node would."""
    data = json.loads(result_file(project).read_text())
    data.update(changes)
    result_file(project).write_text(json.dumps(attest.sign_result(data, signer, signed_at=signed_at), indent=1))


def retired_project(tmp_path: Path, keys: Keys) -> Path:
    project = make_project(tmp_path, keys=keys)
    run = glossary(project, "node", "retire", NODE)
    assert run.exit_code == 0, run.output
    return project


def test_a_result_listed_at_retirement_still_verifies_and_publishes(tmp_path, keys):
    project = retired_project(tmp_path, keys)
    assert checked(project).status == "verified" and checked(project).signer == NODE
    assert NODE not in (project / "trust" / "nodes.allowed_signers").read_text()  # the record trusts it now
    options = Settings.for_project(project / "entries")
    build = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-retire"))
    build.load()
    assert build.verdicts["copy"].publishable, build.verdicts["copy"].reasons


def _entry(project: Path):
    from glossary.entries.model import parse_entry

    return parse_entry(project / "entries" / "copy.md", project / "entries")


@pytest.mark.parametrize("signed_at", [None, "2026-10-02T10:00:00+00:00", "2019-01-01T00:00:00+00:00"],
                         ids=["now", "before-retirement", "backdated-before-the-key"])
def test_anything_the_retired_key_signs_later_is_refused_whatever_its_date(tmp_path, keys, signed_at):
    project = retired_project(tmp_path, keys)
    data = json.loads(result_file(project).read_text())
    data["sizes"][0]["variants"]["copy"]["samples_ms"] = [0.001] * 3  # new numbers the node "measured"
    data["sizes"][0]["variants"]["copy"]["stats"] = {"mean": 0.001}
    result_file(project).write_text(json.dumps(attest.sign_result(data, keys.node, signed_at=signed_at)))
    check = checked(project)
    assert check.status == "unverified"
    assert f"node key {NODE}" in check.reason and "retired on" in check.reason
    assert "whatever date it claims" in check.reason


def test_only_a_listed_result_offers_its_counters_to_a_new_measurement(tmp_path, keys, monkeypatch):
    monkeypatch.setattr(trust, "carried_counters", lambda result, signer: {"sizes": [], "signed_by": signer})
    project = retired_project(tmp_path, keys)
    entry = _entry(project)
    assert json.loads(trust.counters_to_carry(entry, "nvidia-h200", policy(project)))["signed_by"] == NODE
    resign(project, keys.node, signed_at="2019-01-01T00:00:00+00:00")
    assert trust.counters_to_carry(entry, "nvidia-h200", policy(project)) is None


def test_the_same_result_re_signed_with_another_date_is_refused(tmp_path, keys):
    project = retired_project(tmp_path, keys)
    resign(project, keys.node, signed_at="2026-01-01T00:00:00+00:00")  # the same numbers, backdated
    assert "retired" in checked(project).reason


def test_re_signing_the_listed_statement_itself_gains_nothing(tmp_path, keys):
    # Ed25519 is deterministic: the same key over the same payload gives the same signature, so the
    # listed statement is all a holder of the key can reproduce; its digest is the listed one.
    project = retired_project(tmp_path, keys)
    before = json.loads(result_file(project).read_text())
    opened = attest.open_envelope(before["signature"], {keys.node.public.keyid: keys.node.public})
    when = opened.statement["predicate"]["signed_at"]
    resign(project, keys.node, signed_at=when)
    assert json.loads(result_file(project).read_text())["signature"] == before["signature"]
    assert checked(project).status == "verified"


def test_a_failure_record_the_retired_key_signs_later_is_refused(tmp_path, keys):
    project = retired_project(tmp_path, keys)
    data = json.loads(result_file(project).read_text())
    failure = {"error": "the kernel timed out", "environment": {}}
    data["last_failure"] = attest.sign_failure("copy", "nvidia-h200", failure, keys.node)
    result_file(project).write_text(json.dumps(data))
    check = checked(project)
    assert check.status == "unverified" and "its last failure record is signed by node key test-node" in check.reason


def test_putting_the_line_back_does_not_reopen_the_key_and_deleting_the_record_closes_it(tmp_path, keys):
    project = retired_project(tmp_path, keys)
    resign(project, keys.node, signed_at="2019-01-01T00:00:00+00:00")
    keys.write_trust(project)  # the key's line back in nodes.allowed_signers
    assert "retired" in checked(project).reason
    record_file(project).unlink()
    keys.write_trust(project, nodes=[])
    assert "not trusted" in checked(project).reason  # no record, no line: revoked, never open


def test_a_live_key_is_untouched_by_another_keys_retirement(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    other = attest.Signer.generate()
    lines = [trust.allowed_signers_line(NODE, keys.node.public, trust.RESULT_NAMESPACE),
             trust.allowed_signers_line("old-node", other.public, trust.RESULT_NAMESPACE)]
    keys.write_trust(project, nodes=lines)
    run = glossary(project, "node", "retire", "old-node")
    assert run.exit_code == 0 and "listed 0 results" in run.output
    resign(project, keys.node)
    assert checked(project).status == "verified"
    resign(project, other)
    assert "node key old-node" in checked(project).reason


def test_the_command_end_to_end(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    run = glossary(project, "node", "retire", "no-such-node")
    assert run.exit_code == 1 and "no node key named 'no-such-node'" in run.output and NODE in run.output
    run = glossary(project, "node", "retire", NODE, "--reason", "the  machine was returned")
    assert run.exit_code == 0, run.output
    assert "listed 1 result and 0 failure records" in run.output and "copy/results/nvidia-h200.json" in run.output
    assert "git add" in run.output and "retired-nodes/test-node.json" in run.output
    record = json.loads(record_file(project).read_text())
    assert record["format"] == retired.FORMAT and record["reason"] == "the machine was returned"
    assert record["keyid"] == keys.node.public.keyid and keys.node.public.line in record["key"]
    assert len(record["signed"]) == 1 and record["signed"] == sorted(record["signed"])
    before = record_file(project).read_bytes()
    resign(project, keys.node, signed_at="2020-01-01T00:00:00+00:00")  # a leaked key's backdated result
    run = glossary(project, "node", "retire", NODE)  # idempotent: what it signs now is never added
    assert run.exit_code == 0 and "nothing added" in run.output and "refused" in run.output
    assert record_file(project).read_bytes() == before and "Nothing changed" in run.output
    run = glossary(project, "check")
    assert run.exit_code == 1 and "retired on" in run.output and "node key test-node" in run.output
    status = json.loads(glossary(project, "status", "--json").output)
    assert any("retired" in why for why in status[0]["why_not"])
    assert "AAAA" not in (project / "trust" / "nodes.allowed_signers").read_text().replace("# test keys", "")


def _tamper(record: dict, **changes) -> dict:
    return dict(record, **changes)


@pytest.mark.parametrize("edit, key, why", [
    (lambda r: _tamper(r, keyid="SHA256:" + "A" * 43), "keyid", "is not the id of the key"),
    (lambda r: _tamper(r, signed=r["signed"] + ["0" * 64]), "signed[1]", "not sorted"),
    (lambda r: _tamper(r, signed=["zz"]), "signed[0]", "64 lowercase hex"),
    (lambda r: _tamper(r, signed="all"), "signed", "a list"),
    (lambda r: _tamper(r, extra=1), "extra", "not a key of a retirement record"),
    (lambda r: {k: v for k, v in r.items() if k != "retired_on"}, "retired_on", "missing"),
    (lambda r: _tamper(r, retired_on="yesterday"), "retired_on", "YYYY-MM-DD"),
    (lambda r: _tamper(r, format=2), "format", "this glossary reads format 1"),
    (lambda r: _tamper(r, digest="sha1"), "digest", "signed_digest"),
    (lambda r: _tamper(r, key="test-node ssh-ed25519 AAAAnotakey"), "key", "not a valid OpenSSH public key"),
    (lambda r: _tamper(r, name="other-node"), "name", "is named"),
])
def test_an_edited_record_is_an_error_naming_file_and_key(tmp_path, keys, edit, key, why):
    project = retired_project(tmp_path, keys)
    path = record_file(project)
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    with pytest.raises(trust.TrustError) as caught:
        policy(project)
    assert str(path) in str(caught.value) and f"key {key!r}" in str(caught.value) and why in str(caught.value)


@pytest.mark.parametrize("text, why", [
    ("{not json", "not JSON"), ('{"format": 1, "format": 1}', "twice"), ("[1]", "a JSON object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_a_malformed_record_is_an_error_not_a_traceback(tmp_path, keys, text, why):
    project = retired_project(tmp_path, keys)
    record_file(project).write_text(text)
    with pytest.raises(trust.TrustError, match=why):
        policy(project)
    run = glossary(project, "check")
    assert run.exit_code == 1 and "Traceback" not in run.output and str(record_file(project).name) in run.output


def test_a_record_whose_name_and_key_line_disagree_is_refused(tmp_path, keys):
    project = retired_project(tmp_path, keys)
    path = record_file(project)
    data = json.loads(path.read_text())
    data["key"] = data["key"].replace(f"{NODE} ", "someone-else ", 1)
    path.write_text(json.dumps(data))
    with pytest.raises(trust.TrustError, match="key 'name': the record names 'test-node'"):
        policy(project)


def test_the_digest_is_over_what_the_signature_covers(keys):
    env = attest.envelope(attest.statement("x", "0" * 64, attest.RESULT_PREDICATE, {}), keys.node)
    opened = attest.open_envelope(env, {keys.node.public.keyid: keys.node.public})
    payload = base64.b64decode(env["payload"])
    assert opened.digest == attest.sha256_hex(attest.pae(attest.PAYLOAD_TYPE, payload))
    other = dict(env, signatures=env["signatures"] + [{"keyid": "SHA256:stranger", "sig": ""}])
    assert attest.open_envelope(other, {keys.node.public.keyid: keys.node.public}).digest == opened.digest


def test_a_name_that_stands_for_two_keys_or_another_keys_record_is_refused(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    other = attest.Signer.generate()
    lines = [trust.allowed_signers_line(NODE, keys.node.public, trust.RESULT_NAMESPACE),
             trust.allowed_signers_line(NODE, other.public, trust.RESULT_NAMESPACE)]
    keys.write_trust(project, nodes=lines)
    run = glossary(project, "node", "retire", NODE)
    assert run.exit_code == 1 and "names more than one key" in run.output and not record_file(project).exists()
    keys.write_trust(project, nodes=[lines[0], trust.allowed_signers_line("test node", other.public,
                                                                          trust.RESULT_NAMESPACE)])
    assert glossary(project, "node", "retire", NODE).exit_code == 0
    run = glossary(project, "node", "retire", "test node")
    assert run.exit_code == 1 and "holds another key's record" in run.output
