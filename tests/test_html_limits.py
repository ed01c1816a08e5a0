from transforms.extract import Extractor
from transforms.html_limits import cap_nesting, nesting_depth


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
