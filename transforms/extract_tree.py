"""Small helpers on Lexbor trees shared by the extractor's modules."""

from __future__ import annotations

from selectolax.lexbor import LexborNode

# Work caps: real pages stay far below them; a page past one (thousands of nested boxes)
# is extracted by the plain layout of its body instead, flagged as truncated.
MAX_DEPTH = 256  # levels walked up or down the tree from one element
MAX_MEASURED = 5_000  # elements measured (text length) by one pass


class TooComplex(Exception):
    """A work cap was hit: the page is too deep or has too many candidates to weigh."""


def size(node: LexborNode) -> int:
    """The length of an element's text without whitespace-only text nodes (source
    indentation) and without the spaces around each text node."""
    return len(node.text(strip=True))


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
