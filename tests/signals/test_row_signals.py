"""Each signal on hand-made texts, against values worked out by hand (in the comments)."""

from __future__ import annotations

import pytest
import xxhash

from transforms.signals import QUALITY_COLUMNS, SIGNAL_COLUMNS, row_signals, text_hash, words


def signals(text: str, language: str = "en") -> dict:
    return row_signals(text, language)


def test_words_lengths_letters_and_symbols():
    # NFKC writes "…" as "..."; words: hello world 42 foo_bar __ café (6)
    row = signals("Hello, world 42 foo_bar __ café…")
    assert row["words"] == 6
    assert row["mean_word_length"] == pytest.approx((5 + 5 + 2 + 7 + 2 + 4) / 6)
    assert row["alpha_word_fraction"] == pytest.approx(4 / 6)  # "42" and "__" hold no letter
    assert row["symbol_word_ratio"] == pytest.approx(1 / 6)  # one ellipsis, no "#"
    assert row["stop_words"] == 0
    # one line of 34 characters, ending with an ellipsis (so with a full stop too)
    assert (row["lines"], row["short_line_fraction"]) == (1, 0.0)
    assert row["ellipsis_line_fraction"] == row["punctuation_line_fraction"] == 1.0


def test_symbol_ratio_is_the_larger_of_hashes_and_ellipses():
    # words: a b c d (4); "#" x 2, "..." x 1 ("......" is two)
    assert signals("#a #b c... d")["symbol_word_ratio"] == pytest.approx(2 / 4)
    assert signals("a b...... c d")["symbol_word_ratio"] == pytest.approx(2 / 4)


def test_scripts_without_spaces_count_a_word_per_character():
    row = signals("我爱北京。Hello世界", "zh")
    assert words("我爱北京。Hello世界") == ["我", "爱", "北", "京", "hello", "世", "界"]
    assert row["words"] == 7
    assert row["mean_word_length"] == pytest.approx(11 / 7)
    assert row["punctuation_line_fraction"] == 0.0  # the line ends with 界


def test_stop_words_per_language():
    # Gopher's eight for English: the, and, the, with (4); "me" is not one of them
    assert signals("The cat and the dog sat with me")["stop_words"] == 4
    # stopwords-iso's German list: der, und, die
    assert signals("der Hund und die Katze", "de")["stop_words"] == 3
    assert signals("der Hund und die Katze", "xx")["stop_words"] is None  # no list: unknown


LINES = (
    "• First point\n"  # 13 characters, bullet, short
    "• First point\n"  # repeat
    "A line that is long enough to not be short.\n"  # 43, punctuated
    "\n"
    "It ends without punctuation\n"  # 27, short
    "\n"
    "• First point\n"  # repeat
    "• First point\n"  # repeat
    "\n"
    "It ends without punctuation"  # repeat, and a repeated paragraph
)


def test_line_and_paragraph_signals():
    row = signals(LINES)
    total = 13 * 4 + 43 + 27 * 2  # 149 characters in 7 lines
    assert row["lines"] == 7
    assert row["bullet_line_fraction"] == pytest.approx(4 / 7)
    assert row["punctuation_line_fraction"] == pytest.approx(1 / 7)
    assert row["short_line_fraction"] == pytest.approx(6 / 7)
    assert row["ellipsis_line_fraction"] == 0.0
    assert row["duplicate_line_fraction"] == pytest.approx(4 / 7)  # 3 bullets, 1 sentence
    assert row["duplicate_line_char_fraction"] == pytest.approx((13 * 3 + 27) / total)
    # paragraphs: (bullet, bullet, long line), (It ends...), (bullet, bullet), (It ends...)
    assert row["duplicate_paragraph_fraction"] == pytest.approx(1 / 4)
    assert row["duplicate_paragraph_char_fraction"] == pytest.approx(27 / total)


def test_top_ngram_fractions():
    # words xx y xx y xx y zzz: 12 characters
    row = signals("xx y xx y xx y zzz")
    assert row["top_2gram_char_fraction"] == pytest.approx(9 / 12)  # "xx y" x3 covers 6 words
    # "xx y xx" and "y xx y" occur twice each: the first one wins, covering words 0-4
    assert row["top_3gram_char_fraction"] == pytest.approx(8 / 12)
    assert row["top_4gram_char_fraction"] == pytest.approx(9 / 12)  # "xx y xx y" at 0 and 2
    assert row["duplicate_5gram_char_fraction"] == 0.0
    assert signals("one two three")["top_2gram_char_fraction"] == 0.0  # nothing repeats


def test_duplicate_ngram_fractions():
    # 12 words, 46 characters; "one two three four five" (19 characters) occurs twice
    row = signals("one two three four five six one two three four five seven")
    assert row["duplicate_5gram_char_fraction"] == pytest.approx(38 / 46)
    assert row["duplicate_6gram_char_fraction"] == 0.0
    # four 2-grams occur twice; the first, "one two", covers words 0, 1, 6, 7
    assert row["top_2gram_char_fraction"] == pytest.approx(12 / 46)
    assert row["top_3gram_char_fraction"] == pytest.approx(22 / 46)
    assert row["top_4gram_char_fraction"] == pytest.approx(30 / 46)


def test_empty_and_wordless_texts():
    for text in ("", "   \n\n ", "!!! ... ---"):
        row = signals(text)
        assert set(row) == set(SIGNAL_COLUMNS)
        assert row["words"] == 0 and row["mean_word_length"] == 0.0
        assert row["alpha_word_fraction"] == row["symbol_word_ratio"] == 0.0
    assert signals("!!! ... ---")["lines"] == 1


def test_without_quality_only_the_hash_is_filled():
    row = row_signals("Some text.", "en", quality=False)
    assert row["text_hash"] == text_hash("Some text.")
    assert all(row[name] is None for name in QUALITY_COLUMNS)


def test_text_hash_normalisation():
    base = text_hash("Hello World.\n\nSecond  paragraph")
    assert len(base) == 32 and int(base, 16) >= 0
    # NFKC (full-width letters), case, and whitespace runs of any kind do not change it
    assert text_hash("ＨＥＬＬＯ world.  Second\tparagraph \n") == base
    assert text_hash("  hello\u00a0world. second paragraph") == base
    # punctuation and words do
    assert text_hash("Hello World! Second paragraph") != base
    assert text_hash("Hello World. Second paragraphs") != base
    # a fixed, stable function: XXH3-128 (seed 0) of the UTF-8 of "hello world."; the digest is
    # written out so that a change of normalisation or of hash shows here
    assert text_hash(" Hello   WORLD. ") == xxhash.xxh3_128_hexdigest(b"hello world.")
    assert text_hash(" Hello   WORLD. ") == "c80e23e6f0504a91066e112e93d82456"
