"""What a word is, for the row's signals, for the dedup job's shingles and for ``make eval``.

A text is normalised with NFKC (compatibility forms folded: full-width letters, ligatures,
``…`` to ``...``) and lower-cased; its words are then the runs of word characters (``\\w+``:
letters, digits, underscore), except in the scripts written without spaces between words: each
CJK ideograph, kana, Hangul syllable and Thai, Lao, Myanmar or Khmer character (letters and
their combining marks) is a word of its own. A Chinese paragraph is then many words rather than
one, so word counts, word n-grams and shingles mean the same in every script. This is the
corpus README's token for scoring ``readability`` and ``newspaper4k``; ``benchmarks.metrics``
uses ``words`` itself, so ``make eval`` and the signals cannot drift apart.

Texts without any character of those scripts (most of the web) take a plain ``\\w+`` scan: the
per-character pattern gives the same words there, at twice the cost.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["PER_CHARACTER", "normalise", "split_words", "words"]

# One word per character: CJK ideographs (and their extensions and compatibility forms), kana,
# Hangul syllables, Thai, Lao, Myanmar and Khmer (letters and their combining marks).
PER_CHARACTER = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\uac00-\ud7af\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\U00020000-\U0003134f"
)
_WORD = re.compile(r"\w+")
_ANY_PER_CHARACTER = re.compile(f"[{PER_CHARACTER}]")
_WORD_OR_CHARACTER = re.compile(f"[{PER_CHARACTER}]|(?:(?![{PER_CHARACTER}])\\w)+")


def normalise(text: str) -> str:
    """NFKC, then lower-case: the form words are taken from."""
    return unicodedata.normalize("NFKC", text or "").lower()


def split_words(normalised: str) -> list[str]:
    """The words of a text already ``normalise``d."""
    if _ANY_PER_CHARACTER.search(normalised) is None:
        return _WORD.findall(normalised)
    return _WORD_OR_CHARACTER.findall(normalised)


def words(text: str) -> list[str]:
    """The words of ``text``: ``split_words(normalise(text))``."""
    return split_words(normalise(text))
