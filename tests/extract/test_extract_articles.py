"""Lost articles, on small hand-made pages: each failure class that loses a page's article
whole (a comment thread longer than the post, a description among many links, a listing
pruned to nothing, ruby readings, a teaser beside the article, a Japanese shop in EUC-JP)."""

from __future__ import annotations

import random
from urllib.parse import quote

import pytest

from transforms.extract import extract
from transforms.extract.prose import CJK_RANGES, PROSE_CHARS, PROSE_CJK_CHARS, is_prose, text_weight

POST = [
    f"Paragraph {i} of the post explains how to prune apple trees in winter: which branches "
    "to cut first, why the cut should sit just above an outward bud, and how the tree then "
    "opens up to the light in the following spring."
    for i in range(4)
]
COMMENT = (
    "I tried this on my own trees last year and it worked well; the one thing I would add "
    "is to sterilise the shears between trees, because canker spreads easily from one cut "
    "to the next. Thanks for the detailed guide, number {i}."
)


def page(body: str, title: str = "Page", head: str = "") -> str:
    return f"<html><head><title>{title}</title>{head}</head><body>{body}</body></html>"


def wordpress_comments(n: int, container: str = 'div id="comments" class="comments-area"') -> str:
    items = "".join(
        f'<li class="comment" id="comment-{i}"><div class="comment-author">Reader {i}</div>'
        f'<div class="comment-meta">March {i + 1}, 2024</div>'
        f'<div class="comment-content"><p>{COMMENT.format(i=i)}</p></div></li>'
        for i in range(n)
    )
    tag = container.split()[0]
    return f'<{container}><h2>{n} thoughts</h2><ol class="comment-list">{items}</ol></{tag}>'


def blog_post(comments: str) -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    return page(
        '<div class="site"><div class="post"><h1>Pruning apple trees</h1>'
        f"{paragraphs}</div>{comments}</div>",
        title="Pruning apple trees",
    )


def assert_thread_set_apart(result) -> None:
    """The post whole in the text; its 12 comments ("canker") in the comments, not the text."""
    assert all(p in result.text for p in POST) and "canker" not in result.text
    assert result.comments.count("canker") == 12


# --- comment threads -------------------------------------------------------------------------


def test_a_comment_thread_longer_than_the_post_is_set_apart():
    result = extract(blog_post(wordpress_comments(12)))
    assert all(p in result.text for p in POST)
    assert "canker" not in result.text and "Reader" not in result.text
    assert result.comments.count("canker") == 12 and "Reader 11" in result.comments
    assert len(result.comments) > 3 * len(result.text)  # the thread was the longer text


@pytest.mark.parametrize(
    "container",
    [
        'section id="kommentare"',  # German
        'div class="commentaires"',  # French
        'div id="comentarios"',  # Spanish
        'div class="komentarze"',  # Polish
        'div class="reacties"',  # Dutch
        'div id="disqus_thread"',
        'div itemscope itemtype="https://schema.org/UserComments"',
    ],
)
def test_comment_threads_are_found_by_their_names_in_several_languages(container: str):
    result = extract(blog_post(wordpress_comments(12, container)))
    assert_thread_set_apart(result)


def test_schema_org_comments_without_comment_names_are_a_thread():
    items = "".join(
        f'<div itemprop="comment" itemscope itemtype="https://schema.org/Comment">'
        f"<p>{COMMENT.format(i=i)}</p></div>"
        for i in range(12)
    )
    result = extract(blog_post(f"<div>{items}</div>"))
    assert_thread_set_apart(result)


def test_a_forum_thread_without_an_article_stays_the_main_text():
    result = extract(page(wordpress_comments(12), title="Thread"))
    assert result.text.count("canker") == 12 and result.comments == ""


def test_a_forum_thread_beside_a_list_of_teasers_stays_the_main_text():
    # the teasers of other topics, one blurb per item, are no article beside the thread
    teasers = "".join(
        f"<li class='topic'><article><h3><a href='/t{i}'>Another topic {i}</a></h3>"
        f"<div class='snapshot'><div class='body'><p>{POST[i % 4][:170]} ...</p></div></div>"
        "</article></li>"
        for i in range(6)
    )
    html = page(f"{wordpress_comments(12)}<ul class='topics'>{teasers}</ul>", title="Thread")
    result = extract(html)
    assert result.text.count("canker") == 12 and result.comments == ""


def test_an_article_in_one_wrapper_per_paragraph_still_sets_the_thread_apart():
    paragraphs = "".join(f"<div class='block'><div><div><p>{p}</p></div></div></div>" for p in POST)
    html = page(f"<div class='post'>{paragraphs}</div>{wordpress_comments(12)}")
    result = extract(html)
    assert_thread_set_apart(result)


def test_an_opinion_piece_named_kommentar_is_not_a_comment_thread():
    # German "Kommentar" is also an opinion column: one block of paragraphs, not a thread
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    teaser = "<div class='teaser'><p>" + " ".join(POST[:2]) + "</p></div>"
    result = extract(page(f"{teaser}<div class='kommentar-text'>{paragraphs}</div>"))
    assert all(p in result.text for p in POST) and result.comments == ""


def test_a_thread_laid_out_in_grid_columns_is_set_apart():
    # CSS grids name every box "column(s)" (Bulma, Foundation): that is layout, not content
    items = "".join(
        f'<li class="member column is-12 comment" id="m{i}"><div class="columns is-mobile">'
        f'<span class="author">Reader {i}</span><p>{COMMENT.format(i=i)}</p></div></li>'
        for i in range(12)
    )
    thread = f'<ul class="comments-list comments-container columns is-multiline">{items}</ul>'
    result = extract(blog_post(thread))
    assert_thread_set_apart(result)


FORUM_ITEM = 'itemscope itemtype="https://schema.org/DiscussionForumPosting"'
FORUM_LD = (
    '<script type="application/ld+json">{"@context": "https://schema.org", '
    '"@type": "DiscussionForumPosting", "headline": "Pruning apple trees"}</script>'
)
ANSWER = (
    "Answer {i}: prune in late winter while the tree is dormant, remove dead and crossing "
    "wood first, and always cut just above an outward bud so that the new growth opens the "
    "centre of the tree to light and air."
)
QA_LD = (
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "QAPage", '
    '"mainEntity": {"@type": "Question", "name": "Pruning apple trees"}}</script>'
)


