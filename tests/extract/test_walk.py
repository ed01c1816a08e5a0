"""The compiled walk (``transforms.extract.walk``) against selectolax's own Python API.

The module reads Lexbor's structures directly, with layouts it declares itself (see its
docstring), so every function is compared here with what selectolax's API gives on thousands
of generated pages: random nesting of the tags the extractor cares about and of others (custom
elements, SVG), attributes in every case and spelling the walk reads (valueless, upper-case,
names longer than Lexbor keeps inline), and text with every kind of whitespace Python strips,
CJK, emoji and entities. A selectolax built with other layouts fails here.
"""

from __future__ import annotations

import random
import re

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from transforms.extract import walk
from transforms.extract.boilerplate import _LIST_OF, GUARDED_TAGS, HIDDEN_SELECTOR, sort_elements
from transforms.extract.layout import (
    _BR,
    _CELL,
    _KIND_OR_PRE,
    _LINE,
    BLANK,
    CELL,
    LINE,
    PRE,
    PRE_SPACE,
    PRE_TAB,
    _protect_pre,
    layout,
)
from transforms.extract.prose import holds_prose, is_prose
from transforms.extract.scoring import LinkStats
from transforms.extract.tree import Tree

PAGES = 2000

TAGS = [
    "div",
    "p",
    "span",
    "a",
    "b",
    "i",
    "em",
    "strong",
    "ul",
    "ol",
    "li",
    "table",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
    "dl",
    "dt",
    "dd",
    "pre",
    "code",
    "br",
    "h1",
    "h2",
    "h3",
    "section",
    "article",
    "aside",
    "nav",
    "footer",
    "header",
    "main",
    "form",
    "label",
    "button",
    "select",
    "option",
    "input",
    "textarea",
    "figure",
    "figcaption",
    "blockquote",
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "iframe",
    "object",
    "rt",
    "rp",
    "ruby",
    "font",
    "center",
    "hr",
    "dialog",
    "menu",
    "search",
    "x-widget",
    "my-element",
]
VOID = {"br", "hr", "input"}
WORDS = [
    "alpha", "beta", "Ünïcode", "中文字符", "日本語", "한국어", "emoji😀", "&amp;", "&nbsp;", "&lt;b&gt;",
    "tab\there", "line\nbreak", "cr\r\nlf", "\xa0nbsp\xa0", "\u3000ideo\u3000", "\u2003em\u2003",
    "\x1cfs\x1f", "\x85nel", "\u200bzw", "\u2028ls\u2029", "   ", "\n\n", "\t",
    " " * 17, "\n" + " " * 12 + "\xa0", "\t" + " " * 9,  # (indentation: read 8 bytes at a time)
]  # fmt: skip
ATTRIBUTES = [
    ("class", ["menu", "article-body", "related posts", "", None]),
    ("CLASS", ["upper"]),
    ("id", ["main", "comments", "x" * 20, None]),
    ("style", ["display:none", "DISPLAY: NONE", "display : none", "color:red", "visibility:hidden",
               "x;display:none;y", None]),
    ("hidden", [None, "", "hidden"]),
    ("aria-hidden", ["true", "TRUE", "false", None]),
    ("role", ["navigation", "dialog", "main", None]),
    ("itemprop", ["articleBody", "ARTICLEBODY", "articlebody x", "comment", None]),
    ("itemtype", ["https://schema.org/Comment", None]),
    ("href", ["/a", "#top", None]),
    ("data-a-very-long-attribute-name", ["x", None]),
    ("start", ["3"]),
]  # fmt: skip


def _attributes(rng: random.Random) -> str:
    parts = []
    for name, values in rng.sample(ATTRIBUTES, rng.randint(0, 3)):
        value = rng.choice(values)
        parts.append(name if value is None else f'{name}="{value}"')
    return (" " + " ".join(parts)) if parts else ""


def _content(rng: random.Random, depth: int) -> str:
    out = []
    for _ in range(rng.randint(1, 5)):
        if depth < 6 and rng.random() < 0.6:
            tag = rng.choice(TAGS)
            attrs = _attributes(rng)
            if tag in VOID:
                out.append(f"<{tag}{attrs}>")
            else:
                closing = f"</{tag}>" if rng.random() < 0.9 else ""
                out.append(f"<{tag}{attrs}>{_content(rng, depth + 1)}{closing}")
        elif rng.random() < 0.1:
            out.append("<!-- a comment -->")
        else:
            out.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))))
    return "".join(out)


