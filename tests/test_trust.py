"""Signed numbers and signed sign-offs (issue 15), with keys made in the test and never committed.

A fixture entry signed by a test reviewer key, over a result signed by a test
node key, publishes; each way of forging, copying, editing or re-attributing a
result or a review keeps it off the site, and the log names the file and why.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

import forked
from conftest import ROOT, mkdocs

from gate_fixture import DAY, Keys, make_project, sign_review
from glossary.verdicts import trust
from glossary.build import GlossaryBuild
from glossary.settings import Settings
from measure import attest


def build(project: Path, preview: bool = False):
    options = Settings.for_project(project / "entries", environ={"GLOSSARY_PREVIEW": "1"} if preview else {})
    result = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-trust"))
    result.load()
    return result


def reasons(project: Path) -> str:
    return "; ".join(build(project).verdicts["copy"].reasons)


def result_path(project: Path, device: str = "nvidia-h200") -> Path:
    return project / "entries" / "copy" / "results" / f"{device}.json"


@pytest.fixture
def keys() -> Keys:
    return Keys.make()


def test_signed_result_and_signed_review_publish(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    assert build(project).verdicts["copy"].publishable, reasons(project)
    run = mkdocs(project, "build", "--strict")
    assert run.returncode == 0, run.stderr
    page = (project / "site" / "copy" / "index.html").read_text()
    assert "test-node" in page and keys.reviewer.public.keyid in page


def test_one_changed_number_keeps_the_entry_off_even_after_a_new_review(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    data = json.loads(result_path(project).read_text())
    data["sizes"][0]["variants"]["copy"]["stats"]["mean"] = 0.0019
    result_path(project).write_text(json.dumps(data))
    sign_review(project, "Charles Babbage", keys.reviewer, author=keys.author)  # the reviewer signs what they see
    why = reasons(project)
    assert "copy/results/nvidia-h200.json is unverified: the numbers differ from the ones the node signed" in why
    run = mkdocs(project, "build")
    assert "nvidia-h200.json is unverified" in run.stderr and "copy/index.html" not in str(
        list((project / "site").rglob("index.html")))


@pytest.mark.parametrize("tamper, why", [
    (lambda d, k: d.pop("signature"), "carries no node signature"),
    (lambda d, k: d.update(attest.sign_result(d, attest.Signer.generate())), "not trusted"),
    (lambda d, k: d["environment"].update(gpu="NVIDIA B200"), "content differs from what the node signed"),
    (lambda d, k: d.update(fingerprint="sha256:" + "0" * 64), "measurement fingerprint differs"),
    (lambda d, k: d.update(last_failure={"error": "fused reaches 9,876.5 GB/s", "environment": {}}),
     "last failure record carries no node signature"),
])
def test_forged_or_edited_results_are_unverified(tmp_path, keys, tamper, why):
    project = make_project(tmp_path, keys=keys, sign=False)
    data = json.loads(result_path(project).read_text())
    tamper(data, keys)
    result_path(project).write_text(json.dumps(data))
    sign_review(project, "Charles Babbage", keys.reviewer, author=keys.author)
    assert why in reasons(project)
    page = build(project, preview=True).render_page("copy.md")
    assert '!!! danger "Unverified result"' in page and "(unverified)" in page


def test_a_copied_signature_does_not_verify_for_another_device(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    data = json.loads(result_path(project).read_text())
    data["device"] = "nvidia-b200"
    data["environment"]["gpu"] = "NVIDIA B200"
    for size in data["sizes"]:
        for variant in size["variants"].values():
            variant["stats"] = {k: v / 2.5 for k, v in variant["stats"].items()}
            variant["samples_ms"] = [v / 2.5 for v in variant["samples_ms"]]
    result_path(project, "nvidia-b200").write_text(json.dumps(data))
    sign_review(project, "Charles Babbage", keys.reviewer, author=keys.author)
    why = reasons(project)
    assert "nvidia-b200.json is unverified" in why and "not for copy@nvidia-b200" in why


def test_removing_a_node_key_revokes_its_results(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    keys.write_trust(project, nodes=[])
    assert "signed by a key that is not trusted" in reasons(project)


def test_a_key_used_outside_its_validity_window_is_unverified(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    line = trust.allowed_signers_line("test-node", keys.node.public, trust.RESULT_NAMESPACE)
    keys.write_trust(project, nodes=[line.replace('"glossary-result"', '"glossary-result",valid-before="20200101"')])
    assert "expired on 2020-01-01" in reasons(project)


def test_a_hand_written_reviewer_does_not_publish(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    path = project / "entries" / "copy.md"
    path.write_text(path.read_text().replace("reviewer: pending", "reviewer: Charles Babbage"))
    assert "a reviewer field written by hand does not publish" in reasons(project)
    # the fingerprint computed with the package's public function and typed in is no signature either
    from conftest import sign_entry_file

    sign_entry_file(path, "Charles Babbage", DAY)
    assert "not signed with the reviewer's key" in reasons(project)


def test_a_reviewer_signing_with_the_authors_key_is_refused(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    sign_review(project, "Charles Babbage", keys.author, author=keys.author)
    assert "signed with 'Ada Lovelace''s key" in reasons(project)
    run = _glossary(project, "sign", "copy", "--as", "Charles Babbage", "--key", str(_save(tmp_path, keys.author)))
    assert run.returncode == 1 and "listed for 'Ada Lovelace'" in run.stderr


def test_renaming_the_reviewer_after_signing_keeps_the_entry_off(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    path = project / "entries" / "copy.md"
    path.write_text(path.read_text().replace("reviewer: Charles Babbage", "reviewer: Ada Lovelace"))
    assert not build(project).verdicts["copy"].publishable


def test_glossary_sign_uses_the_reviewers_key_and_checks_the_trust_file(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    run = _glossary(project, "sign", "copy", "--as", "Ada Lovelace", "--key", str(_save(tmp_path, keys.author)))
    assert run.returncode == 0 and "as author" in run.stdout, run.stderr  # the author signs first
    run = _glossary(project, "sign", "copy", "--as", "Charles Babbage", "--key", str(_save(tmp_path, keys.reviewer)))
    assert run.returncode == 0, run.stderr
    assert keys.reviewer.public.keyid in run.stdout
    assert build(project).verdicts["copy"].publishable, reasons(project)
    stranger = attest.Signer.generate()
    run = _glossary(project, "sign", "copy", "--as", "Charles Babbage", "--key", str(_save(tmp_path, stranger)))
    assert run.returncode == 1 and "is not in" in run.stderr


def test_node_init_keeps_the_private_key_outside_and_prints_the_public_line(tmp_path):
    key = tmp_path / "config" / "node_ed25519"
    run = forked.run([sys.executable, "-m", "glossary.cli", "node", "init", "--name", "h200-test", "--key",
                      str(key)], cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    line = run.stdout.strip()
    assert line.startswith('h200-test namespaces="glossary-result",valid-after=') and "ssh-ed25519 AAAA" in line
    assert key.stat().st_mode & 0o077 == 0
    assert "PRIVATE KEY" not in run.stdout
    signer = attest.Signer.from_file(key)
    assert signer.public.line in line
    again = forked.run([sys.executable, "-m", "glossary.cli", "node", "init", "--key", str(key)],
                       cwd=tmp_path, timeout=60)
    assert again.returncode == 1 and "exists already" in again.stderr


def test_imported_results_are_labelled_and_never_count(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    data = json.loads(result_path(project).read_text())
    data.pop("signature")
    data.update(provenance="imported", fingerprint=None, imported_from="the lesson's own run on a Tesla T4",
                device="tesla-t4")
    data["environment"]["gpu"] = "Tesla T4"
    result_path(project, "tesla-t4").write_text(json.dumps(data))
    sign_review(project, "Charles Babbage", keys.reviewer, author=keys.author)
    glossary = build(project)
    assert glossary.verdicts["copy"].publishable, reasons(project)
    page = glossary.render_page("copy.md")
    assert "imported, not measured by a trusted node" in page.lower()


def test_names_mode_says_reviews_and_results_are_unsigned(tmp_path):
    project = make_project(tmp_path)
    glossary = build(project)
    assert glossary.verdicts["copy"].publishable, reasons(project)
    page = glossary.render_page("copy.md")
    assert "names only, not signed" in page and "unsigned" in page


@pytest.mark.parametrize("line, why", [
    ("Ada ssh-rsa AAAAB3Nza", "only Ed25519"),
    ('Ada valid-after="yesterday" ssh-ed25519 {key}', "valid-after expects YYYYMMDD"),
    ('Ada cert-authority ssh-ed25519 {key}', "unknown option 'cert-authority'"),
    ("Ada ssh-ed25519 AAAAnotakey", "not a valid OpenSSH public key"),
])
def test_malformed_trust_lines_name_file_and_line(tmp_path, keys, line, why):
    path = tmp_path / "people.allowed_signers"
    path.write_text("# comment\n" + line.format(key=keys.author.public.line.split()[1]) + "\n")
    with pytest.raises(trust.TrustError) as caught:
        trust.load_keyring(path)
    assert f"{path}:2" in str(caught.value) and why in str(caught.value)


def test_one_key_cannot_stand_for_two_people(tmp_path, keys):
    path = tmp_path / "people.allowed_signers"
    path.write_text(trust.allowed_signers_line("Ada Lovelace", keys.author.public, trust.REVIEW_NAMESPACE) + "\n"
                    + trust.allowed_signers_line("Charles Babbage", keys.author.public, trust.REVIEW_NAMESPACE) + "\n")
    with pytest.raises(trust.TrustError, match="already listed for 'Ada Lovelace'"):
        trust.load_keyring(path)


def test_dsse_pae_matches_the_specification():
    # the example of the DSSE v1 protocol document
    assert attest.pae("http://example.com/HelloWorld", b"hello world") == \
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"


def _save(tmp_path: Path, signer: attest.Signer) -> Path:
    path = tmp_path / f"key-{signer.public.keyid[-8:].replace('/', '_')}"
    if not path.exists():
        signer.save(path)
    return path


def _glossary(project: Path, *args: str):
    import os

    return forked.run([sys.executable, "-m", "glossary.cli", "--entries", "entries", *args], cwd=project,
                      timeout=120, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
