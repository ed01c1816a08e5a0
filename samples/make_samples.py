"""Generate the bundled sample shards: ``samples/crawl.warc.gz`` and ``samples/pages.tar.gz``.

The pages are written for the purpose (no third-party content) and cover what a real crawl
shard holds: articles, a forum thread, a product page and documentation wrapped in navigation,
cookie banners and footers; gzip-encoded and chunked responses; pages in windows-1251 and
Shift_JIS, declared in the header, in ``<meta>`` only, or not at all; a 404, a redirect, an
image; and the request, metadata and revisit records a crawler writes beside them.
The output is byte-for-byte reproducible:  python -m samples.make_samples
"""

from __future__ import annotations

from pathlib import Path

from tests.builders import WarcEntry, http_response, write_tar, write_warc

HERE = Path(__file__).parent

CHROME = (
    '<header class="site-header"><a class="logo" href="/">{site}</a>'
    '<nav class="main-nav"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
    '<li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul></nav></header>'
    '<div class="cookie-banner" id="cookie-consent">We use cookies to improve your experience. '
    "<button>Accept all</button></div>"
)
FOOTER = (
    '<aside class="sidebar"><h3>Popular posts</h3><ul><li><a href="/p/1">Ten tips for tidy desks</a>'
    '</li><li><a href="/p/2">Why we moved offices</a></li></ul></aside>'
    '<footer class="site-footer"><p>&copy; 2026 {site}. All rights reserved.</p>'
    '<a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>'
    "<script>window.dataLayer = window.dataLayer || []; dataLayer.push({{event: 'view'}});</script>"
)


def html_page(title: str, site: str, main: str, *, head: str = '<meta charset="utf-8">') -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head>{head}<title>{title} | {site}</title>'
        f'<meta property="og:title" content="{title}"><style>body {{ font: 16px serif; }}</style>'
        f"</head><body>{CHROME.format(site=site)}<main>{main}</main>{FOOTER.format(site=site)}"
        "</body></html>"
    )


ARTICLE = html_page(
    "River cleanup draws record crowd",
    "The Riverside Gazette",
    "<article><h1>River cleanup draws record crowd</h1>"
    '<p class="byline">By Ana Ruiz, 12 March 2026</p>'
    "<p>More than four hundred volunteers turned out on Saturday to clear litter from the banks of "
    "the Mill River, the largest turnout since the annual cleanup began in 2009.</p>"
    "<p>Organisers said the group collected 2.3 tonnes of rubbish, including 41 tyres, three "
    "shopping trolleys and a surprising number of garden gnomes.</p>"
    "<h2>Why it matters</h2>"
    "<p>The river feeds the town's reservoir, and the water board credits the cleanups with a "
    "measurable drop in plastic reaching its filters.</p>"
    "<ul><li>Next cleanup: 14 June</li><li>Meeting point: the old bridge</li></ul>"
    '<div class="share-bar">Share on <a href="#">Facebook</a> <a href="#">X</a></div>'
    "</article>",
)

FORUM = html_page(
    "How do I descale an espresso machine?",
    "Coffee Corner Forum",
    '<div class="thread"><h1>How do I descale an espresso machine?</h1>'
    '<div class="post"><span class="author">beanlover</span><p>My machine is getting slow and '
    "the water tastes of metal. Is citric acid safe to use, or should I buy the branded "
    "descaler?</p></div>"
    '<div class="post"><span class="author">baristabob</span><p>Citric acid works well: two '
    "tablespoons in a litre of warm water, run half through the group head, wait twenty minutes, "
    "then the rest. Rinse with three full tanks of fresh water afterwards.</p></div>"
    '<div class="post"><span class="author">crema_queen</span><p>Check your manual first: some '
    "machines with aluminium boilers should not see acid at all.</p></div></div>",
)

PRODUCT = html_page(
    "Trailblazer 40L hiking backpack",
    "Summit Outfitters",
    '<div class="product"><h1>Trailblazer 40L hiking backpack</h1><p class="price">$129.00</p>'
    "<p>A light, weatherproof pack for long day hikes and overnight trips, with a ventilated back "
    "panel and a hip belt that carries the load where it belongs.</p>"
    "<table><tr><th>Volume</th><td>40 litres</td></tr><tr><th>Weight</th><td>1.1 kg</td></tr>"
    "<tr><th>Material</th><td>Recycled ripstop nylon</td></tr></table>"
    '<button class="add-to-cart">Add to cart</button></div>',
)

