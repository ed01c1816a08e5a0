"""Main-content detection: which element of the cleaned body holds the main content.

1. **Link text per element.** Each link's text length is summed up the tree (each element
   visited once), so the link density of any element is known.
2. **Pick the root.** An element's weight is its text length, link text counting for little
   (``LINK_WEIGHT``). The root is the deepest element holding at least two thirds of the
   body's weight: walk down from ``<body>`` into the child holding that majority while there
   is one. Articles end at their body; forums, listings and product pages (many similar
   blocks) end at the blocks' container. Being a majority, the root is unique.
   An element marked up as the one ``itemprop="articleBody"`` is taken as is, unless its item
   is a forum post (``DiscussionForumPosting``: the first post of a thread). When no child
   of the body holds two thirds, the page's one ``<main>`` is the root if it holds more than
   half (``MAIN_SHARE``): the rest is many small boxes (popups, menus, notices). When a
   wrapper holds the two thirds and the page's one ``<main>`` inside it holds ``PROSE_SHARE``
   of its paragraph prose (``main_within``; paragraphs wrapped in a link are link text),
   ``<main>`` is the root: the rest of the wrapper is breadcrumbs, offers and teasers.
3. **Refine an article** (a root that is mostly ``<p>`` prose) to the deepest element holding
   80% of that prose: teasers, bylines and captions beside the body fall outside.
   **The headline's article wins over other articles.** When the root holds
   ``OTHER_ARTICLES`` or more ``<article>`` elements but not the page's headline (its first
   ``<h1>``), and the headline sits in an ``<article>`` with a paragraph of prose, that
   ``<article>`` is the content: the root lists other articles (related posts, more stories)
   that outweigh a short one. (On a page declared a forum thread, the headline's article is
   the first post: the box holding it and the replies is taken; ``extractor._main_block``.)
   **The headline's article wins inside the root** when it holds two thirds of its prose
   (``HEADLINE_PROSE_SHARE``; teasers and lists of other stories beside a short article), or
   when its headline is the page's title and another ``<article>`` with an ``<h1>`` of its
   own stands beside it (the next story of an endless scroll).
   **The box named as the article's body wins over what stands beside it.** When exactly
   one box inside the root has a class or id such as "article-body" or "entry-content"
   (``names.BODY_NAMES``), holds a paragraph of prose and ``NAMED_BODY_SHARE`` of the root's
   weight, it is the content: the rest is a list of teasers with blurbs, or a programme of
   links, longer than a short article.
   **The lead comes first.** A standfirst printed just before the root (an ``<h2>`` or a
   ``<p class="lead">`` between the headline and the body's box; ``lead_before``) is put
   before its text, unless the root is the one marked as the article body. Failing that, the
   standfirst just after the headline (``headline_lead``; the page's title, its lead in the
   ``<header>`` that goes as boilerplate, or in a box of its own above a dateline) is, when
   the text does not hold it already.
4. **Prune link lists** inside the root: boxes that are mostly link text (related links, tag
   clouds, pagers), unless they are nearly all of it (less than ``LISTING_LEFT`` would be
   left, and less than a paragraph or no paragraph of prose) and their links are
   ``LISTING_LINK_CHARS`` long on average (headlines, product names; menus are a word or
   two), or they are ``LISTED_ITEMS`` boxes or more of one tag and class (the rows of a news
   aggregator, the columns of an index of names, even under an intro paragraph): then the
   links are the content, a listing.

No per-block CSS queries: a few C calls (``css()``, ``text()``) and dictionary work.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable

from selectolax.lexbor import LexborNode, create_tag

from transforms.extract import walk
from transforms.extract.comments import DISCUSSION_TYPES, item_types
from transforms.extract.names import boilerplate_names
from transforms.extract.prose import PROSE_CHARS, holds_prose, text_weight
from transforms.extract.tree import MAX_MEASURED, MAX_WALK_DEPTH, TooComplex, Tree, size

LINK_WEIGHT = 0.2  # a character of link text weighs this much of a character of prose
ROOT_SHARE = 2 / 3  # the root holds at least this share of the body's weight
MAIN_SHARE = 0.5  # ... or, when no block does, the page's <main> holding more than this share
LINK_LIST_TAGS = frozenset({"ul", "ol", "dl", "table", "div", "section", "p", "span"})
LINK_DENSITY_MAX = 0.6  # a box whose text is more than this share of links is a link list
LISTING_LEFT = 0.2  # link lists are kept when pruning them would leave less than this share
# ... and their links are as long as headlines or product names (menus: one or two words)
LISTING_LINK_CHARS = 16
# ... or they are this many boxes of one kind (tag and class): a listing's items, however
# short their links and whatever intro stands beside them
LISTED_ITEMS = 5
OTHER_ARTICLES = 3  # a box of this many <article>s, without the headline, lists other articles
# a box named as the article's body holds this share of the root's weight (or more)
NAMED_BODY_SHARE = 0.25
# the headline's <article>, inside the root, holding this share of the root's prose is the article
HEADLINE_PROSE_SHARE = 2 / 3
_A = create_tag("a").tag_id
_P = create_tag("p").tag_id
_ARTICLE, _BODY = create_tag("article").tag_id, create_tag("body").tag_id
TEXT_BLOCK_TAGS = frozenset(
    {"p", "li", "td", "th", "dd", "dt", "blockquote", "figcaption", "h1", "h2", "h3", "h4",
     "h5", "h6", "pre", "code", "a", "span", "b", "strong", "em", "i", "u", "small", "font",
     "tr", "tbody", "thead", "table"}
)  # fmt: skip

# (by Lexbor's tag id: ``node.tag`` decodes a new string each time)
_LINK_LIST_IDS = frozenset(create_tag(tag).tag_id for tag in LINK_LIST_TAGS)
_TEXT_BLOCK_IDS = frozenset(create_tag(tag).tag_id for tag in TEXT_BLOCK_TAGS)


class _Nodes(dict):
    """``Tree.nodes`` made lazily: the element of an id of the tree (``parent_of``) is made
    (``walk.node_at``) the first time it is asked for; most never are."""

    def __init__(self, body: LexborNode, parent_of: dict[int, int | None]) -> None:
        super().__init__({body.mem_id: body})
        self.body, self.parent_of = body, parent_of

    def __missing__(self, nid: int) -> LexborNode:
        if nid not in self.parent_of:
            raise KeyError(nid)
        node = self[nid] = walk.node_at(self.body, nid)
        return node


class LinkStats(Tree):
    """Link text and link count per element, summed from the links up to ``body``; and a
    memo of element sizes, valid until the tree changes (``prune_link_lists`` measures
    everything before it removes anything), so that choosing, refining and pruning the
    root measure each element once."""

    def __init__(self, body: LexborNode) -> None:
        super().__init__(body)
        self.sizes: dict[int, int] = {}
        self.link_chars: dict[int, int] = {}
        self.link_count: dict[int, int] = {}
        # every link with text and the elements above it, with the sums of their subtrees,
        # in one compiled walk (the elements made when asked for)
        self.nodes = _Nodes(body, self.parent_of)
        walk.link_stats(body, _A, self.parent_of, self.order, self.link_chars, self.link_count)

    def size(self, node: LexborNode) -> int:
        """``size(node)``, memoised by ``mem_id``."""
        n = self.sizes.get(node.mem_id)
        if n is None:
            n = self.sizes[node.mem_id] = size(node)
        return n

    def weight(self, node: LexborNode, total: int | None = None) -> float:
        """Text length with link text counting for ``LINK_WEIGHT`` (``total``: the size if
        known)."""
        if total is None:
            total = self.size(node)
        links = min(self.link_chars.get(node.mem_id, 0), total)
        return total - links + LINK_WEIGHT * links

    def within(self, root_id: int) -> set[int]:
        """The ids of the elements of this tree inside ``root_id``, itself included (none if
        it holds no link): one pass over the tree, parents before children, in C."""
        if root_id not in self.parent_of:
            return set()
        return walk.within(self.parent_of, self.order, root_id)


def marked_article_body(
    body: LexborNode, links: LinkStats, marked: list[LexborNode] | None = None
) -> LexborNode | None:
    """The one element marked up as the article body (schema.org microdata), if any, unless
    it is a forum post's (``_of_forum_post``). ``marked``: the body's elements so marked
    (``BodyElements.article_body``), if known."""
    # (of those marked, the ones still in the tree)
    nodes = body.css('[itemprop="articleBody" i]') if marked is None else walk.attached(marked)
    if len(nodes) == 1 and links.size(nodes[0]) > 0 and not _of_forum_post(nodes[0]):
        return nodes[0]
    return None


def _of_forum_post(node: LexborNode) -> bool:
    """Whether ``node``'s item (the nearest ``itemtype`` around it) is a forum post
    (``comments.DISCUSSION_TYPES``' ``DiscussionForumPosting``): its ``articleBody`` is the
    thread's first post, and the replies after it are content too."""
    types = item_types(node)
    return bool(types) and DISCUSSION_TYPES[0] in types[0]


def choose_root(body: LexborNode, links: LinkStats, body_size: int | None = None) -> LexborNode:
    """The deepest element holding at least ``ROOT_SHARE`` of the body's weight.

    ``size`` is additive (a sum over text nodes), so the last child's size is its parent's
    size minus its siblings' and the parent's own text: the big wrapper that is usually
    the last child is not measured (one ``text()`` walk of nearly the whole page per level
    saved)."""
    node_size = links.size(body) if body_size is None else body_size
    links.sizes[body.mem_id] = node_size
    total = links.weight(body, node_size)
    if total <= 0:
        return body
    # (the descent in C: walk.deepest_majority, the sizes memoised in links.sizes)
    node = walk.deepest_majority(
        body,
        links.sizes,
        links.link_chars,
        node_size,
        total,
        LINK_WEIGHT,
        ROOT_SHARE * total,
        MAX_WALK_DEPTH,
    )
    if node is None:
        raise TooComplex("content nested too deep")
    while node.tag_id in _TEXT_BLOCK_IDS and node.parent is not None:
        node = node.parent  # one paragraph is too narrow: its container is the content
    return node


PROSE_SHARE = 0.8  # the refined root holds at least this share of the root's prose
# The lead (standfirst) before the root: one block of text of this many characters
# (``text_weight``), ending a sentence, mostly not links, among the root's previous siblings or
# those of its ancestors up to this many levels.
LEAD_CHARS = (80, 800)
LEAD_LINKS = 0.2
LEAD_LEVELS = 4
HEADLINE_LEAD_SKIP = 2  # short lines between the headline and its lead (``headline_lead``)
_MEDIA_TAGS = frozenset({"img", "picture", "video", "iframe", "figure", "figcaption", "svg"})
_SENTENCE_END = re.compile(r"[.!?…。！？»\"”“)]$")
# A lead holds none of these (a box of key points, a list of links, a table of facts) ...
_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})  # ... though it may be a heading itself
_NOT_IN_LEAD = frozenset(
    {"ul", "ol", "li", "dl", "table", "h1", "blockquote", "figure", *_HEADINGS}
)
# (by tag id: the tags a lead is not; those it does not hold, as ``walk.holds_tag``'s table)
_NOT_LEAD_IDS = frozenset(create_tag(tag).tag_id for tag in _NOT_IN_LEAD - _HEADINGS)
_NOT_IN_LEAD_IDS = frozenset(create_tag(tag).tag_id for tag in _NOT_IN_LEAD)
_NOT_IN_LEAD_TABLE = bytes(t in _NOT_IN_LEAD_IDS for t in range(max(_NOT_IN_LEAD_IDS) + 1))


