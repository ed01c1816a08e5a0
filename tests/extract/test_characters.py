"""The character policy (``transforms.extract.characters``) on whole pages: each class of
character ends as the README says, in the text, the title and the comments, in text and
Markdown, whatever else is on the line; and removing one from a page's output is the same as
removing it from the page."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

from transforms.extract import Extractor, characters, extract, walk
from transforms.extract.characters import strip_unwanted, suspect
from transforms.extract.layout import layout

PARSER = MarkdownIt("commonmark").enable("table")
FORMATS = ("text", "markdown")


def full(body: str, title: str = "", output_format: str = "text"):
    """``extract`` in full mode of a page with ``body`` (and a ``<title>``)."""
    html = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return Extractor(mode="full", output_format=output_format)(html)


# (what the page holds, what the text shows): characters no reader wants, removed
REMOVED = [
    ("Donau\u00addampf", "Donaudampf"),  # soft hyphen
    ("Donau&shy;dampf", "Donaudampf"),
    ("Kraft\u200bfahr\u200bzeug", "Kraftfahrzeug"),  # zero-width space
    ("Kraft&#8203;fahr&#x200B;zeug", "Kraftfahrzeug"),
    ("Wort\u2060verbinder", "Wortverbinder"),  # word joiner
    ("mid\ufefftext", "midtext"),  # U+FEFF inside the text
    ("user\u202egnp.exe", "usergnp.exe"),  # right-to-left override
    ("a\u202ab\u202cc \u2066d\u2069 \u2067e\u2069 \u2068f\u2069 \u202dg\u202c", "abc d e f g"),
    ("x\u2061y\u2062z\u2063w\u2064v", "xyzwv"),  # invisible operators
    ("tag\U000e0041\U000e0042s", "tags"),  # tag characters outside an emoji flag
    ("non\ufdd5char\ufdef \ufffe\uffff\U0001fffe\U0010ffff end", "nonchar end"),
    ("bell\x07 ring", "bell ring"),  # C0 controls
    ("\x1b[31mred\x1b[0m text", "red text"),  # a terminal colour escape, whole
    ("de\x7fl and \x01\x02\x03 x", "del and x"),
    ("obj\ufffcect ann\ufff9ot\ufffaat\ufffbion", "object annotation"),
    ("Auf\u200clage und Kauf\u200dladen", "Auflage und Kaufladen"),  # joiners in Latin text
    ("left\u200e to right\u200f", "left to right"),  # bidi marks in a text with no RTL letter
    ("\u1828\u180e\u1820 vowel x\u180ey", "\u1828\u180e\u1820 vowel xy"),  # MVS outside Mongolian
]

# Characters languages need: kept as they are
KEPT = [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 family",  # ZWJ in an emoji sequence
    "\u2764\ufe0f\u200d\U0001f525 heart on fire",
    "\u0915\u094d\u200d\u0937 Devanagari half form",  # ZWJ after a virama
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 Persian",  # ZWNJ between Arabic letters
    "flag \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f of England",
    "\u05e9\u05dc\u05d5\u05dd (C++)\u200e \u05e2\u05d5\u05d3",  # LRM in Hebrew text
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629\u200f (2024)",  # RLM in Arabic text
    "\u1828\u180e\u1820 Mongolian",  # vowel separator between Mongolian letters
    "\u845b\U000e0100 ideographic variation, \u2764\ufe0f emoji presentation",
    "icon \uf0c1 of a private-use font",
    "\u1100\u1160 Hangul filler",
]


@pytest.mark.parametrize("output_format", FORMATS)
@pytest.mark.parametrize(("held", "shown"), REMOVED)
def test_unwanted_characters_are_removed_from_text_title_and_comments(held, shown, output_format):
    result = full(f"<p>{held}</p><ul><li>{held} item</li></ul>", held, output_format)
    assert result.title == shown
    lines = [line.lstrip("- ") for line in result.text.split("\n") if line]
    assert lines == [shown, f"{shown} item"]
    article = " ".join(["Sentences of the article, worth keeping as the main text."] * 12)
    comment = f"<div class='comment'><p>{held}, says a reader.</p></div>"
    page = (
        f"<html><body><article><p>{article}</p><p>{article}</p></article>"
        f"<section class='comments'>{comment * 3}</section></body></html>"
    )
    comments = Extractor(output_format=output_format)(page).comments
    assert comments and held not in comments and f"{shown}, says a reader." in comments


@pytest.mark.parametrize("output_format", FORMATS)
@pytest.mark.parametrize("kept", KEPT)
def test_characters_languages_need_are_kept(kept, output_format):
    result = full(f"<p>{kept}</p>", kept, output_format)
    assert result.title == kept
    assert result.text == kept


@pytest.mark.parametrize("output_format", FORMATS)
def test_controls_are_removed_from_plain_ascii_paragraphs_and_titles(output_format):
    """The repair (ftfy) used to run on non-ASCII text only: an ASCII page kept its controls."""
    result = full(
        "<p>Ring the bell\x07 now. \x1b[1mBold\x1b[0m.</p>", "Bell\x07 \x1b[31m", output_format
    )
    assert result.title == "Bell"
    assert result.text == "Ring the bell now. Bold."


@pytest.mark.parametrize("output_format", FORMATS)
def test_the_pages_own_marker_characters_are_not_read_as_layout(output_format):
    """U+FDD0-U+FDD4 mark blocks, lines, cells and spaces inside the extractor; a page's own,
    written out or as references, are removed like any noncharacter, not read as layout."""
    held = "a\ufdd0b\ufdd1c\ufdd2d\ufdd3e\ufdd4f &#xFDD1;g&#64977;h&#xfdd2;i"
    result = full(f"<p>{held}</p><pre>x\ufdd1y\ufdd3z</pre>", "t\ufdd1i\ufdd0t", output_format)
    assert result.title == "tit"
    lines = [line for line in result.text.split("\n") if line and not line.startswith("```")]
    assert lines == ["abcdef ghi", "xyz"]


def test_a_line_of_nothing_but_removed_characters_leaves_no_blank_line():
    body = (
        "<p>one</p><p>\u200b</p><p>two\u200b \u200b</p><ul><li>a</li><li>&zwj;</li><li>b</li></ul>"
    )
    assert full(body).text == "one\n\ntwo\n\na\nb"
    assert full("<p>x \u200b y</p><pre>    \u200bindented</pre>").text == "x y\n\n    indented"


@pytest.mark.parametrize(
    "held",
    [
        "\u200b# not a heading",
        "<b>\u200d</b># not a heading after a joiner alone in its node",
        "<i>\u200c</i>2. not a numbered item",
        "\u00ad- not a list item",
        "\u200b1. not a numbered item",
        "\u200b> not a quote",
        "&amp;\u200bamp; stays literal",
        "\u200b===",
        "x `\u200b` tick",
    ],
)
def test_removal_never_turns_markdown_text_into_syntax(held):
    """Removed before the Markdown escaping: removed after it, the character would leave the
    ``#`` at the line's start, and the line would render as a heading."""
    md = full(f"<p>intro</p><p>{held}</p><blockquote><p>{held}</p></blockquote>", "", "markdown")
    tokens = [t.type for t in PARSER.parse(md.text)]
    assert "heading_open" not in tokens and "bullet_list_open" not in tokens
    assert "ordered_list_open" not in tokens and tokens.count("blockquote_open") == 1
    assert not any(char in md.text for char in "\u200b\u00ad\u200c\u200d")


