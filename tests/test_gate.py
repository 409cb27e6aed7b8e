"""The publish gate: named author, a different named reviewer."""

import pytest

from glossary.verdicts.gate import is_real_name, judge, normalize_name


@pytest.mark.parametrize("name", [None, "", "   ", "pending", "TBD", "TODO", "n/a", "N/A", "unknown",
                                  "Anonymous", "none", " Pending ", "tbd.", "?", "рending"])
def test_placeholders_are_not_names(name):
    assert not is_real_name(name)


@pytest.mark.parametrize("name", ["Ada Lovelace", "李小龙", "O'Brien", "Zoë"])
def test_real_names(name):
    assert is_real_name(name)


def test_normalization_nfkc_casefold_whitespace():
    assert normalize_name("Ada  Lovelace") == normalize_name("ada lovelace")
    assert normalize_name("ＡＤＡ\tLOVELACE") == "ada lovelace"  # full-width letters fold by NFKC
    assert normalize_name("Straße") == normalize_name("STRASSE")


def test_signed_entry_passes():
    verdict = judge("Ada Lovelace", "Charles Babbage")
    assert verdict.publishable and verdict.reasons == ()


def test_every_reason_is_given():
    verdict = judge("pending", None)
    assert not verdict.publishable
    assert len(verdict.reasons) == 2
    assert "author" in verdict.reasons[0] and "reviewer" in verdict.reasons[1]


def test_self_review_is_refused_after_normalization():
    verdict = judge("Ada Lovelace", "  ADA   lovelace ")
    assert not verdict.publishable
    assert "is the author" in verdict.reasons[0]


def test_extra_reasons_refuse():
    verdict = judge("A B", "C D", extra_reasons=("review is stale",))
    assert not verdict.publishable
    assert verdict.reasons == ("review is stale",)
