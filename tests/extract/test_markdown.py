"""Markdown output: each construct on a hand-made page, read back by a CommonMark parser.

The parser (markdown-it-py, with GitHub tables) is the judge: the headings, list items, table
cells and code blocks it reads from the Markdown must be the page's, and the words of the
Markdown read back must be the words of the text format.
"""

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

from transforms.extract import Extractor, extract
from transforms.extract.layout import layout
from transforms.extract.markdown import markdown

# CommonMark sets no depth limit; markdown-it's preset stops at 20 levels of blocks and drops
# what is deeper (ten nested lists are twenty: a list and its item each)
PARSER = MarkdownIt("commonmark", {"maxNesting": 1000}).enable("table")


def render(body: str, **kwargs) -> str:
    """The Markdown of a body fragment (the whole body, as the full mode would take it)."""
    return markdown(LexborHTMLParser(f"<html><body>{body}</body></html>").body, **kwargs)


def blocks(md: str) -> list[tuple[str, str]]:
    """(kind, text) of what the parser reads: headings with their level, paragraphs, list
    items, table cells and code blocks, in order."""
    out, stack = [], []
    for token in PARSER.parse(md):
        if token.type.endswith("_open"):
            stack.append(token.tag)
        elif token.type.endswith("_close"):
            stack.pop()
        elif token.type == "inline":
            text = "".join(
                "\n" if c.type in ("softbreak", "hardbreak") else c.content
                for c in token.children or ()
            )
            where = [tag for tag in stack if tag in ("li", "th", "td", "blockquote")]
            kind = stack[-1] if stack[-1] in ("h1", "h2", "h3", "h4", "h5", "h6") else None
            kind = kind or (where[-1] if where else stack[-1])
            out.append((kind, text))
        elif token.type in ("fence", "code_block"):
            out.append(("code", token.content))
    return out


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def plain(md: str) -> str:
    return "\n".join(text for _, text in blocks(md))


def test_headings_by_level():
    md = render("<h1>One</h1><h2>Two</h2><p>para</p><h3>Three</h3><h6>Six</h6>")
    assert md.splitlines()[0] == "# One"
    assert blocks(md) == [
        ("h1", "One"),
        ("h2", "Two"),
        ("p", "para"),
        ("h3", "Three"),
        ("h6", "Six"),
    ]


def test_heading_with_inline_markup_a_closing_hash_and_list_like_text():
    md = render(
        "<h2>Learn <em>C</em> #</h2><h3>a<br>b</h3><h2>1. Intro</h2><h2>- # x</h2><h4>c<pre>d</h4>"
    )
    assert blocks(md) == [
        ("h2", "Learn C #"),
        ("h3", "a b"),
        ("h2", "1. Intro"),
        ("h2", "- # x"),
        ("h4", "c d"),
    ]
    assert "## 1. Intro" in md  # no escape needed inside a heading


def test_unordered_and_ordered_lists_nested():
    md = render(
        "<ul><li>apples</li><li>pears<ul><li>green</li><li>red<ol><li>deep</li></ol></li></ul>"
        "</li><li>plums</li></ul><ol start='4'><li>four</li><li>five</li></ol>"
    )
    assert "- pears\n  - green\n  - red\n    1. deep" in md
    assert "4. four\n5. five" in md
    assert [text for kind, text in blocks(md)] == [
        "apples", "pears", "green", "red", "deep", "plums", "four", "five"
    ]  # fmt: skip
    assert {kind for kind, _ in blocks(md)} == {"li"}
    tokens = PARSER.parse(md)
    assert [t.attrs.get("start") for t in tokens if t.type == "ordered_list_open"] == [None, 4]
    depth = max(t.level for t in tokens if t.type == "list_item_open")
    assert depth >= 4  # three lists deep


def test_list_item_with_paragraphs_and_a_list_put_straight_into_a_list():
    md = render("<ul><li><p>first para</p><p>second para</p></li><ul><li>sub</li></ul></ul>")
    assert [(k, t) for k, t in blocks(md)] == [
        ("li", "first para"),
        ("li", "second para"),
        ("li", "sub"),
    ]


