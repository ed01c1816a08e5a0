"""Gopher's quality and repetition rules (Rae et al. 2021, appendix A), on the signal columns.

Each ``Rule`` names a column, a bound and whether a document must stay within it ("at least",
"at most"), as the paper states them. ``gopher_failures(row)`` lists the rules a row of signals
breaks (a document is kept when the list is empty); ``gopher_sql()`` is the same filter as a SQL
``WHERE`` clause, for DuckDB over the Parquet output (the README prints it).

The stop-word rule holds as published for English rows only: other languages count their own
(longer) lists (``transforms.signals.stopwords``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["GOPHER_RULES", "Rule", "gopher_failures", "gopher_sql"]


class Rule(NamedTuple):
    column: str
    at_least: float | None  # the document must have column >= at_least
    at_most: float | None  # ... and column <= at_most
    published: str  # the rule in the paper's words

    def holds(self, value: float) -> bool:
        if self.at_least is not None and value < self.at_least:
            return False
        return self.at_most is None or value <= self.at_most

    def sql(self) -> str:
        parts = []
        if self.at_least is not None:
            parts.append(f"{self.column} >= {self.at_least:g}")
        if self.at_most is not None:
            parts.append(f"{self.column} <= {self.at_most:g}")
        return " and ".join(parts)


GOPHER_RULES = (
    Rule("words", 50, 100_000, "between 50 and 100,000 words"),
    Rule("mean_word_length", 3, 10, "mean word length between 3 and 10 characters"),
    Rule("symbol_word_ratio", None, 0.1, "symbol-to-word ratio of # or ellipsis at most 0.1"),
    Rule("bullet_line_fraction", None, 0.9, "at most 90% of lines starting with a bullet"),
    Rule("ellipsis_line_fraction", None, 0.3, "at most 30% of lines ending with an ellipsis"),
    Rule("alpha_word_fraction", 0.8, None, "at least 80% of words with an alphabetic character"),
    Rule("stop_words", 2, None, "at least two of: the, be, to, of, and, that, have, with"),
    Rule("duplicate_line_fraction", None, 0.3, "duplicate lines at most 30% of lines"),
    Rule("duplicate_paragraph_fraction", None, 0.3, "duplicate paragraphs at most 30%"),
    Rule("duplicate_line_char_fraction", None, 0.2, "characters in duplicate lines at most 20%"),
    Rule(
        "duplicate_paragraph_char_fraction",
        None,
        0.2,
        "characters in duplicate paragraphs at most 20%",
    ),
    Rule("top_2gram_char_fraction", None, 0.2, "top 2-gram at most 20% of characters"),
    Rule("top_3gram_char_fraction", None, 0.18, "top 3-gram at most 18% of characters"),
    Rule("top_4gram_char_fraction", None, 0.16, "top 4-gram at most 16% of characters"),
    *(
        Rule(
            f"duplicate_{n}gram_char_fraction",
            None,
            bound,
            f"duplicate {n}-grams at most {bound:.0%} of characters",
        )
        for n, bound in zip(range(5, 11), (0.15, 0.14, 0.13, 0.12, 0.11, 0.10), strict=True)
    ),
)


def gopher_failures(signals: Mapping[str, Any]) -> list[Rule]:
    """The Gopher rules that a row's signals break; a null signal breaks none."""
    return [
        rule
        for rule in GOPHER_RULES
        if signals.get(rule.column) is not None and not rule.holds(signals[rule.column])
    ]


def gopher_sql() -> str:
    """The rows Gopher keeps, as a SQL condition on the signal columns."""
    return "\n  and ".join(rule.sql() for rule in GOPHER_RULES)
