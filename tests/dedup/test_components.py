"""Connected components in Beam: chains, stars and random graphs against a union-find, with too
few rounds (the residue finishes them) and with enough (no residue)."""

from __future__ import annotations

import random

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

from transforms.dedup.components import ConnectedComponents, UnionFind


def reference(edges) -> list[tuple[int, int]]:
    union = UnionFind()
    parent = union.create_accumulator()
    for edge in edges:
        union.add_input(parent, edge)
    return sorted(union.extract_output(parent).items())


def chain(ids: list[int]) -> list[tuple[int, int]]:
    return list(zip(ids, ids[1:], strict=False))


def run(edges, rounds: int, tmp_path) -> int:
    """Assert the components, and return the residue's size."""
    residue_file = tmp_path / f"residue-{rounds}"
    with beam.Pipeline("FnApiRunner") as p:
        cc = ConnectedComponents(rounds)
        labels = p | beam.Create(edges) | cc
        assert_that(labels, equal_to(reference(edges)))
        cc.residual_edges | beam.Map(lambda n: residue_file.write_text(str(n)))
    return int(residue_file.read_text())


GRAPHS = {
    "ordered chain": chain(list(range(200))),
    "reversed chain": chain(list(range(200, 0, -1))),
    "shuffled chain": chain(random.Random(1).sample(range(10_000), 300)),
    "star, centre smallest": [(0, i) for i in range(1, 300)],
    "star, centre largest": [(1000, i) for i in range(300)],
    "stars joined by a chain": [(100 * k, 100 * k + i) for k in range(10) for i in range(1, 50)]
    + chain([100 * k + 49 for k in range(10)]),
    "random graph": [
        (random.Random(2).randrange(400), random.Random(3 + i).randrange(400)) for i in range(300)
    ],
    "two nodes, edge both ways": [(7, 3), (3, 7)],
}


# every graph at once, each in its own range of ids
ALL = [(a + 100_000 * k, b + 100_000 * k) for k, name in enumerate(sorted(GRAPHS))
       for a, b in GRAPHS[name] if a != b]  # fmt: skip


@pytest.mark.parametrize("rounds", [0, 1, 3])
def test_exact_whatever_the_rounds(rounds, tmp_path):
    residue = run(ALL, rounds, tmp_path)  # 0 rounds: the residue's union-find does it all
    assert residue > 0


def test_enough_rounds_leave_no_residue(tmp_path):
    assert run(ALL, 10, tmp_path) == 0


def test_rounds_cannot_be_negative():
    with pytest.raises(ValueError):
        ConnectedComponents(-1)


def test_a_star_needs_no_round_and_a_chain_converges(tmp_path):
    # a star around its smallest node is finished as it comes
    assert run([(0, i) for i in range(1, 50)], 0, tmp_path) == 0
    # a star around its largest node takes one round
    assert run([(50, i) for i in range(50)], 0, tmp_path) > 0
    assert run([(50, i) for i in range(50)], 1, tmp_path) == 0
    # an ordered chain of 64 nodes: residue left after 2 rounds, none after 6
    ordered = chain(list(range(64)))
    assert run(ordered, 2, tmp_path) > 0
    assert run(ordered, 6, tmp_path) == 0
