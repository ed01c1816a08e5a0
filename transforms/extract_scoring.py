"""Main-content detection on a Lexbor tree.

1. **One pass over the elements** (``traverse()``, document order) collects what is never
   content: page furniture by tag (nav, aside, footer, forms, ...), by ARIA role, and by
   class/id words (generic, multilingual boilerplate vocabulary: share, related, comments,
   cookie, ...), plus the title sources. Tag-only furniture is dropped outright; elements
   matched by attributes (or a ``form``/``header``, which some sites wrap around everything)
   are dropped only if they hold less than half of the page's text.
2. **Link text per element.** Each link's text length is added to its ancestors (the parent
   chain is walked once per distinct element), so link density is known everywhere.
3. **Pick the root.** An element's weight is its text length, link text counting for little.
   The root is the deepest element holding at least two thirds of the body's weight: walking
   down from ``<body>`` into the child that holds that majority, if any. Articles end inside
   their body, forums, listings and product pages (many similar blocks) end at the blocks'
   container.
4. **Prune link lists** inside the root: lists and boxes that are mostly link text (related
   links, tag clouds, pagers).

The work per page is a handful of C calls (``text()``, ``traverse()``, ``css()``) and one
Python pass over the elements; no per-block CSS queries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborNode

# Tags that never hold main content.
FURNITURE_TAGS = frozenset(
    {"nav", "aside", "footer", "dialog", "menu", "button", "select", "input", "textarea", "figcaption",
     "label", "option", "datalist", "output", "search"}
)  # fmt: skip
# Tags that usually are furniture but that some sites wrap around the whole page.
GUARDED_TAGS = frozenset({"form", "header"})
BOILERPLATE_ROLES = frozenset(
    {"navigation", "complementary", "contentinfo", "banner", "search", "dialog", "alertdialog",
     "menu", "menubar", "toolbar"}
)  # fmt: skip

# Boilerplate vocabulary in class and id values, matched as substrings (words long enough not
# to occur inside content words) ...
BOILERPLATE_SUBSTRINGS = (
    "advert", "comments", "commentlist", "cookie", "consent", "disqus", "footer", "newsletter",
    "masthead", "navbar", "navigation", "pagination", "popup", "related", "sharing",
    "share-", "social", "sidebar", "signup", "subscribe", "byline", "author-bio", "skip-link",
    "skiplink", "toolbar", "recommend", "outbrain", "taboola", "modal", "overlay", "caption",
    "credit", "lightbox", "reviews",
    # the same ideas in other languages
    "werbung", "anzeige", "publicidad", "publicite", "pubblicita", "reklam", "kommentare",
    "commentaires", "comentarios", "commenti", "komentar", "verwandt", "teilen", "partage",
    "compartir", "condividi", "bewertungen", "opiniones", "recensioni",
)  # fmt: skip
# ... and short words matched only as whole words (between -, _ or spaces).
BOILERPLATE_WORDS = ("ad", "ads", "nav", "menu", "share", "tags", "pub", "print")

_BOILERPLATE = re.compile(
    "|".join(BOILERPLATE_SUBSTRINGS)
    + "|(?:^|[\\s_-])(?:"
    + "|".join(BOILERPLATE_WORDS)
    + ")(?:$|[\\s_-])"
)
_CACHE_MAX = 100_000
_boilerplate_cache: dict[str, bool] = {}


def is_boilerplate_name(value: str) -> bool:
    """Whether a class/id value holds a boilerplate word (memoised: values repeat a lot)."""
    hit = _boilerplate_cache.get(value)
    if hit is None:
        if len(_boilerplate_cache) >= _CACHE_MAX:  # bounded memory
            _boilerplate_cache.clear()
        hit = _boilerplate_cache[value] = bool(_BOILERPLATE.search(value.lower()))
    return hit


_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")

LINK_WEIGHT = 0.2  # a character of link text weighs this much of a character of prose
ROOT_SHARE = 2 / 3  # the root holds at least this share of the body's weight
LINK_LIST_TAGS = frozenset({"ul", "ol", "dl", "table", "div", "section", "p", "span"})
LINK_DENSITY_MAX = 0.6  # a box whose text is more than this share of links is a link list
TEXT_BLOCK_TAGS = frozenset(
    {"p", "li", "td", "th", "dd", "dt", "blockquote", "figcaption", "h1", "h2", "h3", "h4",
     "h5", "h6", "pre", "code", "a", "span", "b", "strong", "em", "i", "u", "small", "font",
     "tr", "tbody", "thead", "table"}
)  # fmt: skip


def size(node: LexborNode) -> int:
    """The length of an element's text without whitespace-only text nodes (source
    indentation) and without the spaces around each text node."""
    return len(node.text(strip=True))


def chars(text: str) -> int:
    """Text length without spaces and line breaks (source indentation does not count)."""
    return len(text) - text.count(" ") - text.count("\n") - text.count("\t") - text.count("\r")


@dataclass
class PageInfo:
    """What the pass over the elements found."""

    title: str = ""
    metas: dict[str, str] = field(default_factory=dict)
    h1s: list[str] = field(default_factory=list)


# Elements whose attributes are checked for boilerplate and hidden-ness (inline elements
# are not: they hold little text, and skipping them halves the pass).
CONTAINER_TAGS = ("div", "section", "article", "ul", "ol", "dl", "table", "p", "figure")
INVISIBLE_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "object", "embed")
_DROP_FULL = ", ".join(("h1",) + INVISIBLE_TAGS)
_HIDDEN_SELECTOR = (
    '[hidden], [aria-hidden="true"], [style*="display:none" i], [style*="display: none" i]'
)
_DROP_TAGS = frozenset(INVISIBLE_TAGS) | FURNITURE_TAGS
_DROP_MAIN = ", ".join(("h1",) + INVISIBLE_TAGS + tuple(sorted(FURNITURE_TAGS)))
_DROP_MAIN += ", " + _HIDDEN_SELECTOR
_BOILERPLATE_SELECTOR = ", ".join(CONTAINER_TAGS + tuple(sorted(GUARDED_TAGS)))


def scan_head(head: LexborNode | None, info: PageInfo) -> None:
    """The ``<title>`` text and the ``<meta>`` values (by lowercase property or name)."""
    if head is None:
        return
    for node in head.css("title, meta"):
        if node.tag == "title":
            info.title = info.title or node.text()
            continue
        attrs = node.attributes
        key = attrs.get("property") or attrs.get("name")
        if key and key.lower() not in info.metas:
            info.metas[key.lower()] = attrs.get("content") or ""


def drop_furniture(body: LexborNode, info: PageInfo, main: bool) -> int:
    """Drop what is never visible (scripts, styles, ...) and, in main mode, the furniture
    tags; collect the ``<h1>`` texts into ``info``. Returns the length of the text that was
    inside ``<noscript>`` (some apps render the page for crawlers there and nowhere else)."""
    doomed = []
    noscript_chars = 0
    limit = None
    for node in body.css(_DROP_MAIN if main else _DROP_FULL):
        tag = node.tag
        if tag == "h1":
            if len(info.h1s) < 3:
                info.h1s.append(node.text())
            continue
        if tag == "noscript":
            noscript_chars += size(node)
        if tag not in _DROP_TAGS:  # matched as hidden: keep it if it is most of the page
            if limit is None:
                limit = 0.5 * size(body)
            if size(node) >= limit:
                continue
        doomed.append(node)
    for node in reversed(doomed):  # descendants first: no node is used once freed
        node.decompose()
    return noscript_chars


def is_hidden(attrs: dict) -> bool:
    return (
        "hidden" in attrs
        or attrs.get("aria-hidden") == "true"
        or ("style" in attrs and bool(_DISPLAY_NONE.search(attrs["style"] or "")))
    )


CONTENT_WORDS = re.compile("article|body|column|content|main|entry|story")


def drop_boilerplate(root: LexborNode, main: bool = True, spare_content: bool = False) -> None:
    """Drop elements inside ``root`` that are hidden, or (main mode) have a boilerplate
    class/id word or role, or are a ``form``/``header``, when they hold under half of the
    root's text. With ``spare_content``, names that also have a content word (article, main,
    content, ...) are spared: page-wide wrappers carry such names.

    The candidates are taken outermost first (document order); one inside an element
    already doomed is skipped without measuring it, so nested candidates cost nothing.
    Sizes are measured before anything is removed."""
    root_id = root.mem_id
    candidates = []
    for node in root.css(_BOILERPLATE_SELECTOR):
        attrs = node.attributes
        if not attrs:
            if main and node.tag in GUARDED_TAGS:
                candidates.append(node)
            continue
        if is_hidden(attrs):
            candidates.append(node)
        elif main:
            names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}"
            if (
                node.tag in GUARDED_TAGS
                or attrs.get("role") in BOILERPLATE_ROLES
                or is_boilerplate_name(names)
                and not (spare_content and CONTENT_WORDS.search(names.lower()))
            ):
                candidates.append(node)
    if not candidates:
        return
    limit = 0.5 * size(root)
    tree = Tree(root)
    doomed: set[int] = set()
    for node in candidates:
        nid = tree.add(node)
        if nid == root_id:
            continue
        up = tree.parent_of.get(nid)
        while up is not None and up not in doomed:
            up = tree.parent_of.get(up)
        if up is None and size(node) < limit:
            doomed.add(nid)
    for nid in doomed:
        tree.nodes[nid].decompose()


class Tree:
    """A memo of the parent chains of the elements we care about (by ``mem_id``), so that
    values can be summed up the tree once per element instead of once per leaf."""

    def __init__(self, body: LexborNode) -> None:
        self.body_id = body.mem_id
        self.parent_of: dict[int, int | None] = {self.body_id: None}
        self.nodes: dict[int, LexborNode] = {self.body_id: body}

    def add(self, node: LexborNode) -> int:
        """Record ``node``'s chain up to a known element; return its id."""
        parent_of, nodes = self.parent_of, self.nodes
        first = nid = node.mem_id
        while nid not in parent_of:
            nodes[nid] = node
            up = node.parent
            pid = up.mem_id if up is not None else None
            parent_of[nid] = pid
            if up is None:
                break
            node, nid = up, pid
        return first

    def sum_up(self, values: dict[int, float]) -> dict[int, float]:
        """Subtree sums of per-element ``values``: each element is visited once, deepest
        first (depths come from the memoised chains)."""
        parent_of = self.parent_of
        depth: dict[int, int] = {}
        for nid in parent_of:
            chain = []
            up: int | None = nid
            while up is not None and up not in depth:
                chain.append(up)
                up = parent_of[up]
            d = depth[up] if up is not None else -1
            for c in reversed(chain):
                d += 1
                depth[c] = d
        sums = dict(values)
        for nid in sorted(values.keys() | parent_of.keys(), key=depth.__getitem__, reverse=True):
            value = sums.get(nid)
            pid = parent_of[nid]
            if value and pid is not None:
                sums[pid] = sums.get(pid, 0.0) + value
        self.depth = depth
        return sums