def test_table_with_a_header_row():
    md = render(
        "<table><caption>Prices</caption><thead><tr><th>Fruit</th><th>Price</th></tr></thead>"
        "<tbody><tr><td>Apple</td><td>1 | 2</td></tr><tr><td>Pear</td></tr></tbody></table>"
    )
    assert "| Fruit | Price |\n| --- | --- |\n| Apple | 1 \\| 2 |\n| Pear |  |" in md
    assert blocks(md) == [
        ("p", "Prices"),
        ("th", "Fruit"),
        ("th", "Price"),
        ("td", "Apple"),
        ("td", "1 | 2"),
        ("td", "Pear"),
        ("td", ""),
    ]


def test_table_header_from_th_cells_and_empty_header_without_them():
    with_th = render("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>")
    assert [k for k, _ in blocks(with_th)] == ["th", "th", "td", "td"]
    plain_rows = render("<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>")
    cells = blocks(plain_rows)
    assert [t for k, t in cells if k == "td"] == ["1", "2", "3", "4"]
    assert [t for k, t in cells if k == "th"] == ["", ""]


def test_layout_table_is_read_cell_by_cell():
    md = render(
        "<table><tr><td><h2>Story</h2><p>Text of it.</p></td><td><ul><li>link</li></ul></td>"
        "</tr></table><table><tr><td>one column</td></tr></table>"
    )
    assert "|" not in md
    assert blocks(md) == [
        ("h2", "Story"),
        ("p", "Text of it."),
        ("li", "link"),
        ("p", "one column"),
    ]


def test_pre_is_a_fenced_code_block_with_its_text_verbatim():
    code = "def f(x):\n    return x * 2  # ``` not the end\n\n\tindented *not* emphasis"
    md = render(f"<p>before</p><pre>{code}\n</pre><p>after <code>a_b*c</code></p>")
    assert blocks(md) == [("p", "before"), ("code", code + "\n"), ("p", "after a_b*c")]
    assert "````\n" in md  # a fence longer than the backticks inside


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<p>a <code>x_y</code> b</p>", "a `x_y` b"),
        # the parser reopens a <code> left open: around the next <p> when text comes first
        # (here a space), else inside it; either way the words are code
        ("<p><code></p><p>word", "`word`"),
        ("<p><code></p> <p>word", "`word`"),
        ("<p><code></p> <p>one</p><p>two <a href='/x'>link</a></p>", "`one`\n\n`two link`"),
        ("<code>a<br>b</code>", "`a`\\\n`b`"),
        (
            "<code><ul><li>a</li><li>b<blockquote>c</blockquote></li></ul></code>",
            "- `a`\n- `b`\n\n  > `c`",
        ),
        ("x <code>y<div>z *</div>w </code> v", "x `y`\n\n`z *`\n\n`w` v"),
        ("<code>a<pre>b</pre>c</code>", "`a`\n\n```\nb\n```\n\n`c`"),
        # reopened around a list's item (here after text outside the items): still an item
        ("<ul>a<code> <li>b</li><li>c</li></code></ul>", "- a\n- `b`\n- `c`"),
        ("<ol>a<b><li>b</li><code><li>c</li></code></b></ol>", "1. a\n2. b\n3. `c`"),
    ],
)
def test_code_holding_blocks_is_code_in_each_of_them(body, expected):
    """A code span cannot hold a block: a ``<code>`` around blocks or line breaks is laid out
    as its content, each run of its text between them a code span."""
    assert render(body) == expected


def test_blockquote_nested_and_line_breaks():
    md = render(
        "<blockquote><p>quoted<br>next line</p><blockquote><p>inner</p></blockquote></blockquote>"
    )
    assert md.startswith("> quoted\\\n> next line")
    tokens = PARSER.parse(md)
    assert sum(t.type == "blockquote_open" for t in tokens) == 2
    assert [t for _, t in blocks(md)] == ["quoted\nnext line", "inner"]


