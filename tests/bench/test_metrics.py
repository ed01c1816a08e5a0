"""The benchmark metrics on small hand-made cases (definitions in ../shared/corpus/README.md)."""

import pytest

from benchmarks.metrics import aeb_score, macro_mean, shingle_tp_fp_fn, shingles, word_prf


def test_shingles_are_4_token_multisets():
    assert shingles("a b c d e") == {("a", "b", "c", "d"): 1, ("b", "c", "d", "e"): 1}
    assert shingles("a b c d a b c d")[("a", "b", "c", "d")] == 2
    assert shingles("one two") == {("one", "two"): 1}  # fewer than 4 tokens: one short shingle
    assert shingles("") == {}
    assert shingles("Hello, world! x-y") == {
        ("Hello", "world", "x", "y"): 1
    }  # \w+ tokens, case kept


def test_shingle_counts_are_normalised_to_sum_one():
    tp, fp, fn = shingle_tp_fp_fn("a b c d e", "a b c d x")
    assert (tp, fp, fn) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert shingle_tp_fp_fn("", "") == (0.0, 0.0, 0.0)
    # multiset: a repeated shingle predicted once is one TP and one FN
    tp, fp, fn = shingle_tp_fp_fn("a b c d a b c d", "a b c d")
    assert tp > 0 and fp == 0 and fn > 0


def test_aeb_score_averages_precision_and_recall_then_takes_harmonic_mean():
    pairs = [("a b c d e", "a b c d e"), ("a b c d e f", "a b c d x")]
    # page 1: P=R=1; page 2: ref shingles abcd bcde cdef, pred abcd bcdx -> P=1/2, R=1/3
    score = aeb_score(pairs)
    assert score.precision == pytest.approx(0.75)
    assert score.recall == pytest.approx(2 / 3)
    assert score.f1 == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))


def test_aeb_empty_prediction_counts_for_recall_only():
    score = aeb_score([("a b c d", "a b c d"), ("a b c d", "")])
    assert score.precision == pytest.approx(1.0)
    assert score.recall == pytest.approx(0.5)


def test_word_prf_is_a_lowercase_bag_of_words():
    s = word_prf("The cat, the hat.", "the CAT")
    assert s.precision == pytest.approx(1.0)
    assert s.recall == pytest.approx(0.5)
    assert s.f1 == pytest.approx(2 / 3)
    # bag, not set: a repeated word counts once per occurrence
    assert word_prf("a", "a a a").precision == pytest.approx(1 / 3)
    assert word_prf("", "") == (1.0, 1.0, 1.0)
    assert word_prf("x", "") == (0.0, 0.0, 0.0)
    assert word_prf("", "x") == (0.0, 0.0, 0.0)


def test_macro_mean():
    m = macro_mean([word_prf("a b", "a b"), word_prf("a b", "c")])
    assert m.f1 == pytest.approx(0.5)
    assert macro_mean([]) == (0.0, 0.0, 0.0)


def test_benchmark_skips_cleanly_without_the_corpus(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "CORPUS": str(tmp_path / "absent")}
    cmd = [sys.executable, "-m", "benchmarks.quality"]
    done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "skipped" in done.stdout


def test_scripts_without_spaces_count_one_token_per_character():
    from benchmarks.metrics import tokens

    assert tokens("子どもへの虐待") == ["子", "ど", "も", "へ", "の", "虐", "待"]
    assert tokens("한국어 ภาษา") == ["한", "국", "어", "ภ", "า", "ษ", "า"]
    # NFKC: full-width Latin and half-width katakana are their usual forms
    assert tokens("ＡＢＣ ｶﾅ") == ["abc", "カ", "ナ"]
    # other scripts keep their \w+ runs, mixed text splits at the script boundary
    assert tokens("Wörter, x_y 123 Привет") == ["wörter", "x_y", "123", "привет"]
    assert tokens("iPhone15の発売") == ["iphone15", "の", "発", "売"]


def test_a_chinese_page_is_scored_by_character_not_as_one_word():
    # one differing character in a 10-character sentence: 9 of 10 tokens match
    s = word_prf("短缺药品保供稳价全力", "短缺药品保供稳价全部")
    assert s.precision == pytest.approx(0.9) and s.recall == pytest.approx(0.9)


def test_a_footer_of_links_is_a_paragraph_but_not_prose_outside_links(capsys):
    from benchmarks.quality import print_empty_with_prose

    names = [f"Policy number {i}" for i in range(20)]
    links = ", ".join(f"[{name}](https://example.com/p/{i})" for i, name in enumerate(names))
    prose = "A sentence of the article that goes on for a while. " * 5
    full = {
        "wcxb": {
            "links": [", ".join(names), links],  # text, Markdown with links
            "prose": [prose, prose],
            "short": ["Home", "[Home](/)"],
        }
    }
    print_empty_with_prose({"wcxb": {}}, {"full_if_empty": full})
    out = capsys.readouterr().out
    assert "wcxb 2 (links, prose), 1 outside links" in out and "[3 pages empty in all]" in out
