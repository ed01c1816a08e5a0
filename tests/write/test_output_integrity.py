"""Output integrity: a re-run leaves exactly its own shards, a failed run leaves no summary,
and the rows do not depend on the number of workers."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from beam_jobs.clean_html import run
from tests.builders import WarcEntry, http_response, write_tar, write_warc
from tests.conftest import run_job
from tests.malformed import article
from transforms.extract import Extractor
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA
from transforms.write import SUMMARY_FILE


def crawl(folder: Path, files: int = 3, pages: int = 8) -> Path:
    folder.mkdir()
    for f in range(files):
        write_warc(
            folder / f"c{f}.warc.gz",
            [
                WarcEntry(
                    "response",
                    f"https://d.example/{f}/{p}",
                    http_response(article(f"file {f} page {p}")),
                )
                for p in range(pages)
            ]
            + [
                WarcEntry(
                    "response",
                    f"https://d.example/{f}/gone",
                    http_response(b"", status="404 Not Found"),
                )
            ],
        )
    write_tar(folder / "t.tar.gz", {f"p{i}.html": article(f"tar {i}") for i in range(5)})
    return folder


def args(folder: Path, out: Path, *extra: str) -> list[str]:
    return ["--input", str(folder / "*"), "--output", str(out), *extra]


def files_under(out: Path) -> set[str]:
    return {str(p.relative_to(out)) for p in out.rglob("*")}


def test_rerun_leaves_exactly_that_runs_shards_and_no_temp_folders(tmp_path):
    folder, out = crawl(tmp_path / "in"), tmp_path / "out"
    stale = {
        "data/part-00000-of-00003.parquet": ROW_SCHEMA,
        "rejects/part-00002-of-00003.parquet": REJECT_SCHEMA,
        f"data/.temp-{'0' * 32}/{'1' * 32}-00000.parquet": ROW_SCHEMA,
    }
    for name, schema in stale.items():  # a run with another shard count, that died
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(schema.empty_table(), out / name)
    run_job(args(folder, out))
    _, _, summary = run_job(args(folder, out))
    written = {
        str(Path(p).relative_to(out))
        for p in summary["output"]["data"] + summary["output"]["rejects"]
    }
    assert files_under(out) == written | {"data", "rejects", SUMMARY_FILE}


class _BrokenExtractor(Extractor):
    def __init__(self, mode: str = "main") -> None:
        raise RuntimeError("this worker cannot build its extractor")


def test_a_failed_run_leaves_no_summary_and_no_complete_looking_output(tmp_path):
    folder, out = crawl(tmp_path / "in"), tmp_path / "out"
    run_job(args(folder, out))
    with pytest.raises(Exception, match="cannot build its extractor"):
        run(args(folder, out, "--extract_guard", "none"), extractor_factory=_BrokenExtractor)
    assert not (out / SUMMARY_FILE).exists()
    assert not list(out.rglob("part-*.parquet"))


def _key(row: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in row.items()))


def test_one_and_two_workers_give_identical_rows(tmp_path):
    folder = crawl(tmp_path / "in", files=4)
    one = run_job(args(folder, tmp_path / "one"))
    two = run_job(
        args(folder, tmp_path / "two", "--direct_num_workers", "2")
        + ["--direct_running_mode", "multi_processing"]
    )
    for a, b in zip(one[:2], two[:2], strict=True):  # rows, rejects
        assert sorted(map(_key, a)) == sorted(map(_key, b))
    strip = lambda s: {k: v for k, v in s.items() if k != "output"}  # noqa: E731
    assert strip(one[2]) == strip(two[2])
    assert one[2]["rows"] == 4 * 8 + 5