def forum_thread(item: str = "", head: str = "", body_script: str = "", marked: str = "") -> str:
    """A forum thread as community software writes it: the first post (four paragraphs of
    prose: an article by length, too long for a lead) in an ``<article>`` with the headline,
    the replies in ``<article>`` elements marked up as schema.org comments beside it (two
    thirds of the text); ``item``: the attributes of the box around both, ``marked``: those
    of the first post's text."""
    first = "".join(f"<p>{p}</p>" for p in POST)
    replies = "".join(
        f'<article class="reply" itemprop="comment" itemscope '
        f'itemtype="https://schema.org/Comment"><header>Reader {i}</header>'
        f"<div class='content'><p>{COMMENT.format(i=i)}</p></div></article>"
        for i in range(12)
    )
    return page(
        f"{body_script}<nav><a href='/'>Forum</a> <a href='/garden'>Garden</a></nav>"
        f"<div class='main-content'><div {item}><article class='topic'>"
        "<header><h1>Pruning apple trees</h1><div class='info'>Posted by Ann</div></header>"
        f"<div class='content' {marked}>{first}</div></article>"
        f"<section id='replies'>{replies}</section></div></div>",
        title="Pruning apple trees",
        head=head,
    )


@pytest.mark.parametrize(
    "declared",
    [
        {"item": FORUM_ITEM},  # microdata
        {"head": FORUM_LD},  # JSON-LD in the head
        {"body_script": QA_LD},  # a question's page, its answers not marked up
        {"item": FORUM_ITEM, "marked": 'itemprop="articleBody"'},  # the first post as "body"
    ],
)
def test_a_declared_forum_thread_keeps_its_replies_beside_a_long_first_post(declared: dict):
    # schema.org DiscussionForumPosting or QAPage: the replies are the content, and the first
    # post, however long, is no article they comment on
    result = extract(forum_thread(**declared))
    assert all(p in result.text for p in POST)
    assert result.text.count("canker") == 12 and result.comments == ""


def test_an_undeclared_thread_beside_a_long_first_post_is_set_apart():
    result = extract(forum_thread())
    assert_thread_set_apart(result)


def test_a_question_page_with_its_answers_marked_up_sets_the_remarks_apart():
    # Stack Exchange: the answers are marked up as such; the comment threads under each post
    # are remarks, set apart as on any page with an article
    answers = "".join(
        f'<div class="answer" itemprop="suggestedAnswer" itemscope '
        f'itemtype="https://schema.org/Answer"><p>{ANSWER.format(i=i)}</p></div>'
        for i in range(2)
    )
    html = forum_thread(item='itemscope itemtype="https://schema.org/QAPage"').replace(
        "<section id='replies'>", f"{answers}<section id='replies'>"
    )
    result = extract(html)
    assert all(p in result.text for p in POST)
    assert "canker" not in result.text and result.comments.count("canker") == 12


def test_full_mode_keeps_the_comments_in_the_text():
    result = extract(blog_post(wordpress_comments(12)), mode="full")
    assert result.text.count("canker") == 12 and result.comments == ""


# --- links around the content ----------------------------------------------------------------


def link_items(n: int, text: str) -> str:
    """``n`` list items, each one link whose text is ``text`` formatted with ``i``."""
    return "".join(
        f'<li><a href="/{quote(text.format(i=i))}">{text.format(i=i)}</a></li>' for i in range(n)
    )


def link_column(n: int, text: str = "Category {i}") -> str:
    return "<table>" + "".join(
        f'<tr><td><a href="/c{i}">{text.format(i=i)}</a></td></tr>' for i in range(n)
    ) + "</table>"  # fmt: skip


def test_a_product_description_among_many_links_inside_a_cart_form():
    description = (
        "Hand-thrown stoneware mug with a speckled glaze, made in small batches in our "
        "workshop. Each piece varies a little in colour. Holds 350 ml, dishwasher safe, "
        "not for the microwave because of the metallic rim."
    )
    html = page(
        "<table><tr>"
        f"<td>{link_column(60)}</td>"
        "<td><form action='/cart' method='post'><h2>Speckled mug</h2>"
        "<table><tr><td>Price</td><td>24 EUR</td></tr></table>"
        f"<div>{description}</div><input type='submit' value='Add to cart'></form></td>"
        f"<td>{link_column(30, 'Best seller number {i}')}</td>"
        "</tr></table>",
        title="Speckled mug | Pottery shop",
    )
    result = extract(html)
    assert description in result.text
    assert "Category 7" not in result.text and "Best seller" not in result.text


def test_a_listing_of_headlines_is_not_pruned_to_nothing():
    # three sections of headlines, each under half of the page: all three are link lists
    sections = "".join(
        "<section><ul>"
        + link_items(7, f"Researchers find that headline {s}.{{i}} is long enough")
        + "</ul></section>"
        for s in range(3)
    )
    result = extract(page(f"<main>{sections}</main>"))
    assert result.text.count("Researchers find") == 21


def test_an_index_of_short_names_under_an_intro_is_kept():
    # an index page: an intro paragraph, then a column of short links per letter; each column
    # is a link list under half of the page, and the names are shorter than headlines
    intro = (
        "This is an index of the programming languages in current or historical use. Dialects "
        "that have their own page are not listed here, nor are markup languages."
    )
    columns = "".join(
        f"<h2>{letter}</h2><div class='div-col'><ul>"
        + link_items(12, f"{letter}-lang {{i}}")
        + "</ul></div>"
        for letter in "ABCDEFG"
    )
    text = extract(page(f"<main><p>{intro}</p>{columns}</main>")).text
    assert intro in text
    assert text.count("-lang ") == 7 * 12


def test_the_rows_of_a_news_aggregator_are_kept():
    # each row: a title line (the story link and its site) and a line of short links
    rows = "".join(
        f"<tr><td>{i}.</td><td><span class='titleline'><a href='https://x{i}.example/'>"
        f"Story {i}</a> <a href='/from?site=x{i}'>x{i}.example</a></span></td></tr>"
        f"<tr><td></td><td><span class='subline'>{i} points by <a href='/u{i}'>user{i}</a> "
        f"<a href='/i{i}'>1 hour ago</a> | <a href='/h{i}'>hide</a> | "
        f"<a href='/c{i}'>discuss</a></span></td></tr>"
        for i in range(1, 31)
    )
    text = extract(page(f"<table>{rows}</table>")).text
    assert all(f"Story {i}" in text and f"user{i}" in text for i in range(1, 31))


