"""Pages built to take the parser's memory or time: each is bounded before parsing, keeps its
text, and costs what a page costs (``benchmarks.pathological`` times the whole probe).

The tests look at what the parser is given (``bound_page``) and at what Lexbor builds from it,
never at a clock: the unbounded pages take gigabytes or minutes, so each test here uses a size
that the bound must catch and that the parser survives without it.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

from tests.bombs import ARTICLE, MARKER, bomb_page
from transforms.extract import extract
from transforms.extract.limits import (
    MAX_ATTRIBUTES,
    MAX_NESTING,
    MAX_OPTIONS,
    TagCounts,
    bound_page,
    cap_nesting,
    nesting_depth,
)
from transforms.extract.rebuild import MAX_REBUILT_BYTES, rebuilt_bytes
from transforms.extract.title import MAX_TITLE_CHARS


def _bounded(html: bytes) -> tuple[bytes, bool]:
    """What the parser is given: the same whether the page's text is at hand or is made from
    its bytes only if a bound needs it (the extractor's path for plain UTF-8)."""
    bounded = bound_page(html.decode(), html)
    assert bound_page(None, html) == bounded
    return bounded


def _elements(html: bytes) -> int:
    return sum(1 for _ in LexborHTMLParser(html).root.traverse(include_text=False))


# -- formatting elements opened again ----------------------------------------------------------


def _reopening(tag: str, opened: int = 600, paragraphs: int = 600) -> bytes:
    return bomb_page("<p>" + "".join(f"<{tag} x={i}>" for i in range(opened)) + "<p>x" * paragraphs)


@pytest.mark.parametrize("tag", ["b", "i", "em", "strong", "font", "code", "s", "u", "small"])
def test_formatting_elements_opened_again_are_unwrapped_before_parsing(tag):
    """600 open elements times 600 paragraphs: 360,000 elements (140 MB) unbounded."""
    page = _reopening(tag)
    source, truncated = _bounded(page)
    assert truncated and f"<{tag} " not in source.decode()
    assert _elements(source) < 5000
    result = extract(page)
    assert MARKER in result.text and result.truncated


def test_an_anchor_with_a_huge_href_opened_again_is_unwrapped_too():
    page = bomb_page("<p><a href='/" + "x" * 20_000 + "'>link" + "<p>x" * 8000)
    assert rebuilt_bytes(page) > MAX_REBUILT_BYTES
    source, truncated = _bounded(page)
    assert truncated and rebuilt_bytes(source) <= MAX_REBUILT_BYTES and b"<a " not in source


def test_end_tags_of_other_names_do_not_hide_open_formatting_elements():
    """The parser ignores ``</i>`` with no ``<i>`` open: the ``<b>`` stay open all the same."""
    page = bomb_page("<p>" + "".join(f"<b x={i}></i>" for i in range(600)) + "<p>x" * 600)
    assert rebuilt_bytes(page) > MAX_REBUILT_BYTES
    assert _elements(_bounded(page)[0]) < 5000


@pytest.mark.parametrize(
    "markup",
    [
        "<p><b>bold</b> and <i>italic</i> and <a href='/x'>a link</a></p>" * 20_000,
        "<b>an unclosed bold at the top</b" + "<p>paragraph <em>text</em></p>" * 20_000,
        "<table>" + "<tr><td><font color=red>cell</font></td></tr>" * 20_000 + "</table>",
    ],
    ids=["closed", "one-stray", "table-cells"],
)
def test_pages_that_close_their_formatting_elements_are_parsed_as_they_came(markup):
    page = bomb_page(markup)
    assert _bounded(page) == (page, False)


# -- attributes --------------------------------------------------------------------------------


def test_a_tag_with_too_many_attributes_is_cut():
    """20,000 distinct attributes (0.8 s for Lexbor; 100,000 take 30 s), with a quoted ">" and
    a quoted "<" among them: the tag is read as the tokenizer reads it."""
    names = [f"a{i}=1" for i in range(20_000)]
    names[10] = "title='x > y'"
    names[5000] = "data-html='<b>'"
    page = bomb_page("<div " + " ".join(names) + ">inside</div>")
    source, truncated = _bounded(page)
    element = LexborHTMLParser(source).css_first("div[a0]")
    assert truncated and len(element.attributes) == MAX_ATTRIBUTES
    assert element.text() == "inside" and MARKER in extract(page).text


def test_text_and_scripts_that_look_like_long_tags_are_not_cut():
    script = "for (i = 0; i<n; i++) { " + "x = y + z; " * 8000 + "}"
    page = bomb_page(f"<script>{script}</script><p>{'word ' * 20_000}</p>")
    assert _bounded(page) == (page, False)


# -- nesting -----------------------------------------------------------------------------------


def test_end_tags_the_parser_ignores_do_not_hide_nesting():
    """``</span>`` with no ``<span>`` open is ignored: 20,000 ``<div></span>`` nest 20,000 deep
    (90,000 took 18 s)."""
    html = "<div></span>" * 20_000 + "deep"
    assert nesting_depth(html) == 20_000
    flat, changed = cap_nesting(html)
    assert changed and nesting_depth(flat) <= MAX_NESTING and flat.endswith("deep")


def test_nesting_under_the_cap_is_flattened_when_the_parser_would_walk_it_too_often():
    """4,000 lists deep (under the cap) and 60,000 items: each item's start tag looks down the
    whole stack (2.3 s for 5,000 and 85,000)."""
    html = "<ul><li>" * 4000 + "<li>item" * 60_000
    flat, changed = cap_nesting(html)
    assert changed and nesting_depth(flat) < 1000 and flat.count("<li>") == 64_000


def test_selects_do_not_count_as_nesting():
    """A ``<select>`` start tag closes the open one: flattening 6,000 of them would leave the
    last holding 6,000 options, which takes Lexbor time growing with their square."""
    html = "<select><option>x" * 6000
    assert cap_nesting(html) == (html, False)


def test_a_select_holds_no_more_than_max_options():
    options = "".join(f"<option value={i}>choice {i}</option>" for i in range(MAX_OPTIONS + 500))
    page = bomb_page(f"<form><select>{options}</select></form><select><option>one</select>")
    source, truncated = _bounded(page)
    assert truncated and source.count(b"<option") == MAX_OPTIONS + 1
    assert b"choice 5499" in source and MARKER in extract(page).text


# -- the size cap: markup that is not text -----------------------------------------------------


@pytest.mark.parametrize(
    "filler",
    [
        "<img src='data:image/png;base64," + "iVBORw0K" * 750_000 + "'>",
        "<svg style='display:none'>"
        + ("<symbol id='s'><path d='" + "M1,1L2,2" * 1000 + "'/></symbol>") * 700
        + "</svg>",
        ("<span style='" + "color:red;" * 600 + "'></span>") * 1000,
    ],
    ids=["data-image", "svg-sprite", "long-styles"],
)  # fmt: skip
def test_markup_that_is_not_text_does_not_fill_the_size_cap(filler):
    page = bomb_page(filler)
    assert len(page) > 5_000_000
    assert MARKER in extract(page).text


def test_a_page_of_more_bytes_than_the_size_cap_is_cut_as_its_text_would_be():
    """The cap counts characters: a page given as bytes alone is decoded to be measured when it
    has more bytes than the cap allows characters."""
    page = ("<p>" + "日本語の記事" * 1000 + "</p>").encode()
    for max_chars in (len(page) // 3, len(page) // 2, len(page) - 1, len(page)):
        text = page.decode()
        assert bound_page(None, page, max_chars=max_chars) == bound_page(
            text, page, max_chars=max_chars
        )
    assert bound_page(None, page, max_chars=len(page) // 2) == (page, False)  # 6,000 chars fit


def test_a_huge_title_neither_fills_the_size_cap_nor_becomes_a_huge_title():
    result = extract(bomb_page("", title="Bees in the city " * 300_000))
    assert MARKER in result.text and 0 < len(result.title) <= MAX_TITLE_CHARS
    small = extract(bomb_page("", title="Bees " * 10_000))  # under the size cap
    assert MARKER in small.text and len(small.title) <= MAX_TITLE_CHARS


# -- declarative shadow roots ------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "<template shadowrootmode='open'>",
        '<TEMPLATE ShadowRootMode="closed">',
        "<template shadowroot=open>",
    ],
)
def test_an_article_in_a_declarative_shadow_root_is_read(template):
    html = bomb_page("").replace(
        ARTICLE.encode(),
        f"<x-app>{template}<style>p {{}}</style>{ARTICLE}</template></x-app>".encode(),
    )
    assert MARKER in extract(html).text


def test_plain_templates_stay_unread_inside_and_outside_shadow_roots():
    hidden = "<template><p>Row template text that is never shown.</p></template>"
    shadow = f"<x-app><template shadowrootmode='open'>{hidden}{ARTICLE}</template></x-app>"
    html = bomb_page("").replace(ARTICLE.encode(), (shadow + hidden).encode())
    result = extract(html)
    assert MARKER in result.text and "never shown" not in result.text


# -- counting the "<" --------------------------------------------------------------------------


def test_tag_counts_agree_with_a_plain_count_at_every_size():
    rng = random.Random(3)
    sizes = [0, 1, 7, 8, 2039, 2040, 2041, 4080, 10_000, 65_536]
    for size, alphabet in itertools.product(sizes, [b"<<<ab />", b"<\xbc|=>", bytes(range(256))]):
        data = bytes(rng.choice(alphabet) for _ in range(size))
        counts = TagCounts(data)
        assert counts.count == data.count(b"<")
        if size >= 2040:  # each whole 2,040-byte stretch's count
            stretches = [data[i : i + 2040].count(b"<") for i in range(0, size - 2039, 2040)]
            assert counts.chunks.tolist() == stretches
        lt = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("<"))
        assert counts.opening() == counts.count - sum(data[p + 1 : p + 2] == b"/" for p in lt)