def generated_pages(count: int = PAGES, seed: int = 22) -> list[str]:
    rng = random.Random(seed)
    return [f"<html><body{_attributes(rng)}>{_content(rng, 0)}</body></html>" for _ in range(count)]


@pytest.fixture(scope="module")
def pages() -> list[str]:
    return generated_pages()


def _nodes(body: LexborNode) -> list[LexborNode]:
    return list(body.traverse(include_text=True))


def test_size_and_own_size_count_what_text_strip_gives(pages):
    compared = 0
    for page in pages:
        body = LexborHTMLParser(page).body
        for node in _nodes(body):
            assert walk.size(node) == len(node.text(strip=True, skip_empty=True)), page
            assert walk.own_size(node) == len(node.text(deep=False, strip=True)), page
            compared += 1
    assert compared > 50_000


def test_sort_body_finds_the_tags_the_hidden_and_the_marked_as_css_does(pages):
    for page in pages:
        body = LexborHTMLParser(page).body
        elements = sort_elements(body)
        for index, found in enumerate(elements[:3]):
            wanted = [n for n in body.traverse() if _LIST_OF.get(n.tag_id) == index]
            if index == 2:  # containers: forms, headers, and the others with attributes
                wanted = [n for n in wanted if n.attributes or n.tag in GUARDED_TAGS]
            assert [n.mem_id for n in found] == [n.mem_id for n in wanted], page
        hidden, marked = elements.hidden, elements.article_body
        by_css = [n.mem_id for n in body.css(HIDDEN_SELECTOR)]
        by_css = [m for i, m in enumerate(by_css) if i == 0 or by_css[i - 1] != m]  # once each
        assert [n.mem_id for n in hidden] == by_css, page
        assert [n.mem_id for n in marked] == [
            n.mem_id for n in body.css('[itemprop="articleBody" i]')
        ], page


def test_sort_elements_gives_nodes_selectolax_can_use():
    body = LexborHTMLParser("<body><div id=a><script>x</script><nav>n</nav></div></body>").body
    elements = sort_elements(body)
    (div,) = elements.containers
    assert div.attributes == {"id": "a"} and div.parent.tag == "body"
    elements.stripped[0].decompose()
    assert div.html == '<div id="a"><nav>n</nav></div>'


def test_attribute_values_are_those_of_attributes(pages):
    names = ("class", "id", "style", "hidden", "aria-hidden", "role", "itemprop", "href",
             "data-a-very-long-attribute-name", "absent")  # fmt: skip
    for page in pages[:500]:
        nodes = list(LexborHTMLParser(page).body.traverse(include_text=True))
        for node, values in zip(nodes, walk.attribute_values(nodes, names), strict=True):
            attrs = node.attributes
            if not attrs:
                assert values is None, page
                continue
            wanted = tuple(None if name not in attrs else (attrs[name] or "") for name in names)
            assert values == wanted, page


def _add_by_parents(tree: Tree, node: LexborNode) -> int:
    """What ``Tree.add`` did: ``node``'s chain of parents recorded up to a known element."""
    first = nid = node.mem_id
    chain = []
    while nid not in tree.parent_of:
        tree.nodes[nid] = node
        up = node.parent
        pid = up.mem_id if up is not None else None
        tree.parent_of[nid] = pid
        chain.append(nid)
        if up is None:
            nid = None
            break
        node, nid = up, pid
    if chain:
        tree.order.extend(reversed(chain))
    return first


def _link_stats_by_css(body: LexborNode) -> Tree:
    """What LinkStats recorded before the walk did it: ``css("a")`` and ``Tree.add``."""
    tree = Tree(body)
    tree.own_chars, tree.own_count = {}, {}
    for link in body.css("a"):
        n = len(link.text(strip=True))
        if n:
            nid = _add_by_parents(tree, link)
            tree.own_chars[nid] = tree.own_chars.get(nid, 0) + n
            tree.own_count[nid] = tree.own_count.get(nid, 0) + 1
    return tree


