"""Names that look alike (issue 14): the gate follows Unicode TR39.

Bidi, control and invisible characters are refused with the character named; names whose
letters mix scripts are refused (CJK mixes aside); author and reviewer are compared by their
confusable skeleton, and placeholders are found on the skeleton too.
"""

from __future__ import annotations

import time

import pytest

from glossary.verdicts.gate import is_real_name, judge, name_problem, normalize_name, same_person, skeleton

REAL_NAMES = [
    "Ada Lovelace",
    "José Müller",
    "Zoë O'Brien-Łukasiewicz",
    "J. R. R. Tolkien",
    "Þórunn Ægisdóttir",
    "Nguyễn Thị Minh Khai",
    "Jean-Luc d'Arcy Jr.",
    "Γιώργος Παπαδόπουλος",  # Greek
    "Ада Лавлейс",  # Cyrillic only
    "Ադա Լավլեյս",  # Armenian
    "山田 太郎",  # Han
    "田中 ひろし",  # Han + Hiragana
    "ヤマダ・タロウ",  # Katakana, with the katakana middle dot (Common)
    "佐々木 希",  # the iteration mark 々 is Han
    "김민준",  # Hangul
    "金 민준",  # Han + Hangul
    "王ㄒㄧㄠ",  # Han + Bopomofo
    "阿尔伯特·爱因斯坦",  # Han with a middle dot
    "李小龙",
    "محمد عبد الله",  # Arabic only
    "علی\u200cزاده",  # Persian: a zero width non-joiner between joining letters belongs there
    "דוד בן-גוריון",  # Hebrew
    "राम शर्मा",  # Devanagari, with a virama
    "ශ්\u200dරී ලංකා",  # Sinhala: a zero width joiner after the virama (al-lakuna) belongs there
    "สมชาย ใจดี",  # Thai
    "Yamada 太郎",  # Latin with Han: TR39's highly restrictive level allows it
]


@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_names_of_many_scripts_pass(name):
    assert name_problem(name) is None
    assert is_real_name(name)
    assert judge(name, "Charles Babbage").publishable
    assert judge("Charles Babbage", name).publishable


# -- bidi, control and invisible characters ----------------------------------------


@pytest.mark.parametrize("char, label", [
    ("\u202a", "left-to-right embedding"), ("\u202b", "right-to-left embedding"),
    ("\u202c", "pop directional formatting"), ("\u202d", "left-to-right override"),
    ("\u202e", "right-to-left override"), ("\u2066", "left-to-right isolate"),
    ("\u2067", "right-to-left isolate"), ("\u2068", "first strong isolate"),
    ("\u2069", "pop directional isolate"), ("\u200e", "left-to-right mark"),
    ("\u200f", "right-to-left mark"), ("\u061c", "arabic letter mark"),
])
def test_bidi_controls_are_refused_by_name(char, label):
    problem = name_problem(f"Ada {char}Lovelace")
    assert problem == f"contains {'an' if label[0] in 'aeiou' else 'a'} {label} (U+{ord(char):04X}), " \
                      f"which changes the order the name is shown in; delete it"


def test_right_to_left_override_that_shows_a_reversed_name():
    shown_as_charles_babbage = "\u202eegabbaB selrahC"
    verdict = judge("Ada Lovelace", shown_as_charles_babbage)
    assert not verdict.publishable
    assert verdict.reasons[0].startswith("the reviewer's name contains a right-to-left override (U+202E)")
    assert verdict.missing == ("a reviewer's name without hidden or control characters",)
    assert not is_real_name(shown_as_charles_babbage)


def test_a_reversed_author_name_is_refused_too():
    verdict = judge("\u202eecalevoL adA", "Charles Babbage")
    assert verdict.reasons == ("the author's name contains a right-to-left override (U+202E), which changes "
                               "the order the name is shown in; delete it",)


