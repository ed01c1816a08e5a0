"""``rawtext.drop_script_text`` leaves the tree as it was, the text of scripts and styles aside.

Each page is parsed as it came and with that text cut; both trees, their script and style
elements emptied, must serialize the same, and the JSON-LD must read the same. The generated
pages are tag soup built from what can hide or fake a script's start or end: comments in
every spelling, quoted attributes holding ">", the elements whose text is never markup, SVG
and MathML, escaped scripts, ``<frameset>`` and ``<plaintext>``. ``<template>`` is tested by
hand: selectolax does not walk its content, so the generated pages leave it out.
"""

from __future__ import annotations

import random

import pytest
from selectolax.lexbor import LexborDocumentOptions, LexborHTMLParser

from benchmarks.speed import speed_pages
from transforms.extract import rawtext
from transforms.extract.limits import SCRIPT_SHARE, TagCounts, bound_page

drop_script_text = rawtext.drop_script_text

PAGES = 4000

PIECES = [
    # scripts and styles, their ends in every spelling
    "<script>", "<SCRIPT type='module'>", "<script type=\"application/ld+json\">",
    "<script type=application/LD+JSON>", "<script type='ld&plus;json'>", "<script/>",
    "<scripts>", "</script>", "</SCRIPT >", "</script/>", "</script x='>'>", "</scripty>",
    "</script", "<style>", "<style media=\"a>b\">", "</style>", "</STYLE\t>", "</styles>",
    # what a script's escaped states read
    "<!--", "-->", "--!>", "<!-->", "<!--->", "-", "--", "<!", "<!-", "</", "<",
    # elements whose text is never markup
    "<title>", "</title>", "<textarea>", "</textarea>", "<xmp>", "</xmp>", "<iframe>",
    "</iframe>", "<noembed>", "</noembed>", "<noframes>", "</noframes>", "<noscript>",
    "</noscript>",
    # foreign content
    "<svg>", "</svg>", "<svg/>", "<svg a=b/>", "<SVG viewBox='0 0 1 1'>", "<math>", "</math>",
    "<math/>", "<mi>", "<mtext>", "<foreignObject>", "</foreignObject>", "<desc>",
    "<![CDATA[", "]]>", "<font color=red>",
    # what ends a parse's ordinary course
    "<frameset>", "<plaintext>", "<select>", "</select>", "<option>",
    # other markup and tags with tricky attributes
    "<p>", "</p>", "<div>", "</div>", "<b>", "</b>", "<table>", "<td>", "<br>", "<head>",
    "<body>", "</body>", "</html>", "<!DOCTYPE html>", "<?xml x?>", "</ x>", "</>",
    "<a title=\"<script>\">", "<a title='</script>'>", "<a b=c>d>", "<a \"<script>\">",
    "<a b = \"x>\" c>", "<a/b>", "<a =x>",
    # text
    "x", "text ", " ", "\n", "\r\n", "\t", ">", "a<b", "é", "語", "'", '"', "=", "/",
    '{"headline": "h"}', "document.write('<script src=x></script>');",
]  # fmt: skip


def _shape(html: bytes) -> tuple[str, list[str]]:
    """The tree's markup with every script and style emptied, and the JSON-LD's texts."""
    tree = LexborHTMLParser(html, options=LexborDocumentOptions.WO_EVENTS)  # (as extract parses)
    ld = [
        node.text()
        for node in tree.css("script")
        if "ld+json" in (node.attributes.get("type") or "").lower()
    ]
    for node in tree.css("script, style"):
        for child in list(node.iter(include_text=True)):
            child.decompose()
    return tree.html or "", ld


def _page(rng: random.Random) -> bytes:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40))).encode()


def test_generated_pages_keep_their_tree():
    rng = random.Random(20261207)
    cut = 0
    for _ in range(PAGES):
        page = _page(rng)
        dropped = drop_script_text(page)
        cut += dropped != page
        assert _shape(dropped) == _shape(page), page
    assert cut > PAGES // 5  # (the others hold a <frameset>, <plaintext> or open SVG first)


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (b"<p>a<script>if (a<b) x()</script>b", b"<p>a<script></script>b"),
        (b"<style>p>a{}</style><p>x", b"<style></style><p>x"),
        (b'<script type="application/ld+json">{"a":1}</script>', None),
        (b'<script type="application/ld&#x2B;json">{"a":1}</script>', None),
        (b'<script id="__NEXT_DATA__" type="application/json">{"a":1}</script>', b'<script id="__NEXT_DATA__" type="application/json"></script>'),
        # escaped: the first </script> is inside the script it writes
        (b'<script><!--\ndocument.write("<script>1</script>")\n--></script><p>x', b"<script></script><p>x"),
        (b"<!-- <script> --><p>a", None),
        (b'<a title="<script>">a</a>', None),
        (b"<textarea><script>x</script></textarea>", None),
        (b"<title><style>x</style></title>", None),
        (b"<svg><script>a<b>x</b></script></svg>", None),  # markup inside SVG's script
        (b"<svg><title>Icon</title><path d=M0/></svg><script>x</script>", b"<svg><title>Icon</title><path d=M0/></svg><script></script>"),
        (b"<svg><title><b>x</b></title></svg><script>x</script>", None),  # (HTML in a title: stop)
        (b"<svg><style>x</style></svg><style>y</style>", b"<svg><style>x</style></svg><style></style>"),
        (b"<frameset><script>a</script>", None),  # the start tag is ignored: its text is text
        (b"<plaintext><script>a</script>", None),
        (b"<template><script>a</script><p>b</p></template>", b"<template><script></script><p>b</p></template>"),
        (b"<script>never closed", b"<script>"),
        (b"<math/><script>x</script>", b"<math/><script></script>"),
    ],
)  # fmt: skip
def test_hand_written_pages(page, expected):
    dropped = drop_script_text(page)
    assert dropped == (page if expected is None else expected)
    assert dropped is page or expected is not None  # a page with nothing cut is not copied
    if b"<template>" not in page:
        assert _shape(dropped) == _shape(page)
    else:  # selectolax does not walk a template's content: compare the markup
        assert LexborHTMLParser(dropped).html == (
            "<html><head><template><script></script><p>b</p></template></head><body></body></html>"
        )


def test_corpus_pages_keep_their_tree(shared_dir):
    pages = [html for pages in speed_pages().values() for html, _ in pages]
    before = after = 0
    for html in pages:
        dropped = drop_script_text(html)
        before += len(html)
        after += len(dropped)
        if b"<template" not in dropped.lower():
            assert _shape(dropped) == _shape(html)
    assert after < 0.7 * before  # the corpus pages are mostly script and style


def test_bound_page_cuts_script_text_only_where_it_is_much_of_the_page():
    script = "<script>" + "var x = 1;\n" * 800 + "</script>"  # 8.8 KB: four stretches
    markup = "<p><a href=x>link</a> text</p>" * 150  # 4.5 KB with a "<" every 15 bytes
    heavy = f"<html><body>{markup}{script}</body></html>".encode()
    light = f"<html><body>{markup * 10}{script}</body></html>".encode()
    assert TagCounts(heavy).sparse_share() >= SCRIPT_SHARE > TagCounts(light).sparse_share()
    assert bound_page(None, heavy) == (heavy, False)  # (only if asked)
    cut, truncated = bound_page(None, heavy, drop_scripts=True)
    assert not truncated and cut == heavy.replace(b"var x = 1;\n" * 800, b"")
    assert bound_page(None, light, drop_scripts=True) == (light, False)
