from transforms.extract import Extractor
from transforms.extract.limits import MAX_NESTING, cap_nesting, nesting_depth


def test_depth_ignores_void_and_self_closing_elements():
    assert nesting_depth("<div><p>a<p>b<br><img src=x><span>c</span></div>") == 2
    assert nesting_depth("<div></div><div><div></div></div>") == 2
    assert nesting_depth("no tags") == 0


def test_shallow_pages_are_left_alone():
    html = "<div>" * 50 + "text" + "</div>" * 50
    assert cap_nesting(html, max_depth=100) == (html, False)


def test_deep_nesting_is_flattened_and_keeps_its_text():
    html = "<html><body>" + "<div class=x>" * 3000 + "deep text" + "</div>" * 3000 + "<p>after"
    capped, changed = cap_nesting(html, max_depth=100)
    assert changed and nesting_depth(capped) == 100
    assert "deep text" in capped and capped.endswith("<p>after")
    assert capped.count("<div") == capped.count("</div>")
    result = Extractor()(capped)
    assert "deep text" in result.text and "after" in result.text


def test_unclosed_deep_nesting_is_flattened():
    capped, changed = cap_nesting("<span>" * 5000 + "words", max_depth=10)
    assert changed and capped == "<span>" * 10 + "words"


TRICKY = [
    "<div><p>a<p>b<br><img src=x><span>c</span></div>",
    "<DIV><Span>é</SPAN></div><div title='<div>'>x</div></div></div><span>",
    "<div>ſ<ſpan><di\u00e9v>中文</p></li></ div>< div><!-- <div> --></>",
    "<span>" * 40 + "<P>" * 40 + "</span>" * 3 + "<b>" * 20,
]


def test_bytes_give_the_same_depth_and_cap_as_the_text():
    for html in TRICKY:
        utf8 = html.encode("utf-8")
        assert nesting_depth(utf8) == nesting_depth(html)
        for max_depth in (0, 1, 3, 10, 50):
            assert cap_nesting(html, max_depth, utf8=utf8) == cap_nesting(html, max_depth)


def test_depth_stops_at_zero_when_closing_tags_outnumber_opening_ones():
    assert nesting_depth("</div></div><div><div>x") == 2
    assert nesting_depth(b"</div></div><div><div>x") == 2


def test_tags_inside_scripts_styles_and_comments_do_not_count_as_nesting():
    """Inline JSON state full of ``<a>`` is script text to the parser: the page is not
    flattened, and its script still ends where it did (the article after it is kept)."""
    state = '<script type="application/json">{"s": "' + "<a>" * 20_000 + '"}</script>'
    hidden = "<!-- " + "<div>" * 20_000 + " --><style>" + "<b>" * 20_000 + "</style>"
    html = f"<html><body>{state}{hidden}<main><p>The article.</p></main></body></html>"
    assert cap_nesting(html) == (html, False)
    assert cap_nesting(html, utf8=html.encode()) == (html, False)


def test_deep_nesting_next_to_a_script_is_flattened_and_the_script_does_not_swallow_the_rest():
    html = (
        "<html><body><script>var s = '" + "<a>" * 6000 + "';</script>"
        + "<div>" * 6000 + "<p>deep text</p>" + "</div>" * 6000 + "<p>after</p></body></html>"
    )  # fmt: skip
    flat, flattened = cap_nesting(html)
    assert flattened and nesting_depth(flat) <= MAX_NESTING
    assert (
        "<script" not in flat
        and "deep text" in flat
        and flat.endswith("<p>after</p></body></html>")
    )


def _depth_by_regex(html: str) -> int:
    """A plain reference: ``_TAG``'s matches, skipped names left out, walked in Python; a
    closing tag closes a level only while an element of its name is open."""
    from transforms.extract.limits import _LEAVE_FOREIGN, _NOT_COUNTED, _TAG

    depth = deepest = 0
    open_by_name: dict[str, int] = {}
    in_foreign = False  # inside <svg> or <math>, where a self-closing tag opens nothing
    for match in _TAG.finditer(html):
        name = match.group(2).lower()
        self_closing = match.group(0).endswith("/>")
        if name in ("svg", "math"):
            in_foreign = (not match.group(1) and not self_closing) or (
                in_foreign and not match.group(1)
            )
        elif name in _LEAVE_FOREIGN or len(name) > 8:
            in_foreign = False
        if name in _NOT_COUNTED or (self_closing and in_foreign):
            continue
        if not match.group(1):
            open_by_name[name] = open_by_name.get(name, 0) + 1
            depth += 1
        elif open_by_name.get(name):
            open_by_name[name] -= 1
            depth -= 1
        deepest = max(deepest, depth)
    return deepest


def test_nesting_depth_finds_the_tags_a_regex_finds_in_any_tag_soup():
    import random

    rng = random.Random(7)
    names = ["div", "DIV", "p", "P", "pa", "li", "link", "LINK", "br", "br-x", "a", "x1",
             "tbody", "td", "colgroup", "colgroupx", "Optgroup", "lınk", "ß", "1a", "",
             "custom-element", "Custom-Elemenx", "custom-element2", "x-" + "y" * 70,
             "svg", "SVG", "math", "path", "desc", "foreignObject", "b"]  # fmt: skip
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(0, 30)):
            if rng.random() < 0.6:
                parts.append(
                    "<" + rng.choice(["", "/", "//", " "]) + rng.choice(names)
                    + rng.choice(["", " ", " a='<div>'", "/", "\n", "<", "é", "<p"])
                    + rng.choice([">", "", ">>"])
                )  # fmt: skip
            else:
                parts.append(rng.choice(["x", "é", "<", ">", "<!-- -->", "日本", " ", "\ud800"]))
        html = "".join(parts)
        expected = _depth_by_regex(html)
        assert nesting_depth(html) == expected, html
        assert nesting_depth(html.encode("utf-8", "surrogatepass")) == expected, html