def headline_articles(h1s: list[LexborNode]) -> list[LexborNode]:
    """The ``<article>`` around each of the page's ``<h1>`` elements that has one, in their order,
    each once: the first, if around the first ``<h1>``, is the headline's."""
    found: dict[int, LexborNode] = {}
    for h1 in h1s:
        up, steps = h1.parent, 0
        while up is not None and up.tag_id != _ARTICLE:
            up, steps = up.parent, steps + 1
            if steps > MAX_WALK_DEPTH:
                raise TooComplex("headline nested too deep")
        if up is not None:
            found.setdefault(up.mem_id, up)
        elif not found:
            return []  # the first <h1> is in no article
    return list(found.values())


def article_within(
    root: LexborNode, articles: list[LexborNode], links: LinkStats, titled: Callable[[], bool]
) -> LexborNode | None:
    """The headline's article (the first of ``articles``, from ``headline_articles`` before the
    boilerplate was dropped: the ``<header>`` holding an ``<h1>`` may go with it) when it is
    inside ``root`` with a paragraph of prose, and either holds ``HEADLINE_PROSE_SHARE`` of the
    root's prose (``_paragraph_prose``; the rest is teasers and lists of other stories), or is
    titled (``titled()``: its headline is the page's title) beside another of ``articles`` in
    the root (an ``<article>`` with an ``<h1>`` of its own): the next story of an endless
    scroll, longer than this one. The headline's article is also taken when it is titled and
    the root is in, or is, such another story."""
    if not articles:
        return None
    article = articles[0]
    if article.parent is None or article.mem_id == root.mem_id:
        return None
    around, up = set(), article.parent  # the ids from the article's parent up to the root
    while up is not None and up.mem_id != root.mem_id:
        around.add(up.mem_id)
        up = up.parent
        if len(around) > MAX_WALK_DEPTH:
            raise TooComplex("headline nested too deep")
    others = [other for other in articles[1:] if other.parent is not None]
    if up is None:  # the root is elsewhere: in the next story, when the headline is the title
        in_other = any(other.mem_id == root.mem_id or _inside(root, other) for other in others)
        return article if in_other and titled() and holds_prose(article) else None
    if not holds_prose(article):
        return None
    prose = _paragraph_prose(root, links)
    if prose and _paragraph_prose(article, links) >= HEADLINE_PROSE_SHARE * prose:
        return article
    beside = any(
        other.mem_id not in around and _inside(other, root) and not _inside(other, article)
        for other in others
    )
    return article if beside and titled() else None


