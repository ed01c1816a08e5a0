from __future__ import annotations

import unicodedata

import ftfy
import pytest
from ftfy.badness import MOJIBAKE_CATEGORIES, is_bad
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.extract.characters import strip_unwanted
from transforms.extract.repair import REPAIR_CONFIG, looks_like_mojibake, repair_text


@pytest.mark.parametrize(
    ("broken", "fixed"),
    [
        ("cafÃ©", "café"),
        ("Ã¼ber naÃ¯ve", "über naïve"),
        ("It\u00e2\u20ac\u2122s", "It\u2019s"),  # a UTF-8 right quote read as windows-1252
        ("ÐŸÑ€Ð¸Ð²ÐµÑ‚", "Привет"),
    ],
)
def test_mojibake_is_repaired(broken: str, fixed: str) -> None:
    assert repair_text(broken) == fixed


@pytest.mark.parametrize(
    "kept",
    [
        "Fish &amp; chips",  # a literal entity in the text stays literal
        "\u201ccurly\u201d and \u2018single\u2019 quotes",
        "ＦＵＬＬ　ＷＩＤＴＨ",
        "ﬁne ligature",
        "café déjà vu",
        "Привет, 世界",
    ],
)
def test_wanted_content_is_kept(kept: str) -> None:
    assert repair_text(kept) == kept


def test_ascii_is_returned_as_is() -> None:
    text = "plain ascii &amp; text"
    assert repair_text(text) is text


def test_nfc_normalization() -> None:
    decomposed = unicodedata.normalize("NFD", "café")
    assert repair_text(decomposed) == "café"


def test_mojibake_of_a_soft_hyphen_or_c1_control_is_repaired_before_the_policy_removes_them():
    # "í" is UTF-8 C3 AD, read as Latin-1 "Ã" and a soft hyphen; "Á" is C3 81
    assert repair_text("fr\u00c3\u00ado y \u00c3\u0081lvaro") == "frío y Álvaro"
    assert repair_text("\x93quoted\x94 caf\u00e9") == "\u201cquoted\u201d café"  # windows-1252
    assert repair_text("Donau\u00addampf caf\u00e9 \x81") == "Donaudampf café"


def test_controls_are_removed_from_ascii_text_too():
    assert repair_text("bell\x07 and \x1b[31mred\x1b[0m text") == "bell and red text"
    assert repair_text("caf\u00e9 bell\x07 and \x1b[31mred") == "café bell and red"


# repair_text passes over lines ftfy would not change; the result must be ftfy's own, then the
# character policy's.
_MOJIBAKE = ["cafÃ©", "It\u00e2\u20ac\u2122s", "ÐŸÑ€Ð¸Ð²ÐµÑ‚", "Ã¼ber", "\u00c3\u00a0 la"]
_PIECES = st.one_of(
    st.sampled_from(_MOJIBAKE + ["\n", "\r\n", "\r", "\u2028", "\x85", "\x1b[31m", "\ufeff"]),
    st.text(
        alphabet=st.sampled_from(
            list(
                "ab. é\u00e9\u0301\u00c3\u00c2\u00a9\u2019\u201c\u00a0\u2014\u20ac\u2122ПрЖГВЂΒΓ世ØÙ×²\x00\x07\x0c\t\n\x9d"
            )
        ),
        max_size=12,
    ),
)


@given(st.lists(_PIECES, max_size=30).map("".join))
@settings(max_examples=400, deadline=None)
def test_same_result_as_ftfy_on_the_whole_text(text: str) -> None:
    # ASCII text is not given to ftfy (see test_ascii_is_returned_as_is); ftfy is given the text
    # without what the policy removes, but what may be mojibake (see repair_text).
    expected = text
    if not text.isascii():
        expected = ftfy.fix_text(strip_unwanted(text, for_repair=True), REPAIR_CONFIG)
    assert repair_text(text) == strip_unwanted(expected)


def test_same_result_as_ftfy_on_a_page_of_lines() -> None:
    lines = ["A plain line.", "", "Caf\u00e9 \u201cquoted\u201d", "It\u00e2\u20ac\u2122s broken"]
    text = "\n".join(lines * 50) + "\r\nlast line\u2028"
    assert repair_text(text) == ftfy.fix_text(text, REPAIR_CONFIG)  # no character it removes


def test_mojibake_pattern_starts_within_two_characters_of_non_ascii() -> None:
    """The premise of looks_like_mojibake: ftfy's character classes hold no ASCII character."""
    for name, chars in MOJIBAKE_CATEGORIES.items():
        for i, char in enumerate(chars):
            if char == "-" and 0 < i < len(chars) - 1:  # a range between two non-ASCII chars
                assert not chars[i - 1].isascii() and not chars[i + 1].isascii(), name
            else:
                assert not char.isascii(), (name, char)


@given(st.lists(_PIECES, max_size=30).map("".join))
@settings(max_examples=400, deadline=None)
def test_looks_like_mojibake_is_ftfy_is_bad(text: str) -> None:
    assert looks_like_mojibake(text) == is_bad(text)