def test_mojibake_holding_soft_hyphens_and_c1_controls_is_still_repaired():
    """UTF-8 read as Latin-1: "í" is "Ã" and a soft hyphen, "Á" is "Ã" and U+0081; the repair
    reads them before the policy removes what is left."""
    held = "fr\u00c3\u00ado y \u00c3\u0081lvaro \u00e2\u0080\u0099s"
    for output_format in FORMATS:
        assert full(f"<p>{held}</p>", held, output_format).text == "frío y Álvaro \u2019s"


def test_lone_c1_control_is_removed_and_a_windows_1252_one_read_as_its_character():
    assert full("<p>caf\u00e9 \x81x \x9dy \x93quoted\x94</p>").text == "café x y \u201cquoted\u201d"


# --- removing a character from the output is removing it from the page -----------------------

UNWANTED = ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u202e", "\u2066", "\x07", "\ufdd1", "\ufdd0"]
WORDS = ["word", "two words", " ", "\n", "\u00e9t\u00e9", "\u4e2d\u6587", "#", "1.", "- ", "&amp;"]
# (a table opened with its first cell: text in a table outside cells is moved before it by the
# parser, and whitespace is not, so a page without the characters would be another tree)
TAGS = ["<p>", "</p>", "<li>", "<ul>", "</ul>", "<h2>", "</h2>", "<pre>", "</pre>", "<br>",
        "<table><tr><td>", "<td>", "<tr><td>", "</table>", "<b>", "</b>", "<blockquote>",
        "<code>", "</code>"]  # fmt: skip
