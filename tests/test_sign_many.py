"""`glossary sign` over several entries at once (issue 21): one key load, each entry signed on
its own, a summary, and an entry that cannot be signed named without stopping the others.

Fixture entries (copies of the gate fixture's copy entry) and test keys made here; no key is
written into the repository.
"""

from __future__ import annotations

import itertools
import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, current_result
from gate_fixture import sign_author_file, COPY, KERNEL, REFERENCE, Keys, _result, make_project
from glossary.build import GlossaryBuild
from glossary.cli import cli
from glossary.settings import Settings
from measure import attest

SLUGS = ("copy", "copy-b", "copy-c")


def _entry(slug: str) -> str:
    return COPY.replace("title: Copy kernel", f"title: Copy kernel {slug}")


@pytest.fixture
def keys() -> Keys:
    return Keys.make()


def project_of(tmp_path: Path, keys: Keys, author_of: dict[str, str] | None = None,
               unsigned: tuple[str, ...] = ()) -> Path:
    """Three measured fixture entries under `trust: signed`, not reviewed; each of Ada Lovelace's
    (all but those ``author_of`` gives another author, and ``unsigned``) signed by her as author."""
    texts = {slug: _entry(slug) for slug in SLUGS[1:]}
    for slug, author in (author_of or {}).items():
        texts[slug] = texts[slug].replace("author: Ada Lovelace", f"author: {author}")
    project = make_project(tmp_path, keys=keys, sign=False, extra_entries=texts)
    entries = project / "entries"
    for slug in SLUGS[1:]:
        folder = entries / slug
        (folder / "results").mkdir(parents=True)
        (folder / "copy.cu").write_text(KERNEL)
        (folder / "reference.py").write_text(REFERENCE)
        data = attest.sign_result(current_result(entries, slug, dict(_result(), entry=slug)), keys.node)
        (folder / "results" / "nvidia-h200.json").write_text(json.dumps(data, indent=1))
    for slug in SLUGS:
        if slug not in (author_of or {}) and slug not in unsigned:
            sign_author_file(entries / f"{slug}.md", keys.author)
    return project


def published(project: Path) -> set[str]:
    options = Settings.for_project(project / "entries")
    built = GlossaryBuild(options.replace(templates_dir=ROOT / "templates"), logging.getLogger("test-sign-many"))
    built.load()
    return {slug for slug, verdict in built.verdicts.items() if verdict.publishable}


def key_file(tmp_path: Path, signer: attest.Signer) -> Path:
    path = tmp_path / "keys" / "reviewer_ed25519"  # outside the fixture project
    if not path.exists():
        signer.save(path)
    return path


def glossary(project: Path, *args: str, monkeypatch=None):
    if monkeypatch is not None:
        monkeypatch.chdir(project)
    return CliRunner().invoke(cli, ["--entries", str(project / "entries"), *args], catch_exceptions=False)


@pytest.mark.parametrize("subset", [s for n in range(1, 4) for s in itertools.combinations(SLUGS, n)])
def test_signing_any_subset_publishes_exactly_that_subset(tmp_path, keys, subset):
    project = project_of(tmp_path, keys)
    assert published(project) == set()
    run = glossary(project, "sign", *subset, "--as", "Charles Babbage", "--key", str(key_file(tmp_path, keys.reviewer)))
    assert run.exit_code == 0, run.output
    assert published(project) == set(subset)
    for slug in subset:
        assert f"Signed {slug} as reviewer Charles Babbage" in run.output
    if len(subset) > 1:
        assert f"Signed {len(subset)} of {len(subset)} entries." in run.output


def test_the_key_is_loaded_once_for_every_entry(tmp_path, keys, monkeypatch):
    project = project_of(tmp_path, keys)
    loads = []
    real = attest.Signer.from_file.__func__

    def counting(cls, path, password=None):
        loads.append(path)
        return real(cls, path, password)

    monkeypatch.setattr(attest.Signer, "from_file", classmethod(counting))
    run = glossary(project, "sign", *SLUGS, "--as", "Charles Babbage", "--key", str(key_file(tmp_path, keys.reviewer)))
    assert run.exit_code == 0, run.output
    assert len(loads) == 1 and published(project) == set(SLUGS)


def test_one_entry_that_cannot_be_signed_is_named_and_the_others_are_signed(tmp_path, keys):
    project = project_of(tmp_path, keys, unsigned=("copy-b",))
    broken = project / "entries" / "copy-c.md"
    before = broken.read_bytes()
    run = glossary(project, "sign", "copy", "copy-b", "--as", "Charles Babbage",
                   "--key", str(key_file(tmp_path, keys.reviewer)))
    assert run.exit_code == 1
    assert "not signed: copy-b:" in run.output and "the author has not signed" in run.output
    assert "Signed 1 of 2 entries; not signed: copy-b." in run.output
    assert published(project) == {"copy"}
    assert broken.read_bytes() == before


def test_a_malformed_entry_is_named_and_does_not_stop_the_others(tmp_path, keys):
    project = project_of(tmp_path, keys)
    page = project / "entries" / "copy-b.md"
    good = page.read_text()
    page.write_text("---\ntitle: [unclosed\n---\nBody.\n")
    run = glossary(project, "sign", *SLUGS, "--as", "Charles Babbage", "--key", str(key_file(tmp_path, keys.reviewer)))
    assert run.exit_code == 1
    assert "not signed: copy-b:" in run.output
    assert "Signed 2 of 3 entries; not signed: copy-b." in run.output
    page.write_text(good)  # the build stops on a malformed entry: put it back, still unsigned
    assert published(project) == {"copy", "copy-c"}


def test_all_pending_and_a_glob(tmp_path, keys):
    project = project_of(tmp_path, keys, author_of={"copy-c": "Charles Babbage"})
    key = str(key_file(tmp_path, keys.reviewer))
    run = glossary(project, "sign", "copy-*", "--as", "Charles Babbage", "--key", key)  # copy-b, copy-c
    assert run.exit_code == 0, run.output  # copy-c is Charles Babbage's own: he signs it as its author
    assert "Signed copy-b as reviewer" in run.output and "Signed copy-c as author" in run.output
    assert published(project) == {"copy-b"}  # copy-c has its author's signature, but no reviewer's
    run = glossary(project, "sign", "--all-pending", "--as", "Charles Babbage", "--key", key)
    assert run.exit_code == 0, run.output  # copy-c lacks only a reviewer, which its author cannot be
    assert "Signed copy as" in run.output and "Signed copy-b" not in run.output and "Signed copy-c" not in run.output
    assert published(project) == {"copy", "copy-b"}
    again = glossary(project, "sign", "--all-pending", "--as", "Charles Babbage", "--key", key)
    assert again.exit_code == 0 and "Nothing to sign" in again.output


def test_usage_errors_sign_nothing(tmp_path, keys):
    project = project_of(tmp_path, keys)
    key = str(key_file(tmp_path, keys.reviewer))
    assert glossary(project, "sign", "--as", "Charles Babbage", "--key", key).exit_code == 2
    assert glossary(project, "sign", "copy", "nope", "--as", "Charles Babbage", "--key", key).exit_code == 2
    assert glossary(project, "sign", "zz-*", "--as", "Charles Babbage", "--key", key).exit_code == 2
    assert glossary(project, "sign", *SLUGS, "--as", "TBD", "--key", key).exit_code == 1
    assert published(project) == set()