def test_the_headers_of_a_landing_pages_sections_are_kept():
    # each section of the page opens with a <header> (its heading and intro); the page's own
    # banner is the <header> outside <main>
    intros = [
        f"Feature {i} lets your team record a short video of the screen and share it with a "
        "link, so that a review takes two minutes instead of a meeting."
        for i in range(4)
    ]
    sections = "".join(
        f"<section><header><h2>Feature {i}</h2><p>{intro}</p></header>"
        f"<div><p>Details of feature {i}.</p></div></section>"
        for i, intro in enumerate(intros)
    )
    banner = "<header><div>Acme video, the product for teams</div></header>"
    quotes = "".join(
        f"<figure><blockquote>{intros[i % 4][:60]} said one of our customers, number {i}, "
        "who records a video every day of the week.</blockquote></figure>"
        for i in range(6)
    )
    text = extract(page(f"{banner}<main>{sections}<section>{quotes}</section></main>")).text
    assert all(intro in text for intro in intros) and "Acme video" not in text


def test_a_carousel_of_banner_variants_is_not_taken_for_the_article():
    # one banner per region, shown one at a time: more text than the article, mostly repeats
    regions = ["$40", "$60 CAD", "£30", "€35", "$120 NZD", "$90 AUD", "kr 400", "CHF 50"]
    slides = "".join(
        f"<span class='slide'><p>Free standard shipping on orders {regions[i % 8]}+. For more "
        "information on shipping rates and timelines, please visit our international page</p>"
        "</span>"
        for i in range(20)
    )
    terms = [
        "Receive ten percent off your purchase of three to five individual skincare products "
        "to create a custom set at all retail locations and online, excluding taxes, shipping "
        "and delivery charges.",
        "The discount is applied automatically at checkout and cannot be combined with other "
        "offers, promotions or gift cards; returns are refunded at the discounted price.",
        "Online purchases are restricted to residents of the countries listed on the shipping "
        "page, and each custom set must contain unique items to be eligible for the discount.",
    ]
    article = "".join(f"<p>{p}</p>" for p in terms)
    html = page(f"<div class='promo'><div class='track'>{slides}</div></div><main>{article}</main>")
    text = extract(html).text
    assert all(p in text for p in terms) and "Free standard shipping" not in text


def test_a_text_that_repeats_itself_stays_when_there_is_nothing_else():
    line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor."
    html = page("<article>" + "".join(f"<p>{line} {line}</p>" for _ in range(8)) + "</article>")
    assert extract(html).text.count("Lorem ipsum") == 16


def test_a_menu_alone_is_still_pruned():
    menu = link_items(20, "Menu {i}")
    html = page(f"<div><ul>{menu}</ul><ul>{menu}</ul><p>Short note.</p></div>")
    assert extract(html).text == "Short note."


# --- ruby ------------------------------------------------------------------------------------


def test_ruby_readings_are_dropped_and_the_base_text_kept():
    body = (
        "<article><p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの"
        "<ruby>虐待<rt>ぎゃくたい</rt></ruby>を<ruby><rb>防</rb><rt>ふせ</rt></ruby>ぐ。</p></article>"
    )
    for mode in ("main", "full"):
        assert extract(page(body), mode=mode).text == "子どもへの虐待を防ぐ。"


# --- a Japanese shop in EUC-JP ---------------------------------------------------------------

SHOP_DESCRIPTION = (
    "国産の有機栽培茶葉を使用した深蒸し煎茶です。まろやかな甘みと豊かな香りが特徴で、"
    "毎日のお食事にもよく合います。一煎目はぬるめのお湯でゆっくりと淹れてください。"
)


def japanese_shop() -> bytes:
    categories = link_column(40, "カテゴリー{i}の商品一覧")
    ranking = link_items(20, "人気ランキング第{i}位")
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">'
        "<title>深蒸し煎茶 100g | お茶の店</title></head><body>"
        '<div id="header"><a href="/">お茶の店トップ</a> <a href="/cart">カートを見る</a></div>'
        f'<table width="100%"><tr><td width="180">{categories}</td><td>'
        '<form name="form1" method="post" action="/cart"><h2>深蒸し煎茶 100g</h2>'
        "<table><tr><td>価格</td><td>1,080円（税込）</td></tr></table>"
        f"<div>{SHOP_DESCRIPTION}</div>"
        '<input type="submit" value="カートに入れる"></form></td>'
        f"<td><ul>{ranking}</ul></td></tr></table>"
        "<div id='footer'>Copyright お茶の店</div></body></html>"
    )
    return html.encode("euc_jp")


def test_a_japanese_shop_page_in_euc_jp_gives_its_description():
    result = extract(japanese_shop(), "http://shop.example.jp/item/1")
    assert SHOP_DESCRIPTION in result.text
    assert "カテゴリー3" not in result.text
    assert result.title == "深蒸し煎茶 100g"


def test_prose_is_measured_the_same_in_every_script():
    # 60 Japanese characters are a paragraph; so are 200 Latin ones, not 60
    assert is_prose(SHOP_DESCRIPTION[:60]) and not is_prose("x" * 60)
    assert is_prose("x" * 200) and not is_prose("x" * 199)
    assert text_weight("国" * 60) == pytest.approx(200)
    assert text_weight("한국어" * 20) == pytest.approx(200)
    assert text_weight("ภาษาไทย" * 10) == 70  # Thai letters count one each, like Latin
    # mixed scripts (60 characters or more): each CJK character counted, wherever its run starts
    rng = random.Random(3)
    pieces = ["国", "語", "。", "한", "ｱ", "ä", "x", " ", "Ж", "\u3000", "\uffef", "\u2fff"]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(60, 120)))
        cjk = sum(lo <= ord(c) <= hi for c in text for lo, hi in CJK_RANGES)
        assert text_weight(text) == pytest.approx(
            len(text) + cjk * (PROSE_CHARS / PROSE_CJK_CHARS - 1)
        )


# --- the second opinion ----------------------------------------------------------------------