def test_tag_counts_find_the_tags_before_long_stretches_without_a_tag():
    page = b"<p>short</p><div title='" + b"v" * 70_000 + b"'>x</div><p>" + b"text " * 20_000
    counts = TagCounts(page)
    assert counts.long_tags(32 << 10) == [page.index(b"<div"), page.rindex(b"<p>")]
    assert not TagCounts(b"<p>x</p>" * 10_000).long_tags(32 << 10)
    # a gap just long enough, and one a stretch short of it, at the end of the page
    for gap, found in [(34_000, True), (30_000, False)]:
        page = b"<p>x</p>" * 600 + b"<div title='" + b"v" * gap
        assert TagCounts(page).long_tags(32 << 10) == ([page.index(b"<div")] if found else [])


def test_self_closing_tags_in_svg_open_nothing_but_count_outside_it():
    """A drawing of 12,000 ``<path/>`` is 3 levels deep (a corpus page holds 7,668 and was
    flattened); ``<div/>`` opens a ``<div>``, and so does ``<path/>`` once an HTML element has
    broken out of the ``<svg>``: both nest 12,000 deep."""
    drawing = "<svg><g>" + "<path d='M0 0L1 1'/>" * 12_000 + "</g></svg>"
    assert nesting_depth(drawing) == 2 and cap_nesting(drawing) == (drawing, False)
    for html in ["<div/>" * 12_000, "<svg><p>" + "<path/>" * 12_000]:
        assert nesting_depth(html) >= 12_000
        flat, changed = cap_nesting(html)
        assert changed and nesting_depth(flat) <= MAX_NESTING
