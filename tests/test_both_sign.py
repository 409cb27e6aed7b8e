"""Both people sign (issue 29): the author's signature over the content fingerprint, the reviewer's
naming the authorship statement it reviewed; pages say "signed" only for what verified; a
GLOSSARY_TRUST override is a WARNING; a `--dirty` build leaves no stale page behind.

Every key is an Ed25519 key made in the test (tmp dirs), never committed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import mkdocs
from gate_fixture import Keys, make_project, sign_author_file, sign_review
from glossary.cli import cli
from glossary.settings import Settings
from glossary.verdicts import people, trust
from test_sign_many import SLUGS, project_of, published
from test_trust import build, reasons


@pytest.fixture
def keys() -> Keys:
    return Keys.make()


def _key(tmp_path: Path, signer, name: str) -> str:
    path = tmp_path / "keys" / name  # outside the fixture project
    if not path.exists():
        signer.save(path)
    return str(path)


def glossary(project: Path, *args: str):
    return CliRunner().invoke(cli, ["--entries", str(project / "entries"), *args], catch_exceptions=False)


def test_the_reviewer_alone_does_not_publish_and_the_reason_is_named(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    sign_review(project, "Charles Babbage", keys.reviewer)  # a review file as `glossary sign` wrote them before
    why = reasons(project)
    assert "missing the author's signature" in why and "author.dsse.json" in why
    page = build(project, preview=True).render_page("copy.md")
    assert "missing the author&#x27;s signature" in page or "missing the author's signature" in page  # the banner
    assert "Status: published" not in page and "Signed by its author" not in page
    run = glossary(project, "check", "copy")
    assert run.exit_code == 1 and "missing the author's signature" in run.output


def test_the_author_alone_does_not_publish(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    run = glossary(project, "sign", "copy", "--as", "Ada Lovelace", "--key", _key(tmp_path, keys.author, "ada"))
    assert run.exit_code == 0, run.output
    assert "Signed copy as author Ada Lovelace" in run.output
    assert (project / "entries" / "copy" / "author.dsse.json").is_file()
    assert "reviewer: pending" in (project / "entries" / "copy.md").read_text()  # the text is unchanged
    glossary_build = build(project)
    assert not glossary_build.verdicts["copy"].publishable and "no named reviewer" in reasons(project)
    assert "missing the author's signature" not in reasons(project)
    page = build(project, preview=True).render_page("copy.md")
    assert "Signed by its author Ada Lovelace with the key" in page and "Status: published" not in page


def test_both_signed_publish_and_the_page_and_home_page_say_so(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    assert glossary(project, "sign", "copy", "--as", "Ada Lovelace",
                    "--key", _key(tmp_path, keys.author, "ada")).exit_code == 0
    run = glossary(project, "sign", "copy", "--as", "Charles Babbage", "--key", _key(tmp_path, keys.reviewer, "cb"))
    assert run.exit_code == 0, run.output
    assert "Signed copy as reviewer Charles Babbage" in run.output
    signed = json.loads((project / "entries" / "copy" / "review.dsse.json").read_text())
    statement = json.loads(__import__("base64").b64decode(signed["payload"]))
    author_env = json.loads((project / "entries" / "copy" / "author.dsse.json").read_text())
    assert statement["predicate"]["authorship"] == {"sha256": people.envelope_digest(author_env)}
    built = mkdocs(project, "build", "--strict")
    assert built.returncode == 0, built.stderr
    page = (project / "site" / "copy" / "index.html").read_text()
    assert "signed by its author Ada Lovelace with the key" in page
    assert keys.author.public.keyid in page and keys.reviewer.public.keyid in page
    home = (project / "site" / "index.html").read_text()
    assert "1 entry, each signed by its author and a different reviewer with keys this repository trusts" in home


def test_the_authors_key_used_as_reviewer_is_refused(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    sign_author_file(project / "entries" / "copy.md", keys.author)
    run = glossary(project, "sign", "copy", "--as", "Charles Babbage", "--key", _key(tmp_path, keys.author, "ada"))
    assert run.exit_code == 1 and "listed for 'Ada Lovelace'" in run.output
    # a review signed with the author's key, written by hand, is refused by the gate with the reason
    sign_review(project, "Charles Babbage", keys.author)
    assert "signed with 'Ada Lovelace''s key" in reasons(project)
    # the author's name, as the gate compares names, signs as author, never as reviewer
    run = glossary(project, "sign", "copy", "--as", "ada  LOVELACE", "--key", _key(tmp_path, keys.author, "ada"))
    assert "as author" in run.output and "Charles Babbage" in (project / "entries" / "copy.md").read_text()
    # one key listed under two names is refused when the trust file is read
    keys.write_trust(project, people=[
        trust.allowed_signers_line("Ada Lovelace", keys.author.public, trust.REVIEW_NAMESPACE),
        trust.allowed_signers_line("Charles Babbage", keys.author.public, trust.REVIEW_NAMESPACE)])
    with pytest.raises(trust.TrustError, match="one key stands for one signer"):
        trust.load_trust(project, "signed")


def test_a_content_edit_after_both_signed_makes_both_stale(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    assert build(project).verdicts["copy"].publishable, reasons(project)
    path = project / "entries" / "copy.md"
    path.write_text(path.read_text().replace("reads each element once", "reads every element once"))
    why = reasons(project)
    assert "the author's signature is stale: the body changed since Ada Lovelace signed it" in why
    assert "review is stale: the body changed" in why
    # the author signs again: the old review names another authorship statement, and stays stale
    sign_author_file(path, keys.author)
    assert "review is stale" in reasons(project) and "author's signature" not in reasons(project)


def test_all_pending_as_the_author_signs_every_entry_of_mine_that_lacks_my_signature(tmp_path, keys):
    project = project_of(tmp_path, keys, author_of={"copy-c": "Charles Babbage"}, unsigned=SLUGS)
    run = glossary(project, "sign", "--all-pending", "--as", "Ada Lovelace", "--key", _key(tmp_path, keys.author, "a"))
    assert run.exit_code == 0, run.output
    assert "Signed copy as author" in run.output and "Signed copy-b as author" in run.output
    assert "Signed copy-c" not in run.output  # Charles Babbage's, not hers; left out, not an error
    assert not (project / "entries" / "copy-c" / "author.dsse.json").exists()
    again = glossary(project, "sign", "--all-pending", "--as", "Ada Lovelace", "--key", _key(tmp_path, keys.author, "a"))
    assert again.exit_code == 0 and "Nothing to sign" in again.output
    run = glossary(project, "sign", "--all-pending", "--as", "Charles Babbage",
                   "--key", _key(tmp_path, keys.reviewer, "c"))
    assert run.exit_code == 0, run.output  # he reviews Ada's two and signs his own as author
    assert published(project) == {"copy", "copy-b"}


def test_glossary_trust_from_the_environment_is_a_warning_on_every_build_it_changes(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    settings = Settings.for_project(project / "entries", environ={"GLOSSARY_TRUST": "names"})
    (warning,) = settings.override_warnings()
    assert "GLOSSARY_TRUST=names" in warning and "extra.glossary.trust (signed" in warning
    assert Settings.for_project(project / "entries", environ={"GLOSSARY_TRUST": "signed"}).override_warnings() == ()
    run = mkdocs(project, "build", env=dict(os.environ, GLOSSARY_TRUST="names"))
    assert run.returncode == 0 and "WARNING" in run.stderr and "GLOSSARY_TRUST=names" in run.stderr
    assert "names only, not signed" in (project / "site" / "copy" / "index.html").read_text()
    assert "names only, not signed" in (project / "site" / "index.html").read_text()
    run = mkdocs(project, "build", "--strict", env=dict(os.environ, GLOSSARY_TRUST="names"))
    assert run.returncode == 1  # strict builds fail on it
    # `glossary sign` says so too, before it signs by name only
    run = CliRunner().invoke(cli, ["--entries", str(project / "entries"), "sign", "copy", "--as", "Carol Nobody"],
                             env={"GLOSSARY_TRUST": "names"}, catch_exceptions=False)
    assert "warning" in run.output and "GLOSSARY_TRUST=names in the environment overrides" in run.output


def test_a_site_with_no_published_entry_says_so_with_what_the_drafts_wait_for(tmp_path, keys):
    project = make_project(tmp_path, keys=keys, sign=False)
    home = build(project).render_page("index.md")
    assert "No entry is published yet: 1 entry waits as draft (1 for the author's signature)" in home
    assert "signed by its author" not in home
    sign_author_file(project / "entries" / "copy.md", keys.author)
    home = build(project).render_page("index.md")
    assert "1 for a reviewer's signature" in home


def test_a_dirty_build_after_a_review_goes_stale_removes_the_page(tmp_path, keys):
    project = make_project(tmp_path, keys=keys)
    assert mkdocs(project, "build").returncode == 0
    site = project / "site"
    assert (site / "copy" / "index.html").is_file() and (site / "copy" / "copy.cu").is_file()
    path = project / "entries" / "copy.md"
    path.write_text(path.read_text().replace("reads each element once", "reads every element once"))
    run = mkdocs(project, "build", "--dirty")
    assert run.returncode == 0, run.stderr
    assert "review is stale" in run.stderr and "is not shown by this build" in run.stderr
    assert not (site / "copy").exists(), sorted(str(p) for p in (site / "copy").rglob("*"))
    assert "Copy kernel" not in (site / "index.html").read_text()
