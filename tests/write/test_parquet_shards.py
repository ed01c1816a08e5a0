"""Size-rotated Parquet shards: row groups by buffered bytes, files by size, atomic naming."""

from __future__ import annotations

import random
import string
from pathlib import Path

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that

from transforms.write.lock import LockRecord
from transforms.write.output import OutputError, Ownership
from transforms.write.parquet import ShardWriter, WriteParquetShards, _FinalizeFn, final_names

SCHEMA = pa.schema([pa.field("url", pa.string()), pa.field("text", pa.string())])


def _rows(count: int, text_chars: int = 2000) -> list[dict[str, str]]:
    rng = random.Random(7)  # random text, so that zstd cannot shrink it to nothing
    alphabet = string.ascii_letters + " "
    return [
        {"url": f"https://example.com/{i}", "text": "".join(rng.choices(alphabet, k=text_chars))}
        for i in range(count)
    ]


def test_row_groups_are_cut_by_buffered_bytes(tmp_path: Path) -> None:
    writer = ShardWriter(str(tmp_path), SCHEMA, row_group_bytes=100_000, max_file_bytes=1 << 30)
    for row in _rows(1000):
        writer.write(row)
    (path,) = writer.close()
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_rows == 1000
    # ~2 KB rows, 128-row batches: a row group closes after the first batch past 100 KB.
    assert metadata.num_row_groups == writer.row_groups > 1
    sizes = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    assert all(n == sizes[0] for n in sizes[:-1]) and sizes[-1] <= sizes[0]


def test_files_rotate_by_size_and_keep_every_row(tmp_path: Path) -> None:
    rows = _rows(2000)
    writer = ShardWriter(str(tmp_path), SCHEMA, row_group_bytes=100_000, max_file_bytes=500_000)
    for row in rows:
        writer.write(row)
    paths = writer.close()
    assert len(paths) > 2
    for path in paths[:-1]:  # every file but the last reached the size before rotating
        assert Path(path).stat().st_size >= 500_000
    assert pq.read_table(paths).to_pylist() == rows


def _are_final_names(directory: str):
    def check(names: list[str]) -> None:
        assert sorted(names) == final_names(directory, len(names))
        assert all(Path(name).exists() for name in names)

    return check


def test_transform_names_shards_and_leaves_no_temp_files(tmp_path: Path) -> None:
    rows = _rows(600)
    out = tmp_path / "data"
    with TestPipeline() as p:
        names = (
            p
            | beam.Create(rows)
            | WriteParquetShards(str(out), SCHEMA, row_group_bytes=50_000, max_file_bytes=300_000)
        )
        assert_that(names, _are_final_names(str(out)))
    files = sorted(out.iterdir())
    assert files and all(f.name.startswith("part-") for f in files)  # no .temp-* folder left
    count = len(files)
    assert [f.name for f in files] == [f"part-{i:05d}-of-{count:05d}.parquet" for i in range(count)]
    assert count > 1
    table = pq.read_table(out)
    assert table.schema.equals(SCHEMA)
    assert sorted(table.column("url").to_pylist()) == sorted(r["url"] for r in rows)


def test_no_rows_still_writes_one_readable_shard(tmp_path: Path) -> None:
    out = tmp_path / "rejects"
    with TestPipeline() as p:
        _ = p | beam.Create([]).with_output_types(dict) | WriteParquetShards(str(out), SCHEMA)
    assert [f.name for f in out.iterdir()] == ["part-00000-of-00001.parquet"]
    assert pq.read_table(out).num_rows == 0


def test_a_rename_that_finds_its_files_gone_is_one_line(tmp_path: Path) -> None:
    """What a second run deleting the first run's temporary files used to end in (a Beam
    "Rename operation failed" with a traceback per file): one OutputError line."""
    out, temp = tmp_path / "data", tmp_path / "data" / f".temp-{'0' * 32}"
    temp.mkdir(parents=True)
    finalize = _FinalizeFn(str(out), str(temp), SCHEMA, None)
    with pytest.raises(OutputError) as failed:
        list(finalize.process(None, [bytes(temp / f"{'1' * 32}-00000.parquet")]))
    assert str(failed.value) == f"cannot write {out}: No such file or directory"
    assert not list(out.glob("part-*"))


def test_shards_are_not_put_in_place_once_the_output_is_another_runs(tmp_path: Path) -> None:
    out, temp = tmp_path / "data", tmp_path / "data" / f".temp-{'0' * 32}"
    lock = tmp_path / "_LOCK.json"
    lock.write_bytes(LockRecord.mine("f" * 32).encode())
    writer = ShardWriter(str(temp), SCHEMA)
    writer.write(_rows(1)[0])
    finalize = _FinalizeFn(str(out), str(temp), SCHEMA, Ownership(str(lock), "a" * 32))
    with pytest.raises(OutputError, match="taken over by run ffffffffffff"):
        list(finalize.process(None, [path.encode() for path in writer.close()]))
    assert not list(out.glob("part-*"))


def test_a_failed_write_closes_its_file_at_once(tmp_path: Path) -> None:
    writer = ShardWriter(str(tmp_path), SCHEMA, row_group_bytes=1)
    writer.write(_rows(1)[0])
    writer._batch_rows()  # opens the file and writes a row group
    stream = writer._stream
    writer.abort()
    assert stream.closed and writer._stream is None