def test_link_stats_records_what_css_tree_add_and_a_sum_up_recorded(pages):
    """The walk against LinkStats as it was: ``css("a")`` and ``Tree.add`` for each link
    with text, then each element's sums added to its parent's, children first."""
    for page in pages:
        body = LexborHTMLParser(page).body
        wanted = _link_stats_by_css(body)
        chars, count = dict(wanted.own_chars), dict(wanted.own_count)
        for nid in reversed(wanted.order):
            pid = wanted.parent_of[nid]
            if pid is not None:
                chars[pid] = chars.get(pid, 0) + chars[nid]
                count[pid] = count.get(pid, 0) + count[nid]
        stats = LinkStats(body)
        assert stats.parent_of == wanted.parent_of, page
        assert stats.link_chars == chars and stats.link_count == count, page
        assert sorted(stats.order) == sorted(wanted.order) and stats.order[0] == body.mem_id
        seen = set()
        for nid in stats.order:  # parents before children
            assert stats.parent_of[nid] is None or stats.parent_of[nid] in seen, page
            seen.add(nid)
        for nid, node in wanted.nodes.items():  # (made when asked for)
            assert stats.nodes[nid].mem_id == node.mem_id == nid, page
            assert stats.nodes[nid].tag_id == node.tag_id, page


def _marked_by_insertion(root: LexborNode) -> str:
    """The text of ``root`` marked as ``layout`` did it before the walk: a marker text node
    inserted into the tree around each element below ``root`` that starts a block, a line or a
    cell (``root`` itself only when it is a ``<br>`` or a ``<pre>``)."""
    marked = [(n, k) for n in root.traverse() if (k := _KIND_OR_PRE.get(n.tag_id))]
    for node, kind in marked:
        if node.mem_id == root.mem_id and kind not in (_BR, PRE):
            continue
        if kind is _CELL:
            node.insert_before(kind)
        elif kind is _BR:
            node.replace_with(_LINE)
        elif kind is PRE:
            if node.parent is not None:
                _protect_pre(node)
        else:
            node.insert_before(kind)
            node.insert_after(kind)
    return root.text(deep=True)


def test_layout_reads_as_the_markers_inserted_into_the_tree_read(pages):
    for page in pages:
        for pick in (0, 1, 2):
            old, new = LexborHTMLParser(page), LexborHTMLParser(page)
            roots = [list(tree.body.traverse()) for tree in (old, new)]
            index = 0 if pick == 0 else (len(roots[0]) * pick) // 3
            old_root, new_root = roots[0][index], roots[1][index]
            wanted = _render_by_string_passes(_marked_by_insertion(old_root))
            assert layout(new_root) == wanted, (page, index)


def test_layout_leaves_no_marker_in_the_tree():
    """A root laid out, then set apart (a comment thread), leaves nothing in the tree for the
    next rendering, or Markdown, to read."""
    tree = LexborHTMLParser("<body><div><p>one</p><table><tr><td>a</td></tr></table></div></body>")
    for root in (tree.css_first("p"), tree.css_first("td"), tree.css_first("div")):
        layout(root)
    tree.css_first("p").decompose()
    assert tree.body.text() == "a"


# The layout's rendering as str operations: what walk.render must give.
_CELL_RUN = re.compile(f"{CELL}{CELL}+")
_LINE_RUN = re.compile(f"{LINE}{LINE}+")
_BLANK_RUN = re.compile("\n\n\n+")


def _render_by_string_passes(text: str) -> str:
    text = " ".join(text.split())
    if CELL in text:
        text = _CELL_RUN.sub(CELL, text.replace(" " + CELL, CELL).replace(CELL + " ", CELL))
        text = text.replace(LINE + CELL, LINE).replace(CELL + LINE, LINE)
        text = text.strip(CELL).replace(CELL, " | ")
    text = text.replace(" " + LINE, LINE).replace(LINE + " ", LINE)
    text = _LINE_RUN.sub(LINE, text.replace(LINE + LINE, LINE))
    text = text.replace(LINE, "\n").replace(BLANK, "\n")
    text = _BLANK_RUN.sub("\n\n", text).strip()
    return text.replace(PRE_SPACE, " ").replace(PRE_TAB, "\t")


