"""The extractor on small hand-made pages: layout, boilerplate, title, caps, modes, input types."""

import codecs
import json
import random

import pytest

from transforms.extract import Extracted, Extractor, extract
from transforms.extract.title import _ASCII_SEPARATORS, _SEPARATORS

PROSE = (
    "This paragraph is the body of the article and carries most of the words on the page, "
    "so that the extractor can tell it from the menus, footers and link lists around it."
)


def page(body: str, title: str = "T", head: str = "") -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>{head}</head>"
        f"<body>{body}</body></html>"
    )


def article(*blocks: str) -> str:
    return "<article>" + "".join(blocks) + "</article>"


# --- layout ----------------------------------------------------------------------------------


def test_blocks_are_separated_by_blank_lines_and_list_items_by_lines():
    html = page(article("<h2>Head</h2><p>One <b>bold</b> para.</p><ul><li>a</li><li>b</li></ul>"))
    assert extract(html).text == "Head\n\nOne bold para.\n\na\nb"


def test_br_is_a_line_break_and_whitespace_is_collapsed():
    assert extract(page("<main><p>x  \n y<br>z</p></main>")).text == "x y\nz"


def test_no_words_glued_across_element_boundaries():
    html = page("<main><div>alpha</div><div>beta</div><p>gamma<br>delta</p><div>x</div>tail</main>")
    assert extract(html).text.split() == ["alpha", "beta", "gamma", "delta", "x", "tail"]


def test_pre_and_code_are_verbatim():
    html = page("<main><p>Code:</p><pre><code>def f():\n    return  1\n\tx = 2</code></pre></main>")
    assert extract(html).text == "Code:\n\ndef f():\n    return  1\n\tx = 2"


def test_elements_inside_pre_add_no_breaks_to_its_verbatim_text():
    html = page(
        "<main><p>Code:</p><pre>a  <div>in</div>b<br>c\n<pre>\td</pre></pre><p>after</p></main>"
    )
    assert extract(html).text == "Code:\n\na  inbc\n\td\n\nafter"


def test_table_rows_are_lines_with_cells_separated():
    html = page(
        "<main><table><tr><th>k</th><th>v</th></tr>"
        "<tr><td>a</td><td>1</td></tr><tr><td></td><td>2</td></tr></table></main>"
    )
    assert extract(html).text == "k | v\na | 1\n2"


def test_entities_are_unescaped():
    html = page("<main><p>a &amp; b &lt;c&gt; &eacute; &#8212; &nbsp;x</p></main>")
    assert extract(html).text == "a & b <c> é — x"


def test_headings_are_their_own_blocks():
    html = page(article(f"<p>{PROSE}</p><h2>Section</h2><p>{PROSE}</p>"))
    assert extract(html).text.split("\n\n")[1] == "Section"


# --- boilerplate -----------------------------------------------------------------------------


def test_furniture_is_dropped_in_main_mode_but_kept_in_full_mode():
    html = page(
        "<header><nav><a href=/>Home</a> <a href=/b>Blog</a></nav></header>"
        f"<main><p>{PROSE}</p></main><aside>Side box</aside><footer>Foot</footer>"
        "<script>x=1</script><style>p{}</style>"
    )
    assert extract(html).text == PROSE
    full = extract(html, mode="full").text
    for part in ("Home", "Blog", PROSE, "Side box", "Foot"):
        assert part in full
    assert "x=1" not in full and "p{}" not in full


def test_hidden_elements_are_dropped():
    html = page(
        article(
            f"<p>{PROSE}</p><div hidden>secret one</div><div aria-hidden='true'>secret two</div>"
            "<div style='display: none'>secret three</div><p style='color:red'>shown</p>"
        )
    )
    text = extract(html).text
    assert "secret" not in text and "shown" in text
    assert "secret" not in extract(html, mode="full").text


def test_comment_sections_and_share_boxes_are_dropped():
    html = page(
        article(
            f"<p>{PROSE}</p><div class='share-buttons'><span>Share this</span></div>",
            "<section id='comments'><h3>3 comments</h3><p>Great post!</p></section>",
        )
    )
    text = extract(html).text
    assert PROSE in text
    assert "Share this" not in text and "Great post" not in text