fragments = st.lists(st.sampled_from(UNWANTED + WORDS + TAGS), max_size=30).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragments)
# the zero-width space has the parser reopen the <code> left open around the next <p>, not in it
@example("<p><code></p>\u200b<p>word")
@example("<ul>word<pre><code></pre>\u200b<li>word")  # around a list item
def test_the_output_is_that_of_the_page_without_the_characters(fragment):
    """Whatever the markup and whatever is on the line: the same text as the page with the
    characters taken out (an empty line or a doubled space left behind would differ).

    Markdown takes them out of the text nodes; the text format out of the text laid out,
    where a ``<pre>`` block's spaces at a line's end, next to one, are not told from those
    the layout leaves (they are tidied away)."""
    unwanted = "|".join(UNWANTED)
    # after <pre>, the parser drops a line break only if it comes first: not a case of this
    assume(not re.search(f"<pre>(?:{unwanted})+\n", fragment))
    without = re.sub(unwanted, "", fragment)
    for output_format in FORMATS:
        if output_format == "text" and "<pre>" in fragment:
            continue
        got = full(fragment, fragment, output_format)
        want = full(without, without, output_format)
        assert (got.title, got.text) == (want.title, want.text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(UNWANTED + list("ab \n\u200d\u200e\U0001f600\u05d0"))))
def test_strip_unwanted_leaves_nothing_to_strip(text):
    stripped = strip_unwanted(text)
    assert strip_unwanted(stripped) == stripped
    assert not any(char in stripped for char in UNWANTED)
    if not suspect(text):
        assert stripped is text


def test_extract_bytes_and_markdown_links_mode_apply_the_policy_too():
    html = "<html><body><p>Kraft\u200bfahrzeug <a href='/x'>Li\u00adnk</a></p></body></html>"
    result = extract(
        html.encode("utf-8"), "https://a.example/", mode="full", format="markdown", links=True
    )
    assert result.text == "Kraftfahrzeug [Link](https://a.example/x)"


def test_a_block_laid_out_and_set_apart_leaves_no_marker_behind():
    """A comment thread is laid out, then removed: the layout's markers must not stay beside
    it, where the next rendering of the page would read them (Markdown printed them)."""
    tree = LexborHTMLParser("<body><div><p>a</p><section><p>b</p></section><p>c</p></div></body>")
    thread = tree.css_first("section")
    assert layout(thread) == "b"
    thread.decompose()
    assert not any(marker in tree.body.text() for marker in "\ufdd0\ufdd1\ufdd2\ufdd3\ufdd4")


_AROUND_SUSPECTS = st.sampled_from(
    [
        chr(c)
        for low, high in characters._LOOKED_AT
        for c in {low, high, low - 1, high + 1}
        if c >= 0
    ]
    + ["a", "é", "\xff", "中", "\U0001f600", "\U00010000", "\uffff", "\ufffd", " ", "\n"]
)


@given(st.text(alphabet=_AROUND_SUSPECTS | st.characters(), max_size=40))
@settings(max_examples=3000, deadline=None)
def test_the_compiled_suspect_search_is_the_regex_search(text: str) -> None:
    wanted = characters._SUSPECT.search(text) is not None
    assert walk.suspect_found(text, characters._LOOKED_AT_BITS) == wanted


def test_the_compiled_suspect_search_reads_every_kind_of_string() -> None:
    for low, high in characters._LOOKED_AT:
        for code in {low, high, low - 1, high + 1} - {-1}:
            for pad in ("", "a" * 9, "é" * 9, "中" * 9, "\U0001f600"):
                text = pad + chr(code) + pad
                wanted = characters._SUSPECT.search(text) is not None
                assert walk.suspect_found(text, characters._LOOKED_AT_BITS) == wanted, text
