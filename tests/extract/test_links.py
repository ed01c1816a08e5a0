"""Markdown links (``--format markdown --markdown_links``): no rendered link runs a script or
leaves the page for another scheme, however the page spells it; relative links resolve against
the page's ``<base href>``; a renderer reads each URL whole.

The judge is a CommonMark renderer (markdown-it-py) with its own link validation turned off,
so that what it would have filtered is seen here.
"""

from __future__ import annotations

import html as html_module
import re
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from transforms.extract import Extractor, extract
from transforms.extract.links import ALLOWED_SCHEMES, link_target, scheme

RENDERER = MarkdownIt("commonmark").enable("table")
RENDERER.validateLink = lambda url: True  # judge our output, not markdown-it's own filter
URL = "https://site.example/dir/page.html"


def markdown(body: str, url: str | None = URL, head: str = "") -> str:
    html = f"<html><head>{head}</head><body>{body}</body></html>"
    return Extractor(mode="full", output_format="markdown", links=True)(html, url).text


def hrefs(md: str) -> list[str]:
    """Every link and image URL the renderer finds, as it writes them into ``href``/``src``."""
    out = []
    for token in RENDERER.parse(md):
        for child in [token, *(token.children or [])]:
            if child.type == "link_open":
                out.append(child.attrs["href"])
            elif child.type == "image":
                out.append(child.attrs["src"])
    return out


def browser_scheme(href: str) -> str | None:
    """The scheme a browser reads in an ``href`` written by the renderer (WHATWG: leading and
    trailing C0 controls and spaces, and tabs and newlines anywhere, are ignored)."""
    cleaned = re.sub("[\t\n\r]", "", href.strip("".join(map(chr, range(0x21)))))
    found = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", cleaned)
    return found.group(1).lower() if found else None


def assert_safe(md: str) -> None:
    for href in hrefs(md):
        assert browser_scheme(href) in ALLOWED_SCHEMES | {None}, href


SCRIPTS = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "&#x4A;avascript:alert(1)",
    "&#106;avascript:alert(1)",
    "javascript&colon;alert(1)",
    "javascript&#58;alert(1)",
    "java&Tab;script:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "java&#10;script:alert(1)",
    "  javascript:alert(1)",
    "\x01\x02javascript:alert(1)",
    "&#1;javascript:alert(1)",
    "java\x01script:alert(1)",
    "vbscript:msgbox(1)",
    "VBScript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "livescript:x",
    "tel:+49301234567",
]


@pytest.mark.parametrize("href", SCRIPTS)
@pytest.mark.parametrize("where", ["p", "li", "blockquote"])
def test_a_link_with_another_scheme_is_its_text_however_spelled(href, where):
    quoted = href.replace('"', "&quot;")
    body = f'<{where}>Click <a href="{quoted}">here</a> now.</{where}>'
    md = markdown(body)
    assert hrefs(md) == [] and "here" in md and "alert" not in md
    assert markdown(body, url=None) == md


@pytest.mark.parametrize(
    ("href", "target"),
    [
        ("HTTPS://Other.example/X", "https://Other.example/X"),
        ("mailto:a@b.example", "mailto:a@b.example"),
        ("ftp://files.example/a.txt", "ftp://files.example/a.txt"),
        ("//cdn.example/x", "https://cdn.example/x"),
        ("other.html", "https://site.example/dir/other.html"),
        ("../up", "https://site.example/up"),
        ("javascript%3Aalert(1)", "https://site.example/dir/javascript%3Aalert%281%29"),
        (" \t/spaced\n ", "https://site.example/spaced"),
        ("/a b(1)<2>[3]\\4", "https://site.example/a%20b%281%29%3C2%3E[3]%5C4"),
    ],
)
def test_allowed_and_relative_links_are_kept_and_read_whole(href, target):
    md = markdown(f'<p>See <a href="{html_module.escape(href)}">this</a>.</p>')
    assert [unquote(found) for found in hrefs(md)] == [unquote(target)]


@pytest.mark.parametrize("href", ["java&#0;script:alert(1)", "java\x00script:alert(1)"])
def test_a_nul_in_the_scheme_makes_a_relative_path_as_browsers_read_it(href):
    """The parser reads NUL as U+FFFD, which no scheme holds: a path, resolved like one."""
    md = markdown(f'<p><a href="{href}">x</a></p>')
    assert [unquote(found) for found in hrefs(md)] == [
        "https://site.example/dir/java\ufffdscript:alert(1)"
    ]


def test_without_a_url_relative_links_stay_relative_and_cannot_become_a_scheme():
    md = markdown('<p><a href="javascript%3Aalert(1)">a</a> <a href="javascript&amp;colon;x">b</a> '
                  '<a href="x.html">c</a> <a href="//h.example/">d</a></p>', url=None)  # fmt: skip
    assert hrefs(md) == [
        "javascript%3Aalert%281%29",
        "javascript&colon;x",
        "x.html",
        "//h.example/",
    ]
    assert_safe(md)


@pytest.mark.parametrize(
    ("head", "url", "target"),
    [
        ('<base href="https://cdn.example/root/">', URL, "https://cdn.example/root/a.html"),
        ('<base href="/other/">', URL, "https://site.example/other/a.html"),
        ('<base href="sub/">', URL, "https://site.example/dir/sub/a.html"),
        ('<base href="javascript:alert(1)//">', URL, "https://site.example/dir/a.html"),
        ('<base href="data:text/html,x">', URL, "https://site.example/dir/a.html"),
        ('<base href="/other/">', None, "a.html"),  # relative, with nothing to resolve it
        ('<base href="HTTPS://CDN.example/r/">', None, "https://CDN.example/r/a.html"),
        ("", URL, "https://site.example/dir/a.html"),
        (
            '<base target="_blank"><base href="https://one.example/"><base href="https://two.example/">',
            URL,
            "https://one.example/a.html",
        ),  # fmt: skip
        ('<base href="http://[broken/">', URL, "https://site.example/dir/a.html"),
    ],
)
def test_relative_links_resolve_against_the_first_base_href(head, url, target):
    assert hrefs(markdown('<p><a href="a.html">a</a></p>', url, head)) == [target]