def _inside(node: LexborNode, box: LexborNode) -> bool:
    """Whether ``node`` is inside ``box``."""
    up, steps = node.parent, 0
    while up is not None and up.mem_id != box.mem_id:
        up, steps = up.parent, steps + 1
        if steps > MAX_WALK_DEPTH:
            raise TooComplex("content nested too deep")
    return up is not None


def _paragraph_prose(node: LexborNode, links: LinkStats, unlinked: bool = False) -> float:
    """The length of the text of the ``<p>`` elements in ``node``, their link text left out;
    ``unlinked``: and those inside a link (``_linked_paragraphs``)."""
    linked = _linked_paragraphs(node, links) if unlinked else ()
    return sum(
        links.size(p) - links.link_chars.get(p.mem_id, 0)
        for p in node.css("p")
        if p.mem_id not in linked
    )


def _linked_paragraphs(node: LexborNode, links: LinkStats) -> set[int]:
    """The ids of the ``<p>`` elements in ``node`` that are inside a link: a teaser card
    wrapped whole in its ``<a>`` (headline and blurb) is link text, however its blurb is
    marked up. (One selector call, made only when ``node`` holds links.)"""
    if not links.link_count.get(node.mem_id):
        return set()
    return {p.mem_id for p in node.css("a p")}


