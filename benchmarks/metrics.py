"""Extraction-quality metrics, exactly as ../shared/corpus/README.md defines them.

- ``aeb``: tokens are ``re.findall(r"\\w+", text)`` (case kept); a page is a multiset of
  4-word shingles (a text of fewer than four tokens is one shorter shingle); TP, FP and FN are
  multiset counts normalised to sum 1.  Precision is averaged over the pages where
  ``tp + fp > 0`` and recall over the pages where ``tp + fn > 0`` (as the benchmark's own
  ``evaluate.py`` does); F1 is the harmonic mean of the two averages.
- ``wcxb``: a page is a bag of lowercase words ``re.findall(r"\\w+", text.lower())``;
  P = overlap / predicted words, R = overlap / reference words, F1 per page; the macro mean
  over pages is reported.  Title word-F1 is the same metric applied to titles.
  Scripts written without spaces between words count one token per character (as the
  corpus README defines for ``readability``/``newspaper4k``): after NFKC, each CJK ideograph,
  kana, Hangul syllable and Thai, Lao, Khmer or Myanmar character is a token of its own, so
  a Chinese paragraph is not one "word" and a page in those scripts is scored like any other.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from transforms.signals.words import words

_WORD = re.compile(r"\w+")


class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def _harmonic(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


# --- aeb -------------------------------------------------------------------------------------


def shingles(text: str, n: int = 4) -> Counter:
    """The multiset of ``n``-token shingles of ``text`` (one short shingle if < n tokens)."""
    tokens = _WORD.findall(text or "")
    if not tokens:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)))


def shingle_tp_fp_fn(reference: str, prediction: str, n: int = 4) -> tuple[float, float, float]:
    """Multiset TP/FP/FN of the shingles, normalised so that they sum to 1 (all 0 if empty)."""
    ref, pred = shingles(reference, n), shingles(prediction, n)
    tp = sum((ref & pred).values())
    fp = sum((pred - ref).values())
    fn = sum((ref - pred).values())
    total = tp + fp + fn
    if total == 0:
        return 0.0, 0.0, 0.0
    return tp / total, fp / total, fn / total


def aeb_page(reference: str, prediction: str) -> PRF:
    """Per-page precision, recall and F1 by shingles (for ranking pages; not the set figure)."""
    tp, fp, fn = shingle_tp_fp_fn(reference, prediction)
    p = tp / (tp + fp) if tp + fp > 0 else 0.0
    r = tp / (tp + fn) if tp + fn > 0 else 0.0
    return PRF(p, r, _harmonic(p, r))


def aeb_score(pairs: Iterable[tuple[str, str]]) -> PRF:
    """The set figure for ``(reference, prediction)`` pairs: mean P, mean R, F1 of the means."""
    precisions: list[float] = []
    recalls: list[float] = []
    for reference, prediction in pairs:
        tp, fp, fn = shingle_tp_fp_fn(reference, prediction)
        if tp + fp > 0:
            precisions.append(tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    return PRF(p, r, _harmonic(p, r))


# --- wcxb ------------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    """The lowercase word tokens of ``text``: the words of ``transforms.signals.words`` (``\\w+``
    runs, one token per character in the scripts written without spaces, after NFKC), the same
    words the row's signals count."""
    return words(text)


def word_bag(text: str) -> Counter:
    return Counter(tokens(text))


def word_prf(reference: str, prediction: str) -> PRF:
    """Bag-of-words P/R/F1 of one page (both empty counts as a perfect match)."""
    ref, pred = word_bag(reference), word_bag(prediction)
    n_ref, n_pred = sum(ref.values()), sum(pred.values())
    if n_ref == 0 and n_pred == 0:
        return PRF(1.0, 1.0, 1.0)
    if n_ref == 0 or n_pred == 0:
        return PRF(0.0, 0.0, 0.0)
    overlap = sum((ref & pred).values())
    p, r = overlap / n_pred, overlap / n_ref
    return PRF(p, r, _harmonic(p, r))


def macro_mean(scores: Iterable[PRF]) -> PRF:
    scores = list(scores)
    if not scores:
        return PRF(0.0, 0.0, 0.0)
    n = len(scores)
    return PRF(
        sum(s.precision for s in scores) / n,
        sum(s.recall for s in scores) / n,
        sum(s.f1 for s in scores) / n,
    )
