"""Comment threads: found by their names, set apart from the article when the page has one.

A blog post with a long discussion has more text in its comments than in the post, so a
choice of the main block by text mass alone takes the thread. The thread is therefore set
apart before the main block is chosen:

1. **Found by name.** ``drop_boilerplate`` notes the outermost elements whose class or id
   holds a comment word in one of several languages (``names.COMMENT_SUBSTRINGS``), or
   that are marked up as schema.org ``Comment``/``UserComments``.
2. **Looks like a thread**: it holds two or more comment-named elements (the comments), or
   three or more element children of one tag and class (a list of items); an opinion piece
   whose container is named "kommentar" is one block of paragraphs, not a thread.
3. **Set apart only beside an article**: when the rest of the page still has paragraphs
   worth ``ARTICLE_PROSE`` paragraphs of prose (``prose``) in one block (under one of
   their ``BLOCK_LEVELS`` nearest ancestors). A forum page, where the posts are the content,
   keeps them, even beside a list of teasers of other topics (a blurb in each item: as much
   text as an article, but spread over many boxes) or a link post's title and tagline.
4. **Kept on a discussion page.** A page that declares itself a forum thread or a question
   with its answers (schema.org ``DiscussionForumPosting`` or ``QAPage``, in JSON-LD or as
   an item around the thread: ``declares_discussion``) keeps its thread beside a first post
   of any length: there the replies are the content, and the first post is no article they
   comment on. A question page that marks its answers up as such (``itemtype`` ``Answer``,
   as Stack Exchange does) is not one: its answers are outside the comment-named boxes, and
   those hold the remarks under each post.

The threads set apart are removed from the tree; their text is ``Extracted.comments``.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from transforms.extract import walk
from transforms.extract.prose import PROSE_CHARS, text_weight
from transforms.extract.tree import MAX_WALK_DEPTH, TooComplex

__all__ = [
    "DISCUSSION_TYPES",
    "declares_discussion",
    "has_prose_outside",
    "item_types",
    "looks_like_thread",
]

_ITEM_TAGS = frozenset({"div", "li", "article", "section", "dl", "table", "tr"})
_MIN_ITEMS = 3  # same-looking children that make a list of comments
ARTICLE_PROSE = 2  # an article beside a thread: this many paragraphs of prose
_PARAGRAPHS = "p, pre, blockquote, dd"
BLOCK_LEVELS = 4  # an article's paragraphs share one of their four nearest ancestors
# The schema.org types of a page whose replies are its content (a question's page counts as
# one only when its answers are not marked up: ``declares_discussion``)
DISCUSSION_TYPES = ("DiscussionForumPosting", "QAPage")
_ANSWER_ITEM = '[itemtype*="schema.org/Answer"]'


def looks_like_thread(node: LexborNode, comment_items: int) -> bool:
    """Whether ``node`` (a comment-named element holding ``comment_items`` comment-named
    elements) is a thread of comments rather than one block that happens to be so named."""
    if comment_items >= 2:
        return True
    for parent in (node, *node.iter()):
        seen: dict[tuple[str, str | None], int] = {}
        for child in parent.iter():
            if child.tag in _ITEM_TAGS:
                kind = (child.tag, child.attributes.get("class"))
                seen[kind] = n = seen.get(kind, 0) + 1
                if n >= _MIN_ITEMS:
                    return True
    return False


def has_prose_outside(root: LexborNode, threads: list[LexborNode]) -> bool:
    """Whether ``root`` has an article outside ``threads``: paragraphs of ``ARTICLE_PROSE``
    times a paragraph of prose in all (by ``text_weight``: the same in every script) under
    one of their ``BLOCK_LEVELS`` nearest ancestors (an article's paragraphs are siblings,
    or wrapped one by one in the same body; teasers sit in one list item each). The
    paragraphs are read in document order up to the first ones that are enough (an article
    comes before its comments)."""
    inside = {t.mem_id for t in threads}
    root_id = root.mem_id
    needed = ARTICLE_PROSE * PROSE_CHARS
    blocks: dict[int, float] = {}
    for p in root.css(_PARAGRAPHS):
        node = p.parent
        while node is not None and node.mem_id != root_id and node.mem_id not in inside:
            node = node.parent
        if node is None or node.mem_id == root_id:
            weight = text_weight(p.text(strip=True))
            up = p.parent
            for _ in range(BLOCK_LEVELS):
                if up is None:
                    break
                block = blocks[up.mem_id] = blocks.get(up.mem_id, 0.0) + weight
                if block >= needed:
                    return True
                up = up.parent
    return False


def declares_discussion(node: LexborNode, ld_texts: list[str]) -> bool:
    """Whether the page of ``node`` (a comment of its thread) declares itself a discussion
    (``DISCUSSION_TYPES``) in the JSON-LD ``ld_texts`` or in microdata: as the item of an
    element around ``node`` (``item_types``; a forum post's replies are its properties, a
    question's page is an item around all of it); and, for a question's page, does not mark
    its answers up (``itemtype`` ``Answer``: one CSS query, asked only then)."""
    forum, question = DISCUSSION_TYPES
    types = item_types(node)
    if any(forum in kind for kind in types) or any(forum in text for text in ld_texts):
        return True
    if not (
        any(question in kind for kind in types) or any(f'"{question}"' in text for text in ld_texts)
    ):
        return False
    top = node
    while top.parent is not None and top.parent.is_element_node:
        top = top.parent
    return top.css_first(_ANSWER_ITEM) is None


def item_types(node: LexborNode) -> list[str]:
    """The ``itemtype`` values of ``node`` and of the elements around it, nearest first (read
    in one compiled pass: ``walk.attribute_values``)."""
    around, up = [], node
    while up is not None and up.is_element_node:
        around.append(up)
        up = up.parent
        if len(around) > MAX_WALK_DEPTH:
            raise TooComplex("content nested too deep")
    values = walk.attribute_values(around, ("itemtype",))
    return [found[0] for found in values if found is not None and found[0]]