def test_an_article_streamed_into_hidden_chunks_is_found_by_the_second_opinion():
    # Streaming apps send the article in hidden chunks that a script moves into place; each
    # chunk is under half of the page, so the first pass drops them all as hidden.
    chunks = "".join(
        f'<div hidden id="S:{i}"><p>{p}</p><p>{p[::-1]}</p></div>' for i, p in enumerate(POST)
    )
    key_points = (
        "<div class='key-points'><h2>Key points</h2><ul><li>Cut above a bud.</li></ul></div>"
    )
    result = extract(page(f"<main>{key_points}</main>{chunks}"))
    assert all(p in result.text for p in POST)


def test_a_hidden_copy_of_the_article_is_no_second_opinion():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    copy = "<div style='display:none'>" + " ".join(POST + POST) + "</div>"
    result = extract(page(f"<article>{paragraphs}</article>{copy}<nav>{'x ' * 3000}</nav>"))
    assert result.text == "\n\n".join(POST)


def test_a_short_hidden_tab_beside_a_visible_article_stays_hidden():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    tab = f"<div hidden><p>{COMMENT.format(i=1)}</p></div>"
    result = extract(page(f"<article>{paragraphs}{tab}</article>"))
    assert "canker" not in result.text


OFFER = (
    "Subscribe now to read the latest news in your city and across the country, with "
    "exclusive articles, daily puzzles and the digital replica of the print edition."
)


@pytest.mark.parametrize("hidden", ["hidden", "d-none", "hide", "visually-hidden"])
def test_a_box_hidden_by_its_class_is_dropped(hidden: str):
    # a paywall's offers, in the article, shown by a script only to readers over their quota
    first, rest = ("".join(f"<p>{p}</p>" for p in part) for part in (POST[:2], POST[2:]))
    offers = f"<div class='sign-in-block {hidden}'>" + f"<p>{OFFER}</p>" * 3 + "</div>"
    result = extract(page(f"<article>{first}{offers}{rest}</article>"))
    assert "Subscribe" not in result.text and all(p in result.text for p in POST)


@pytest.mark.parametrize(
    "classes", ["d-none d-md-block", "hidden md:block", "hide show@medium", "hidden-xs"]
)
def test_a_box_shown_again_on_wider_screens_is_kept(classes: str):
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    box = f"<div class='{classes}'><p>{OFFER}</p></div>"
    assert OFFER in extract(page(f"<article>{paragraphs}{box}</article>")).text


def test_an_article_hidden_by_its_class_is_kept_when_it_is_the_page():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    result = extract(page(f"<div class='article hidden'>{paragraphs}</div><p>Menu</p>"))
    assert all(p in result.text for p in POST)


def comparison_panel() -> str:
    """A panel comparing products, hidden by its class until a button opens it: longer than
    the rest of the page."""
    cards = "".join(
        f"<div class='product-info-card'><h3>Model {i}</h3><p>Model {i} brings deep bass, a "
        "battery that lasts for days and a fit that stays put, so every workout, commute and "
        "couch session sounds the way it should.</p><ul>"
        + "".join(f"<li>Feature {j} of model {i}</li>" for j in range(8))
        + "</ul></div>"
        for i in range(6)
    )
    return f"<div class='comparison-section hidden'>{cards}</div>"


def test_a_hidden_box_over_half_the_page_goes_beside_a_visible_article():
    # a shop's collection page: its copy and questions answered are visible, a comparison of
    # its products (hidden until asked for) holds most of the page's text
    copy = "".join(f"<p>{p}</p>" for p in POST[:2])
    result = extract(page(f"<main><div class='intro'>{copy}</div>{comparison_panel()}</main>"))
    assert all(p in result.text for p in POST[:2]) and "Feature" not in result.text


def test_a_hidden_box_over_half_the_page_stays_beside_one_visible_paragraph():
    # one paragraph beside it (a teaser, a note) is no article: the hidden box may be the page
    story = "".join(f"<p>{p}</p>" for p in POST[1:])
    result = extract(page(f"<p>{POST[0]}</p><div class='story hidden'>{story}</div>"))
    assert all(p in result.text for p in POST[1:])


def test_the_tooltips_of_an_articles_buttons_are_dropped():
    # each button's tooltip says, in a sentence, that the feature needs an account
    tip = "<div class='container'><p>記事に『リアクション』ができます。ご利用には会員登録が必要です。</p></div>"
    buttons = "".join(
        f"<div class='wrp js-tooltip'><button>{i}</button>{tip}</div>" for i in range(4)
    )
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    result = extract(page(f"<main><article>{buttons}{paragraphs}</article></main>"))
    assert result.text == "\n\n".join(POST)


def test_a_listing_of_articles_keeps_their_headers():
    # each item is an <article> whose <header> holds its headline and teaser
    items = "".join(
        f"<article><header><h2><a href='/a{i}'>Headline number {i} of the river</a></h2>"
        f"<p>Teaser {i}: a sentence or two that says what the story is about.</p></header>"
        "</article>"
        for i in range(8)
    )
    result = extract(page(f"<header><a href='/'>Site</a></header><main>{items}</main>"))
    assert result.text.count("Teaser") == 8 and "Site" not in result.text


def test_an_article_beside_a_longer_box_of_related_headlines_loses_the_box():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    related = [
        "<ul>" + link_items(30, f"Related story {j}.{{i}} with a long headline to read") + "</ul>"
        for j in range(2)
    ]
    result = extract(page(f"<div>{paragraphs}{''.join(related)}</div>"))
    assert result.text == "\n\n".join(POST)


def test_the_main_element_is_the_content_when_no_block_holds_two_thirds():
    # a short article in <main>, and around it many small unnamed boxes: the site's popups
    # (a save button's, a newsletter's), each a sentence or two
    popups = "".join(
        f"<div><span>Popup {i}</span><p>Only subscribers can save or follow articles: "
        "start a free trial to read them all.</p></div>"
        for i in range(6)
    )
    paragraphs = "".join(f"<p>{p}</p>" for p in POST[:3])
    html = page(f"<div><main><h1>Apples</h1>{paragraphs}</main></div>{popups}", title="Apples")
    result = extract(html)
    assert result.text == "\n\n".join(POST[:3])