def test_a_base_written_inside_the_body_is_not_looked_for_and_scripts_stay_text():
    """HTML puts ``<base>`` in the head; one after the body's content is not looked for
    (searching the whole document for it would cost 5% of an extraction)."""
    body = (
        '<p>x</p><base href="https://b.example/"><p><a href="x">x</a> <a href="javascript:y">y</a>'
    )
    assert hrefs(markdown(body)) == ["https://site.example/dir/x"]
    head = '<base href="https://b.example/">'
    assert hrefs(markdown('<p><a href="javascript:y">y</a> <a href="x">x</a>', URL, head)) == [
        "https://b.example/x"
    ]


def test_an_unparsable_url_is_the_links_text_not_an_error():
    """``urljoin`` raises on an invalid IPv6 host: the page used to be an extract_error."""
    md = markdown('<p><a href="http://[::1/x">broken</a> and <a href="/ok">ok</a></p>')
    assert md == "broken and [ok](https://site.example/ok)"


@pytest.mark.parametrize(
    "text",
    [
        "[click](javascript:alert(1))",
        "&lt;javascript:alert(1)&gt;",
        "&lt;a href='javascript:alert(1)'&gt;x&lt;/a&gt;",
        "![img](javascript:alert(1))",
        "[ref]: javascript:alert(1)",
        "&lt;JavaScript&colon;alert(1)&gt;",
        "javascript:alert(1)",
    ],
)
def test_text_that_looks_like_a_link_is_no_link_in_or_out_of_a_link(text):
    md = markdown(f"<p>{text}</p><p><a href='https://ok.example/'>{text}</a></p>")
    assert hrefs(md) == ["https://ok.example/"]


def test_images_and_titles_are_not_written_so_carry_no_url():
    body = ('<p><img src="javascript:alert(1)" alt="x"><a href="/a" title=\'t" ) ](javascript:x)\'>'
            "a</a></p>")  # fmt: skip
    md = markdown(body)
    assert hrefs(md) == ["https://site.example/a"] and "title" not in md


def test_an_ampersand_that_would_start_a_reference_in_the_destination_is_escaped():
    """A renderer decodes ``&colon;`` and ``&amp;`` in a link destination; a browser reads the
    href as written."""
    md = markdown('<p><a href="/q?a=1&amp;amp;b=2&amp;c=3">q</a></p>')
    assert hrefs(md) == ["https://site.example/q?a=1&amp;b=2&c=3"]


def test_link_target_and_scheme_directly():
    assert scheme(" \x01JaVa\tScRiPt:x") == "javascript"
    assert scheme("//host/x") is None and scheme("a/b:c") is None
    assert link_target("#top", URL) is None and link_target("", URL) is None
    assert link_target(None, URL) is None
    assert link_target("x y", None) == "x%20y"


def test_nine_script_links_in_lists_and_quotes_of_one_page_are_all_text():
    items = "".join(f'<li><a href="{h.replace(chr(34), "&quot;")}">item {i}</a></li>'
                    for i, h in enumerate(SCRIPTS[:9]))  # fmt: skip
    body = f"<ul>{items}</ul><blockquote><p><a href='JaVaScRiPt:x'>quoted</a></p></blockquote>"
    result = extract(f"<html><body>{body}</body></html>", URL, mode="full", format="markdown",
                     links=True)  # fmt: skip
    assert hrefs(result.text) == []
    assert all(f"item {i}" in result.text for i in range(9))


# --- any href, any base: no rendered link has a scheme outside the allowed ones ----------------

SCHEME_PIECES = ["java", "script", "JaVa", "SCRIPT", "vb", "data", "http", "https", "mailto",
                 "ftp", "file", "s", ":", "&colon;", "&#58;", "&#x3A;", "%3A", "&#x4A;", "&Tab;",
                 "&NewLine;", "\t", "\n", "\x00", "\x01", " ", "&#0;", "/", "//", "\\", "x", "(",
                 ")", "[", "]", "<", ">", "&amp;", "&", "#", "?", "'", "\"", "\u00e9", "%"]  # fmt: skip
hrefs_strategy = st.lists(st.sampled_from(SCHEME_PIECES), min_size=1, max_size=10).map("".join)
bases = st.one_of(st.none(), st.sampled_from(["https://b.example/d/", "/rel/", "javascript:x",
                                              "data:,x", "HTTP://B.example"]))  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hrefs_strategy, bases, st.sampled_from([URL, None]))
def test_no_rendered_link_has_a_scheme_outside_the_allowed_ones(href, base, url):
    attribute = href.replace('"', "&quot;")
    head = "" if base is None else f'<base href="{base}">'
    body = f'<ul><li>see <a href="{attribute}">the [link] text</a> (and more)</li></ul>'
    md = markdown(body, url, head)
    assert_safe(md)
    # each URL is read whole: neither it nor the link's text spills into the text around them
    assert "".join(texts(md)) == "see the [link] text (and more)"


def texts(md: str) -> list[str]:
    return [
        child.content
        for token in RENDERER.parse(md)
        for child in token.children or []
        if child.type == "text" and child.content
    ]
