"""A row's signals: ``text_hash`` always, and the quality signals the published filters test.

``row_signals(text, language)`` returns one value per signal column of ``transforms.rows``;
every measure is over the row's ``text`` after NFKC (so that ``…`` is three dots and full-width
forms are ASCII), its words those of ``transforms.signals.words``:

| column | what | rule it serves |
|---|---|---|
| ``words`` | words in the text | Gopher: 50 to 100,000 |
| ``mean_word_length`` | mean characters per word | Gopher: 3 to 10 |
| ``symbol_word_ratio`` | ``#`` per word or ``...`` per word, the larger | Gopher: at most 0.1 |
| ``lines`` | non-blank lines | (denominator) |
| ``bullet_line_fraction`` etc. | see ``transforms.signals.lines`` | Gopher, C4, FineWeb |
| ``alpha_word_fraction`` | words holding a letter (not only digits and ``_``) | Gopher: at least 0.8 |
| ``stop_words`` | words on the language's list (``transforms.signals.stopwords``) | Gopher: at least 2 |
| ``top_Ngram_char_fraction``, ``duplicate_Ngram_char_fraction`` | ``transforms.signals.ngrams`` | Gopher |

A text without words has 0 for every ratio over words; ``stop_words`` is null for a language
without a list. With ``quality=False`` only ``text_hash`` is computed and the others are null
(the cleaning job's default: see ``--quality_signals``).

``text_hash`` is the exact-duplicate key: the 128-bit XXH3 hash (xxhash's ``xxh3_128``, seed 0:
a published, stable function, the same on every machine and version) of the UTF-8 bytes of the
text normalised by NFKC, lower-casing and squeezing every run of whitespace (line breaks
included) to one space, with none at either end, written as 32 hex digits. Punctuation is kept:
two texts differing in it are near duplicates for MinHash, not exact ones. At 128 bits two
different texts of a crawl of billions share a hash with a probability under 1e-19.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import xxhash

from transforms.signals.lines import line_signals
from transforms.signals.ngrams import DUPLICATE_NS, TOP_NS, ngram_fractions
from transforms.signals.stopwords import stop_words_of
from transforms.signals.words import normalise, split_words

__all__ = ["QUALITY_COLUMNS", "SIGNAL_COLUMNS", "row_signals", "text_hash"]

QUALITY_COLUMNS = (
    "words",
    "mean_word_length",
    "symbol_word_ratio",
    "lines",
    "bullet_line_fraction",
    "ellipsis_line_fraction",
    "punctuation_line_fraction",
    "short_line_fraction",
    "alpha_word_fraction",
    "stop_words",
    "duplicate_line_fraction",
    "duplicate_line_char_fraction",
    "duplicate_paragraph_fraction",
    "duplicate_paragraph_char_fraction",
    *(f"top_{n}gram_char_fraction" for n in TOP_NS),
    *(f"duplicate_{n}gram_char_fraction" for n in DUPLICATE_NS),
)
SIGNAL_COLUMNS = ("text_hash", *QUALITY_COLUMNS)
_NO_QUALITY = dict.fromkeys(QUALITY_COLUMNS)


def _hash_normalised(lowered: str) -> str:
    squeezed = " ".join(lowered.split())
    return xxhash.xxh3_128_hexdigest(squeezed.encode("utf-8", "surrogatepass"))


def text_hash(text: str) -> str:
    """The exact-duplicate key of ``text``: 32 hex digits (see the module docstring)."""
    return _hash_normalised(normalise(text))


def _letterless(words: list[str], lowered: str) -> int:
    """How many ``words`` hold no letter: digits (of any script) and underscores only, the
    ``\\w`` characters that are not letters."""
    count = sum(map(str.isnumeric, words))
    if "_" in lowered:  # rare: look at the words holding one
        for word in words:
            if "_" in word:
                rest = word.replace("_", "")
                count += not rest or rest.isnumeric()
    return count


def row_signals(text: str, language: str, *, quality: bool = True) -> dict[str, Any]:
    """Every signal column of a row with this ``text`` and ``language`` code."""
    folded = unicodedata.normalize("NFKC", text or "")
    lowered = folded.lower()
    signals: dict[str, Any] = {"text_hash": _hash_normalised(lowered)}
    if not quality:
        signals.update(_NO_QUALITY)
        return signals
    words = split_words(lowered)
    count = len(words)
    chars = sum(map(len, words))
    symbols = max(folded.count("#"), folded.count("..."))
    stop_list = stop_words_of(language)
    line = line_signals(folded)
    top, duplicate = ngram_fractions(words)
    signals.update(
        words=count,
        mean_word_length=chars / count if count else 0.0,
        symbol_word_ratio=symbols / count if count else 0.0,
        lines=line.lines,
        bullet_line_fraction=line.bullet_line_fraction,
        ellipsis_line_fraction=line.ellipsis_line_fraction,
        punctuation_line_fraction=line.punctuation_line_fraction,
        short_line_fraction=line.short_line_fraction,
        alpha_word_fraction=(count - _letterless(words, lowered)) / count if count else 0.0,
        stop_words=None if stop_list is None else sum(map(stop_list.__contains__, words)),
        duplicate_line_fraction=line.duplicate_line_fraction,
        duplicate_line_char_fraction=line.duplicate_line_char_fraction,
        duplicate_paragraph_fraction=line.duplicate_paragraph_fraction,
        duplicate_paragraph_char_fraction=line.duplicate_paragraph_char_fraction,
    )
    for n in TOP_NS:
        signals[f"top_{n}gram_char_fraction"] = top[n]
    for n in DUPLICATE_NS:
        signals[f"duplicate_{n}gram_char_fraction"] = duplicate[n]
    return signals