def test_the_main_element_inside_the_chosen_wrapper_is_the_content():
    # the wrapper holds the breadcrumbs, the <main> with the article, an offer to subscribe,
    # and cards of related stories wrapped whole in their links, whose blurbs are <p>s: link
    # text, not prose
    crumbs = "<ul class='crumbs'><li>Site</li><li><a href='/news'>News</a></li></ul>"
    offer = "<div class='offer'>" + "Subscribers read every story of the archive. " * 7 + "</div>"
    paragraphs = "".join(f"<p>{p}</p>" for p in POST[:3])
    cards = "".join(
        f"<div class='card'><a href='/s{i}'><h3>Story {i}</h3><p>{POST[3][:150]}</p></a></div>"
        for i in range(3)
    )
    html = page(
        f"<div class='wrap'>{crumbs}<main><h1>Apples</h1>{paragraphs}</main>{offer}"
        f"<div class='more'>{cards}</div></div>",
        title="Apples",
    )
    assert extract(html).text == "\n\n".join(POST[:3])


LEAD = (
    "When a gardener prunes in winter, the tree opens up to the light: what to cut, and why, "
    "in five steps."
)


@pytest.mark.parametrize(
    "lead",
    [
        f"<h2 class='article-summary'>{LEAD}</h2>",  # a heading between headline and body
        f"<div class='intro'><p>{LEAD}</p></div>",
        f"<div><p class='lead'>{LEAD}</p></div><div></div>",  # an empty box between
    ],
)
def test_the_lead_set_apart_from_the_body_comes_first(lead: str):
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(
        f"<div class='site'><nav><a href='/'>Home</a></nav><article><h1>Apples</h1>"
        f"<div class='meta'>By Ann, 3 March</div>{lead}<div class='text'>{paragraphs}</div>"
        "</article><aside><a href='/x'>More</a></aside></div>",
        title="Apples",
    )
    assert extract(html).text == "\n\n".join([LEAD, *POST])


@pytest.mark.parametrize(
    "box",
    [
        "<div><h2>Key points</h2><ul><li>{0}</li><li>{0}</li></ul></div>",  # a list, no lead
        "<p>{0} <a href='/a'>{0}</a></p>",  # mostly links
        "<p>By Ann Smith and John Doe, with reporting from the gardens of the county</p>",
    ],
)
def test_what_is_no_lead_stays_out(box: str):
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(f"<article><h1>Apples</h1>{box.format(LEAD)}<div>{paragraphs}</div></article>")
    assert extract(html).text == "\n\n".join(POST)


@pytest.mark.parametrize(
    ("header", "title"),
    [
        # in the article's <header>, which goes as boilerplate, past a date line
        (
            "<header><h1>Apples</h1><div class='date'>3 March 2024, 10:00</div>"
            "<p class='preface'>{0}</p></header>",
            "Apples",
        ),
        # under the headline in a box of its own, the body's box after a dateline
        ("<div class='top'><div><h1>Apples</h1><h4>{0}</h4></div></div><h6>Ankara</h6>", "Apples"),
        # the page's title reworded around the headline's words
        ("<header><h1>Pruning apples</h1><p>{0}</p></header>", "Apples: when pruning, cut"),
        # a page without a title
        ("<div class='top'><h1>Apples</h1><span>{0}</span></div>", ""),
    ],
)
def test_the_lead_under_the_headline_comes_first(header: str, title: str):
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(
        f"<div class='site'><nav><a href='/'>Home</a></nav><article>{header.format(LEAD)}"
        f"<div class='text'>{paragraphs}</div></article></div>",
        title=title,
    )
    assert extract(html).text == "\n\n".join([LEAD, *POST])


@pytest.mark.parametrize(
    "box",
    [
        "<div class='media'><img src='a.jpg'><div>{0}</div></div>",  # an image's caption
        "<div class='byline'>{0}</div>",  # a box named as boilerplate
        "<p>{0}</p>",  # under a headline that is not the page's title
    ],
)
def test_what_is_no_lead_under_the_headline_stays_out(box: str):
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    title = "Pears" if box == "<p>{0}</p>" else "Apples"
    html = page(
        f"<article><header><h1>Apples</h1>{box.format(LEAD)}</header>"
        f"<div>{paragraphs}</div></article>",
        title=title,
    )
    assert extract(html).text == "\n\n".join(POST)


@pytest.mark.parametrize(
    "teaser",
    [
        "<p><strong>Lesen Sie auch:</strong> <a href='/x'>Wie man Birnbäume im Frühling schneidet"
        "</a></p>",
        "<div class='o-teaser'><div>Lire aussi</div><a href='/y'><h3>Tailler un pommier en hiver"
        "</h3></a><span>Par Anne</span></div>",
        "<div><span>Czytaj też</span> <a href='/z'>Jak przycinać jabłonie zimą</a></div>",
        "<div><p>おすすめ情報</p><a href='/k'>りんごの木の剪定</a></div>",
        # a box of the article's tags under its label
        "<div class='tagbox'><h3>Schlagwörter zu diesem Artikel</h3><h3><a href='/t/o'>"
        "Osnabrück</a></h3><h3><a href='/t/h'>Hochschule</a></h3></div>",
        "<p><b>Tags</b><a href='/t/p'>pruning</a>, <a href='/t/w'>winter</a></p>",
    ],
)
def test_a_teaser_of_another_story_under_a_read_also_label_goes(teaser: str):
    paragraphs = [f"<p>{p}</p>" for p in POST]
    body = "".join(paragraphs[:2]) + teaser + "".join(paragraphs[2:])
    html = page(f"<article><h1>Apples</h1><div class='text'>{body}</div></article>")
    assert extract(html).text == "\n\n".join(POST)


@pytest.mark.parametrize("label", ["Anzeige", "Publicité", "REKLAM", "Sponsored", "広告"])
def test_the_label_of_an_ad_goes(label: str):
    paragraphs = [f"<p>{p}</p>" for p in POST]
    ad = f"<div class='x1'><div class='x2'><span>{label}</span></div><div id='slot'></div></div>"
    body = "".join(paragraphs[:2]) + ad + "".join(paragraphs[2:])
    html = page(f"<article><h1>Apples</h1><div class='text'>{body}</div></article>")
    assert extract(html).text == "\n\n".join(POST)


