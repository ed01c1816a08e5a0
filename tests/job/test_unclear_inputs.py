"""Inputs named on the command line that hung the job or read as something else (issue 21):
FIFOs named as --input or listed in --input_list, folders. The corpus run of
``test_malformed_inputs`` covers them inside a folder and inside tars."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from beam_jobs.clean_html import JobFailed, _check_inputs
from tests.builders import WarcEntry, http_response, page, write_warc
from tests.conftest import read_output
from transforms import reasons

ROOT = Path(__file__).resolve().parents[2]


def crawl(folder: Path, name: str = "one.warc.gz") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    body = page("Named inputs", "A page read whatever else the command line names.").encode()
    return write_warc(
        folder / name, [WarcEntry("response", f"https://n.example/{name}", http_response(body))]
    )


def test_fifos_named_or_listed_and_a_folder_as_input_end_at_once(tmp_path):
    """Run as a command with a time limit: a job blocked on a FIFO fails the test, rather
    than hanging the suite."""
    folder = tmp_path / "crawl"
    crawl(folder)
    crawl(folder / "sub", "not-read.warc.gz")  # a folder's subfolders are not read
    os.mkfifo(folder / "pipe-in-folder")
    os.mkfifo(tmp_path / "named.warc.gz")
    os.mkfifo(tmp_path / "listed.warc.gz")
    listed = crawl(tmp_path / "elsewhere", "listed-ok.warc.gz")
    paths = tmp_path / "paths.txt"
    paths.write_text(f"{tmp_path / 'listed.warc.gz'}\n{listed}\n{tmp_path / 'elsewhere'}\n")
    done = subprocess.run(
        [sys.executable, "-m", "beam_jobs.clean_html", "--input", str(folder)]
        + ["--input", str(tmp_path / "named.warc.gz"), "--input_list", str(paths)]
        + ["--output", str(tmp_path / "out"), "--max_reject_ratio", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows, rejects, summary = read_output(tmp_path / "out")
    assert sorted(row["url"] for row in rows) == [
        "https://n.example/listed-ok.warc.gz",
        "https://n.example/one.warc.gz",
    ]
    details = {Path(rej["source_file"]).name: rej["detail"] for rej in rejects}
    assert {rej["reason"] for rej in rejects} == {reasons.UNREADABLE_FILE}
    assert details == {
        "pipe-in-folder": "not a regular file but a FIFO (named pipe): not opened",
        "named.warc.gz": "not a regular file but a FIFO (named pipe): not opened",
        "listed.warc.gz": "not a regular file but a FIFO (named pipe): not opened",
        # a folder listed in --input_list is a path, not a pattern: it is not a file
        "elsewhere": "not a regular file but a folder: not opened",
    }
    assert summary["files"]["count"] == 6


def test_the_driver_says_a_folder_is_read_and_what_to_type_when_it_holds_none(tmp_path, caplog):
    folder = tmp_path / "crawl"
    crawl(folder / "2026-01")
    crawl(folder / "2026-02")
    with pytest.raises(JobFailed, match=r"a folder holding 2 folders and no file \('.*/\*\*'"):
        _check_inputs([str(folder)])
    crawl(folder)
    with caplog.at_level("INFO", logger="clean_html"):
        assert _check_inputs([str(folder)])[0] == 1
    assert "is a folder: the 1 files in it are read, not its 2 subfolders" in caplog.text
    assert _check_inputs([str(folder / "**")])[0] == 3
    (tmp_path / "empty").mkdir()
    with pytest.raises(JobFailed, match="matches no file: an empty folder"):
        _check_inputs([str(tmp_path / "empty")])


def test_the_printed_summary_tells_input_files_from_archives_inside_tars():
    from beam_jobs.clean_html import format_summary

    entries = ["a.tar", "a.tar!/x.warc.gz", "a.tar!/y.warc.gz", "b.warc.gz"]
    summary = {
        "documents": 0,
        "rows": 0,
        "rejects": 0,
        "rejects_by_reason": {},
        "skipped": 0,
        "skipped_by_type": {},
        "files": {"count": 4, "damaged": 0, "per_file": [{"source_file": e} for e in entries]},
    }
    lines = format_summary(summary).splitlines()
    assert lines[-3:] == [
        f"{'input files':<28}{2:>10}",
        f"{'  archives inside tars':<28}{2:>10}",
        f"{'  damaged':<28}{0:>10}",
    ]
