"""Gopher's rules (Rae et al. 2021, appendix A) on the signal columns, held to the rule as
published: for each threshold, a generated text right at it (kept: the bounds are inclusive)
and one just past it (dropped by that rule). Each text is built word by word so that the
measure is exact (e.g. 100 characters of 500 for a top 2-gram at 20%); the same rows then go
through Parquet and DuckDB with ``gopher_sql()``, as a user would filter them."""

from __future__ import annotations

import random
import string

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.rows import ROW_SCHEMA
from transforms.signals import GOPHER_RULES, SIGNAL_COLUMNS, gopher_failures, gopher_sql
from transforms.signals import row_signals as compute
from transforms.signals.stopwords import GOPHER_STOP_WORDS

RULES = {rule.column: rule for rule in GOPHER_RULES}


class Words:
    """Distinct pseudo-words of chosen lengths (none a stop word), from a fixed seed."""

    def __init__(self, seed: int = 7):
        self._rng = random.Random(seed)
        self._used: set[str] = set(GOPHER_STOP_WORDS)

    def __call__(self, length: int) -> str:
        while True:
            word = "".join(self._rng.choice(string.ascii_lowercase) for _ in range(length))
            if word not in self._used:
                self._used.add(word)
                return word

    def many(self, count: int, length: int = 5) -> list[str]:
        return [self(length) for _ in range(count)]


def prose(words: list[str], per_line: int = 10) -> str:
    """Lines of ``per_line`` words, each ending with a full stop."""
    lines = [" ".join(words[i : i + per_line]) + "." for i in range(0, len(words), per_line)]
    return "\n".join(lines)


def text_of(chars: int, count: int, fresh: Words, *, repeated: list[list[str]] = ()) -> str:
    """``count`` words of ``chars`` characters in all: "the" and "and" (the stop words), the
    ``repeated`` spans in turn, and distinct filler words of 5 characters, the last filler
    word taking up the difference."""
    body = ["the", "and"] + [w for span in repeated for w in span]
    filler = count - len(body)
    rest = chars - sum(map(len, body)) - 5 * (filler - 1)
    assert filler >= 1 and rest >= 1, (filler, rest)
    words = ["the"] + fresh.many(filler - 1) + [fresh(rest)] + ["and"]
    # spread the repeated spans out, each between distinct words
    out, spans = [], [list(s) for s in repeated]
    for i, word in enumerate(words):
        out.append(word)
        if spans and i % 3 == 1:
            out.extend(spans.pop(0))
    for span in spans:
        out.extend(span)
        out.append(fresh(5))
    return prose(out)