def test_a_paragraph_that_starts_with_a_read_also_word_stays():
    paragraphs = [*POST[:2], "Related: the pear, whose trees are pruned in late winter too."]
    body = "".join(f"<p>{p}</p>" for p in POST[2:])
    first = f"<p>{paragraphs[0]}</p><p>{paragraphs[1]}</p>"
    html = page(
        f"<article><h1>Apples</h1><div>{first}<p><b>Related</b>: the pear, whose trees are "
        f"pruned in late winter too.</p>{body}</div></article>"
    )
    assert extract(html).text == "\n\n".join([*paragraphs, *POST[2:]])


@pytest.mark.parametrize(
    "call",
    [
        "<div class='m1'><p><span><b>この記事は会員限定です。</b>紙の新聞の定期購読者の方は、"
        "無料で会員登録できます。</span></p><dl><dt>登録すると</dt><dd>記事が読み放題</dd></dl>"
        "<p><a href='/faq'>よくある質問はこちら</a></p></div>",
        "<div class='x9'><p>Il vous reste 60% de cet article à lire. La suite est réservée "
        "aux abonnés.</p><a href='/abo'>S'abonner</a></div>",
        "<div><p>By signing up you consent to receive the above newsletter.</p></div>",
    ],
)
def test_a_call_to_subscribe_in_the_articles_box_goes(call: str):
    paragraphs = [f"<p>{p}</p>" for p in POST]
    body = "".join(paragraphs) + call
    html = page(f"<article><h1>Apples</h1><div class='text'>{body}</div></article>")
    assert extract(html).text == "\n\n".join(POST)


def test_the_consent_placeholder_of_an_embedded_post_goes():
    # a German site's placeholder for a podcast or a video, longer than a teaser box
    placeholder = (
        "<figure class='c-oembed-placeholder'><div class='title'>Externer Inhalt</div><div>"
        "<p>Um eingebettete Inhalte anzuzeigen, ist deine widerrufliche Einwilligung in die "
        "Übermittlung und Verarbeitung von personenbezogenen Daten notwendig, da die Anbieter "
        "der eingebetteten Inhalte als Drittanbieter diese Einwilligung verlangen. "
        + "Details stehen in unserer Datenschutzerklärung. " * 6
        + "</p><button>Einverstanden</button></div></figure>"
    )
    paragraphs = [f"<p>{p}</p>" for p in POST]
    body = "".join(paragraphs[:2]) + placeholder + "".join(paragraphs[2:])
    html = page(f"<article><h1>Apples</h1><div class='text'>{body}</div></article>")
    assert extract(html).text == "\n\n".join(POST)


def test_a_paragraph_that_quotes_a_call_to_subscribe_stays():
    # a long paragraph is prose, whatever it quotes
    quote_ = (
        "The paper now ends its stories with the words 'la suite est réservée aux abonnés', "
        + POST[0]
        + " Readers complained."
    )
    paragraphs = [*POST[:2], quote_, *POST[2:]]
    html = page(
        "<article><h1>Apples</h1><div>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</div></article>"
    )
    assert extract(html).text == "\n\n".join(paragraphs)


def teaser(i: int, blurb: str = "") -> str:
    text = f"<div class='teasertext'><p>{blurb}</p></div>" if blurb else ""
    return (
        f"<div class='teaser'><div class='topline'>Kicker {i}</div><h2>"
        f"<a href='/s{i}'>Another story number {i} of the day</a></h2>{text}</div>"
    )


def test_teasers_of_other_stories_set_in_the_article_go():
    # one between two paragraphs, and a box of three with blurbs after the text: their
    # blurbs are <p>s and their links are a headline each, so they are neither link lists
    # nor labelled
    paragraphs = [f"<p>{p}</p>" for p in POST]
    box = "<div class='contentbox'>" + "".join(teaser(i, POST[i][:60]) for i in range(3))
    body = "".join(paragraphs[:2]) + teaser(9) + "".join(paragraphs[2:]) + box + "</div>"
    html = page(f"<article><h1>Apples</h1>{body}</article>", title="Apples")
    assert extract(html).text == "\n\n".join(POST)


def test_a_teaser_wrapped_in_its_link_goes_and_a_lead_named_teaser_stays():
    # the whole teaser is the link, its headline inside; the lead's class says "teaser" too
    card = (
        "<a class='u-teaser' href='/s1'><div class='u-teaser__content'><span>Kicker</span>"
        "<h2>Another story number 1 of the day</h2><p>Its blurb, in a sentence.</p></div></a>"
    )
    paragraphs = [f"<p>{p}</p>" for p in POST]
    body = f"<p class='article-teaser'>{LEAD}</p>" + "".join(paragraphs[:2]) + card
    html = page(
        f"<article><h1>Apples</h1>{body}{''.join(paragraphs[2:])}</article>", title="Apples"
    )
    assert extract(html).text == "\n\n".join([LEAD, *POST])


def test_a_listicles_linked_headings_stay():
    # the items of the article itself: a linked heading and a short text each, in boxes
    # not named as teasers
    items = [
        (f"Channel number {i} to learn from", f"A short note on channel {i} and its videos.")
        for i in range(3)
    ]
    boxes = "".join(
        f"<div class='item'><h3><a href='/c{i}'>{h}</a></h3><p>{t}</p></div>"
        for i, (h, t) in enumerate(items)
    )
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(f"<article><h1>Apples</h1>{paragraphs}{boxes}</article>", title="Apples")
    text = extract(html).text
    assert all(h in text and t in text for h, t in items)


def story(title: str, paragraphs: list[str]) -> str:
    """An <article> with its headline in a <header> (a boilerplate candidate) and its text."""
    text = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<article><header><h1>{title}</h1><div>By Ann</div></header>{text}</article>"


def test_the_headlines_article_with_most_of_the_prose_wins_over_teasers_beside_it():
    # teasers of other stories with a kicker, a byline and a blurb: more than a third of the
    # weight, under a third of the prose
    items = "".join(
        f"<div class='item'><span>Kicker of another story {i}</span>"
        f"<a href='/s{i}'>Another story number {i} of the day</a><div>By Bob, 3 March</div>"
        f"<p>The blurb of story {i}: {POST[i][:120]}</p></div>"
        for i in range(4)
    )
    paragraphs = POST + [p.replace("apple", "plum") for p in POST[:2]]
    html = page(f"<div class='page'>{story('Apples', paragraphs)}{items}</div>", title="Apples")
    assert extract(html).text == "\n\n".join(paragraphs)