def main_within(root: LexborNode, links: LinkStats) -> LexborNode | None:
    """The one ``<main>`` inside ``root`` when it holds ``PROSE_SHARE`` of the root's
    paragraph prose (``_paragraph_prose``): the root is a wrapper that also holds the
    page's breadcrumbs and its boxes of related stories and teasers, which the page itself
    sets outside its main landmark."""
    mains = root.css("main")
    if len(mains) != 1 or mains[0].mem_id == root.mem_id:
        return None
    main = mains[0]
    prose = _paragraph_prose(root, links, unlinked=True)
    if (
        prose
        and _paragraph_prose(main, links, unlinked=True) >= PROSE_SHARE * prose
        and holds_prose(main)
    ):
        return main
    return None


def main_landmark(body: LexborNode, links: LinkStats) -> LexborNode | None:
    """The page's one ``<main>`` element if it holds more than ``MAIN_SHARE`` of the body's
    weight: asked when no block holds two thirds of it (``choose_root`` stopped at the body),
    as on a page whose popups, menus and notices are many small boxes around a short
    article."""
    mains = body.css("main")
    if len(mains) == 1 and links.weight(mains[0]) > MAIN_SHARE * links.weight(body):
        return mains[0]
    return None


def headline_article(root: LexborNode, headline: LexborNode | None) -> LexborNode | None:
    """The ``<article>`` holding ``headline`` (the page's first ``<h1>``) if ``root`` lists
    other articles beside it: ``root`` is outside that ``<article>`` and holds
    ``OTHER_ARTICLES`` ``<article>`` elements or more, and the headline's ``<article>`` holds a
    paragraph of prose (an article, not a title over a list). None otherwise, and when the
    headline was dropped (a detached node has no parent) or is inside ``root``."""
    if headline is None:
        return None
    article, up, steps = None, headline.parent, 0
    while up is not None:
        if up.mem_id == root.mem_id:
            return None  # the root holds the headline
        if article is None and up.tag_id == _ARTICLE:
            article = up
        up, steps = up.parent, steps + 1
        if steps > MAX_WALK_DEPTH:
            raise TooComplex("headline nested too deep")
    if article is None:
        return None
    up, steps = root.parent, 0
    while up is not None and up.mem_id != article.mem_id:
        up, steps = up.parent, steps + 1
        if steps > MAX_WALK_DEPTH:
            raise TooComplex("content nested too deep")
    if up is not None:  # the root is inside the headline's article
        return None
    if len(root.css("article")) < OTHER_ARTICLES or not holds_prose(article):
        return None
    return article


