"""The extractor on small hand-made pages."""

from transforms.extract import Extracted, Extractor, extract


def page(body: str, title: str = "T", head: str = "") -> str:
    return f"<!doctype html><html lang='en'><head><title>{title}</title>{head}</head><body>{body}</body></html>"


def test_blocks_are_separated_by_blank_lines_and_list_items_by_lines():
    html = page(
        "<article><h2>Head</h2><p>One <b>bold</b> para.</p><ul><li>a</li><li>b</li></ul></article>"
    )
    assert extract(html).text == "Head\n\nOne bold para.\n\na\nb"


def test_br_is_a_line_break_and_whitespace_is_collapsed():
    assert extract(page("<main><p>x  \n y<br>z</p></main>")).text == "x y\nz"


def test_pre_is_verbatim():
    text = extract(
        page("<main><p>Code:</p><pre><code>def f():\n    return  1\n</code></pre></main>")
    ).text
    assert text == "Code:\n\ndef f():\n    return  1"


def test_table_rows_are_lines_with_cells_separated():
    html = page(
        "<main><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></main>"
    )
    assert extract(html).text == "k | v\na | 1"


def test_entities_are_unescaped():
    assert (
        extract(page("<main><p>a &amp; b &lt;c&gt; &eacute; &#8212;</p></main>")).text
        == "a & b <c> é —"
    )


def test_boilerplate_is_dropped_in_main_mode_but_kept_in_full_mode():
    html = page(
        "<nav>Menu</nav><main><p>Body text</p></main><footer>Foot</footer><script>x=1</script>"
    )
    assert extract(html).text == "Body text"
    full = extract(html, mode="full").text
    assert "Menu" in full and "Body text" in full and "Foot" in full and "x=1" not in full


def test_bytes_and_str_give_the_same_result():
    html = page("<main><p>Ünïcödé text</p></main>")
    assert extract(html.encode("utf-8")) == extract(html)
    latin = page("<main><p>café</p></main>").replace("<head>", "<head><meta charset='iso-8859-1'>")
    assert extract(latin.encode("latin-1")).text == "café"


def test_caps_set_the_truncated_flag():
    html = page("<main>" + "<p>word</p>" * 100 + "</main>")
    assert not extract(html).truncated
    assert Extractor(max_html_chars=200)(html).truncated
    small = Extractor(max_nodes=20)(html)
    assert small.truncated and small.text.count("word") < 20


def test_result_type_and_language():
    result = extract(page("<main><p>x</p></main>"))
    assert isinstance(result, Extracted) and result.language == "en"
