"""Stop words per language, for the ``stop_words`` signal.

- English: Gopher's own eight words, as published (Rae et al. 2021, appendix A: "the, be, to,
  of, and, that, have, with"; a document must hold at least two). FineWeb applies the same rule
  with the same list, so ``stop_words >= 2`` is that rule exactly.
- The other languages that stopwords-iso covers (57 more, by ISO 639-1 code, the codes of the
  ``language`` column): that package's list, normalised as words are (NFKC, lower case). These
  lists are broad (hundreds of words each: pronouns, articles, particles, common verbs), so a
  threshold on them is not Gopher's and wants tuning per language, as FineWeb-2 did.
- Any other language: no list, and the signal is null rather than a misleading 0.

In the scripts counted one word per character (``transforms.signals.words``), only the
single-character entries of a list can match a word.
"""

from __future__ import annotations

import functools

import stopwordsiso

from transforms.signals.words import normalise

__all__ = ["GOPHER_STOP_WORDS", "stop_words_of"]

GOPHER_STOP_WORDS = frozenset({"the", "be", "to", "of", "and", "that", "have", "with"})


@functools.cache
def stop_words_of(language: str) -> frozenset[str] | None:
    """The stop words of a ``language`` code, or None when there is no list for it."""
    if language == "en":
        return GOPHER_STOP_WORDS
    if not language or not stopwordsiso.has_lang(language):
        return None
    return frozenset(normalise(word) for word in stopwordsiso.stopwords(language))
