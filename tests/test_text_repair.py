from __future__ import annotations

import unicodedata

import pytest

from transforms.text_repair import repair_text


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