def named_body(root: LexborNode, bodies: list[LexborNode], links: LinkStats) -> LexborNode | None:
    """The one box inside ``root`` named as an article's body (``bodies``: the body's boxes
    so named, ``names.BODY_NAMES``, in document order) if it holds a paragraph of prose and
    ``NAMED_BODY_SHARE`` of the root's weight: the root then holds the article beside
    something longer that is not (a list of teasers with their blurbs, a programme of links);
    a comment or a loading placeholder that happens to be so named is less. None when no
    such box or several (a listing of posts, each named so) are inside ``root``; nested ones
    count once, as the outermost."""
    root_id, found = root.mem_id, []
    for box in bodies:
        up, steps = box.parent, 0
        while up is not None and up.mem_id != root_id:
            if found and up.mem_id == found[-1].mem_id:
                break  # inside the previous one (document order: an ancestor comes first)
            up, steps = up.parent, steps + 1
            if steps > MAX_WALK_DEPTH:
                raise TooComplex("content nested too deep")
        if up is not None and up.mem_id == root_id:
            found.append(box)
            if len(found) > 1:
                return None
    if not found:
        return None
    box = found[0]
    if links.weight(box) >= NAMED_BODY_SHARE * links.weight(root) and holds_prose(box):
        return box
    return None


def lead_before(
    root: LexborNode, links: LinkStats, headline: LexborNode | None = None
) -> LexborNode | None:
    """The lead printed just before ``root``: its nearest previous sibling with text (or its
    ancestor's, up to ``LEAD_LEVELS`` levels, when nothing comes before it in its parent), if
    that is a standfirst: one block of ``LEAD_CHARS`` ending a sentence, under ``LEAD_LINKS``
    link text, with no list, table, heading or quote inside (a box of key points is no lead),
    and not the ``headline`` or a block holding an ``<h1>``. News sites set the summary apart
    from the body's box (an ``<h2>`` or a ``<p class="lead">`` between the headline and the
    body), where the choice by mass leaves it out."""
    node = root
    for _ in range(LEAD_LEVELS):
        prev = node.prev
        # (sizes from the memo: the root's neighbours were measured choosing it)
        while prev is not None and not (prev.is_element_node and links.size(prev)):
            if prev.is_text_node and not prev.is_empty_text_node and prev.text(strip=True):
                return None  # loose text before the root: no block of its own
            prev = prev.prev
        if prev is not None:
            return prev if _is_lead(prev, links, headline) else None
        node = node.parent
        if node is None or node.tag_id == _BODY:
            return None
    return None