def test_render_is_the_string_passes():
    alphabet = ["a", "b", " ", "\t", "\n", "\r", "\xa0", "\u3000", "\x1c", "|", "é", "中", "😀",
                BLANK, LINE, CELL, PRE_SPACE, PRE_TAB, LINE + BLANK + LINE]  # fmt: skip
    rng = random.Random(21)
    for _ in range(30_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert walk.render(text) == _render_by_string_passes(text), repr(text)


def test_render_of_corpus_like_pages(pages):
    for page in pages:
        body = LexborHTMLParser(page).body
        text = _marked_by_insertion(body)
        assert walk.render(text) == _render_by_string_passes(text)


def _holds_prose_by_text(node: LexborNode) -> bool:
    """``prose.holds_prose`` before the walk: the own text of each holder, built and weighed."""
    holders = "p, div, td, dd, li, blockquote, pre, section, article, span, font"
    return any(is_prose(e.text(deep=False, strip=True)) for e in (node, *node.css(holders)))


def _prose_pages(count: int, seed: int = 60) -> list[str]:
    """Pages whose blocks hold 0-300 characters of Latin, CJK and every kind of whitespace
    (U+3000 is both CJK and whitespace), around the thresholds of a paragraph of prose."""
    pieces = [
        "a",
        "word ",
        "中",
        "文字",
        "한",
        "\u3000",
        "\xa0",
        " ",
        "\n",
        "é",
        "😀",
        "ｶ",
        "&nbsp;",
    ]
    rng = random.Random(seed)
    pages = []
    for _ in range(count):
        blocks = []
        for _ in range(rng.randint(1, 6)):
            tag = rng.choice(["p", "div", "span", "td", "b", "section", "x-box"])
            size = rng.choice([10, 50, 59, 60, 61, 70, 85, 86, 90, 199, 200, 201, 300])
            text = "".join(rng.choice(pieces) for _ in range(size))
            inner = f"<i>{text[: size // 3]}</i>" if rng.random() < 0.3 else ""
            blocks.append(f"<{tag}>{text}{inner}{text[size // 2 :]}</{tag}>")
        pages.append(f"<body><div>{''.join(blocks)}</div></body>")
    return pages


def test_holds_prose_weighs_the_own_text_as_is_prose_does():
    checked = 0
    for page in _prose_pages(1500):
        for node in LexborHTMLParser(page).body.traverse():
            assert holds_prose(node) == _holds_prose_by_text(node), page
            checked += 1
    assert checked > 5000


def test_the_tags_of_the_id_tables_have_the_same_id_in_every_document():
    """The tables are keyed by Lexbor's tag id: right only for the names Lexbor numbers
    statically (a name it does not know gets an id of its own in each document)."""
    from transforms.extract import (
        boilerplate,
        extractor,
        layout,
        markdown,
        prose,
        scoring,
        shadow,
        title,
    )

    tables = [boilerplate._LIST_OF, layout._KIND_OR_PRE, scoring._LINK_LIST_IDS,
              scoring._TEXT_BLOCK_IDS, markdown._BLOCKS, boilerplate._INVISIBLE_IDS,
              scoring._NOT_IN_LEAD_IDS, scoring._NOT_LEAD_IDS, boilerplate._SECTIONING_IDS,
              boilerplate._SECTION_CONTENT_IDS, boilerplate._NOSCRIPT_CONTENT_IDS,
              {boilerplate._ARTICLE, scoring._ARTICLE, scoring._BODY, scoring._P, shadow._TEMPLATE,
               extractor._H1}]  # fmt: skip
    ids = {tag_id for table in tables for tag_id in table}
    ids |= {i for i, on in enumerate(prose._HOLDER_TABLE) if on}
    ids |= {i for i, on in enumerate(title._HEAD_TABLE) if on}
    fresh = LexborHTMLParser("<p></p>").css_first("p")
    for tag_id in ids:
        assert tag_id < 0x10000  # static ids are small; others are addresses
    assert fresh.tag_id in ids


def test_attached_are_the_nodes_with_a_parent_after_removals(pages):
    for page in pages[:500]:
        body = LexborHTMLParser(page).body
        nodes = list(body.traverse(include_text=True))
        for node in random.Random(page).sample(nodes, min(len(nodes), 3)):
            if node.mem_id != body.mem_id and node.parent is not None:
                node.decompose()
        wanted = [n.mem_id for n in nodes if n.parent is not None]
        assert [n.mem_id for n in walk.attached(nodes)] == wanted


def _pending_in_python(nodes, main, relaxed):
    """drop_boilerplate's first pass as it was written in Python, on ``attribute_values``."""
    from transforms.extract import boilerplate as bp

    names = ("hidden", "aria-hidden", "style", "role", "class", "id", "itemtype", "itemprop")
    pending, dialogs = [], set()
    for node, values in zip(nodes, walk.attribute_values(nodes, names), strict=True):
        if values is None:
            if main and node.tag_id in bp._GUARDED_IDS:
                pending.append((node, None))
            continue
        hidden, aria_hidden, style, role, class_, id_, itemtype, itemprop = values
        if (
            not relaxed
            and (
                hidden is not None
                or aria_hidden == "true"
                or (style is not None and bp._DISPLAY_NONE.search(style))
            )
            or main
            and (node.tag_id in bp._GUARDED_IDS or role in bp.BOILERPLATE_ROLES)
        ):
            pending.append((node, None))
            if main and role in bp.DIALOG_ROLES:
                dialogs.add(node.mem_id)
        elif main and (class_ is not None or id_ is not None or itemtype is not None):
            name = f"{class_ or ''} {id_ or ''}"
            schema = itemtype or itemprop
            if schema and bp._SCHEMA_COMMENT.search(schema):
                name += " comment"
            pending.append((node, name))
    return pending, dialogs


def test_boilerplate_pending_is_the_python_pass(pages):
    from transforms.extract import boilerplate as bp

    extra = ['<div role="alertdialog" class="x" itemprop="comments">a</div>',
             '<form role="complementary" style="">b</form>', '<header role="">c</header>',
             '<aside itemtype="" itemprop="comment" id="">d</aside>']  # fmt: skip
    seen = set()
    for page in pages[:1000] + [f"<body>{''.join(extra)}</body>"]:
        body = LexborHTMLParser(page).body
        nodes = [n for n in body.traverse() if n.tag != "-text"]
        for main, relaxed in ((True, False), (True, True), (False, False)):
            args = (bp._GUARDED_TABLE, main, relaxed, bp.BOILERPLATE_ROLES, bp.DIALOG_ROLES)
            args += (bp._DISPLAY_NONE.search, bp._SCHEMA_COMMENT.search)
            pending, dialogs = walk.boilerplate_pending(nodes, *args)
            expected, expected_dialogs = _pending_in_python(nodes, main, relaxed)
            assert [(n.mem_id, name) for n, name in pending] == [
                (n.mem_id, name) for n, name in expected
            ], page
            assert dialogs == expected_dialogs, page
            seen |= {name is None for _, name in pending} | {bool(dialogs) + 2}
    assert seen == {True, False, 2, 3}  # both kinds of candidates, with and without dialogs


def _marker_pages(count: int, seed: int = 83) -> list[str]:
    """Generated pages with the layout's marker characters (literal and as references) and
    their neighbours in their text."""
    rng = random.Random(seed)
    near = ["\ufdcf", "\ufdd5", "\ufdef", "\uff0c", "\u07f0", "&#xFDD0;", "&#64978;"]
    words = WORDS + near + [BLANK, LINE, CELL, PRE_SPACE, PRE_TAB]
    out = []
    for _ in range(count):
        saved = WORDS[:]
        WORDS[:] = words if rng.random() < 0.5 else WORDS + near
        try:
            out.append(f"<html><body>{_content(rng, 0)}</body></html>")
        finally:
            WORDS[:] = saved
    return out


def test_size_and_markers_is_the_size_and_a_search_of_the_text(pages):
    markers = (BLANK, LINE, CELL, PRE_SPACE, PRE_TAB)
    held = 0
    for page in pages[:500] + _marker_pages(1000):
        body = LexborHTMLParser(page).body
        for node in [body, *body.traverse(include_text=True)][:50]:
            wanted = (
                len(node.text(strip=True, skip_empty=True)),
                any(m in node.text() for m in markers),
            )
            assert walk.size_and_markers(node) == wanted, page
            held += wanted[1]
    assert held > 1000


def _refine_by_tree(root: LexborNode, links: LinkStats) -> LexborNode:
    """``scoring.refine_to_prose`` with the ``<p>`` found by CSS and summed up a ``Tree``."""
    from transforms.extract.scoring import _TEXT_BLOCK_IDS, PROSE_SHARE

    tree = Tree(root)
    own: dict[int, float] = {}
    total = 0.0
    for p in root.css("p"):
        w = walk.size(p) - links.link_chars.get(p.mem_id, 0)
        if w > 0:
            own[_add_by_parents(tree, p)] = w
            total += w
    if total <= 0.5 * links.weight(root):
        return root
    sums = dict(own)
    for nid in reversed(tree.order):
        value, pid = sums.get(nid), tree.parent_of[nid]
        if value and pid is not None:
            sums[pid] = sums.get(pid, 0.0) + value

    def depth(nid: int) -> int:  # below the root
        steps = 0
        while tree.parent_of[nid] is not None:
            nid, steps = tree.parent_of[nid], steps + 1
        return steps

    best, best_depth = root, 0
    for nid, w in sums.items():
        if w >= PROSE_SHARE * total and depth(nid) > best_depth:
            best, best_depth = tree.nodes[nid], depth(nid)
    while best.tag_id in _TEXT_BLOCK_IDS and best.parent is not None:
        best = best.parent
    return best


def _prose_tree_pages(count: int, seed: int = 97) -> list[str]:
    """Generated pages of nested boxes with paragraphs of several lengths, links in them,
    and paragraphs nested in paragraphs (through a ``<button>``)."""
    rng = random.Random(seed)
    sentence = "A sentence of prose that goes on for a while. "

    def box(depth: int) -> str:
        out = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if depth < 5 and r < 0.45:
                tag = rng.choice(["div", "section", "article", "main", "span", "td"])
                out.append(f"<{tag}>{box(depth + 1)}</{tag}>")
            elif r < 0.8:
                text = sentence * rng.randint(0, 6)
                if rng.random() < 0.3:
                    text += f"<a href=/x>{'link text ' * rng.randint(1, 30)}</a>"
                if rng.random() < 0.05:
                    text += f"<button><p>{sentence * rng.randint(1, 3)}</p></button>"
                out.append(f"<p>{text}</p>")
            else:
                out.append(f"<a href=/y>{'menu ' * rng.randint(1, 8)}</a>")
        return "".join(out)

    return [f"<html><body>{box(0)}</body></html>" for _ in range(count)]


def test_refine_to_prose_is_the_python_sum_up_a_tree(pages):
    from transforms.extract.scoring import refine_to_prose

    refined = 0
    for page in pages[:500] + _prose_tree_pages(1500):
        body = LexborHTMLParser(page).body
        links = LinkStats(body)
        for root in (body, *body.css("div, section, p")[:4]):
            wanted = _refine_by_tree(root, links)
            found = refine_to_prose(root, links)
            assert found.mem_id == wanted.mem_id, page
            refined += wanted.mem_id != root.mem_id
    assert refined > 300


def test_holds_tag_is_a_traversal_below_the_node(pages):
    from transforms.extract.scoring import _NOT_IN_LEAD, _NOT_IN_LEAD_TABLE

    held = 0
    for page in pages[:1000]:
        body = LexborHTMLParser(page).body
        for node in [body, *body.traverse()][:60]:
            inside = node.traverse()
            next(inside)  # the node itself
            wanted = any(element.tag in _NOT_IN_LEAD for element in inside)
            assert walk.holds_tag(node, _NOT_IN_LEAD_TABLE) == wanted, page
            held += wanted
    assert held > 1000


def test_within_is_the_python_pass_over_the_tree(pages):
    for page in pages[:500]:
        body = LexborHTMLParser(page).body
        links = LinkStats(body)
        for root in [body, *body.traverse()][:20]:
            wanted = set()
            if root.mem_id in links.parent_of:
                wanted = {root.mem_id}
                for nid in links.order:
                    if links.parent_of[nid] in wanted:
                        wanted.add(nid)
            assert links.within(root.mem_id) == wanted, page


def test_holds_tag_finds_what_css_finds_below_a_noscript(pages):
    from transforms.extract.boilerplate import _NOSCRIPT_CONTENT, _NOSCRIPT_CONTENT_TABLE

    held = 0
    for page in pages:
        body = LexborHTMLParser(page).body
        for node in [*body.css("noscript, div, svg, object, section")][:30]:
            wanted = any(n.mem_id != node.mem_id for n in node.css(_NOSCRIPT_CONTENT))
            assert walk.holds_tag(node, _NOSCRIPT_CONTENT_TABLE) == wanted, page
            if node.tag == "noscript":
                assert wanted == (node.css_first(_NOSCRIPT_CONTENT) is not None), page
                held += wanted
    assert held > 100


def _choose_root_in_python(body: LexborNode, links: LinkStats, body_size=None) -> LexborNode:
    """``scoring.choose_root`` with its descent written in Python over ``iter()``."""
    from transforms.extract.scoring import _TEXT_BLOCK_IDS, ROOT_SHARE

    node_size = links.size(body) if body_size is None else body_size
    links.sizes[body.mem_id] = node_size
    total = links.weight(body, node_size)
    if total <= 0:
        return body
    threshold = ROOT_SHARE * total
    node, node_weight = body, total
    while True:
        remaining, chosen = node_weight, None
        children = list(node.iter())
        last, before = len(children) - 1, 0
        for i, child in enumerate(children):
            if i == last:
                n = links.sizes[child.mem_id] = node_size - before - walk.own_size(node)
            else:
                n = links.size(child)
            before += n
            w = links.weight(child, n)
            if w >= threshold:
                chosen, node_weight, node_size = child, w, n
                break
            remaining -= w
            if remaining < threshold:
                break
        if chosen is None:
            break
        node = chosen
    while node.tag_id in _TEXT_BLOCK_IDS and node.parent is not None:
        node = node.parent
    return node


def test_choose_root_is_the_python_descent(pages):
    from transforms.extract.scoring import choose_root

    descended = 0
    for page in pages[:1000] + _prose_tree_pages(1000, seed=98):
        for shift in (None, 0, 7):
            ours, theirs = LexborHTMLParser(page).body, LexborHTMLParser(page).body
            ours_links, theirs_links = LinkStats(ours), LinkStats(theirs)
            body_size = None if shift is None else walk.size(ours) + shift
            got = choose_root(ours, ours_links, body_size)
            wanted = _choose_root_in_python(theirs, theirs_links, body_size)
            # the same node and the same sizes memoised, by place in the document
            place = {n.mem_id: i for i, n in enumerate(ours.traverse(include_text=True))}
            their_place = {n.mem_id: i for i, n in enumerate(theirs.traverse(include_text=True))}
            assert place[got.mem_id] == their_place[wanted.mem_id], page
            assert {place[k]: v for k, v in ours_links.sizes.items()} == {
                their_place[k]: v for k, v in theirs_links.sizes.items()
            }, page
            descended += got.mem_id != ours.mem_id
    assert descended > 500


def _first_above_in_python(tree, nid, doomed, threads, most):
    """``drop_boilerplate``'s look up a ``Tree`` as it was written in Python."""
    up, steps = tree.parent_of.get(nid), 0
    while up is not None and up not in doomed and up not in threads:
        up, steps = tree.parent_of.get(up), steps + 1
        if steps > most:
            return -1
    return up


def test_first_above_is_the_python_look_up_the_tree(pages):
    found = 0
    for page in pages[:500]:
        body = LexborHTMLParser(page).body
        tree, rng = Tree(body), random.Random(page)
        for root in [body, *body.css("div")[:2]]:
            tree = Tree(root)
            nodes = list(root.traverse())[1:]
            if not nodes:
                continue
            ids = [_add_by_parents(tree, node) for node in nodes]
            by_id = dict(zip(ids, nodes, strict=True))
            for _ in range(20):
                doomed = dict.fromkeys(rng.sample(ids, min(len(ids), rng.randint(0, 3))))
                threads = dict.fromkeys(rng.sample(ids, min(len(ids), rng.randint(0, 2))))
                nid, most = rng.choice(ids), rng.choice([0, 1, 3, 256])
                wanted = _first_above_in_python(tree, nid, doomed, threads, most)
                got = walk.first_above(by_id[nid], root, doomed, threads, most)
                assert got == wanted, page
                found += wanted not in (None, -1)
    assert found > 500


def _script_pages(count: int, seed: int = 31) -> list[str]:
    """Pages with scripts of every spelling of type in the head and the body."""
    rng = random.Random(seed)
    types = ['type="application/ld+json"', 'TYPE="Application/LD+JSON"', "type", 'type=""',
             'type="text/javascript"', "", 'id="x" type="application/ld+json" async']  # fmt: skip
    texts = [
        '{"headline": "A"}',
        '{"name": "B"}',
        "var x = 1;",
        '{"@type": "x", "headline": 2}',
        '{"@type": "QAPage"}',
    ]

    def scripts() -> str:
        return "".join(
            f"<script {rng.choice(types)}>{rng.choice(texts)}</script>"
            for _ in range(rng.randint(0, 4))
        )

    return [
        f"<html><head><title>t</title>{scripts()}<meta name=a content=b>{scripts()}</head>"
        f"<body>{scripts()}<p>x</p>{scripts()}</body></html>"
        for _ in range(count)
    ]


def test_read_head_and_json_ld_texts_find_what_css_and_attributes_find():
    from transforms.extract.comments import DISCUSSION_TYPES
    from transforms.extract.title import MAX_JSON_LD_CHARS, json_ld_texts, read_head

    def by_attributes(nodes):
        return [
            node.text()
            for node in nodes
            if node.tag == "script"
            and "ld+json" in (node.attributes.get("type") or "").lower()
            and ('"headline"' in node.text() or any(k in node.text() for k in DISCUSSION_TYPES))
            and len(node.text()) <= MAX_JSON_LD_CHARS
        ]

    found = 0
    for page in _script_pages(1000):
        tree = LexborHTMLParser(page)
        _, _, scripts = read_head(tree.head)
        assert [n.mem_id for n in scripts] == [n.mem_id for n in tree.head.css("script")]
        assert json_ld_texts(scripts) == by_attributes(tree.head.css("script")), page
        body_nodes = list(tree.body.traverse())
        assert json_ld_texts(body_nodes) == by_attributes(body_nodes), page
        found += len(json_ld_texts(scripts))
    assert found > 300


def _label_pages(count: int, seed: int = 41) -> list[str]:
    """Generated pages whose text nodes are also labels, calls to subscribe or for consent and
    skip links, in other capitalisations, spacings and lengths, whole and inside sentences."""
    from transforms.extract.boilerplate import (
        AD_LABELS,
        EMBED_CONSENTS,
        READ_ALSO_LABELS,
        SKIP_LINKS,
        SUBSCRIBE_CALLS,
    )

    rng = random.Random(seed)
    labels = [*READ_ALSO_LABELS, *AD_LABELS, *SUBSCRIBE_CALLS, *EMBED_CONSENTS]

    def variant(text: str) -> str:
        text = rng.choice([str, str.upper, str.title, str.capitalize])(text)
        text = text.replace(" ", rng.choice([" ", "  ", "\n\t", "\xa0", "\u3000"]))
        return rng.choice(["", " ", "\n  "]) + text + rng.choice(["", ":", " : ", "::", "x"])

    extra = [variant(rng.choice(labels)) for _ in range(400)]
    extra += [f"Before {variant(rng.choice(labels))} after" for _ in range(200)]
    extra += ["x" * 2000 + " " + variant(rng.choice(SUBSCRIBE_CALLS))]
    extra += [  # skip links, short and long, and their starts in sentences
        f'<a href="#{rng.choice(["main", "", "top"])}">{variant(rng.choice(SKIP_LINKS))}'
        f"{rng.choice(['', ' content', ' the main content of this page' * 3])}</a>"
        for _ in range(200)
    ]
    extra += [f"Before {variant(rng.choice(SKIP_LINKS))} after" for _ in range(50)]
    saved = WORDS[:]
    WORDS[:] = WORDS + extra
    try:
        return [f"<html><body>{_content(rng, 0)}</body></html>" for _ in range(count)]
    finally:
        WORDS[:] = saved


def _all_text(root: LexborNode, *_) -> str:
    """Every text node of ``root``, each run of whitespace one space, NUL between them."""
    return " ".join(root.text(separator="\x00").split())


def test_drop_labelled_on_the_label_candidates_drops_what_a_search_of_all_text_drops(
    pages, monkeypatch
):
    """``walk.label_candidates`` leaves out text nodes no label or call can be: whatever
    ``drop_labelled`` drops when it searches the whole text, it drops searching those."""
    from transforms.extract import boilerplate as b

    def dropped(page: str, index: int) -> tuple[int, str]:
        body = LexborHTMLParser(page).body
        root = [body, *body.traverse()][index]
        return b.drop_labelled(root), body.html

    searched = found = 0
    for page in pages[:300] + _label_pages(1500):
        for index in range(min(20, 1 + len(list(LexborHTMLParser(page).body.traverse())))):
            got = dropped(page, index)
            with monkeypatch.context() as patch:
                patch.setattr(walk, "label_candidates", _all_text)
                wanted = dropped(page, index)
            assert got == wanted, page
            searched += 1
            found += wanted[0] > 0
    assert found > 1000, (found, searched)
