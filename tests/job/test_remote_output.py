"""The output on an object store (``tests/memstore.py``: no folders, rename by copy and delete,
as gs:// and s3://): the same rules as on a local folder, through Beam's FileSystems."""

from __future__ import annotations

import errno
import io
import json
import os

import pyarrow.parquet as pq
import pytest

from beam_jobs.clean_html import JobFailed, UsageError, run
from beam_jobs.output import check_inputs_outside
from tests import memstore
from tests.builders import WarcEntry, http_response, page, write_warc
from transforms.rows import ROW_SCHEMA
from transforms.write.lock import LockRecord

OUT = f"{memstore.SCHEME}://bucket/clean"


@pytest.fixture
def objects():
    memstore.OBJECTS.clear()
    yield memstore.OBJECTS
    memstore.OBJECTS.clear()


def _put(path: str, data: bytes) -> None:
    memstore.OBJECTS[path] = (data, 0.0)


def _names(objects) -> list[str]:
    return sorted(path.removeprefix(OUT + "/") for path in objects)


def _args(tmp_path) -> list[str]:
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    write_warc(
        folder / "c.warc.gz",
        [
            WarcEntry(
                "response", f"https://r.example/{i}", http_response(page(f"P{i}", "Text.").encode())
            )
            for i in range(3)
        ],
    )
    return ["--input", str(folder / "*"), "--output", OUT, "--extract_guard", "none"]


def _job_shard() -> bytes:
    buffer = io.BytesIO()
    pq.write_table(ROW_SCHEMA.empty_table(), buffer)
    return buffer.getvalue()


def test_runs_write_and_rewrite_only_their_own_objects(tmp_path, objects):
    _put(f"{OUT}/data/part-00000-of-00003.parquet", _job_shard())  # a run that died
    _put(f"{OUT}/data/.temp-{'0' * 32}/{'1' * 32}-00000.parquet", b"half")
    _put(f"{OUT}/notes/readme.txt", b"beside data/ and rejects/: left alone")
    for _ in range(2):
        summary = run(_args(tmp_path))
        assert summary["rows"] == 3
        assert _names(objects) == [
            "_SUMMARY.json",
            "data/part-00000-of-00001.parquet",
            "notes/readme.txt",
            "rejects/part-00000-of-00001.parquet",
        ]


def test_an_object_the_job_did_not_write_stops_it(tmp_path, objects):
    _put(f"{OUT}/data/notes.txt", b"mine")
    with pytest.raises(UsageError, match="data/notes.txt: not written by this job"):
        run(_args(tmp_path))
    assert _names(objects) == ["data/notes.txt"]


def test_a_live_runs_lock_object_stops_a_second_run(tmp_path, objects):
    _put(f"{OUT}/_LOCK.json", LockRecord.mine("b" * 32).encode())  # this process: alive
    with pytest.raises(UsageError, match="in use: run bbbbbbbbbbbb"):
        run(_args(tmp_path))
    assert _names(objects) == ["_LOCK.json"]


def test_a_failed_write_leaves_no_object_of_the_run(tmp_path, objects, monkeypatch):
    from transforms.write import parquet

    def full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(parquet._CountingStream, "write", full)
    with pytest.raises(JobFailed, match="cannot write .*: No space left on device"):
        run(_args(tmp_path))
    assert _names(objects) == []


@pytest.mark.parametrize(
    "pattern, reached",
    [
        (f"{memstore.SCHEME}://bucket/**", True),
        (f"{memstore.SCHEME}://bucket/", True),
        (f"{memstore.SCHEME}://bucket/clean/*/*.parquet", True),
        (f"{memstore.SCHEME}://bucket/crawl/*", False),
        (f"{memstore.SCHEME}://bucket/clean-old/*", False),
    ],
)
def test_remote_patterns_that_reach_into_the_output_are_refused(pattern, reached):
    matched = {pattern: [f"{memstore.SCHEME}://bucket/crawl/a.warc.gz"]}
    if reached:
        with pytest.raises(UsageError, match="reaches into --output"):
            check_inputs_outside(OUT, matched, [])
    else:
        check_inputs_outside(OUT, matched, [])


def test_a_listed_object_inside_the_output_is_refused():
    with pytest.raises(UsageError, match="--input_list names"):
        check_inputs_outside(OUT, {}, [f"{OUT}/data/old.warc.gz"])


def test_the_summary_lists_what_it_wrote(tmp_path, objects):
    run(_args(tmp_path))
    summary = json.loads(objects[f"{OUT}/_SUMMARY.json"][0])
    assert summary["output"]["data"] == [f"{OUT}/data/part-00000-of-00001.parquet"]
