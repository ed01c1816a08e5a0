"""``transforms.dedup.minhash``: signatures against the exact Jaccard similarity, their
stability, and the S-curve."""

from __future__ import annotations

import random

import numpy as np
import pytest

from benchmarks.dedup_corpus import shingles
from transforms.dedup.minhash import (
    MinHashParams,
    band_keys,
    candidate_probability,
    compact,
    edge_probability,
    shingle_hashes,
    signature,
    similarity,
)
from transforms.signals import words

PARAMS = MinHashParams()


def _text(rng: random.Random, count: int) -> list[str]:
    return [f"w{rng.randrange(5000)}" for _ in range(count)]


def test_estimates_follow_the_exact_jaccard_similarity():
    rng = random.Random(0)
    errors = []
    for _ in range(200):
        a = _text(rng, rng.randint(50, 400))
        b = [w if rng.random() > rng.uniform(0, 0.2) else f"x{rng.randrange(9999)}" for w in a]
        truth = len(shingles(" ".join(a)) & shingles(" ".join(b))) / len(
            shingles(" ".join(a)) | shingles(" ".join(b))
        )
        sa, sb = signature(a, PARAMS), signature(b, PARAMS)
        estimate = similarity(compact(sa), compact(sb))
        full = np.mean(sa == sb)  # the same values in full: the chance agreements taken out
        assert abs(estimate - full) <= 0.03
        errors.append(estimate - truth)
    # 256 values: a standard deviation of at most sqrt(0.25 / 256) = 0.031 each
    assert abs(np.mean(errors)) < 0.01
    assert np.std(errors) < 0.035


def test_signatures_are_fixed_functions_of_the_words():
    sig = signature(words("The quick brown fox jumps over the lazy dog, again."), PARAMS)
    assert sig.dtype == np.uint32 and sig.shape == (256,)
    # the same words give the same signature in another process, machine or numpy: the values
    # are written out so that a change of hashing shows here
    assert sig[:4].tolist() == [1240831336, 21730632, 184472791, 228835248]
    assert (
        signature(words("the QUICK brown fox jumps over the lazy dog again"), PARAMS).tolist()
        == sig.tolist()
    )


def test_short_empty_and_per_character_texts():
    assert signature([], PARAMS) is None
    one = signature(["hello", "world"], PARAMS)  # under five words: one shingle, all of them
    assert shingle_hashes(["hello", "world"]).size == 1
    assert similarity(compact(one), compact(signature(["hello", "world"], PARAMS))) == 1.0
    assert similarity(compact(one), compact(signature(["world", "hello"], PARAMS))) < 0.1
    # Chinese: 5-grams of characters
    assert shingle_hashes(words("我爱北京天安门广场")).size == 5


def test_band_keys_are_equal_for_equal_bands():
    a = signature(words(" ".join(f"w{i}" for i in range(100))), PARAMS)
    b = a.copy()
    b[0] += 1  # the first band differs, the others do not
    b[200] += 1  # past the bands: only compared, never banded
    ka, kb = band_keys(a, PARAMS), band_keys(b, PARAMS)
    assert len(ka) == 20 and ka[0] != kb[0] and ka[1:] == kb[1:]
    assert all(0 <= k < 2**63 for k in ka)


def test_s_curve():
    assert candidate_probability(0.8, PARAMS) == pytest.approx(1 - (1 - 0.8**6) ** 20)
    curve = [edge_probability(j / 20, PARAMS) for j in range(21)]
    assert curve == sorted(curve)
    assert edge_probability(0.5, PARAMS) < 1e-6
    assert edge_probability(0.6, PARAMS) < 1e-4
    assert edge_probability(0.8, PARAMS) > 0.99
    assert edge_probability(1.0, PARAMS) == pytest.approx(1.0)
    # without a threshold the curve is the bands' alone
    loose = MinHashParams(20, 6, 0.0)
    assert edge_probability(0.7, loose) == pytest.approx(candidate_probability(0.7, loose))
    # and a simulation agrees with the exact figure: 20,000 pairs of J = 0.72
    rng = np.random.default_rng(0)
    full = rng.random((20_000, 256)) < 0.72
    chance = ~full & (rng.random((20_000, 256)) < 1 / 256)
    banded = full[:, :120].reshape(-1, 20, 6).all(axis=2).any(axis=1)
    estimate = ((full | chance).mean(axis=1) - 1 / 256) / (1 - 1 / 256)
    simulated = np.mean(banded & (estimate >= 0.72 - 1e-9))
    assert simulated == pytest.approx(edge_probability(0.72, PARAMS), abs=0.01)
    assert edge_probability(0.7, loose) == pytest.approx(candidate_probability(0.7, loose))
