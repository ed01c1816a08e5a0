"""Repetition within a text by word n-grams: Gopher's top and duplicate n-gram fractions.

Gopher (Rae et al. 2021, appendix A) drops a document when, for n = 2, 3, 4, the most frequent
n-gram holds more than 20%, 18%, 16% of its characters, or when, for n = 5 to 10, the duplicate
n-grams hold more than 15%, 14%, 13%, 12%, 11%, 10%. Here, over the words of
``transforms.signals.words`` and the characters of those words:

- ``top_ngram_char_fraction(n)``: the characters of the words covered by the occurrences of the
  most frequent n-gram (the one occurring first when several are as frequent), each word
  counted once however many occurrences overlap it; 0 when no n-gram occurs twice.
- ``duplicate_ngram_char_fraction(n)``: the characters of the words covered by any occurrence of
  an n-gram that occurs at least twice (all its occurrences, the first included: "the
  characters contained within all duplicate n-grams"), each word counted once.

How: the words become integer ids, then the positions whose n-gram occurs more than once are
found for n = 1, 2, ... 10 in turn, each level grouping only the positions the previous level
left in a group of two or more (an n-gram that occurs once cannot start a repeated longer one),
by their group so far and their next word (``numpy.unique``). Ten distinct sentinel ids after
the last word make every n-gram running past the end unique. The first level sorts every
position; the later ones few, so the whole costs about two sorts of the text's words.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["DUPLICATE_NS", "MAX_N", "TOP_NS", "ngram_fractions"]

TOP_NS = (2, 3, 4)
DUPLICATE_NS = (5, 6, 7, 8, 9, 10)
MAX_N = 10
_FIRST_ID = MAX_N + 1  # ids 1..MAX_N are the sentinels after the last word


def _covered_chars(starts: np.ndarray, n: int, lengths: np.ndarray) -> int:
    """Characters of the words covered by n-grams starting at ``starts`` (each word once)."""
    size = len(lengths) + 1
    depth = np.cumsum(
        np.bincount(starts, minlength=size) - np.bincount(starts + n, minlength=size)
    )[:-1]
    return int(lengths[depth > 0].sum())


def _top_starts(positions: np.ndarray, groups: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The starts of the most frequent n-gram, the earliest one of those equally frequent
    (``positions`` ascending, ``groups`` their n-gram's group, ``sizes`` each group's size)."""
    most = sizes[groups] == sizes.max()
    chosen = groups[np.argmax(most)]  # the first position whose group is among the largest
    return positions[groups == chosen]


def ngram_fractions(words: list[str]) -> tuple[dict[int, float], dict[int, float]]:
    """``({n: top n-gram char fraction} for TOP_NS, {n: duplicate n-gram char fraction} for
    DUPLICATE_NS)`` of a text's ``words``."""
    top = dict.fromkeys(TOP_NS, 0.0)
    duplicate = dict.fromkeys(DUPLICATE_NS, 0.0)
    count = len(words)
    if count < 2:
        return top, duplicate
    vocabulary: dict[str, int] = {}
    # each distinct word's id is where it first occurs (+ _FIRST_ID): below 2**31 for any text
    ids = np.array(list(map(vocabulary.setdefault, words, itertools.count(_FIRST_ID))))
    length_of = np.zeros(count + _FIRST_ID, np.int64)
    length_of[list(vocabulary.values())] = list(map(len, vocabulary))
    lengths = length_of[ids]
    total = int(lengths.sum())
    sequence = np.concatenate([ids, np.arange(1, MAX_N + 1, dtype=np.int64)])
    repeated_word = np.bincount(ids)[ids] >= 2
    positions = np.flatnonzero(repeated_word)  # ascending throughout
    groups = ids[positions]
    for n in range(2, MAX_N + 1):
        if positions.size < 2:
            break
        keys = (groups << 32) | sequence[positions + n - 1]
        _, groups, sizes = np.unique(keys, return_inverse=True, return_counts=True)
        if n in TOP_NS and sizes.max() >= 2:
            top[n] = _covered_chars(_top_starts(positions, groups, sizes), n, lengths) / total
        kept = sizes[groups] >= 2
        positions, groups = positions[kept], groups[kept]
        if n in DUPLICATE_NS and positions.size:
            duplicate[n] = _covered_chars(positions, n, lengths) / total
    return top, duplicate
