"""Connected components of the duplicate graph, in a fixed number of Beam rounds.

The nodes are document ids (integers), the edges the duplicate pairs found; each component is one
cluster, labelled with its smallest id.

**Rounds.** ``rounds`` times, a Large-Star step then a Small-Star step (Kiveris et al., "Connected
Components in MapReduce and Beyond", SoCC 2014), each one ``GroupByKey`` over the edges:

- Large-Star: each node u links every neighbour larger than itself to the smallest node of its
  neighbourhood (u included);
- Small-Star: each node u links itself and its smaller neighbours to the smallest of them.

Neither step changes which nodes are connected, and the edge count never grows. Their fixpoint
is a star per component, centred on its smallest node; the paper proves it is reached in
O(log^2 n) rounds and measures about log n. Every edge of this job's graphs comes from a band
bucket or a text_hash group, which are stars already, so few rounds are needed: the README gives
the rounds measured on chains, stars and the planted corpus.

**Why it ends, and exactly.** The rounds are unrolled in the pipeline (a Beam graph has no loops),
so the job always runs ``rounds`` of them and then one finishing step, whatever the graph:

1. each node looks at its neighbourhood: a *centre* (every neighbour larger) is labelled with
   itself, a *leaf* (one neighbour, smaller) with that neighbour. If every node of a component is
   one or the other, the component is a star around its smallest node: finished. A node that is
   neither (its component has not converged) labels itself with its smallest neighbour and sends
   its edges to the residue;
2. the residue (empty once the rounds have converged) is joined by a union-find in one
   ``CombineGlobally`` (partial union-finds merged across workers), which maps each node it holds
   to the smallest node of its component;
3. a node's label is its first label mapped through that union-find.

A component holding an unconverged node has all its nodes either in the residue or leaves of a
centre that is (a centre next to an unconverged node is in the residue through that node's
edges; two centres are never neighbours), so its smallest node is in the residue and every
label maps to it. The residue's size is counted (``residual_edges``): 0 means the rounds alone
converged; a large one means ``rounds`` should be raised for such graphs, since the union-find's
memory is that of the residue's nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import apache_beam as beam

__all__ = ["ConnectedComponents", "RESIDUE_TAG", "UnionFind", "label_node"]

RESIDUE_TAG = "residue"


def _both_ways(edge: tuple[int, int]) -> Iterator[tuple[int, int]]:
    a, b = edge
    yield a, b
    yield b, a


def _large_star(item: tuple[int, Iterable[int]]) -> Iterator[tuple[int, int]]:
    node, neighbours = item
    neighbours = set(neighbours)
    smallest = min(neighbours | {node})
    for v in neighbours:
        if v > node:
            yield v, smallest


def _to_larger(edge: tuple[int, int]) -> tuple[int, int]:
    a, b = edge
    return (a, b) if a > b else (b, a)


def _small_star(item: tuple[int, Iterable[int]]) -> Iterator[tuple[int, int]]:
    node, smaller = item
    group = set(smaller) | {node}
    smallest = min(group)
    for v in group:
        if v != smallest:
            yield v, smallest


def label_node(item: tuple[int, Iterable[int]]):
    """Step 1 of the finish: ``(node, label)``, and the node's edges to the residue when it is
    neither a centre nor a leaf."""
    node, neighbours = item
    neighbours = set(neighbours)
    smallest = min(neighbours)
    if smallest > node:  # a centre
        yield node, node
    elif len(neighbours) == 1:  # a leaf
        yield node, smallest
    else:
        yield node, smallest
        for v in neighbours:
            yield beam.pvalue.TaggedOutput(RESIDUE_TAG, (node, v))


class UnionFind(beam.CombineFn):
    """Union-find over edges; the output maps each node seen to its component's smallest node."""

    def create_accumulator(self) -> dict[int, int]:
        return {}

    @staticmethod
    def _find(parent: dict[int, int], x: int) -> int:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    def _union(self, parent: dict[int, int], a: int, b: int) -> dict[int, int]:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        ra, rb = self._find(parent, a), self._find(parent, b)
        if ra != rb:  # the smaller root wins, so that a root is its component's minimum
            parent[max(ra, rb)] = min(ra, rb)
        return parent

    def add_input(self, parent: dict[int, int], edge: tuple[int, int]) -> dict[int, int]:
        return self._union(parent, *edge)

    def merge_accumulators(self, accumulators: Iterable[dict[int, int]]) -> dict[int, int]:
        accumulators = iter(accumulators)
        merged = next(accumulators, {})
        for other in accumulators:
            for x, p in other.items():
                if x != p:
                    self._union(merged, x, p)
                else:
                    merged.setdefault(x, x)
        return merged

    def extract_output(self, parent: dict[int, int]) -> dict[int, int]:
        return {x: self._find(parent, x) for x in list(parent)}


class ConnectedComponents(beam.PTransform):
    """``(a, b)`` edges in; ``(node, component)`` out for every node on an edge, the component
    being its smallest node. ``.residual_edges`` (after ``expand``) counts the residue."""

    def __init__(self, rounds: int = 6, measure: Callable[[Any, str], Any] | None = None):
        """``measure(pcoll, stage)``, when given, is applied to each ``GroupByKey``'s input
        (the dedup job counts the bytes it shuffles)."""
        super().__init__()
        if rounds < 0:
            raise ValueError(f"rounds must be >= 0, not {rounds}")
        self._rounds = rounds
        self._measure = measure or (lambda pcoll, stage: pcoll)

    def expand(self, edges):
        for i in range(1, self._rounds + 1):
            large = edges | f"LargeStarEmit{i}" >> beam.FlatMap(_both_ways)
            small = (
                self._measure(large, f"LargeStar{i}")
                | f"LargeStarGroup{i}" >> beam.GroupByKey()
                | f"LargeStar{i}" >> beam.FlatMap(_large_star)
                | f"SmallStarEmit{i}" >> beam.Map(_to_larger)
            )
            edges = (
                self._measure(small, f"SmallStar{i}")
                | f"SmallStarGroup{i}" >> beam.GroupByKey()
                | f"SmallStar{i}" >> beam.FlatMap(_small_star)
            )
        finish = edges | "FinishEmit" >> beam.FlatMap(_both_ways)
        labelled = (
            self._measure(finish, "Finish")
            | "FinishGroup" >> beam.GroupByKey()
            | "LabelNodes" >> beam.FlatMap(label_node).with_outputs(RESIDUE_TAG, main="labels")
        )
        residue = labelled[RESIDUE_TAG]
        self.residual_edges = residue | "CountResidue" >> beam.combiners.Count.Globally()
        merged = residue | "UnionFindResidue" >> beam.CombineGlobally(UnionFind())
        return labelled.labels | "FinalLabels" >> beam.Map(
            lambda kv, roots: (kv[0], roots.get(kv[1], kv[1])),
            roots=beam.pvalue.AsSingleton(merged),
        )