DOCS = html_page(
    "Configuring retries",
    "Widget SDK Docs",
    "<article><h1>Configuring retries</h1><p>Every client call retries transient errors three "
    "times by default, waiting longer after each attempt.</p>"
    '<pre><code>client = Client(retries=5, backoff=2.0)\nclient.fetch("orders")</code></pre>'
    "<p>Set <code>retries=0</code> to turn retrying off entirely.</p></article>",
)

RUSSIAN = html_page(
    "Весенний фестиваль в парке",
    "Городские новости",
    "<article><h1>Весенний фестиваль в парке</h1><p>В субботу в центральном парке пройдёт "
    "весенний фестиваль: концерты, ярмарка мастеров и детские мастер-классы.</p>"
    "<p>Вход свободный, начало в одиннадцать часов утра.</p></article>",
    head='<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
)

JAPANESE = html_page(
    "新しい図書館が開館",
    "市民ニュース",
    "<article><h1>新しい図書館が開館</h1><p>駅前に新しい市立図書館が開館しました。"
    "蔵書は約十万冊で、毎日午後九時まで利用できます。</p></article>",
    head="",
)

NO_TEXT = "<!DOCTYPE html><html><head><title>Loading</title></head><body><script>app()</script></body></html>"


def _chunked(body: bytes, size: int = 300) -> bytes:
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


def warc_entries() -> list[WarcEntry]:
    html = {"content-type": "text/html; charset=utf-8"}
    entries = [WarcEntry("warcinfo", "", b"software: clean-html samples\r\nformat: WARC/1.1\r\n")]

    def fetch(url: str, response: bytes) -> None:
        request = f"GET {url.split('/', 3)[-1] or '/'} HTTP/1.1\r\nHost: example\r\n\r\n".encode()
        entries.append(WarcEntry("request", url, request))
        entries.append(WarcEntry("response", url, response))
        entries.append(WarcEntry("metadata", url, b"fetchTimeMs: 120\r\n"))

    fetch(
        "https://gazette.example/news/river-cleanup",
        http_response(ARTICLE.encode(), headers=html.items()),
    )
    fetch(
        "https://forum.example/t/descale-espresso",
        http_response(FORUM.encode(), headers=html.items(), content_encoding="gzip"),
    )
    fetch(
        "https://shop.example/p/trailblazer-40",
        http_response(
            _chunked(PRODUCT.encode()),
            headers=[("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")],
        ),
    )
    fetch("https://news.example.ru/festival", http_response(RUSSIAN.encode("cp1251"), headers=[]))
    fetch(
        "https://news.example.jp/library",
        http_response(
            JAPANESE.encode("shift_jis"), headers=[("Content-Type", "text/html; charset=Shift_JIS")]
        ),
    )
    fetch(
        "https://gazette.example/missing",
        http_response(b"<h1>Not found</h1>", status="404 Not Found"),
    )
    fetch(
        "https://gazette.example/old",
        http_response(b"", status="301 Moved Permanently", headers=[("Location", "/news")]),
    )
    fetch(
        "https://gazette.example/logo.png",
        http_response(b"\x89PNG\r\n\x1a\n" + bytes(64), headers=[("Content-Type", "image/png")]),
    )
    fetch("https://app.example/", http_response(NO_TEXT.encode(), headers=html.items()))
    entries.append(
        WarcEntry(
            "revisit",
            "https://gazette.example/news/river-cleanup",
            b"HTTP/1.1 304 Not Modified\r\n\r\n",
            extra_headers={
                "WARC-Profile": "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
            },
        )
    )
    entries.append(
        WarcEntry(
            "resource", "<https://docs.example/retries>", DOCS.encode(), content_type="text/html"
        )
    )
    return entries


def tar_members() -> tuple[dict[str, bytes], dict[str, str]]:
    members = {
        "site/index.html": ARTICLE.encode(),
        "site/forum/descale.htm": FORUM.encode(),
        "site/docs/guide/retries.html": DOCS.encode(),
        "site/ru/festival.html": RUSSIAN.encode("cp1251"),
        "site/robots.txt": b"User-agent: *\nAllow: /\n",
        "site/img/logo.png": b"\x89PNG\r\n\x1a\n" + bytes(64),
    }
    urls = {"site/index.html": "https://gazette.example/news/river-cleanup"}
    return members, urls


def main() -> None:
    write_warc(HERE / "crawl.warc.gz", warc_entries())
    members, urls = tar_members()
    write_tar(HERE / "pages.tar.gz", members, urls=urls)
    for name in ("crawl.warc.gz", "pages.tar.gz"):
        print(f"wrote {HERE / name} ({(HERE / name).stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