class LinkStats(Tree):
    """Link text and link count per element, summed from the links up to ``body``."""

    def __init__(self, body: LexborNode) -> None:
        super().__init__(body)
        own_chars: dict[int, float] = {}
        own_count: dict[int, float] = {}
        for link in body.css("a"):
            n = size(link)
            if n:
                nid = self.add(link)
                own_chars[nid] = own_chars.get(nid, 0) + n
                own_count[nid] = own_count.get(nid, 0) + 1
        self.link_chars = self.sum_up(own_chars)
        self.link_count = self.sum_up(own_count)

    def weight(self, node: LexborNode) -> float:
        total = size(node)
        links = min(self.link_chars.get(node.mem_id, 0), total)
        return total - links + LINK_WEIGHT * links

    def inside(self, nid: int, root_id: int) -> bool:
        while nid is not None:
            if nid == root_id:
                return True
            nid = self.parent_of.get(nid)
        return False


def marked_article_body(body: LexborNode) -> LexborNode | None:
    """The one element marked up as the article body (schema.org microdata), if any."""
    nodes = body.css('[itemprop="articleBody" i]')
    if len(nodes) == 1 and size(nodes[0]) > 0:
        return nodes[0]
    return None


def choose_root(body: LexborNode, links: LinkStats) -> LexborNode:
    """The deepest element holding at least ``ROOT_SHARE`` of the body's weight."""
    total = links.weight(body)
    if total <= 0:
        return body
    threshold = ROOT_SHARE * total
    node, node_weight = body, total
    while True:
        remaining, chosen = node_weight, None
        for child in node.iter():
            w = links.weight(child)
            if w >= threshold:
                chosen, node_weight = child, w
                break
            remaining -= w
            if remaining < threshold:
                break
        if chosen is None:
            break
        node = chosen
    while node.tag in TEXT_BLOCK_TAGS and node.parent is not None:
        node = node.parent  # one paragraph is too narrow: its container is the content
    return node