def test_link_lists_inside_the_content_are_dropped():
    links = "".join(f"<li><a href=/{i}>Related story number {i}</a></li>" for i in range(8))
    html = page(article(f"<p>{PROSE}</p><ul>{links}</ul><p>{PROSE}</p>"))
    assert "Related story" not in extract(html).text


def test_content_without_article_or_main_is_found():
    menu = "".join(f"<li><a href=/{i}>Menu entry {i}</a></li>" for i in range(15))
    html = page(
        f"<div class='top'><ul>{menu}</ul></div>"
        f"<div class='c'><div class='text'><p>{PROSE}</p><p>{PROSE}</p><p>Last words.</p></div></div>"
        "<div class='bottom'>Copyright 2024</div>"
    )
    text = extract(html).text
    assert text.endswith("Last words.") and "Menu entry" not in text and "Copyright" not in text


@pytest.mark.parametrize("tag", ["div", "main", "span"])
@pytest.mark.parametrize("value", ["articleBody", "articlebody"])
def test_the_element_marked_as_the_article_body_is_the_content(tag, value):
    other = (
        "<div><p>"
        + " ".join(f"Another story, part {i}, longer than the article itself." for i in range(12))
        + "</p></div>"
    )
    marked = f"<{tag} itemprop='{value}'><p>{PROSE}</p></{tag}>"
    assert extract(page(other + marked)).text == PROSE
    assert extract(page(other + f"<{tag}><p>{PROSE}</p></{tag}>")).text != PROSE


def test_many_similar_blocks_are_kept_together():
    posts = "".join(
        f"<div class='post'><div class='author'>user{i}</div><p>Reply number {i}: {PROSE}</p></div>"
        for i in range(5)
    )
    text = extract(page(f"<nav><a href=/>Forum</a></nav><div class='thread'>{posts}</div>")).text
    for i in range(5):
        assert f"Reply number {i}" in text


def test_web_components_are_walked_like_any_element():
    html = page(
        "<app-shell><site-menu><a href=/>Home</a></site-menu>"
        f"<story-body><p>{PROSE}</p><p>{PROSE}</p></story-body></app-shell>"
    )
    assert PROSE in extract(html).text


def test_a_wrapper_named_like_boilerplate_is_not_dropped_with_the_content():
    html = page(f"<div class='has-sidebar modal-enabled'><article><p>{PROSE}</p></article></div>")
    assert extract(html).text == PROSE


def test_a_page_wrapped_in_a_form_keeps_its_content():
    html = page(f"<form id='aspnetForm'><div><p>{PROSE}</p><p>{PROSE}</p></div></form>")
    assert PROSE in extract(html).text


def test_content_rendered_only_inside_noscript_is_used():
    html = page(f"<div id='app'></div><noscript><div><p>{PROSE}</p></div></noscript>")
    assert PROSE in extract(html).text


def test_a_js_message_in_noscript_is_not_content():
    html = page("<div id='root'></div><noscript>You need to enable JavaScript.</noscript>")
    assert extract(html).text == ""


def test_an_unclosed_aside_that_swallows_the_page_is_kept():
    html = page(f"<aside class='banner'>News! <div><p>{PROSE}</p><p>{PROSE}</p></div>")
    assert PROSE in extract(html).text


def test_content_parked_in_a_hidden_element_by_a_streaming_app_is_kept():
    script = "<script>" + "x=1;" * 500 + "</script>"
    html = page(f"<div>Loading...</div>{script}<div hidden id='S:0'><p>{PROSE}</p></div>")
    assert PROSE in extract(html).text


# --- title -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "head", "h1", "expected"),
    [
        ("A Headline | Example News", "", "", "A Headline"),
        (
            "Example News - A Headline",
            "<meta property='og:site_name' content='Example News'>",
            "",
            "A Headline",
        ),
        ("A Headline – Section – Example", "", "", "A Headline"),
        ("A Headline | Site", "", "A Headline", "A Headline"),
        ("Example News", "", "The Real Headline", "The Real Headline"),
        ("Site | Headline Words Here", "", "Headline Words Here", "Headline Words Here"),
        (
            "Plain title",
            "<meta property='og:title' content='Open Graph Title'>",
            "",
            "Open Graph Title",
        ),
        ("城市交通新闻_新浪网", "", "城市交通新闻", "城市交通新闻"),
        ("城市交通新闻｜新浪网", "", "", "城市交通新闻"),
    ],
)
def test_title_reconciles_title_og_title_and_h1(title, head, h1, expected):
    body = (f"<h1>{h1}</h1>" if h1 else "") + f"<p>{PROSE}</p>"
    assert (
        extract(page(body, title=title, head=head), "https://example-news.com/a").title == expected
    )