def _is_lead(node: LexborNode, links: LinkStats, headline: LexborNode | None) -> bool:
    """Whether ``node`` reads as a lead (see ``lead_before``)."""
    if links.size(node) > LEAD_CHARS[1]:  # (no weight is under the length)
        return False
    if headline is not None and headline.mem_id == node.mem_id:
        return False
    return _reads_as_lead(node, node.text(strip=True), lambda: links.link_chars.get(node.mem_id, 0))


def _reads_as_lead(node: LexborNode, text: str, link_chars: Callable[[], int]) -> bool:
    """Whether ``node``, of ``text``, with ``link_chars()`` of link text, reads as a lead: one
    block of ``LEAD_CHARS`` ending a sentence, under ``LEAD_LINKS`` links, with no list, table,
    heading or quote inside."""
    if node.tag_id in _NOT_LEAD_IDS:
        return False
    if not LEAD_CHARS[0] <= text_weight(text) <= LEAD_CHARS[1] or not _SENTENCE_END.search(text):
        return False
    if link_chars() > LEAD_LINKS * len(text):
        return False
    return not walk.holds_tag(node, _NOT_IN_LEAD_TABLE)


def headline_lead(headline: LexborNode) -> LexborNode | None:
    """The lead printed just after ``headline`` (the page's ``<h1>``, before the boilerplate
    goes): among its next siblings (or its ancestors', up to ``LEAD_LEVELS`` levels, when
    nothing follows it in its parent), the first block that reads as a lead (``lead_before``),
    past at most ``HEADLINE_LEAD_SKIP`` short lines that end no sentence (a date, a byline, a
    "subscribers only" label). The headline's ``<header>`` holds it, and goes as boilerplate,
    or the body's box starts after it with a dateline."""
    node, skipped = headline, 0
    for _ in range(LEAD_LEVELS):
        after = node.next
        while after is not None:
            if after.is_element_node:
                if size(after) > LEAD_CHARS[1]:  # (no weight is under the length)
                    return None  # a long block (the body's box): no lead before it
                text = after.text(strip=True)
                if text:
                    if _reads_as_lead(
                        after, text, functools.partial(_link_chars, after)
                    ) and _plain_block(after):
                        return after
                    if len(text) >= LEAD_CHARS[0] or skipped == HEADLINE_LEAD_SKIP:
                        return None
                    skipped += 1
            elif after.is_text_node and after.text(strip=True):
                return None  # loose text after the headline: no block of its own
            after = after.next
        node = node.parent
        if node is None or node.tag_id == _BODY:
            return None
    return None