PROSE_SHARE = 0.8  # the refined root holds at least this share of the root's prose


def refine_to_prose(root: LexborNode, links: LinkStats) -> LexborNode:
    """The deepest element inside ``root`` holding ``PROSE_SHARE`` of its prose: the text of
    its ``<p>`` elements, minus their link text. This leaves out teasers, bylines and other
    short blocks that sit beside the article body in the same container."""
    tree = Tree(root)
    own: dict[int, float] = {}
    total = 0.0
    for p in root.css("p"):
        w = size(p) - links.link_chars.get(p.mem_id, 0)
        if w > 0:
            own[tree.add(p)] = w
            total += w
    if total <= 0.5 * links.weight(root):  # not an article: listings, products, forums
        return root
    sums = tree.sum_up(own)
    best, best_depth = root, 0
    for nid, w in sums.items():
        if w >= PROSE_SHARE * total and tree.depth.get(nid, 0) > best_depth:
            best, best_depth = tree.nodes[nid], tree.depth[nid]
    while best.tag in TEXT_BLOCK_TAGS and best.parent is not None:
        best = best.parent
    return best


def prune_link_lists(root: LexborNode, links: LinkStats) -> None:
    """Drop boxes inside ``root`` that are mostly links (only the outermost such box)."""
    root_id = root.mem_id
    root_chars = size(root)
    marked: set[int] = set()
    for nid, count in links.link_count.items():
        if count < 2 or nid == root_id:
            continue
        node = links.nodes.get(nid)
        if node is None or node.tag not in LINK_LIST_TAGS or not links.inside(nid, root_id):
            continue
        total = size(node)
        if total and links.link_chars[nid] > LINK_DENSITY_MAX * total and total < 0.5 * root_chars:
            marked.add(nid)
    for nid in marked:
        up = links.parent_of.get(nid)
        while up is not None and up != root_id and up not in marked:
            up = links.parent_of.get(up)
        if up not in marked:
            links.nodes[nid].decompose()