def test_the_ascii_separators_split_an_ascii_title_as_the_full_pattern_does():
    rng = random.Random(7)
    pieces = ["News", "a-b", " ", "  ", "\t", "|", "-", ":", "::", "/", "~", "_", "=", "x", "\x1c"]
    titles = ["Story | Site", "A - B :: C", "x/y / z", "Q:A", "a ~ b"] + [
        "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)
    ]
    for title in titles:
        assert _ASCII_SEPARATORS.split(title) == _SEPARATORS.split(title), title


def test_logo_h1_with_the_site_name_is_not_the_title():
    html = page(
        f"<header><h1>Example News</h1></header><p>{PROSE}</p>",
        title="Certificates Explained | Example News",
        head="<meta property='og:site_name' content='Example News'>",
    )
    assert extract(html).title == "Certificates Explained"


def test_the_headline_is_not_repeated_as_the_first_line():
    html = page(article(f"<h1>A Headline</h1><p>{PROSE}</p>"), title="A Headline | Site")
    result = extract(html)
    assert result.title == "A Headline" and result.text == PROSE


def json_ld(data: object) -> str:
    return f"<script type='application/ld+json'>{json.dumps(data)}</script>"


ARTICLE_LD = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Editors' Line"}


@pytest.mark.parametrize(
    ("head", "body_script"),
    [
        (json_ld(ARTICLE_LD), ""),  # in the head
        ("", json_ld(ARTICLE_LD)),  # in the body, among the scripts dropped
        (json_ld({"@graph": [{"@type": "WebSite", "name": "Site"}, ARTICLE_LD]}), ""),
        (json_ld([{"@type": "Organization"}, {**ARTICLE_LD, "@type": ["BlogPosting"]}]), ""),
    ],
)
def test_the_json_ld_headline_of_the_article_is_the_title(head: str, body_script: str):
    html = page(
        f"{body_script}<h1>A Headline for Search</h1><p>{PROSE}</p>",
        title="A Headline for Search | Site",
        head=head + "<meta property='og:title' content='A Headline for Search'>",
    )
    result = extract(html)
    assert result.title == "Editors' Line"
    assert result.text == PROSE  # the <h1> shown on the page is still no line of the text


@pytest.mark.parametrize(
    "script",
    [
        json_ld({"@type": "WebSite", "headline": "Not an article"}),
        json_ld({"@type": "NewsArticle", "headline": "Example News - All the news"}),  # the site
        '<script type=\'application/ld+json\'>{"@type": "NewsArticle", "headline": </script>',
    ],
)
def test_other_json_ld_leaves_the_title_to_the_page(script: str):
    html = page(
        f"{script}<h1>A Headline</h1><p>{PROSE}</p>",
        title="A Headline | Example News",
        head="<meta property='og:site_name' content='Example News'>",
    )
    assert extract(html).title == "A Headline"


def test_entities_escaped_twice_in_json_ld_are_decoded():
    html = page(f"<p>{PROSE}</p>", head=json_ld({**ARTICLE_LD, "headline": "Gr&ouml;&szlig;e"}))
    assert extract(html).title == "Größe"


# --- caps, modes, input types ----------------------------------------------------------------


def test_caps_set_the_truncated_flag():
    html = page("<main>" + "<p>word</p>" * 100 + "</main>")
    assert not extract(html).truncated
    assert Extractor(max_html_chars=200)(html).truncated
    small = Extractor(max_nodes=20)(html)
    assert small.truncated and small.text.count("word") < 20


def test_the_node_cap_cuts_text_bytes_and_utf8_alike():
    html = page("<main>" + "<p>wörd – ünïcödé</p>" * 100 + "</main>")
    capped = Extractor(max_nodes=60)
    results = {capped(html), capped(html.encode()), capped(html, utf8=html.encode())}
    assert len(results) == 1
    result = results.pop()
    assert result.truncated and 0 < result.text.count("wörd – ünïcödé") < 100