def test_the_next_story_of_an_endless_scroll_is_left_out():
    longer = [p.replace("apple", "pear") for p in POST + POST]
    html = page(
        f"<main>{story('Pruning apple trees', POST[:2])}<div class='next'>"
        f"{story('Pears in the city', longer)}</div></main>",
        title="Pruning apple trees | The Garden Times",
    )
    assert extract(html).text == "\n\n".join(POST[:2])


def test_a_blog_page_of_whole_posts_keeps_them_all():
    posts = "".join(story(f"Post {i}", POST[:2]) for i in range(3))
    result = extract(page(f"<main>{posts}</main>", title="The Garden Times"))
    assert result.text.count(POST[0]) == 3


def other_articles(n: int) -> str:
    """A box of ``n`` full posts of the same site, each an <article>, under a heading."""
    posts = "".join(
        f"<article class='post post-{i}'><h2>Another post {i}</h2>"
        f"<p>{' '.join(POST).replace('Paragraph', f'Post {i}, paragraph')}</p></article>"
        for i in range(n)
    )
    return f"<section><h3>You may also like</h3>{posts}</section>"


def test_the_headlines_article_wins_over_a_longer_box_of_other_articles():
    # six related posts, each as long as the article, marked up like it and with no
    # boilerplate name: they outweigh it, but the page's headline is in the article
    html = page(
        f"<article class='post'><h1>Pruning apple trees</h1><p>{POST[0]} {POST[1]}</p></article>"
        + other_articles(6),
        title="Pruning apple trees",
    )
    result = extract(html)
    assert result.text == f"{POST[0]} {POST[1]}"


@pytest.mark.parametrize(
    "headline",
    [
        "<header><h1>Gardening</h1></header>",  # a listing's title, outside any article
        "<article><h1>Gardening</h1><p>All our posts.</p></article>",  # no paragraph of prose
    ],
)
def test_a_listing_of_articles_under_its_title_stays_the_listing(headline: str):
    result = extract(page(headline + other_articles(6), title="Gardening"))
    assert all(f"Another post {i}" in result.text for i in range(6))


LEGAL = (
    "We and our partners store and access information on your device, such as cookies, and "
    "process personal data, such as unique identifiers, to personalise ads and content, to "
    "measure them, and to develop and improve our products; purpose {i}."
)


def teasers(n: int) -> str:
    """A list of ``n`` teasers of other stories: a linked headline and an unlinked blurb."""
    return "".join(
        f"<div class='teaser'><h2><a href='/story-{i}'>Another story number {i} of the day</a>"
        f"</h2><p>The blurb of story {i}: {POST[i % 4][:120]}</p></div>"
        for i in range(n)
    )


def test_an_article_named_as_the_body_wins_over_a_longer_list_of_teasers():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST[:3])
    html = page(
        f"<div class='single'><h1>Pruning apple trees</h1><div class='entry-content'>"
        f"{paragraphs}</div><div class='more'>{teasers(8)}</div></div>",
        title="Pruning apple trees",
    )
    assert extract(html).text == "\n\n".join(POST[:3])


@pytest.mark.parametrize(
    "box",
    [
        "<div class='entry-content'>{}</div>",  # each post of a listing is named so
        "<div class='teaser'>{}</div>",  # one named box, but only a blurb of the listing
    ],
)
def test_a_listing_keeps_its_items_beside_a_box_named_as_a_body(box: str):
    items = "".join(box.format(f"<p>{POST[i % 4]}</p>") for i in range(6))
    named = "<div class='article-content'><p>Our blog, on all things in the garden.</p></div>"
    result = extract(page(f"<main>{named}{items}</main>"))
    assert result.text.count("Paragraph") == 6


def test_a_comment_named_as_an_article_body_is_not_taken_for_the_article():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    comment = f"<section class='article-content'><p>{COMMENT.format(i=1)}</p></section>"
    result = extract(page(f"<article><h1>Apples</h1>{paragraphs}{comment}</article>"))
    assert all(p in result.text for p in POST)


def consent_dialog(paragraphs: int) -> str:
    """A consent manager's dialog: a box with the ARIA role dialog and pages of legal prose."""
    legal = "".join(f"<p>{LEGAL.format(i=i)}</p>" for i in range(paragraphs))
    return f"<div id='sdk'><div role='dialog'><h2>Your privacy</h2>{legal}</div></div>"


def test_a_consent_dialog_longer_than_the_listing_is_dropped():
    # the dialog holds two thirds of the page's text, more than the half that keeps a box
    # named as boilerplate, but a dialog is kept only if it holds nearly all of it
    recipes = link_items(12, "Slow-cooked tomato sauce for pasta, recipe number {i}")
    result = extract(
        page(consent_dialog(8) + f"<main><h1>Tomato sauces</h1><ul>{recipes}</ul></main>")
    )
    assert "Slow-cooked tomato sauce for pasta, recipe number 11" in result.text
    assert "purpose" not in result.text


EINWILLIGUNG = (
    "Wir und unsere Partner speichern Informationen auf Ihrem Gerät, etwa Cookies, und "
    "verarbeiten personenbezogene Daten wie eindeutige Kennungen für personalisierte Anzeigen "
    "und Inhalte, Messungen und Zielgruppenforschung; Zweck {i}."
)


@pytest.mark.parametrize(
    "box",
    [
        "<div data-borlabs-cookie-wrap><div id='BorlabsCookieBox' class='BorlabsCookie'>{}</div></div>",
        "<div id='consent-layer' class='cmp-layer'>{}</div>",
    ],
)
def test_a_consent_box_longer_than_a_short_article_is_dropped(box: str):
    # no dialog role, but named for cookies or consent: dropped like a dialog, and not brought
    # back by the second opinion (no article's box is named so)
    paragraphs = "".join(f"<p>{p}</p>" for p in POST[:2])
    legal = "".join(f"<p>{EINWILLIGUNG.format(i=i)}</p>" for i in range(15))
    html = page(
        f"<main><h1>Pruning apple trees</h1>{paragraphs}</main>" + box.format(legal),
        title="Pruning apple trees",
    )
    result = extract(html)
    assert result.text == "\n\n".join(POST[:2])


