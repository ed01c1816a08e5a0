"""Parquet shards with row groups and files sized for readers, written with flat worker memory.

Beam's ``WriteToParquet`` buffers ``row_group_buffer_size`` bytes of rows per bundle and writes
one file per bundle, however large. ``WriteParquetShards`` instead:

- turns rows into Arrow record batches of ``BATCH_ROWS`` and writes a row group each time
  ``row_group_bytes`` of Arrow data are buffered, so a worker holds at most one row group;
- rotates to a new file once the current one reaches ``max_file_bytes`` on disk;
- writes every file under a temporary folder next to the output (``.temp-RUN``) and, once
  every bundle has finished, renames them to ``part-SSSSS-of-NNNNN.parquet``, deletes the files
  left there (a retried bundle's, never renamed) and removes the emptied folder, so the
  output directory never shows a partial or temporary file;
- checks, when given an ``Ownership``, that the output is still its run's before renaming;
- turns a failed write or rename into ``OutputError``: one line naming the folder and why.

The output PCollection is the final file names, available once they are all in place (as
``valid_utf8`` shows them: an output folder whose name holds a byte that is not UTF-8 is written
as named, and its temporary paths travel as bytes, since Beam's str coder refuses them). With no
rows at all, one empty file carrying the schema is written, so the output can always be read.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any, BinaryIO

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows
from apache_beam.utils.windowed_value import WindowedValue

from transforms.memory import trim_heap, use_system_arrow_pool
from transforms.paths import delete_files, remove_empty_folder
from transforms.records import valid_utf8
from transforms.write.output import OutputError, OutputLayout, Ownership, temp_files

__all__ = [
    "BATCH_ROWS",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_ROW_GROUP_BYTES",
    "ShardWriter",
    "WriteParquetShards",
    "final_names",
]

# 16 MiB of Arrow data is about 1,500 extracted pages (some 6 MB of zstd on disk): readers
# get row groups they can scan and skip in parallel, and a worker's buffer stays well inside its
# memory budget. 256 MiB files keep file counts low without making any one file unwieldy.
# The benchmark (benchmarks/bench_parquet.py) prints the measurements behind these figures.
DEFAULT_ROW_GROUP_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
BATCH_ROWS = 128
COMPRESSION = "zstd"
NAMESPACE = "parquet_shards"


class _CountingStream:
    """A write-only file object that counts the bytes written through it."""

    def __init__(self, raw: BinaryIO):
        self._raw = raw
        self.bytes_written = 0
        self.closed = False

    def write(self, data) -> int:
        self._raw.write(data)
        self.bytes_written += len(data)
        return len(data)

    def flush(self) -> None:
        self._raw.flush()

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
            self.closed = True


class ShardWriter:
    """Writes rows to a series of Parquet files under ``directory``, rotating them by size.

    Independent of Beam so that it can be tested and benchmarked on its own. ``paths`` lists the
    files written so far (each complete once ``close`` returns).
    """

    def __init__(
        self,
        directory: str,
        schema: pa.Schema,
        *,
        row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        prefix: str | None = None,
    ):
        self._directory = directory
        self._schema = schema
        self._row_group_bytes = row_group_bytes
        self._max_file_bytes = max_file_bytes
        self._prefix = prefix or uuid.uuid4().hex
        self._rows: list[dict[str, Any]] = []
        self._batches: list[pa.RecordBatch] = []
        self._buffered_bytes = 0
        self._stream: _CountingStream | None = None
        self._writer: pq.ParquetWriter | None = None
        self.paths: list[str] = []
        self.row_groups = 0

    def write(self, row: dict[str, Any]) -> None:
        self._rows.append(row)
        if len(self._rows) >= BATCH_ROWS:
            self._batch_rows()

    def _batch_rows(self) -> None:
        if not self._rows:
            return
        batch = pa.RecordBatch.from_pylist(self._rows, schema=self._schema)
        self._rows = []
        self._batches.append(batch)
        self._buffered_bytes += batch.nbytes
        if self._buffered_bytes >= self._row_group_bytes:
            self._write_row_group()

    def _open(self) -> None:
        path = FileSystems.join(self._directory, f"{self._prefix}-{len(self.paths):05d}.parquet")
        self._stream = _CountingStream(FileSystems.create(path))
        self._writer = pq.ParquetWriter(
            self._stream,
            self._schema,
            compression=COMPRESSION,
            use_dictionary=_dictionary_columns(self._schema),
        )
        self.paths.append(path)

    def _write_row_group(self) -> None:
        if not self._batches:
            return
        if self._writer is None:
            self._open()
        table = pa.Table.from_batches(self._batches, schema=self._schema)
        self._batches = []
        self._buffered_bytes = 0
        self._writer.write_table(table, row_group_size=table.num_rows)
        del table
        self.row_groups += 1
        trim_heap()  # the row group's buffers are free now: see transforms.memory
        if self._stream.bytes_written >= self._max_file_bytes:
            self._close_file()

    def _close_file(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._stream.close()
            self._writer = self._stream = None

    def close(self) -> list[str]:
        """Write what is buffered, close the current file and return every path written."""
        self._batch_rows()
        self._write_row_group()
        self._close_file()
        return self.paths

    def abort(self) -> None:
        """After a failed write: close the current file now, whatever state it is in. Left open,
        it would be closed when collected, and an object store's writer would then upload it
        after the run had deleted its files."""
        writer, stream, self._writer, self._stream = self._writer, self._stream, None, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()
            writer.is_open = False  # else its __del__ tries again, and prints why it failed
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.close()


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    """Dictionary-encode only the repetitive string columns; text, titles and URLs are unique."""
    unique = {"url", "title", "text", "record_id", "detail"}
    return [f.name for f in schema if pa.types.is_string(f.type) and f.name not in unique]


def _make_dir(path: str) -> None:
    """Create ``path`` unless it exists (another worker may create it at the same moment)."""
    if FileSystems.exists(path):
        return
    try:
        FileSystems.mkdirs(path)
    except OSError:
        if not FileSystems.exists(path):
            raise


def final_names(directory: str, count: int) -> list[str]:
    """The output names of ``count`` shards: ``part-SSSSS-of-NNNNN.parquet``."""
    return [
        FileSystems.join(directory, f"part-{i:05d}-of-{count:05d}.parquet") for i in range(count)
    ]


class _WriteFilesFn(beam.DoFn):
    """Writes each bundle's rows to temporary files; emits their paths when the bundle ends."""

    def __init__(
        self,
        directory: str,
        temp_dir: str,
        schema: pa.Schema,
        row_group_bytes: int,
        max_file_bytes: int,
    ):
        self._directory = directory
        self._temp_dir = temp_dir
        self._schema = schema
        self._row_group_bytes = row_group_bytes
        self._max_file_bytes = max_file_bytes
        self._files = Metrics.counter(NAMESPACE, "files")
        self._row_groups = Metrics.counter(NAMESPACE, "row_groups")

    def setup(self) -> None:
        use_system_arrow_pool()  # freed row groups leave the worker: see transforms.memory

    def start_bundle(self) -> None:
        self._writer: ShardWriter | None = None

    # (no return hint: Beam 2.78 reads it as the outputs' type, and refuses None)
    def process(self, row: dict[str, Any]):
        try:
            if self._writer is None:
                _make_dir(self._temp_dir)
                self._writer = ShardWriter(
                    self._temp_dir,
                    self._schema,
                    row_group_bytes=self._row_group_bytes,
                    max_file_bytes=self._max_file_bytes,
                )
            self._writer.write(row)
        except OSError as e:
            raise self._failed(e) from None

    def _failed(self, error: OSError) -> OutputError:
        if self._writer is not None:
            self._writer.abort()
        return OutputError.writing(self._directory, error)

    def finish_bundle(self) -> Iterator[WindowedValue]:
        if self._writer is None:
            return
        try:
            paths = self._writer.close()
        except OSError as e:
            raise self._failed(e) from None
        self._files.inc(len(paths))
        self._row_groups.inc(self._writer.row_groups)
        self._writer = None
        for path in paths:
            yield GlobalWindows.windowed_value(path.encode("utf-8", "surrogateescape"))