@pytest.mark.parametrize("name, fragment", [
    ("Ada\tLovelace", "contains a control character (U+0009); write the name on one line, with ordinary spaces"),
    ("Ada\nLovelace", "contains a control character (U+000A); write the name on one line"),
    ("Ada\x07Lovelace", "contains a control character (U+0007)"),
    ("Ada\u2028Lovelace", "contains a line separator (U+2028); write the name on one line"),
    ("Ada\u200bLovelace", "contains an invisible zero width space (U+200B); delete it"),
    ("Ada\u200dLovelace", "contains an invisible zero width joiner (U+200D); delete it"),
    ("Ada\u200cLovelace", "contains an invisible zero width non-joiner (U+200C); delete it"),
    ("Ada\u2060Lovelace", "contains an invisible word joiner (U+2060)"),
    ("Ada Love\u00adlace", "contains an invisible soft hyphen (U+00AD)"),
    ("\ufeffAda Lovelace", "contains an invisible zero width no-break space (U+FEFF)"),
    ("Ada Lovelace\ufe0f", "contains an invisible variation selector-16 (U+FE0F)"),
    ("Ada Lov\u034felace", "contains an invisible combining grapheme joiner (U+034F)"),
    ("\u3164", "contains an invisible hangul filler (U+3164)"),
    ("Ada \U000e0041Lovelace", "contains an invisible tag latin capital letter a (U+E0041)"),
    ("Ada\u0600Lovelace", "contains a format character (arabic number sign, U+0600)"),
    ("\ue000Ada Lovelace", "contains a private-use character (U+E000)"),
    ("Ada Lovelace\u0378", "contains an unassigned code point (U+0378)"),
])
def test_control_and_invisible_characters_are_named(name, fragment):
    problem = name_problem(name)
    assert problem is not None and fragment in problem, problem
    assert not is_real_name(name)


def test_several_hidden_characters_are_all_named_once():
    problem = name_problem("\u202eAda\u200b Love\u200blace\u202c")
    assert problem == ("contains a right-to-left override (U+202E), which changes the order the name is shown in, "
                       "an invisible zero width space (U+200B) and a pop directional formatting (U+202C), which "
                       "changes the order the name is shown in; delete them")


def test_an_invisible_character_no_longer_hides_that_the_reviewer_is_the_author():
    verdict = judge("Ada Example", "Ada Exa\u200bmple")
    assert verdict.reasons == (
        "the reviewer's name contains an invisible zero width space (U+200B); delete it",
        "the reviewer ('Ada Exa\\u200bmple') is the author; a different person must review",
    )


# -- mixed scripts -----------------------------------------------------------------


@pytest.mark.parametrize("name, scripts", [
    ("Ада Lovelace", "Latin and Cyrillic"),
    ("Аda Lovelace", "Latin and Cyrillic"),
    ("Οscar Wilde", "Latin and Greek"),
    ("Ꭺda Lovelace", "Latin and Cherokee"),
    ("Оscar Wіlde", "Latin and Cyrillic"),
    ("Ада Lοvelace", "Latin, Cyrillic and Greek"),
    ("ひろし 민준", "Hiragana and Hangul"),  # Japanese kana with Korean: not one of TR39's mixes
    ("Иван 山田", "Cyrillic and Han"),
])
def test_mixed_script_names_are_refused(name, scripts):
    problem = name_problem(name)
    assert problem is not None and problem.startswith(f"mixes {scripts} letters ("), problem
    assert problem.endswith("); write the whole name in one script")
    assert not is_real_name(name)


def test_mixed_script_reason_points_at_the_odd_letters():
    verdict = judge("Аda Lovelace", "Charles Babbage")
    assert verdict.reasons == ("the author's name mixes Latin and Cyrillic letters (Cyrillic: 'А' U+0410); "
                               "write the whole name in one script",)
    assert verdict.missing == ("an author's name written in one script",)


def test_common_and_inherited_characters_do_not_count_as_a_script():
    assert name_problem("Zoë O'Brien-Smith, Jr. (2nd)") is None  # combining diaeresis, digits, punctuation
    assert name_problem("Ａｄａ Ｌｏｖｅｌａｃｅ") is None  # full-width Latin is Latin


# -- confusable skeletons ----------------------------------------------------------


