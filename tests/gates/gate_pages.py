"""Generated pages for the noise and latency gates: content that must survive, noise that must not.

Each ``NoiseCase`` is one kind of page furniture wrapped around a short article; the gate checks
that every ``keep`` string appears in the extracted text and no ``drop`` string does.
``sized_page`` builds the small, typical and large pages the latency gate times.
"""

from __future__ import annotations

from dataclasses import dataclass

ARTICLE = (
    "<h1>Harbour seals return to the estuary</h1>"
    "<p>Volunteers counted forty-two harbour seals on the sandbanks this spring, the highest number "
    "since monitoring began.</p>"
    "<p>Biologists credit cleaner water and a ban on jet skis near the breeding grounds.</p>"
)
KEEP = ["Harbour seals return to the estuary", "forty-two harbour seals", "ban on jet skis"]


def wrap(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head><title>Seals | Coast News</title>{head}</head><body>{body}</body></html>"


@dataclass(frozen=True)
class NoiseCase:
    name: str
    html: str
    keep: tuple[str, ...]
    drop: tuple[str, ...]


NOISE_CASES = [
    NoiseCase(
        "dirty page: header, nav, main, article, footer",
        wrap(
            "<header><div>Coast News Network</div></header>"
            '<nav><a href="/">Home</a><a href="/world">World desk</a><a href="/sport">Sport desk</a></nav>'
            f"<main><article>{ARTICLE}</article></main>"
            "<footer><p>Copyright 2026 Coast News Network</p><a href='/privacy'>Privacy policy</a></footer>"
        ),
        tuple(KEEP),
        ("Coast News Network", "World desk", "Sport desk", "Privacy policy"),
    ),
    NoiseCase(
        "scripts and styles",
        wrap(
            f"<script>function trackVisitor() {{ return 'beacon'; }}</script><article>{ARTICLE}</article>"
            '<style>.promo { colour: hotpink; }</style><script type=\'application/ld+json\'>{"@type": "NewsArticle"}</script>',
            head="<style>body { margin: 0 }</style><script>var analyticsId = 'UA-1';</script>",
        ),
        tuple(KEEP),
        ("trackVisitor", "beacon", "hotpink", "NewsArticle", "analyticsId", "margin"),
    ),
    NoiseCase(
        "forms",
        wrap(
            f"<article>{ARTICLE}</article>"
            "<form action='/subscribe'><label>Email address</label><input name='email'>"
            "<button>Subscribe to the newsletter</button></form>"
        ),
        tuple(KEEP),
        ("Email address", "Subscribe to the newsletter"),
    ),
    NoiseCase(
        "iframes and embeds",
        wrap(
            f"<article>{ARTICLE}<iframe src='https://video.example/embed'>Your browser lacks iframes</iframe>"
            "<object data='movie.swf'>Flash player required</object></article>"
        ),
        tuple(KEEP),
        ("Your browser lacks iframes", "Flash player required"),
    ),
    NoiseCase(
        "inline SVG",
        wrap(
            "<article><svg viewBox='0 0 10 10'><title>Logo mark</title><text x='1' y='5'>SVG label text</text>"
            f"</svg>{ARTICLE}</article>"
        ),
        tuple(KEEP),
        ("Logo mark", "SVG label text"),
    ),
    NoiseCase(
        "cookie banner",
        wrap(
            "<div id='cookie-banner' class='cookie-consent'><p>We use cookies to personalise content "
            f"and ads.</p><button>Accept all cookies</button></div><article>{ARTICLE}</article>"
        ),
        tuple(KEEP),
        ("We use cookies", "Accept all cookies"),
    ),
    NoiseCase(
        "share bar",
        wrap(
            f"<article>{ARTICLE}<div class='share-buttons social-share'><a href='#'>Share on Facebook</a>"
            "<a href='#'>Share on X</a><a href='#'>Email this story</a></div></article>"
        ),
        tuple(KEEP),
        ("Share on Facebook", "Email this story"),
    ),
    NoiseCase(
        "comment section",
        wrap(
            f"<article>{ARTICLE}</article><section id='comments' class='comments'><h3>42 comments</h3>"
            "<div class='comment'><span class='comment-author'>troll99</span><p>First! Who cares about "
            "seals anyway</p></div><div class='comment'><p>Reply to troll99: you clearly do</p></div>"
            "<form><textarea>Leave a reply</textarea></form></section>"
        ),
        tuple(KEEP),
        ("42 comments", "First! Who cares", "Reply to troll99", "Leave a reply"),
    ),
    NoiseCase(
        "web components holding the content",
        wrap(
            "<site-header><a href='/'>Component header link</a></site-header>"
            f"<news-app><story-body>{ARTICLE}</story-body></news-app>"
            "<site-footer><p>Component footer text</p></site-footer>"
        ),
        tuple(KEEP),
        (),
    ),
    NoiseCase(
        "hidden elements",
        wrap(
            f"<article>{ARTICLE}<div style='display:none'>Hidden promo text</div>"
            "<div hidden>Hidden attribute text</div><div aria-hidden='true'>Screen readers skip this</div>"
            "</article><noscript>Please enable JavaScript</noscript>"
        ),
        tuple(KEEP),
        (
            "Hidden promo text",
            "Hidden attribute text",
            "Screen readers skip this",
            "Please enable JavaScript",
        ),
    ),
    NoiseCase(
        "sidebar and related links",
        wrap(
            f"<div class='layout'><div class='content'><article>{ARTICLE}</article></div>"
            "<aside class='sidebar'><h3>Most read</h3><ul><li><a href='/1'>Ten cheap city breaks</a></li>"
            "<li><a href='/2'>Celebrity chef opens bistro</a></li></ul></aside></div>"
        ),
        tuple(KEEP),
        ("Most read", "Ten cheap city breaks", "Celebrity chef opens bistro"),
    ),
]


def sized_page(paragraphs: int, furniture: int) -> str:
    """An article of ``paragraphs`` paragraphs inside ``furniture`` blocks of nav, lists and comments."""
    nav = "".join(f"<li><a href='/section/{i}'>Section {i}</a></li>" for i in range(furniture))
    body = "".join(
        f"<p>Paragraph {i} reports on the estuary survey, the seals counted on sandbank {i % 7}, and what "
        f"the volunteers saw between the tides on day {i}.</p>"
        for i in range(paragraphs)
    )
    comments = "".join(
        f"<div class='comment'><span class='author'>reader{i}</span><p>Comment {i}: great work.</p></div>"
        for i in range(furniture)
    )
    related = "".join(
        f"<li><a href='/story/{i}'>Related story {i}</a></li>" for i in range(furniture)
    )
    return wrap(
        f"<header><nav><ul>{nav}</ul></nav></header><div class='page'><main><article>"
        f"<h1>Survey</h1>{body}</article></main><aside><ul>{related}</ul></aside>"
        f"<section class='comments'>{comments}</section></div><footer>Coast News</footer>"
        "<script>var x = 1;</script>"
    )


SMALL_DIRTY_PAGE = NOISE_CASES[0].html
LATENCY_PAGES = {
    "small": SMALL_DIRTY_PAGE,
    "typical": sized_page(paragraphs=40, furniture=60),
    "large": sized_page(paragraphs=400, furniture=600),
}