def _plain_block(node: LexborNode) -> bool:
    """Whether ``node`` holds no media (an image's caption is no lead) and no box named as
    boilerplate (a byline, a caption, a call to subscribe)."""
    names = []
    for element in node.traverse():
        if element.tag in _MEDIA_TAGS:
            return False
        attrs = element.attributes
        if "class" in attrs or "id" in attrs:
            names.append(f"{attrs.get('class') or ''} {attrs.get('id') or ''}")
    return not boilerplate_names(names)


def _link_chars(node: LexborNode) -> int:
    return sum(len(link.text(strip=True)) for link in node.css("a"))


def refine_to_prose(root: LexborNode, links: LinkStats) -> LexborNode:
    """The deepest element inside ``root`` holding ``PROSE_SHARE`` of its prose: the text of
    its ``<p>`` elements, minus their link text. This leaves out teasers, bylines and other
    short blocks that sit beside the article body in the same container. Not for a root
    whose prose is half its weight or less (listings, products, forums). One compiled walk
    weighs the ``<p>`` and one sums them up the tree (``walk.prose_holder``)."""
    floor = 0.5 * links.weight(root)
    best = walk.prose_holder(root, _P, links.link_chars, PROSE_SHARE, floor)
    if best is None:
        return root
    while best.tag_id in _TEXT_BLOCK_IDS and best.parent is not None:
        best = best.parent
    return best


def _repeated_items(boxes: list[int], links: LinkStats) -> bool:
    """Whether ``LISTED_ITEMS`` or more of the link ``boxes`` are of one kind (tag and class):
    the items of a listing (an index's columns, a news aggregator's rows), where a page's
    menus are one box each, of different kinds."""
    if len(boxes) < LISTED_ITEMS:
        return False
    kinds = Counter(
        (links.nodes[nid].tag, links.nodes[nid].attributes.get("class")) for nid in boxes
    )
    return kinds.most_common(1)[0][1] >= LISTED_ITEMS


def prune_link_lists(root: LexborNode, links: LinkStats) -> None:
    """Drop boxes inside ``root`` that are mostly links (only the outermost such box): those
    under half of the root, and menus (short links) over half of it beside a paragraph of
    prose; unless they are nearly all of the root and look like a listing (see above)."""
    root_id = root.mem_id
    root_chars = links.size(root)
    marked: set[int] = set()
    measured = 0
    inside = links.within(root_id)
    root_prose = None
    for nid, count in links.link_count.items():
        if count < 2 or nid == root_id or nid not in inside:
            continue
        node = links.nodes[nid]
        if node.tag_id not in _LINK_LIST_IDS:
            continue
        measured += 1
        if measured > MAX_MEASURED:
            raise TooComplex("too many link boxes to measure")
        total = links.size(node)
        if not total or links.link_chars[nid] <= LINK_DENSITY_MAX * total:
            continue
        if total < 0.5 * root_chars:
            marked.add(nid)
        elif links.link_chars[nid] < LISTING_LINK_CHARS * count:
            # Most of the root, but a menu (short links): pruned if the root has prose
            # outside it.
            if root_prose is None:
                root_prose = holds_prose(root)
            if root_prose and not holds_prose(node):
                marked.add(nid)
    outermost = []
    for nid in marked:
        up = links.parent_of.get(nid)
        while up is not None and up != root_id and up not in marked:
            up = links.parent_of.get(up)
        if up not in marked:
            outermost.append(nid)
    left = root_chars - sum(links.sizes[nid] for nid in outermost)
    if left < LISTING_LEFT * root_chars:
        if _repeated_items(outermost, links):
            return  # nearly all of the root is items of one kind: a listing, intro or not
        count = links.link_count.get(root_id, 0)
        if links.link_chars.get(root_id, 0) >= LISTING_LINK_CHARS * count:
            if left >= PROSE_CHARS and root_prose is None:
                root_prose = holds_prose(root)
            if left < PROSE_CHARS or not root_prose:
                return  # the links are the content (a listing): little else would be left
    for nid in outermost:
        links.nodes[nid].decompose()
