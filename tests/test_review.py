"""Review sign-off bound to content: fingerprint, staleness, surgical signing, the byline."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from pathlib import Path

import pytest

from glossary.verdicts import review
from glossary.build import GlossaryBuild
from glossary.settings import Settings
from glossary.entries.model import load_entries

from conftest import current_result, sign_entry_file

ROOT = Path(__file__).resolve().parent.parent
DAY = dt.date(2026, 10, 2)

ENTRY = """\
---
# yaml-language-server: $schema=../schema/entry.schema.json
title: Copy   # the term
summary: Moving bytes from one buffer to another at the speed of DRAM.
author: Ada Lovelace
written_on: 2026-10-01
reviewer: pending     # a different real name is required to publish
reviewed_on: null
measure:
  sources: [copy.cu]
  reference: reference.py
  archs: [sm_90]
  sizes: [{n: 1024}]
  headline: {n: 1024}
  buffers: {x: {role: input}, y: {role: output}}
  variants:
    - name: copy
      label: copy
      bytes_per_elem: 8
      launches: [{kernel: copy, grid: ["ceil(n / 256)"], block: [256], args: [x, y, n]}]
---
A copy kernel reads each element once and writes it once.
"""

RESULT = {
    "format": 1, "entry": "copy", "device": "nvidia-h200", "status": "ok", "provenance": "measured",
    "fingerprint": "sha256:abc", "environment": {"gpu": "NVIDIA H200", "driver": "999.1", "cuda_driver": "13.0", "nvcc": "V13.0.1",
                    "compile_command": "nvcc -O3 -arch=sm_90", "captured_at": "2026-10-03T10:00:00+00:00"},
    "method": {"warmups": 3, "runs": 10, "statistic": "mean", "timer": "cuda-events"},
    "sizes": [{"params": {"n": 1024}, "elements": 1024, "variants": {
        "copy": {"bytes_per_elem": 8, "samples_ms": [0.002, 0.002], "stats": {"mean": 0.002}}}}],
}


def make(tmp_path: Path, text: str = ENTRY) -> Path:
    entries = tmp_path / "entries"
    (entries / "copy").mkdir(parents=True, exist_ok=True)
    (entries / "copy.md").write_text(text)
    (entries / "copy" / "copy.cu").write_text("// copy\n")
    (entries / "copy" / "reference.py").write_text("def reference(v, i, s, p):\n    return {}\n")
    return entries


def entry(entries: Path):
    return load_entries(entries)["copy"]


def sign(entries: Path, name: str = "Charles Babbage", results: dict | None = None) -> str:
    return sign_entry_file(entries / "copy.md", name, DAY, results)


# -- fingerprint -------------------------------------------------------------------


def test_fingerprint_is_compound_and_stable(tmp_path):
    entries = make(tmp_path)
    first = review.compute_review_fingerprint(entry(entries), {"nvidia-h200": _read(RESULT)})
    assert re.fullmatch(r"v2:fm=[0-9a-f]{12},body=[0-9a-f]{12},kernels=[0-9a-f]{12},results=[0-9a-f]{12}", first)
    assert review.compute_review_fingerprint(entry(entries), {"nvidia-h200": _read(dict(RESULT))}) == first
    assert review.parse_fingerprint(first)[0] == "v2"


@pytest.mark.parametrize("change, part", [
    (lambda e: (e / "copy.md").write_text(ENTRY.replace("at the speed of DRAM", "at DRAM speed")), "front-matter"),
    (lambda e: (e / "copy.md").write_text(ENTRY.replace("reads each element once", "reads every element")), "body"),
    (lambda e: (e / "copy" / "copy.cu").write_text("// copy, faster\n"), "kernel sources"),
    (lambda e: (e / "copy" / "reference.py").write_text("# changed\n"), "kernel sources"),
])
def test_each_kind_of_change_is_named(tmp_path, change, part):
    entries = make(tmp_path)
    before = review.compute_review_fingerprint(entry(entries), {})
    change(entries)
    after = review.compute_review_fingerprint(entry(entries), {})
    assert review.diff_review(before, after) == [part]


def _read(data: dict):
    """A result as the store hands it over: here only its data as read counts (``Result.plain``)."""
    import types

    return types.SimpleNamespace(plain=lambda: data)


def test_results_part_covers_every_byte_of_the_results_last_failure_included():
    import types

    e = types.SimpleNamespace(raw_meta={"title": "T"}, body="b", kernel_files={})
    base = review.compute_review_fingerprint(e, {"nvidia-h200": _read(RESULT)})
    changes = [
        dict(RESULT, last_failure={"error": "Re-measured: fused reaches 9,876.5 GB/s", "environment": {}}),
        dict(RESULT, environment=dict(RESULT["environment"], captured_at="2026-11-01")),
        dict(RESULT, extra_note="<script>alert(1)</script>"),  # a key added after signing
    ]
    for changed in changes:
        assert review.diff_review(base, review.compute_review_fingerprint(e, {"nvidia-h200": _read(changed)})) == \
            ["recorded results"]
    assert review.diff_review(base, review.compute_review_fingerprint(e, {})) == ["recorded results"]
    copied = {"nvidia-h200": _read(RESULT), "nvidia-b200": _read(dict(RESULT, device="nvidia-b200"))}
    assert review.diff_review(base, review.compute_review_fingerprint(e, copied)) == ["recorded results"]


def test_comments_and_line_endings_do_not_count_but_the_reviewer_and_date_do(tmp_path):
    entries = make(tmp_path)
    before = review.compute_review_fingerprint(entry(entries), {})
    edited = ENTRY.replace("# the term", "# the term, as readers search for it").replace("\n", "\r\n")
    (entries / "copy.md").write_bytes(edited.encode())
    assert review.compute_review_fingerprint(entry(entries), {}) == before
    for change in ("reviewer: pending", "reviewer: Someone Else"), ("reviewed_on: null", "reviewed_on: 2020-02-02"):
        (entries / "copy.md").write_text(ENTRY.replace(*change))
        assert review.diff_review(before, review.compute_review_fingerprint(entry(entries), {})) == ["front-matter"]


def test_renaming_the_reviewer_or_backdating_after_signing_makes_the_review_stale(tmp_path):
    entries = make(tmp_path)
    sign(entries)
    assert review.review_of(entry(entries), {}).status == "current"
    signed = (entries / "copy.md").read_text()
    for old, new in (("reviewer: Charles Babbage", "reviewer: Mallory Example"),
                     ("reviewed_on: 2026-10-02", "reviewed_on: 2020-02-02")):
        (entries / "copy.md").write_text(signed.replace(old, new))
        state = review.review_of(entry(entries), {})
        assert state.status == "stale" and state.changed == ("front-matter",)


def test_diff_of_an_unreadable_fingerprint_says_so():
    new = "v2:fm=000000000000,body=000000000000,kernels=000000000000,results=000000000000"
    assert "not one `glossary sign` writes" in review.diff_review("typed by hand", new)[0]
    assert review.diff_review(new.replace("v2", "v1"), new) == ["fingerprint format (v1, now v2)"]
    assert review.diff_review(new, new) == []


# -- review state and the gate ----------------------------------------------------


def test_review_states(tmp_path):
    entries = make(tmp_path)
    assert review.review_of(entry(entries), {}).status == "none"
    (entries / "copy.md").write_text(ENTRY.replace("reviewer: pending", "reviewer: Charles Babbage"))
    unsigned = review.review_of(entry(entries), {})
    assert unsigned.status == "unsigned" and unsigned.refusals == ()
    assert unsigned.warning == ("reviewer Charles Babbage has not signed with `glossary sign`; "
                                "the review is not bound to the content")
    sign(entries, results={})
    current = review.review_of(entry(entries), {})
    assert current.status == "current" and current.refusals == () and current.warning is None
    (entries / "copy" / "copy.cu").write_text("// changed\n")
    (entries / "copy.md").write_text((entries / "copy.md").read_text().replace("once.", "exactly once."))
    stale = review.review_of(entry(entries), {})
    assert stale.status == "stale"
    assert stale.changed == ("body", "kernel sources")
    (reason,) = stale.refusals
    assert reason.startswith("review is stale: the body and kernel sources changed since Charles Babbage")
    assert "2026-10-02" in reason


def test_build_refuses_a_stale_review_and_warns_on_a_hand_written_one(tmp_path, caplog):
    """Under `trust: names` (tests/test_trust.py has `signed`, where a hand-written review is refused)."""
    entries = make(tmp_path)
    (entries / "copy.md").write_text(ENTRY.replace("reviewer: pending", "reviewer: Charles Babbage"))
    (entries / "copy" / "results").mkdir()
    result = current_result(entries, "copy", RESULT)
    (entries / "copy" / "results" / "nvidia-h200.json").write_text(json.dumps(result))
    build = GlossaryBuild(Settings(entries_dir=entries, templates_dir=ROOT / "templates", trust="names"), logging.getLogger("t"))
    with caplog.at_level(logging.WARNING):
        build.load()
    assert build.verdicts["copy"].publishable, build.verdicts["copy"].reasons
    assert "has not signed with `glossary sign`" in caplog.text
    page = build.render_page("copy.md")
    assert "not with `glossary sign`, so it is not bound to this exact text" in page
    assert "names only, not signed" in page

    fingerprint = sign(entries)
    build = GlossaryBuild(Settings(entries_dir=entries, templates_dir=ROOT / "templates", trust="names"), logging.getLogger("t"))
    build.load()
    page = build.render_page("copy.md")
    assert "names only, not signed" in page
    assert (f"Reviewed by Charles Babbage on 2026-10-02, bound to this exact text, "
            f"kernels and results (review fingerprint `{review.short_fingerprint(fingerprint)}`)") in page

    remeasured = dict(result, environment=dict(result["environment"], captured_at="2026-10-09T10:00:00+00:00"))
    (entries / "copy" / "results" / "nvidia-h200.json").write_text(json.dumps(remeasured))
    build = GlossaryBuild(Settings(entries_dir=entries, templates_dir=ROOT / "templates", trust="names"), logging.getLogger("t"))
    build.load()
    verdict = build.verdicts["copy"]
    assert not verdict.publishable
    assert verdict.reasons[0].startswith("review is stale: the recorded results changed")


# -- signing ------------------------------------------------------------------------


def test_signer_must_be_a_real_name_and_not_the_author(tmp_path):
    e = entry(make(tmp_path))
    assert "is the author" in review.signer_problem(e, "  ada   LOVELACE ")
    assert "placeholder" in review.signer_problem(e, "TBD")
    assert review.signer_problem(e, "Charles Babbage") is None
    no_author = entry(make(tmp_path, ENTRY.replace("author: Ada Lovelace", "author: pending")))
    assert "no named author" in review.signer_problem(no_author, "Charles Babbage")


def test_sign_text_changes_only_the_review_lines(tmp_path):
    fp = "v1:fm=aaaaaaaaaaaa,body=bbbbbbbbbbbb,kernels=cccccccccccc,results=dddddddddddd"
    signed = review.sign_text(ENTRY, "Charles Babbage", DAY, fp)
    expected = (ENTRY.replace("reviewer: pending     #", "reviewer: Charles Babbage     #")
                .replace("reviewed_on: null\n", f'reviewed_on: 2026-10-02\nreview_fingerprint: "{fp}"\n'))
    assert signed == expected  # comments, spacing and every other line byte for byte


def test_sign_text_adds_missing_keys_in_order_and_replaces_old_ones():
    fp = "v1:fm=aaaaaaaaaaaa,body=bbbbbbbbbbbb,kernels=cccccccccccc,results=dddddddddddd"
    text = "---\ntitle: T\nsummary: S\nauthor: A B\n---\nBody.\n"
    assert review.sign_text(text, "C D", DAY, fp) == (
        f'---\ntitle: T\nsummary: S\nauthor: A B\nreviewer: C D\nreviewed_on: 2026-10-02\n'
        f'review_fingerprint: "{fp}"\n---\nBody.\n')
    again = review.sign_text(review.sign_text(text, "C D", DAY, fp), "E F", dt.date(2026, 11, 1), fp.replace("a", "e"))
    assert "reviewer: E F\nreviewed_on: 2026-11-01\n" in again and again.count("review_fingerprint") == 1


def test_sign_text_keeps_crlf_bom_and_quotes_awkward_names():
    fp = "v1:fm=aaaaaaaaaaaa,body=bbbbbbbbbbbb,kernels=cccccccccccc,results=dddddddddddd"
    text = "\ufeff---\r\ntitle: T\r\nsummary: S\r\nreviewer:\r\n---\r\nBody.\r\n"
    signed = review.sign_text(text, "Babbage: Charles #2", DAY, fp)
    assert signed.startswith("\ufeff---\r\n") and signed.endswith("---\r\nBody.\r\n")
    assert 'reviewer: "Babbage: Charles #2"\r\nreviewed_on: 2026-10-02\r\n' in signed
    assert "\n" not in signed.replace("\r\n", "")


def test_sign_text_refuses_what_it_cannot_edit_safely():
    fp = "v1:fm=aaaaaaaaaaaa,body=bbbbbbbbbbbb,kernels=cccccccccccc,results=dddddddddddd"
    with pytest.raises(review.ReviewError, match="block mapping"):
        review.sign_text("---\n{title: T, summary: S}\n---\n", "C D", DAY, fp)
    with pytest.raises(review.ReviewError, match="front-matter"):
        review.sign_text("no front-matter\n", "C D", DAY, fp)


def test_the_lesson_catalogue_shown_on_the_page_is_part_of_the_review(tmp_path):
    from glossary.entries.lessons import CatalogLesson

    entries = make(tmp_path, ENTRY.replace("reviewed_on: null", "reviewed_on: null\nlessons:\n  - {day: 7, title: Own}"))
    catalog = {7: CatalogLesson("Bandwidth yardsticks", "https://example.org/day-7/"), 9: CatalogLesson("Other")}
    before = review.compute_review_fingerprint(entry(entries), {}, catalog)
    assert review.compute_review_fingerprint(entry(entries), {}, {**catalog, 9: CatalogLesson("x")}) == before
    for changed in (CatalogLesson("Bandwidth yardsticks, renamed", "https://example.org/day-7/"),
                    CatalogLesson("Bandwidth yardsticks", "https://example.org/elsewhere/")):
        after = review.compute_review_fingerprint(entry(entries), {}, {**catalog, 7: changed})
        assert review.diff_review(before, after) == ["front-matter"]