def test_a_wrapper_with_a_cookie_state_class_keeps_the_article():
    # the wrapper holds more than half of the text (the list of links beside it is the rest)
    # and its name has "cookie", but it holds the headline: a page's wrapper, not a consent box
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    more = link_items(15, "Another story on the site, number {i}")
    html = page(
        f"<div class='page has-cookie-notice'><h1>Pruning apple trees</h1>{paragraphs}</div>"
        f"<div class='more'><ul>{more}</ul></div>",
        title="Pruning apple trees",
    )
    assert extract(html).text == "\n\n".join(POST)


def test_an_article_shown_in_a_dialog_stays_the_content():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    article = f"<article><h1>Pruning apple trees</h1>{paragraphs}</article>"
    more = link_items(12, "Another story on the site, number {i}, with a headline")
    html = page(
        f"<div role='dialog'>{article}</div><main><ul>{more}</ul></main>",
        title="Pruning apple trees",
    )
    assert extract(html).text == "\n\n".join(POST)


def test_a_german_opinion_piece_with_a_longer_comment_thread():
    # "Kommentar" names the opinion piece, "Kommentare" the readers' thread under it
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(
        f"<article class='artikel'><div class='kommentar-text'>{paragraphs}</div></article>"
        + wordpress_comments(15, 'section id="kommentare" class="leserkommentare"')
    )
    result = extract(html)
    assert result.text == "\n\n".join(POST)
    assert result.comments.count("canker") == 15


@pytest.mark.xfail(
    strict=True,
    reason="known gap: when the first answer is a list of headline-long links, its lines weigh "
    "as prose, so the second opinion is neither asked nor taken",
)
def test_a_related_list_is_not_taken_for_the_article_whose_box_has_a_boilerplate_name():
    # The article's box is named like an overlay and its text is under half of the page's, so
    # the first pass drops it and takes the list of other stories.
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    teaser = "<div class='teaser'><p>Winter pruning, explained in a sentence.</p></div>"
    more = link_items(60, "Another story on the site, number {i}, with a headline")
    html = page(f"{teaser}<div class='txt-overlay'>{paragraphs}</div><div><ul>{more}</ul></div>")
    result = extract(html)
    assert all(p in result.text for p in POST) and "Another story" not in result.text


@pytest.mark.parametrize(
    "label", ["Skip to content", "Skip to Main Content", "Zum Inhalt springen", "본문 바로가기"]
)
def test_a_skip_link_alone_on_a_page_a_script_renders_goes(label: str):
    # the store's products come with its script: the skip link for keyboards is all there is
    html = page(
        f"<a href='#MainContent' class='button skip-to-content-link visually-hidden'>{label}</a>"
        "<div id='shopify-section-header'></div><main id='MainContent'></main>"
    )
    assert extract(html).text == ""


UTILITY_BAR = (
    "<div class='utility'><span>Support</span><ul><li><a href='/support'>Support Center</a>"
    "</li><li><a href='/aviation'>Aviation Support</a></li><li><a href='/marine'>Marine "
    "Support</a></li></ul><a href='/cart'>0 Total items in cart: 0</a></div>"
)
MEGA_MENU = "<nav><ul>" + "<li><a href='/c'>Smartwatches and more</a></li>" * 40 + "</ul></nav>"


@pytest.mark.parametrize("main", ["<main id='main'></main>", "<div role='main'> </div>"])
def test_a_banner_beside_an_empty_main_on_a_page_a_script_renders_goes(main: str):
    # the listing comes with the page's script: its banner's menus and utility links are all
    # there is besides the footer
    html = page(f"<header>{MEGA_MENU}{UTILITY_BAR}</header>{main}<footer>{MEGA_MENU}</footer>")
    assert extract(html).text == ""


@pytest.mark.parametrize(
    "layout",
    [
        "<header>{bar}</header>{items}",  # no main landmark: nothing says the content is absent
        "<header>{bar}</header><main>{items}</main>",  # a main that holds text
        "<header>{bar}{items}<main></main></header>",  # a header wrapped around the page
    ],
)
def test_a_banner_holding_the_page_stays_unless_beside_an_empty_main(layout: str):
    items = "<ul>" + "".join(f"<li><a href='/p{i}'>Watch {i}</a></li>" for i in range(3)) + "</ul>"
    html = page(layout.format(bar=UTILITY_BAR, items=items))
    assert "Support Center" in extract(html).text


def test_skip_links_to_parts_of_the_article_go():
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(
        "<article><h1>Apples</h1><div class='text'>"
        "<p><a href='#review'>Jump to Review</a></p><div><a href='#specs'><span>Jump To Details"
        f"</span></a></div>{paragraphs}<h2 id='review'>Review</h2></div></article>"
    )
    assert extract(html).text == "\n\n".join([*POST, "Review"])


@pytest.mark.parametrize(
    ("link", "shown"),
    [
        (
            "You can <a href='#list'>jump to the end of the list</a> to see the varieties.",
            "You can jump to the end of the list to see the varieties.",
        ),
        ("<a href='/shop'>Go to the shop</a>", "Go to the shop"),  # a link to another page
    ],
)
def test_a_skip_phrase_in_a_sentence_or_to_another_page_stays(link: str, shown: str):
    paragraphs = "".join(f"<p>{p}</p>" for p in POST)
    html = page(f"<article><h1>Apples</h1><div><p>{link}</p>{paragraphs}</div></article>")
    assert extract(html).text == "\n\n".join([shown, *POST])


def test_only_a_label_whole_or_a_call_sends_drop_labelled_through_the_text_nodes():
    from transforms.extract.boilerplate import _NODE_BREAK, _labelled

    def text(*nodes: str) -> str:
        return _NODE_BREAK.join(nodes).lower()

    assert _labelled(text("We sorted the tags by hand.", "Related work is cited below.")) == (
        False,
        False,
    )
    assert _labelled(text("Some text", " Lesen Sie auch: ", "a link")) == (True, False)
    assert _labelled(text("Tags")) == (True, False)
    assert _labelled(text("Il vous reste 57% de cet article. La suite est réservée aux abonnés."))[
        0
    ]
    # a skip link's start sends it to the in-page links, at the start of a text node only
    assert _labelled(text("Some text", " Skip to main content")) == (False, True)
    assert _labelled(text("Tags", "Jump to review")) == (True, True)
    assert _labelled(text("Do not jump to conclusions.")) == (False, False)
