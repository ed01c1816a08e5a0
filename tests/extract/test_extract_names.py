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


def _classify_in_python(names, bodies=None, hidden=None):
    """``classify_names`` with its pass over the matches written in Python."""
    from bisect import bisect_right

    from transforms.extract import names as n

    def at_word_edge(text, pos):
        return pos < 0 or pos >= len(text) or text[pos] in "-_" or text[pos].isspace()

    def is_token(text, start, end):
        return (start == 0 or text[start - 1].isspace()) and (
            end == len(text) or text[end].isspace()
        )

    distinct = list(dict.fromkeys(names))
    lowered = [name.lower() for name in distinct]
    starts, pos = [], 0
    for name in lowered:
        starts.append(pos)
        pos += len(name) + 1
    text = "\n".join(lowered)
    boilerplate, content = set(), set()
    comment_at, content_at = {}, {}
    for word, start, end in n._AUTOMATON.find_matches_as_indexes(text, overlapping=True):
        kind = n._KINDS[word]
        if kind == n._WORD and not (at_word_edge(text, start - 1) and at_word_edge(text, end)):
            continue
        if kind == n._BODY:
            if bodies is not None and is_token(text, start, end):
                bodies.add(distinct[bisect_right(starts, start) - 1])
            continue
        if kind == n._HIDDEN:
            name = distinct[bisect_right(starts, start) - 1]
            if hidden is not None and n._is_hidden(name):
                hidden.add(name)
            continue
        i = bisect_right(starts, start) - 1
        if kind == n._COMMENT:
            comment_at.setdefault(i, []).append(start)
            continue
        if kind == n._CONTENT:
            content_at.setdefault(i, []).append(start)
        (content if kind == n._CONTENT else boilerplate).add(i)
    comments = set()
    for i, positions in comment_at.items():
        if i in content_at:
            tokens = {n._token_at(text, pos) for pos in positions}
            if any(n._token_at(text, pos) not in tokens for pos in content_at[i]):
                continue
        comments.add(distinct[i])
    return {distinct[i] for i in boilerplate - content}, comments


def test_classify_names_is_the_python_pass_over_the_matches():
    import random

    from transforms.extract import names as n

    words = [*n.BOILERPLATE_SUBSTRINGS, *n.BOILERPLATE_WORDS, *n.CONTENT_WORDS,
             *n.COMMENT_SUBSTRINGS, *n._BODY_FORMS, *n.HIDDEN_CLASSES, "header", "loading",
             "shadow", "md:block", "d-md-flex", "İstanbul", "café", "x1y2", "Hidden", "AD",
             "Nav", "ArticleBody", "", "\u3000"]  # fmt: skip
    seps = ["-", "_", " ", "  ", "\t", "", "__", "\xa0", "\n"]
    rng = random.Random(5)
    classified = 0
    for _ in range(3000):
        names = []
        for _ in range(rng.randint(1, 12)):
            parts = [rng.choice(words) for _ in range(rng.randint(1, 4))]
            name = "".join(p + rng.choice(seps) for p in parts)
            names.append(name if rng.random() < 0.7 else name.upper())
        if rng.random() < 0.2:
            names.append(names[0])  # a repeat
        ours, theirs = (set(), set()), (set(), set())
        got = classify_names(names, *ours)
        wanted = _classify_in_python(names, *theirs)
        assert got == wanted and ours == theirs, names
        classified += bool(got[0] or got[1])
    assert classified > 1000
    assert tuple(range(6)) == (n._SUBSTRING, n._WORD, n._CONTENT, n._COMMENT, n._BODY, n._HIDDEN)