class _FinalizeFn(beam.DoFn):
    """Renames the temporary files into place as numbered shards and removes the temp folder."""

    def __init__(
        self, directory: str, temp_dir: str, schema: pa.Schema, ownership: Ownership | None
    ):
        self._directory = directory
        self._temp_dir = temp_dir
        self._schema = schema
        self._ownership = ownership

    def process(self, _unused, temp_paths: list[bytes]) -> Iterator[str]:
        try:
            names = self._finalize(sorted(p.decode("utf-8", "surrogateescape") for p in temp_paths))
        except OSError as e:
            raise OutputError.writing(self._directory, e) from None
        yield from map(valid_utf8, names)

    def _finalize(self, temp_paths: list[str]) -> list[str]:
        if not temp_paths:  # no rows: one empty shard, so that readers find the schema
            _make_dir(self._temp_dir)
            empty = FileSystems.join(self._temp_dir, "empty.parquet")
            with FileSystems.create(empty) as f:
                pq.write_table(self._schema.empty_table(), f, compression=COMPRESSION)
            temp_paths = [empty]
        names = final_names(self._directory, len(temp_paths))
        if self._ownership is not None:
            self._ownership.verify()
        FileSystems.rename(temp_paths, names)
        delete_files(temp_files(self._temp_dir))  # a retried bundle's, never renamed
        remove_empty_folder(self._temp_dir)
        return names


class WriteParquetShards(beam.PTransform):
    """Write dicts of ``schema`` to ``<directory>/part-SSSSS-of-NNNNN.parquet``, sized for readers.

    The output is the PCollection of final file names, complete once every shard is in place.
    """

    def __init__(
        self,
        directory: str,
        schema: pa.Schema,
        *,
        row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        run_id: str | None = None,
        ownership: Ownership | None = None,
    ):
        super().__init__()
        self._directory = directory.rstrip("/")
        self._schema = schema
        self._row_group_bytes = row_group_bytes
        self._max_file_bytes = max_file_bytes
        self._run_id = run_id or uuid.uuid4().hex
        self._ownership = ownership

    def expand(self, rows):
        temp_dir = OutputLayout.temp_folder(self._directory, self._run_id)
        temp_paths = rows | "WriteFiles" >> beam.ParDo(
            _WriteFilesFn(
                self._directory,
                temp_dir,
                self._schema,
                self._row_group_bytes,
                self._max_file_bytes,
            )
        )
        return (
            rows.pipeline
            | "Once" >> beam.Create([None])
            | "Finalize"
            >> beam.ParDo(
                _FinalizeFn(self._directory, temp_dir, self._schema, self._ownership),
                temp_paths=beam.pvalue.AsList(temp_paths),
            )
        )