@pytest.mark.parametrize(
    "text",
    [
        "# not a heading",
        "1. not a list",
        "2) not a list either",
        "- not an item",
        "+ nor this",
        "> not a quote",
        "=====",
        "---",
        "*stars* and _under_ and snake_case_name and 2*3*4",
        "__dunder__ and a__b and a form line ____ to fill",
        "[not](a link) and <b>not html</b> and `not code`",
        "AT&amp;T &amp;copy; and a back\\slash and ~~not struck~~",
    ],
)
def test_markdown_characters_in_text_are_escaped(text):
    source = text.replace("<", "&lt;").replace(">", "&gt;") if "<b>" in text else text
    expected = text.replace("&amp;", "&")
    md = render(f"<p>{source}</p>")
    assert blocks(md) == [("p", expected)]
    assert "snake\\_case" not in md  # "_" inside a word cannot start emphasis: left alone


def test_links_as_text_by_default_and_as_markdown_links_on_request():
    body = "<p>See <a href='/docs/a b(1)'>the docs</a> and <a href='#top'>top</a>.</p>"
    assert render(body) == "See the docs and top."
    md = render(body, url="https://example.com/x/", links=True)
    assert md == "See [the docs](https://example.com/docs/a%20b%281%29) and top."
    link = next(c for c in PARSER.parse(md)[1].children if c.type == "link_open")
    assert link.attrs["href"] == "https://example.com/docs/a%20b%281%29"


def test_definition_lists_and_horizontal_rules_keep_their_text():
    md = render("<dl><dt>Term</dt><dd>Meaning</dd></dl><hr><p>end</p>")
    assert blocks(md) == [("p", "Term"), ("p", "Meaning"), ("p", "end")]


ARTICLE = """<html><head><title>Baking bread at home</title></head><body>
<nav><a href="/">Home</a> <a href="/recipes">Recipes</a></nav>
<main><article><h1>Baking bread at home</h1>
<p>Good bread needs four things: flour, water, salt and time. Most of the work is waiting.</p>
<h2>Ingredients</h2>
<ul><li>500 g flour</li><li>350 g water<ul><li>lukewarm</li></ul></li><li>10 g salt</li></ul>
<h2>Steps</h2>
<ol><li>Mix everything.</li><li>Let it rise for 12 hours.</li><li>Bake at 250 °C.</li></ol>
<table><thead><tr><th>Flour</th><th>Water</th></tr></thead>
<tbody><tr><td>Wheat</td><td>70%</td></tr><tr><td>Rye</td><td>80%</td></tr></tbody></table>
<pre>rise(dough, hours=12)
bake(dough, temp=250)</pre>
<blockquote><p>Bread is the king of the table.</p></blockquote>
<p>Serve it with butter; it keeps for three days in a cloth bag.</p>
</article></main><footer>Copyright 2026</footer></body></html>"""


def test_round_trip_of_a_whole_page_through_extract():
    md = extract(ARTICLE, "https://bread.example/", format="markdown").text
    read = blocks(md)
    assert ("h2", "Ingredients") in read and ("h2", "Steps") in read
    items = [t for k, t in read if k == "li"]
    assert items == [
        "500 g flour", "350 g water", "lukewarm", "10 g salt",
        "Mix everything.", "Let it rise for 12 hours.", "Bake at 250 °C.",
    ]  # fmt: skip
    assert [t for k, t in read if k in ("th", "td")] == [
        "Flour",
        "Water",
        "Wheat",
        "70%",
        "Rye",
        "80%",
    ]
    assert ("code", "rise(dough, hours=12)\nbake(dough, temp=250)\n") in read
    assert ("blockquote", "Bread is the king of the table.") in read
    assert "Copyright" not in md and "Recipes" not in md
    assert not md.startswith("# Baking")  # the headline is the title column