def test_work_caps_bound_pathological_pages_and_set_the_flag():
    deep = page("<div>" * 3000 + f"<p>{PROSE}</p>" + "</div>" * 3000)
    result = extract(deep)
    assert result.truncated and PROSE in result.text
    boxes = page("<div class='sidebar'><p>box</p></div>" * 6000 + f"<p>{PROSE}</p>")
    result = extract(boxes)
    assert result.truncated and PROSE in result.text


TEXTLESS_FILLERS = {
    "inline-json-script": '<script type="application/json">{"state": "'
    + "v<a href=x>" * 600_000
    + '"}</script>',
    "comment": "<!-- " + "old <p>markup</p> " * 350_000 + " -->",
    "style": "<STYLE media=all>" + ".a > p { color: red }\n" * 280_000 + "</style >",
    "whitespace": " \n\t" * 2_000_000,
}


@pytest.mark.parametrize("filler", sorted(TEXTLESS_FILLERS))
@pytest.mark.parametrize("as_bytes", [False, True])
def test_markup_without_text_before_the_article_does_not_use_up_the_size_cap(filler, as_bytes):
    """6 MB of a script, comment, style or whitespace before the article: over the 5M-character
    cap, but none of it carries text, so the article is read whole and nothing is cut."""
    html = page(TEXTLESS_FILLERS[filler] + article(f"<h1>Headline</h1><p>{PROSE}</p>"))
    assert len(html) > 6_000_000
    result = extract(html.encode() if as_bytes else html)
    assert result.text == f"Headline\n\n{PROSE}" and not result.truncated


def test_text_past_the_cap_after_squeezing_is_still_cut_and_flagged():
    words = "<p>" + "word " * 200 + "</p>"
    html = page("<!-- x -->" * 1000 + "<main>" + words * 6000 + "</main>")
    result = Extractor(max_html_chars=1_000_000)(html)
    assert result.truncated and 0 < result.text.count("word") < 200 * 6000


def test_bytes_and_str_give_the_same_result():
    html = page(f"<main><p>Ünïcödé text. {PROSE}</p></main>")
    assert extract(html.encode("utf-8")) == extract(html)
    latin = page("<main><p>café</p></main>").replace("<head>", "<head><meta charset='iso-8859-1'>")
    assert extract(latin.encode("latin-1")).text == "café"
    assert extract(html.encode("utf-16")) == extract(html)
    assert extract(codecs.BOM_UTF8 + html.encode("utf-8")) == extract(html)


def test_bytes_are_decoded_by_the_jobs_charset_chain():
    russian = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 4
    undeclared = page(f"<main><p>{russian}</p></main>").encode("cp1251")
    assert extract(undeclared).text == russian.strip()
    misdeclared = page(f"<main><p>Café – {russian}</p></main>")
    misdeclared = misdeclared.replace("<head>", "<head><meta charset='iso-8859-1'>")
    assert extract(misdeclared.encode("utf-8")).text == f"Café – {russian}".strip()


def test_mode_is_checked():
    with pytest.raises(ValueError):
        Extractor(mode="everything")
    with pytest.raises(ValueError):
        extract("<p>x</p>", mode="everything")


def test_result_type_and_degenerate_inputs():
    result = extract(page("<main><p>x</p></main>"))
    assert isinstance(result, Extracted) and result.text == "x"
    for html in ("", b"", "<html></html>", "plain text", "<body>", "<!-- only a comment -->"):
        result = extract(html)
        assert isinstance(result.text, str) and isinstance(result.title, str)


def test_extractor_is_reusable_and_deterministic():
    extractor = Extractor()
    html = page(article(f"<p>{PROSE}</p>"))
    assert extractor(html) == extractor(html) == extract(html)


def test_private_use_characters_in_the_page_are_text_not_layout() -> None:
    # icon fonts put private-use characters into pages; the layout's markers must not clash
    html = "<body><p>Call \ue000 us \ue001 now \ue002 today \ue003 x\ue004y</p><p>Next</p></body>"
    text = extract(html, mode="full").text
    assert text == "Call \ue000 us \ue001 now \ue002 today \ue003 x\ue004y\n\nNext"


# --- One walk sorts out the elements the cleaning passes look at --------------------------

