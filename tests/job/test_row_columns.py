"""The row's language, comments and Markdown columns, the language filter and the summary's
language split, and Common Crawl style path lists, through the whole job."""

import gzip
import os
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from beam_jobs.clean_html import format_summary
from tests.builders import WarcEntry, http_response, page, write_warc
from tests.conftest import run_job
from transforms import reasons
from transforms.rows import ROW_SCHEMA
from transforms.signals import QUALITY_COLUMNS, row_signals, text_hash

PAGES = {
    "https://a.example/bees": page(
        "Bees in the city",
        "Urban beekeeping has doubled in five years, and hives now sit on many roofs.",
        "<ul><li><a href='/honey'>Honey from the roofs</a></li><li>Pollination of parks</li></ul>",
    ),
    "https://a.example/otters": page(
        "Otters return",
        "Otters were seen near the old mill for the first time in twenty years.",
    ),
    "https://b.example/bienen": page(
        "Bienen in der Stadt",
        "Die Stadtimkerei hat sich in fünf Jahren verdoppelt, und auf vielen Dächern stehen "
        "heute Bienenstöcke.",
    ),
}


def write_crawl(folder: Path, name: str, urls: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    entries = [WarcEntry("response", url, http_response(PAGES[url].encode())) for url in urls]
    return write_warc(folder / name, entries)


def test_rows_have_language_and_comments_readable_by_pyarrow_pandas_and_duckdb(tmp_path):
    write_crawl(tmp_path / "crawl", "one.warc.gz", list(PAGES))
    out = tmp_path / "out"
    rows, _, summary = run_job(
        ["--input", str(tmp_path / "crawl" / "*.warc.gz"), "--output", str(out)]
    )
    assert {row["url"]: row["language"] for row in rows} == {
        "https://a.example/bees": "en",
        "https://a.example/otters": "en",
        "https://b.example/bienen": "de",
    }
    assert all(0.5 < row["language_score"] <= 1.0 and row["comments"] == "" for row in rows)
    assert summary["rows_by_language"] == {"en": 2, "de": 1}
    assert "languages: en 2, de 1" in format_summary(summary)

    table = pq.read_table(out / "data")
    assert table.schema.equals(ROW_SCHEMA, check_metadata=False)
    assert table.schema.field("language_score").type == pa.float32()
    frame = pd.read_parquet(out / "data")
    assert str(frame["language_score"].dtype) == "float32"
    assert sorted(frame["language"]) == ["de", "en", "en"]
    counts = duckdb.sql(
        f"select language, count(*), min(language_score) > 0.5, max(length(comments)) "
        f"from read_parquet('{out}/data/*.parquet') group by language order by language"
    ).fetchall()
    assert counts == [("de", 1, True, 0), ("en", 2, True, 0)]


def test_languages_flag_keeps_only_those_and_rejects_the_others(tmp_path):
    write_crawl(tmp_path / "crawl", "one.warc.gz", list(PAGES))
    out = tmp_path / "out"
    args = ["--input", str(tmp_path / "crawl" / "*.warc.gz"), "--output", str(out)]
    rows, rejects, summary = run_job([*args, "--languages", "de", "--max_reject_ratio", "1"])
    assert [row["url"] for row in rows] == ["https://b.example/bienen"]
    assert sorted(rej["url"] for rej in rejects) == [
        "https://a.example/bees",
        "https://a.example/otters",
    ]
    assert {rej["reason"] for rej in rejects} == {reasons.LANGUAGE}
    assert all(rej["detail"].startswith("en ") for rej in rejects)
    assert summary["rejects_by_reason"] == {reasons.LANGUAGE: 2}
    assert summary["rows_by_language"] == {"de": 1}


def test_format_markdown_writes_markdown_text(tmp_path):
    write_crawl(tmp_path / "crawl", "one.warc.gz", ["https://a.example/bees"])
    out = tmp_path / "out"
    args = ["--input", str(tmp_path / "crawl" / "*.warc.gz"), "--output", str(out)]
    (row,), _, _ = run_job([*args, "--format", "markdown"])
    assert "- Honey from the roofs\n- Pollination of parks" in row["text"]
    (row,), _, _ = run_job([*args, "--format", "markdown", "--markdown_links"])
    assert "- [Honey from the roofs](https://a.example/honey)" in row["text"]


def test_input_lists_with_a_prefix_duplicates_and_a_missing_path(tmp_path):
    mirror = tmp_path / "mirror"
    write_crawl(mirror / "crawl-data" / "seg1", "a.warc.gz", ["https://a.example/bees"])
    write_crawl(mirror / "crawl-data" / "seg2", "b.warc.gz", ["https://b.example/bienen"])
    other = write_crawl(tmp_path / "other", "c.warc.gz", ["https://a.example/otters"])
    listed = tmp_path / "warc.paths.gz"
    listed.write_bytes(
        gzip.compress(
            b"crawl-data/seg1/a.warc.gz\n"
            b"crawl-data/seg2/b.warc.gz\n"
            b"\n"
            b"crawl-data/seg1/a.warc.gz\n"  # listed twice: read once
            b"crawl-data/seg3/missing.warc.gz\n"
        )
    )
    plain = tmp_path / "more.paths"
    plain.write_text(f"# a comment\n{other}\ncrawl-data/seg2/b.warc.gz\n")
    out = tmp_path / "out"
    rows, rejects, summary = run_job(
        [
            "--input_list", str(listed),
            "--input_list", str(plain),
            "--input_prefix", str(mirror) + "/",
            "--output", str(out),
        ]
    )  # fmt: skip
    assert sorted(row["url"] for row in rows) == [
        "https://a.example/bees",
        "https://a.example/otters",
        "https://b.example/bienen",
    ]
    missing = str(mirror / "crawl-data" / "seg3" / "missing.warc.gz")
    assert [(rej["source_file"], rej["reason"]) for rej in rejects] == [
        (missing, reasons.UNREADABLE_FILE)
    ]
    assert summary["files"]["count"] == 4


def test_input_list_goes_with_input_patterns(tmp_path):
    write_crawl(tmp_path / "crawl", "one.warc.gz", ["https://a.example/bees"])
    other = write_crawl(tmp_path / "other", "two.warc.gz", ["https://a.example/otters"])
    listed = tmp_path / "list.txt"
    # the file --input matches is listed too: it is read once
    listed.write_text(f"{other}\n{tmp_path / 'crawl' / 'one.warc.gz'}\n")
    rows, _, summary = run_job(
        [
            "--input", str(tmp_path / "crawl" / "*.warc.gz"),
            "--input_list", str(listed),
            "--output", str(tmp_path / "out"),
        ]
    )  # fmt: skip
    assert sorted(row["url"] for row in rows) == [
        "https://a.example/bees",
        "https://a.example/otters",
    ]
    assert summary["files"]["count"] == 2


def test_a_listed_path_with_a_non_utf8_byte_is_read_not_the_launch_lost(tmp_path):
    # a list written on a latin-1 system: the line's bytes are the file's name on disk
    crawl = tmp_path / "crawl"
    write_crawl(crawl, "bees.warc.gz", ["https://a.example/bees"])
    odd = os.fsencode(crawl) + b"/caf\xe9.warc.gz"
    os.rename(crawl / "bees.warc.gz", odd)
    listed = tmp_path / "warc.paths"
    listed.write_bytes(odd + b"\n" + os.fsencode(crawl) + b"/missing\xff.warc.gz\n")
    rows, rejects, summary = run_job(["--input_list", str(listed), "--output", str(tmp_path / "o")])
    assert [row["url"] for row in rows] == ["https://a.example/bees"]
    assert rows[0]["source_file"].endswith("caf\ufffd.warc.gz")
    assert [rej["reason"] for rej in rejects] == [reasons.UNREADABLE_FILE]
    assert rejects[0]["source_file"].endswith("missing\ufffd.warc.gz")


def test_signals_text_hash_always_quality_signals_with_the_flag(tmp_path):
    write_crawl(tmp_path / "crawl", "one.warc.gz", list(PAGES))
    args = ["--input", str(tmp_path / "crawl" / "*.warc.gz")]
    plain, _, _ = run_job([*args, "--output", str(tmp_path / "plain")])
    full, _, _ = run_job([*args, "--output", str(tmp_path / "full"), "--quality_signals"])
    key = lambda row: row["url"]  # noqa: E731
    for without, row in zip(sorted(plain, key=key), sorted(full, key=key), strict=True):
        expected = row_signals(row["text"], row["language"])
        assert without["text_hash"] == row["text_hash"] == text_hash(row["text"])
        assert all(without[name] is None for name in QUALITY_COLUMNS)
        assert {name: row[name] for name in QUALITY_COLUMNS} == pytest.approx(
            {name: expected[name] for name in QUALITY_COLUMNS}
        )
    bees = next(row for row in full if row["url"].endswith("/bees"))
    # 14 + 4 + 3 words in three lines; Gopher's stop words: and, the, of
    assert (bees["words"], bees["lines"], bees["stop_words"]) == (21, 3, 3)
    kept = duckdb.sql(
        f"select count(*) from read_parquet('{tmp_path}/full/data/*.parquet') where words >= 10"
    ).fetchall()
    assert kept == [(3,)]
