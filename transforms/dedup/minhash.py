"""MinHash signatures over word 5-grams, LSH bands, and the S-curve they make. No Beam here.

**Shingles.** A text's words are ``transforms.signals.words``' (NFKC, lower case, ``\\w+`` runs,
one word per character in the scripts written without spaces, so that Chinese or Thai shingles
are 5-grams of characters); its shingles are the set of its word 5-grams, or the one run of all
its words when it has fewer than five. Each word is hashed once with XXH3-64; a shingle's hash
is a polynomial of its words' hashes modulo 2**64 (numpy, over the whole text at once), whose
top 32 bits are kept.

**Signature.** ``hashes`` hash functions h_j(x) = ((a_j x + b_j) mod 2**64) >> 32, a family
that is strongly universal for 32-bit keys (multiply-add-shift, Dietzfelbinger 1996), with a_j
and b_j drawn by SplitMix64 from ``seed``: the same on every machine, numpy version and run.
The signature is each h_j's minimum over the shingles: two texts agree on h_j with probability
their Jaccard similarity J. Numpy computes it for 4,096 shingles at a time (memory bounded by
``hashes`` x 4,096 words however long the text).

**LSH and verification.** The first ``bands`` x ``rows`` values are cut into ``bands`` bands;
two texts that agree on a whole band are candidates. A candidate pair is a near duplicate when
its signatures agree on at least ``threshold`` of all ``hashes`` values (the estimated Jaccard
similarity). For that comparison a signature travels as the low byte of each value
(``compact``, b-bit minwise hashing, Li and König 2010): two different minima then look equal
with probability 1/256, which ``similarity`` takes out of the estimate. 256 one-byte values
estimate J twice as closely as 128 four-byte ones in half the bytes, and the precision matters
most here: a pair of J 0.64 taken for 0.72 can join two texts of J under 0.5 into one cluster.
``edge_probability`` gives the resulting S-curve exactly (a dynamic programme over the values,
each agreeing with probability J): the README prints it.

The defaults, 20 bands of 6 and a threshold of 0.72 over 256 values, make pairs of Jaccard 0.8
near duplicates 99.7% of the time, of 0.65 0.9% and of 0.6 0.003% of the time (FineWeb's 14
bands of 8, without a threshold, finds 92% of the pairs at 0.8 and 21% at 0.6).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import xxhash

__all__ = [
    "SHINGLE_WORDS",
    "MinHashParams",
    "band_keys",
    "candidate_probability",
    "compact",
    "edge_probability",
    "s_curve_table",
    "shingle_hashes",
    "signature",
    "similarity",
]

SHINGLE_WORDS = 5
_CHUNK = 4096  # shingles hashed at a time
_MASK64 = (1 << 64) - 1
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # odd: a shingle's words, in order, into 64 bits


@dataclass(frozen=True)
class MinHashParams:
    """The near-duplicate test: candidates by ``bands`` x ``rows`` values, kept when the
    ``hashes`` values estimate a Jaccard similarity of ``threshold`` or more."""

    bands: int = 20
    rows: int = 6
    threshold: float = 0.72
    hashes: int = 256
    seed: int = 42

    def __post_init__(self):
        if self.bands * self.rows > self.hashes:
            raise ValueError(f"{self.bands} bands of {self.rows} need {self.hashes} hashes or more")

    @property
    def num_perm(self) -> int:
        return self.hashes


def _splitmix64(state: int, count: int) -> list[int]:
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        out.append(z ^ (z >> 31))
    return out


@functools.cache
def _coefficients(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    values = _splitmix64(seed, 2 * num_perm)
    a = np.array([v | 1 for v in values[:num_perm]], np.uint64)[:, None]
    b = np.array(values[num_perm:], np.uint64)[:, None]
    return a, b


def shingle_hashes(words: list[str], size: int = SHINGLE_WORDS) -> np.ndarray:
    """The distinct 32-bit hashes (uint64 array) of the word ``size``-grams of ``words``."""
    if not words:
        return np.zeros(0, np.uint64)
    table: dict[str, int] = {}
    for word in words:
        if word not in table:
            table[word] = xxhash.xxh3_64_intdigest(word.encode("utf-8", "surrogatepass"))
    hashes = np.fromiter(map(table.__getitem__, words), np.uint64, len(words))
    span = min(size, len(hashes))
    count = len(hashes) - span + 1
    combined = np.full(count, np.uint64(span), np.uint64)  # the length tells short texts apart
    with np.errstate(over="ignore"):
        for k in range(span):
            combined = combined * _MULTIPLIER + hashes[k : k + count]
        combined = combined * _MULTIPLIER
    return np.unique(combined >> np.uint64(32))


def signature(words: list[str], params: MinHashParams) -> np.ndarray | None:
    """The ``params.num_perm`` minimum hashes (uint32) of ``words``' shingles; None without
    words."""
    shingles = shingle_hashes(words)
    if shingles.size == 0:
        return None
    a, b = _coefficients(params.num_perm, params.seed)
    lowest = np.full(params.num_perm, np.iinfo(np.uint64).max, np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, shingles.size, _CHUNK):
            values = (a * shingles[None, start : start + _CHUNK] + b) >> np.uint64(32)
            np.minimum(lowest, values.min(axis=1), out=lowest)
    return lowest.astype(np.uint32)


def band_keys(sig: np.ndarray, params: MinHashParams) -> list[int]:
    """One 63-bit key per band: equal keys, equal bands (up to a 2**-63 chance)."""
    raw = sig[: params.bands * params.rows].astype("<u4").tobytes()
    width = 4 * params.rows
    return [
        xxhash.xxh3_64_intdigest(raw[i * width : (i + 1) * width], seed=i) >> 1
        for i in range(params.bands)
    ]


_CHANCE = 1 / 256  # two different minima share their low byte


def compact(sig: np.ndarray) -> bytes:
    """The signature as compared and shuffled: the low byte of each value."""
    return (sig & 0xFF).astype(np.uint8).tobytes()


def similarity(a: bytes, b: bytes) -> float:
    """The estimated Jaccard similarity of two ``compact`` signatures: the share of equal bytes,
    less the share that are equal by chance."""
    equal = np.count_nonzero(np.frombuffer(a, np.uint8) == np.frombuffer(b, np.uint8)) / len(a)
    return max(0.0, (equal - _CHANCE) / (1 - _CHANCE))


def candidate_probability(jaccard: float, params: MinHashParams) -> float:
    """The chance that two texts of this Jaccard similarity share a band: 1 - (1 - J^r)^b."""
    return 1.0 - (1.0 - jaccard**params.rows) ** params.bands


def edge_probability(jaccard: float, params: MinHashParams) -> float:
    """The chance that two texts of this Jaccard similarity are found as near duplicates: they
    share a band, and their compact signatures estimate ``threshold`` or more. Each value
    agrees in full with probability J, else in its low byte alone with probability 1/256."""
    need = math.ceil(params.hashes * (params.threshold * (1 - _CHANCE) + _CHANCE) - 1e-9)
    full, by_chance = jaccard, (1 - jaccard) * _CHANCE
    miss = 1 - full - by_chance
    # states over the banded values: (bytes agreeing, a whole band agreed) -> probability
    states: dict[tuple[int, bool], float] = {(0, False): 1.0}
    for _ in range(params.bands):
        # one band: (bytes agreeing, all of them in full) -> probability
        band: dict[tuple[int, bool], float] = {(0, True): 1.0}
        for _ in range(params.rows):
            nxt: dict[tuple[int, bool], float] = {}
            for (agree, whole), p in band.items():
                for step, keeps, q in ((1, True, full), (1, False, by_chance), (0, False, miss)):
                    key = (agree + step, whole and keeps)
                    nxt[key] = nxt.get(key, 0.0) + p * q
            band = nxt
        merged: dict[tuple[int, bool], float] = {}
        for (agree, seen), p in states.items():
            for (more, whole), q in band.items():
                key = (agree + more, seen or whole)
                merged[key] = merged.get(key, 0.0) + p * q
        states = merged
    rest = params.hashes - params.bands * params.rows
    agree_one = full + by_chance
    tail = [
        math.comb(rest, k) * agree_one**k * (1 - agree_one) ** (rest - k) for k in range(rest + 1)
    ]
    return sum(
        p * q
        for (agree, seen), p in states.items()
        if seen
        for k, q in enumerate(tail)
        if agree + k >= need
    )


def s_curve_table(params: MinHashParams) -> str:
    """The S-curve as the README prints it, beside FineWeb's 14 bands of 8 without a threshold."""
    fineweb = MinHashParams(14, 8, 0.0, 112)
    lines = [
        "| Jaccard | shares a band | near duplicate (this job) | FineWeb, 14 x 8 |",
        "|---|---|---|---|",
    ]
    for j in (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        lines.append(
            f"| {j:.2f} | {candidate_probability(j, params):.4f} "
            f"| {edge_probability(j, params):.4f} | {candidate_probability(j, fineweb):.4f} |"
        )
    return "\n".join(lines)