def test_markdown_has_the_words_of_the_text_format():
    for html in (
        ARTICLE,
        ARTICLE.replace("<main>", "<main><table><tr><td>").replace(
            "</main>", "</td><td>x</td></tr></table></main>"
        ),
    ):
        text = extract(html).text
        md = extract(html, format="markdown").text
        assert words(plain(md)) == words(text)


@pytest.mark.parametrize(
    "body",
    [
        "<p>Всё смешалось в доме Облонских.</p><ul><li>первый</li><li>второй</li></ul>",
        "<h2>中文标题</h2><p>这是一个段落，包含*星号*和_下划线_。</p>",
        "<p dir='rtl'>مرحبا بالعالم</p><table><tr><th>أ</th><th>ب</th></tr><tr><td>١</td><td>٢</td></tr></table>",
        "<p>emoji 🙂 and \u200b zero width and nbsp\u00a0here</p>",
        "",
        "<p></p><ul><li></li></ul><table></table><pre>\n</pre>",
    ],
)
def test_other_scripts_and_empty_constructs(body):
    md = render(body)
    html = f"<html><body>{body}</body></html>"
    assert words(plain(md)) == words(Extractor(mode="full")(html).text)


def test_a_tree_too_deep_for_the_walk_falls_back_to_the_text_layout():
    html = "<html><body>" + "<blockquote>" * 3000 + "deep words" + "</blockquote>" * 3000
    with pytest.raises(RecursionError):
        markdown(LexborHTMLParser(html).body)
    result = Extractor(mode="full", output_format="markdown")(html)
    assert "deep words" in result.text


def test_format_argument_is_checked():
    with pytest.raises(ValueError, match="format"):
        extract("<p>x</p>", format="html")
    with pytest.raises(ValueError, match="output_format"):
        Extractor(output_format="rst")


def test_command_line_prints_markdown(tmp_path, capsys):
    from transforms.extract.extractor import main

    path = tmp_path / "page.html"
    path.write_text(ARTICLE, encoding="utf-8")
    assert main([str(path), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Baking bread at home\n\n") and "## Ingredients" in out


MD_TAGS = ["p", "div", "span", "ul", "ol", "li", "table", "thead", "tr", "td", "th", "pre",
           "code", "blockquote", "h2", "h4", "br", "hr", "em", "dl", "dt", "dd", "a"]  # fmt: skip
MD_TEXT = st.lists(
    st.sampled_from(list("ab xyz 12 \n\t#*_-+=>|`[]()!\\&;<~.éж中") + ["&amp;", "&lt;", "copy;"]),
    max_size=12,
).map("".join)
md_fragments = st.lists(
    st.one_of(
        st.sampled_from([f"<{t}>" for t in MD_TAGS] + [f"</{t}>" for t in MD_TAGS]),
        MD_TEXT,
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(md_fragments)
@example("__a__")  # examples hypothesis found: underscores, a <pre> in a heading
@example("<h2>a<pre>a")
@example("<h2><pre>a<p>a")
@example("<ul>" * 10 + "a")
def test_random_markup_gives_markdown_with_the_words_of_the_text_layout(fragment):
    """Whatever the nesting and whatever Markdown characters the text holds, the Markdown read
    back by a CommonMark parser has the words, in order, of the text layout."""
    html = f"<html><body>{fragment}</body></html>"
    md = markdown(LexborHTMLParser(html).body)
    assert words(plain(md)) == words(layout(LexborHTMLParser(html).body))


@pytest.mark.parametrize(
    "fragment",
    [
        "a<code> a",
        "a<code>b </code>c",
        "x <code> y </code>z",
        "<code>a<p>a",
        "<code>a<br>b</code>",
        "<ul>a<span>a",
        "<ul>a<a>a",
        "&amp;<span>copy;",
    ],
)
def test_edge_cases_found_by_the_property_test_keep_the_words_of_the_text_layout(fragment):
    html = f"<html><body>{fragment}</body></html>"
    md = markdown(LexborHTMLParser(html).body)
    assert words(plain(md)) == words(layout(LexborHTMLParser(html).body))
