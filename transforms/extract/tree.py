"""Small helpers on Lexbor trees shared by the extractor's modules."""

from __future__ import annotations

from collections.abc import Callable

from selectolax.lexbor import LexborNode

from transforms.extract import walk

# Work caps: real pages stay far below them; a page past one (thousands of nested boxes)
# is extracted by the plain layout of its body instead, flagged as truncated.
MAX_WALK_DEPTH = 256  # levels walked up or down the tree from one element
MAX_MEASURED = 5_000  # elements measured (text length) by one pass


class TooComplex(Exception):
    """A work cap was hit: the page is too deep or has too many candidates to weigh."""


# The length of an element's text without whitespace-only text nodes (source indentation)
# and without the spaces around each text node: ``len(node.text(strip=True))``, counted in C
# on the nodes' UTF-8 bytes (half the time of building the text; see ``walk``).
size = walk.size


class Tree:
    """The parent chains of the elements we care about (by ``mem_id``), from ``body`` down,
    so that values can be summed up the tree once per element instead of once per leaf:
    ``parent_of``, the elements (``nodes``) and an ``order`` with every parent before its
    children (``scoring.LinkStats`` fills them, in one compiled walk)."""

    def __init__(self, body: LexborNode) -> None:
        self.body_id = body.mem_id
        self.parent_of: dict[int, int | None] = {self.body_id: None}
        self.nodes: dict[int, LexborNode] = {self.body_id: body}
        self.order: list[int] = [self.body_id]  # parents before children


def rewrite_text_nodes(root: LexborNode, fix: Callable[[str], str]) -> bool:
    """Replace each text node in ``root``'s subtree whose text ``fix`` changes by a text node of
    ``fix``'s result; whether any was."""
    changed = [
        (node, new)
        for node in root.traverse(include_text=True)
        if node.is_text_node and (old := node.text_content) and (new := fix(old)) != old
    ]
    for node, new in changed:
        node.replace_with(new)
    return bool(changed)
