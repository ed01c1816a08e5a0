"""End-to-end runs of the command line on WARC.gz and tar.gz shards the tests build."""

import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from beam_jobs.clean_html import JobFailed, run
from tests.builders import WarcEntry, http_response, page, write_tar, write_warc
from tests.conftest import read_output, run_job
from transforms import reasons
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA

ROOT = Path(__file__).resolve().parents[2]

ARTICLE = page(
    "Bees in the city",
    "Urban beekeeping has doubled in five years.",
    "Hives now sit on many roofs.",
)


def make_inputs(tmp_path: Path) -> Path:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    write_warc(
        crawl / "one.warc.gz",
        [
            WarcEntry("warcinfo", "", b"software: test\r\n"),
            WarcEntry("request", "https://a.example/bees", b"GET /bees HTTP/1.1\r\n\r\n"),
            WarcEntry(
                "response",
                "<https://a.example/bees>",
                http_response(ARTICLE.encode(), content_encoding="gzip"),
            ),
            WarcEntry(
                "response", "https://a.example/gone", http_response(b"gone", status="410 Gone")
            ),
            WarcEntry(
                "response",
                "https://a.example/img",
                http_response(b"GIF89a", headers=[("Content-Type", "image/gif")]),
            ),
            WarcEntry("revisit", "https://a.example/bees", b"HTTP/1.1 304 Not Modified\r\n\r\n"),
        ],
    )
    write_tar(
        crawl / "pages.tar.gz",
        {
            "site/a/bees.html": ARTICLE.encode(),
            "site/style.css": b"body{}",
            "site/empty.html": b"<html></html>",
        },
        urls={"site/a/bees.html": "https://b.example/bees"},
    )
    return crawl


def job_args(crawl: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--input",
        str(crawl / "*.warc.gz"),
        "--input",
        str(crawl / "*.tar.gz"),
        "--output",
        str(out),
        *extra,
    ]


def test_job_writes_rows_rejects_and_summary(tmp_path):
    crawl, out = make_inputs(tmp_path), tmp_path / "out"
    rows, rejects, on_disk = run_job(job_args(crawl, out))
    assert on_disk["documents"] == 5 and on_disk["rows"] == 2 and on_disk["rejects"] == 3
    assert sorted(row["url"] for row in rows) == [
        "https://a.example/bees",
        "https://b.example/bees",
    ]
    warc_row = next(row for row in rows if row["url"] == "https://a.example/bees")
    assert "Urban beekeeping has doubled" in warc_row["text"]
    assert warc_row["warc_date"].isoformat() == "2026-01-02T03:04:05+00:00"
    assert warc_row["http_status"] == 200 and warc_row["source_file"].endswith("one.warc.gz")
    tar_row = next(row for row in rows if row["url"] == "https://b.example/bees")
    assert tar_row["warc_date"] is None and tar_row["record_id"] == "site/a/bees.html"
    assert sorted((rej["url"], rej["reason"]) for rej in rejects) == [
        ("https://a.example/gone", reasons.HTTP_STATUS),
        ("https://a.example/img", reasons.NOT_HTML),
        ("site/empty.html", reasons.NO_TEXT),
    ]
    assert on_disk["skipped_by_type"] == {"request": 1, "revisit": 1, "tar_other": 1, "warcinfo": 1}
    assert on_disk["files"]["count"] == 2 and on_disk["files"]["damaged"] == 0
    assert pq.read_schema(next((out / "data").glob("part-*.parquet"))).equals(
        ROW_SCHEMA, check_metadata=False
    )
    assert pq.read_schema(next((out / "rejects").glob("part-*.parquet"))).equals(
        REJECT_SCHEMA, check_metadata=False
    )


def test_output_reads_in_pandas_and_duckdb(tmp_path):
    out = tmp_path / "out"
    run_job(job_args(make_inputs(tmp_path), out))
    frame = pd.read_parquet(out / "data")
    assert len(frame) == 2 and set(ROW_SCHEMA.names) == set(frame.columns)
    count = duckdb.sql(
        f"select count(*) from read_parquet('{out}/data/*.parquet') where text like '%beekeeping%'"
    )
    assert count.fetchall() == [(2,)]
    assert (out / "rejects").is_dir()
    assert not [p for p in out.rglob("*") if "temp" in p.name.lower()]


def test_rerun_leaves_only_that_runs_output(tmp_path):
    crawl, out = make_inputs(tmp_path), tmp_path / "out"
    (out / "data").mkdir(parents=True)
    stale = out / "data" / "part-00000-of-00007.parquet"  # a shard of an older run
    pq.write_table(ROW_SCHEMA.empty_table(), stale)
    run_job(job_args(crawl, out))
    rows, _, _ = run_job(job_args(crawl, out))
    assert not stale.exists()
    assert len(rows) == 2


def test_pattern_matching_nothing_fails_before_running(tmp_path):
    with pytest.raises(JobFailed, match="matches no file"):
        run(["--input", str(tmp_path / "nothing-*.warc.gz"), "--output", str(tmp_path / "out")])


def test_reject_ratio_over_the_limit_fails_after_writing_the_summary(tmp_path):
    crawl, out = make_inputs(tmp_path), tmp_path / "out"
    with pytest.raises(JobFailed, match="max_reject_ratio"):
        run(job_args(crawl, out, "--max_reject_ratio", "0.1"))
    _, _, summary = read_output(out)
    assert summary["rejects"] >= 3


def test_command_line_prints_output_and_summary(tmp_path):
    crawl, out = make_inputs(tmp_path), tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "beam_jobs.clean_html", *job_args(crawl, out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert str(out) in result.stdout and "documents" in result.stdout and "rows" in result.stdout
    assert "RuntimeWarning" not in result.stderr  # runpy's, from each crash-guard child
    read_output(out)


def test_command_line_exits_non_zero_with_a_message_when_the_job_fails(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "beam_jobs.clean_html",
            "--input",
            str(tmp_path / "x*"),
            "--output",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and "matches no file" in result.stderr
