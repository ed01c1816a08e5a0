"""The MinHash and LSH of ``transforms.dedup.minhash`` against datasketch's ``MinHash`` and
``MinHashLSH`` (a reference implementation, with its own hashing) on the planted corpus, with
the same bands and rows: the same candidate pairs, and estimates as close to the exact Jaccard
similarity."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest

from benchmarks.dedup_corpus import jaccard_pairs, planted_corpus, shingles
from transforms.dedup.minhash import MinHashParams, band_keys, compact, signature, similarity
from transforms.signals import words

datasketch = pytest.importorskip("datasketch")

PARAMS = MinHashParams()


@pytest.fixture(scope="module")
def compared():
    docs = planted_corpus(300, seed=3)
    texts = [doc.text for doc in docs]
    truth = jaccard_pairs(texts)
    lsh = datasketch.MinHashLSH(num_perm=PARAMS.num_perm, params=(PARAMS.bands, PARAMS.rows))
    reference, ours, buckets = [], [], defaultdict(set)
    for i, text in enumerate(texts):
        theirs = datasketch.MinHash(num_perm=PARAMS.num_perm)
        theirs.update_batch([" ".join(s).encode() for s in shingles(text)])
        lsh.insert(i, theirs)
        reference.append(theirs)
        sig = signature(words(text), PARAMS)
        ours.append(sig)
        for key in band_keys(sig, PARAMS):
            buckets[key].add(i)
    our_pairs = {p for ids in buckets.values() for p in itertools.combinations(sorted(ids), 2)}
    their_pairs = {
        (min(i, j), max(i, j)) for i, m in enumerate(reference) for j in lsh.query(m) if i != j
    }
    return truth, our_pairs, their_pairs, ours, reference


def test_same_candidate_pairs(compared):
    truth, ours, theirs, _, _ = compared
    high = [p for p, j in truth.items() if j >= 0.9]
    assert len(high) > 100, len(high)
    assert all(p in ours and p in theirs for p in high)
    # over every pair sharing a shingle, the two LSH indexes agree on nearly all
    agree = sum((p in ours) == (p in theirs) for p in truth)
    assert agree / len(truth) >= 0.97, agree / len(truth)
    low = [p for p, j in truth.items() if j <= 0.2]
    assert sum(p in ours for p in low) <= 0.01 * len(low) + 1
    assert sum(p in theirs for p in low) <= 0.01 * len(low) + 1


def test_estimates_as_close_to_the_exact_similarity(compared):
    truth, _, _, ours, reference = compared
    pairs = [p for p, j in truth.items() if j >= 0.3]
    exact = np.array([truth[p] for p in pairs])
    mine = np.array([similarity(compact(ours[i]), compact(ours[j])) for i, j in pairs])
    theirs = np.array([reference[i].jaccard(reference[j]) for i, j in pairs])
    # each unbiased, and as close: pairs of one family are not independent, hence the margins
    for estimate in (mine, theirs):
        assert abs(np.mean(estimate - exact)) <= 0.02
        assert np.mean(np.abs(estimate - exact)) <= 0.03
    assert abs(np.mean(np.abs(mine - exact)) - np.mean(np.abs(theirs - exact))) <= 0.01
    # both sides of the threshold: the same decision on pairs clear of it
    clear = np.abs(exact - PARAMS.threshold) >= 0.15
    assert np.all((mine[clear] >= PARAMS.threshold) == (theirs[clear] >= PARAMS.threshold))