def cases() -> list[tuple[str, str, str]]:
    """``(column, side, text)``: ``"at"`` the threshold (kept) or ``"past"`` it (dropped)."""
    w = Words()
    out: list[tuple[str, str, str]] = []

    def add(column: str, at: str, past: str) -> None:
        out.extend([(column, "at", at), (column, "past", past)])

    add("words", prose(["the", "and", *w.many(48)]), prose(["the", "and", *w.many(47)]))
    add("words", prose(["the", "and", *w.many(99_998)]), prose(["the", "and", *w.many(99_999)]))
    add(
        "mean_word_length",  # 150 characters in 50 words; then 149
        prose(["the", "and", *w.many(48, 3)]),
        prose(["the", "and", *w.many(47, 3), w(2)]),
    )
    add(
        "mean_word_length",  # 500 characters in 50 words; then 501
        prose(["the", "and", *w.many(47, 10), w(24)]),
        prose(["the", "and", *w.many(47, 10), w(25)]),
    )
    base = ["the", "and", *w.many(48)]
    add(
        "symbol_word_ratio",  # 5 "#" in 50 words; then 6
        prose([*base[:-5], *(f"#{x}" for x in base[-5:])]),
        prose([*base[:-6], *(f"#{x}" for x in base[-6:])]),
    )
    add(
        "symbol_word_ratio",  # the same with ellipses inside lines
        prose([*base[:-5], *(f"{x}..." for x in base[-5:])], per_line=11),
        prose([*base[:-6], *(f"{x}..." for x in base[-6:])], per_line=11),
    )
    # the stop words in the first line only: repeated, "the and" would be a top 2-gram
    lines = [
        " ".join([*(["the", "and"] if i == 0 else w.many(2)), *w.many(4)]) + "." for i in range(10)
    ]
    add(
        "bullet_line_fraction",  # 9 of 10 lines start with a bullet; then 10
        "\n".join(["• " + x for x in lines[:9]] + lines[9:]),
        "\n".join("• " + x for x in lines),
    )
    add(
        "ellipsis_line_fraction",  # 3 of 10 lines end with an ellipsis; then 4
        "\n".join([x[:-1] + "…" for x in lines[:3]] + lines[3:]),
        "\n".join([x[:-1] + "…" for x in lines[:4]] + lines[4:]),
    )
    numbers = [str(10_000 + i) for i in range(11)]
    add(
        "alpha_word_fraction",  # 40 of 50 words hold a letter; then 39
        prose(["the", "and", *w.many(38), *numbers[:10]]),
        prose(["the", "and", *w.many(37), *numbers]),
    )
    add("stop_words", prose(["the", "of", *w.many(48)]), prose(["the", *w.many(49)]))
    long_lines = [prose(w.many(12), per_line=12) for _ in range(5)]
    add(
        "duplicate_line_fraction",  # 3 of 10 lines repeat "Yes."; then 4 of 10
        "\n".join(["the and", *long_lines, *["Yes."] * 4]),
        "\n".join(["the and", *long_lines[:4], *["Yes."] * 5]),
    )
    two_line = [prose(w.many(10)) + "\n" + prose(w.many(10)) for _ in range(8)]
    add(
        "duplicate_paragraph_fraction",  # 3 of 10 paragraphs repeat "Yes."; then 4 of 11
        "\n\n".join(["the and " + two_line[0], *two_line[1:6], *["Yes."] * 4]),
        "\n\n".join(["the and " + two_line[0], *two_line[1:6], *["Yes."] * 5]),
    )
    # 7 distinct lines of 50 characters and 3 lines of "=": 2 repeats of 50 in 500; then 51
    fifty = [" ".join(["the", "and", *w.many(7)]) + "." for _ in range(7)]
    for line in fifty:
        assert len(line) == 50
    add(
        "duplicate_line_char_fraction",
        "\n".join([*fifty, *["=" * 50] * 3]),
        "\n".join([*fifty, *["=" * 51] * 3]),
    )
    add(
        "duplicate_paragraph_char_fraction",
        "\n\n".join([*fifty, *["=" * 50] * 3]),  # 2 repeats of 10 paragraphs
        "\n\n".join([*fifty, *["=" * 51] * 3]),
    )
    # top n-grams, 500 characters of 100 words: an n-gram of 5-letter words m times covers
    # 5 n m characters: 20% is 2-grams x10, 18% 3-grams x6, 16% 4-grams x4
    for n, times in ((2, 10), (3, 6), (4, 4)):
        gram = w.many(n)
        add(
            f"top_{n}gram_char_fraction",
            text_of(500, 100, w, repeated=[gram] * times),
            text_of(500, 100, w, repeated=[gram] * (times + 1)),
        )
    # duplicate n-grams, 1,000 characters: an n-gram of c characters twice covers 2c: c is
    # 1000 t / 2 at the threshold t, one more character past it
    for n, bound in zip(range(5, 11), (0.15, 0.14, 0.13, 0.12, 0.11, 0.10), strict=True):
        chars = round(1000 * bound / 2)
        for side, extra in (("at", 0), ("past", 1)):
            gram = [*w.many(n - 1, 5), w(chars + extra - 5 * (n - 1))]
            out.append(
                (
                    f"duplicate_{n}gram_char_fraction",
                    side,
                    text_of(1000, 150, w, repeated=[gram] * 2),
                )
            )
    return out


CASES = cases()


def test_every_rule_is_tested_on_both_sides():
    assert {column for column, _, _ in CASES} == set(RULES)


@pytest.mark.parametrize(
    ("column", "side", "text"),
    CASES,
    ids=[f"{column}-{side}-{i}" for i, (column, side, _) in enumerate(CASES)],
)
def test_threshold(column, side, text):
    row = compute(text, "en")
    rule = RULES[column]
    broken = {r.column for r in gopher_failures(row)}
    value = row[column]
    if side == "at":
        assert value in (rule.at_least, rule.at_most), value  # exactly at the bound
        assert broken == set(), (value, broken)
    else:
        assert not rule.holds(value)
        # a repeated paragraph is made of repeated lines, so it breaks the line rule as well
        assert column in broken and broken <= {column, "duplicate_line_char_fraction"}, broken


def test_duckdb_with_the_published_query_keeps_exactly_the_texts_at_the_thresholds(tmp_path):
    fields = [ROW_SCHEMA.field(name) for name in SIGNAL_COLUMNS]
    rows = [
        {**compute(text, "en"), "case": f"{c}-{side}-{i}"}
        for i, (c, side, text) in enumerate(CASES)
    ]
    table = pa.Table.from_pylist(rows, schema=pa.schema([*fields, pa.field("case", pa.string())]))
    pq.write_table(table, tmp_path / "rows.parquet")
    kept = duckdb.sql(
        f"select \"case\" from read_parquet('{tmp_path}/rows.parquet') where {gopher_sql()}"
    ).fetchall()
    assert sorted(k for (k,) in kept) == sorted(r["case"] for r in rows if "-at-" in r["case"])
