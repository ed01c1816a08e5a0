"""Class/id names that mark boilerplate: substrings, whole words, content words, many names."""

from __future__ import annotations

import pytest

from transforms.extract.names import boilerplate_names, classify_names, hidden_names


@pytest.mark.parametrize(
    "name",
    ["site-footer ", "commentlist ", " cookie-banner", "Share-Buttons ", "ad-slot ", "x nav",
     "top_ads ", "menu ", "werbung-rechts ", "col-4 SIDEBAR", "wrp js-tooltip",
     "popover"],
)  # fmt: skip
def test_boilerplate_words_mark_a_name(name: str) -> None:
    assert boilerplate_names([name]) == {name}


@pytest.mark.parametrize(
    "name",
    [
        "header ",
        "canvas ",
        "shadow load ",
        "navy ",
        "menus-x ",
        "",
        " ",
        "reading-time ",
        "relative group/tooltip",
    ],
)
def test_short_words_count_only_whole_and_plain_names_are_not_boilerplate(name: str) -> None:
    assert boilerplate_names([name]) == set()


@pytest.mark.parametrize(
    "name", ["main has-sidebar", "article modal-enabled", "sidebar maincontent", "sidebarticle "]
)
def test_a_content_word_spares_the_name(name: str) -> None:
    assert boilerplate_names([name]) == set()


def test_a_grid_column_class_spares_no_name() -> None:
    names = ["comments-list columns is-multiline", "column is-3 sidebar"]
    assert classify_names(names) == (set(names), {names[0]})


@pytest.mark.parametrize(
    ("name", "body"),
    [("x article-body", True), ("articleBody", True), ("post__content y", True),
     ("entry_content", True), ("cuerpo-noticia", True), ("article-body__inner", False),
     ("article-content__ad-group", False), ("main-article-body-x", False)],
)  # fmt: skip
def test_a_body_name_is_a_whole_token(name: str, body: bool) -> None:
    bodies: set[str] = set()
    classify_names([name, "nav"], bodies)
    assert bodies == ({name} if body else set())


def test_hidden_classes_are_whole_tokens_not_shown_again_on_some_screens() -> None:
    hidden = ["x hidden ", "d-none ", "box hide", "visually-hidden title"]
    shown = ["hidden-xs ", "overflow-hidden ", "d-none d-lg-block ", "hidden md:flex ",
             "hide show@medium", "hiddenShelf ", "mw-hide-empty ", "Hidden box", "D-NONE "]  # fmt: skip
    assert hidden_names(hidden + shown) == set(hidden)


def test_many_names_are_told_apart_and_words_do_not_run_across_names() -> None:
    names = ["post-body ", "related-posts ", "a", "d x", "ad", "sh", "are-x", "nav", "x"]
    # "a" + "d x" would read "ad" and "sh" + "are-x" "share-" if the names ran together
    assert boilerplate_names(names + names) == {"related-posts ", "ad", "nav"}


def test_case_folding_that_changes_lengths_keeps_names_apart() -> None:
    # "İ" lower-cases to two characters: the positions of later names must still line up
    names = ["İİİİ", "nav", "İ footer", "content"]
    assert boilerplate_names(names) == {"nav", "İ footer"}