SORTED_PAGE = (
    "<body><DIV class=a><NAV>n</NAV><p>x<rt>r</rt></p></DIV><svg><style>s</style>"
    "<foreignObject><div class=share><nav>m</nav></div></foreignObject></svg>"
    "<template><div>t</div><nav>t</nav></template><my-div><section><header>h</header>"
    "<form><input><label>l</label></form></section></my-div><object><footer>f</footer>"
    "</object><noscript><p>js</p></noscript><h1>H</h1><table><tr><td>c</td></table></body>"
)


def test_the_walk_finds_what_css_queries_for_its_tags_find_in_document_order():
    from selectolax.lexbor import LexborHTMLParser

    from transforms.extract import boilerplate as bp

    groups = [
        bp._STRIPPED_TAGS,
        ("h1", "noscript", *sorted(bp.FURNITURE_TAGS)),
        sorted(bp._CANDIDATE_TAGS),
    ]
    for html in (SORTED_PAGE, f"<body>{SORTED_PAGE * 3}</body>"):
        body = LexborHTMLParser(html).body
        found = bp.sort_elements(body)
        for tags, nodes in zip(groups, found[:3], strict=True):
            expected = body.css(", ".join(tags))
            if nodes is found.containers:  # those with attributes, and forms and headers
                expected = [n for n in expected if n.attributes or n.tag in bp.GUARDED_TAGS]
            assert [n.mem_id for n in nodes] == [n.mem_id for n in expected], tags
            assert nodes


def test_elements_inside_stripped_ones_are_not_cleaned_again():
    """A <nav> or a named <div> inside an <svg> or <object> goes with it: neither pass measures
    or drops it a second time, and the page's text is the rest."""
    from selectolax.lexbor import LexborHTMLParser

    from transforms.extract.boilerplate import drop_boilerplate, drop_furniture, sort_elements
    from transforms.extract.tree import size

    tree = LexborHTMLParser(
        f"<body><svg><foreignObject><div class=share><nav>Menu</nav>Share</div>"
        f"</foreignObject></svg><object><footer>Foot</footer></object><p>{PROSE}</p></body>"
    )
    elements = sort_elements(tree.body)
    assert [n.tag for n in elements.furniture] == ["nav", "footer"]
    assert [n.tag for n in elements.containers] == ["div"]  # (a <p> without attributes is none)
    assert drop_furniture(tree.body, [], main=True, elements=elements) == (0, 0)
    assert drop_boilerplate(tree.body, containers=elements.containers) == (len(PROSE), "", 0)
    assert size(tree.body) == len(PROSE)


# --- Lexbor lists an element once per selector of a list that it matches ------------------


def test_an_element_matching_two_selectors_is_taken_once():
    from selectolax.lexbor import LexborHTMLParser

    from transforms.extract.boilerplate import drop_boilerplate, drop_furniture
    from transforms.extract.tree import size

    tree = LexborHTMLParser(f"<body><h1 hidden>Headline</h1><main><p>{PROSE}</p></main></body>")
    h1s: list[str] = []
    drop_furniture(tree.body, h1s, main=True)
    assert h1s == ["Headline"]

    hidden_nav = '<nav hidden style="display:none">Menu</nav><div hidden aria-hidden="true">x</div>'
    tree = LexborHTMLParser(f"<body>{hidden_nav}<main><p>{PROSE}</p></main></body>")
    drop_furniture(tree.body, h1s, main=True)
    assert size(tree.body) == len(PROSE)

    marked_share = '<div class="share" itemprop="articleBody">Share this</div>'
    tree = LexborHTMLParser(f"<body>{marked_share}<main><p>{PROSE}</p></main></body>")
    body_size, comments, _ = drop_boilerplate(tree.body)
    assert not comments and body_size == size(tree.body) == len(PROSE)


def test_the_collector_is_paused_during_a_call_and_left_as_it_was():
    import gc

    from transforms.extract import extractor

    seen = []
    real = extractor.Extractor._call
    extractor.Extractor._call = lambda self, *a: seen.append(gc.isenabled()) or real(self, *a)
    try:
        assert gc.isenabled()
        extract(f"<p>{PROSE}</p>")
        assert gc.isenabled() and seen == [False]
        gc.disable()
        extract(f"<p>{PROSE}</p>")
        assert not gc.isenabled() and seen == [False, False]
    finally:
        gc.enable()
        extractor.Extractor._call = real
    with pytest.raises(AttributeError):  # resumed when the call raises
        extractor._DEFAULT["main", "text", False].__call__(object())
    assert gc.isenabled()