@pytest.mark.parametrize("a, b", [
    ("Ada Lovelace", "Аda Lovelace"),  # Cyrillic А
    ("ada lovelace", "ɑda lovelace"),  # Latin alpha
    ("rn", "m"),
    ("Ada Example", "Ada Exarnple"),
    ("Sasha", "Ѕаѕһа"),  # all Cyrillic: one script, still the same person
    ("KATE", "КАТЕ"),  # all Cyrillic capitals
    ("Ada Lovelace", "  ADA   lovelace "),
    ("Ada Lovelace", "Ａｄａ Ｌｏｖｅｌａｃｅ"),
    ("Ada Lovelace", "Ada Lovelace\ufe00"),  # a variation selector shows nothing
])
def test_look_alike_names_are_the_same_person(a, b):
    assert same_person(a, b) and same_person(b, a)


def test_skeleton_follows_tr39():
    assert skeleton("Аda Lovelace") == skeleton("Ada Lovelace") == "ada lovelace"
    assert skeleton("m") == skeleton("rn") == "rn"
    assert skeleton("ɑda") == "ada"
    assert skeleton(None) == ""
    assert skeleton("Ada\u200b  Lovelace") == "ada lovelace"


@pytest.mark.parametrize("a, b", [
    ("Ada Lovelace", "Charles Babbage"), ("Zoë Müller", "Zoe Muller"), ("Ада Лавлейс", "Ada Lovelace"),
    ("山田 太郎", "田中 太郎"), ("Anna", "Hanna"),
])
def test_different_people_stay_different(a, b):
    assert not same_person(a, b)
    assert judge(a, b).publishable


def test_self_review_with_a_cyrillic_letter_is_refused():
    verdict = judge("Ada Lovelace", "Аda Lovelace")
    assert not verdict.publishable
    assert "the reviewer ('Аda Lovelace') looks the same as the author ('Ada Lovelace'); a different person " \
           "must review" in verdict.reasons
    assert "a reviewer who is not the author" in verdict.missing


def test_self_review_with_look_alike_latin_letters_is_refused():
    verdict = judge("ada lovelace", "ɑda lovelace")
    assert verdict.reasons == ("the reviewer ('ɑda lovelace') looks the same as the author ('ada lovelace'); a "
                               "different person must review",)


def test_identical_names_keep_their_wording():
    assert judge("Ada Lovelace", "ada  LOVELACE").reasons == (
        "the reviewer ('ada  LOVELACE') is the author; a different person must review",)


# -- placeholders on the skeleton ----------------------------------------------------


@pytest.mark.parametrize("name, placeholder", [
    ("рending", "pending"),  # Cyrillic р
    ("Рending", "pending"),
    ("ТВD", "tbd"),  # Cyrillic Т and В
    ("nоnе", "none"),  # Cyrillic о and е
    ("ТОDО", "todo"),
])
def test_placeholders_are_found_on_the_skeleton(name, placeholder):
    assert name_problem(name) == f"reads as the placeholder {placeholder!r}"
    assert not is_real_name(name)


def test_cyrillic_pending_is_no_named_author():
    verdict = judge("рending", "Charles Babbage")
    assert verdict.reasons == ("no named author (author is 'рending', which reads as the placeholder 'pending')",)
    assert verdict.missing == ("a named author",)


@pytest.mark.parametrize("name, problem", [
    (None, "is missing"), ("", "is empty"), ("  ", "is empty"), ("pending", "is a placeholder, not a person's name"),
    ("<pending>", "holds markup or a link, not a person's name"), ("123", "has no letters"),
])
def test_name_problem_for_missing_names(name, problem):
    assert name_problem(name) == problem


def test_normalize_name_is_unchanged():
    assert normalize_name("Ada\u200b  LOVELACE") == "ada lovelace"
    assert normalize_name(None) == ""


# -- speed ---------------------------------------------------------------------------


def test_a_thousand_bylines_are_judged_quickly():
    judge("Ada Lovelace", "Charles Babbage")  # the Unicode tables load once
    names = [(f"Author Number{i} Łukasiewicz", f"Рeviewer {i} Иванов") for i in range(1000)]
    start = time.process_time()  # this process's CPU: the other test workers' load does not count
    for author, reviewer in names:
        judge(author, reviewer)
    first = time.process_time() - start
    start = time.process_time()
    for author, reviewer in names:
        judge(author, reviewer)
    again = time.process_time() - start
    assert first < 1.0, f"1,000 bylines took {first:.2f} s"
    assert again < first / 2  # names are cached
