"""Signals of a row's text: the exact-duplicate key and the measures published filters test.

Pure functions over a text, without Beam or Arrow (datatrove's and TFDS's ``c4_utils`` style):
``words`` (what a word is, shared with ``make eval`` and the dedup job), ``lines`` (bullets,
ellipses, punctuation, short and repeated lines and paragraphs), ``ngrams`` (Gopher's top and
duplicate n-gram fractions), ``stopwords`` (per language), ``compute`` (``row_signals``,
``text_hash``) and ``rules`` (the Gopher rules on these columns, as published).
"""

from transforms.signals.compute import QUALITY_COLUMNS, SIGNAL_COLUMNS, row_signals, text_hash
from transforms.signals.rules import GOPHER_RULES, Rule, gopher_failures, gopher_sql
from transforms.signals.words import normalise, split_words, words

__all__ = [
    "GOPHER_RULES",
    "QUALITY_COLUMNS",
    "SIGNAL_COLUMNS",
    "Rule",
    "gopher_failures",
    "gopher_sql",
    "normalise",
    "row_signals",
    "split_words",
    "text_hash",
    "words",
]
