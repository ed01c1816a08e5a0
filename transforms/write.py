"""Parquet output: the row and reject schemas, and the sinks that write them.

Shards are ``part-SSSSS-of-NNNNN.parquet``, zstd-compressed, readable by pyarrow, pandas and
DuckDB, with row groups of about 16 MiB of Arrow data and files rotated at 256 MiB (see
``transforms.parquet_shards``). Each shard is written to a temporary folder and renamed into
place only when the whole write succeeds, so a failed run leaves no half-written shard under
``data/``.
"""

from __future__ import annotations

import apache_beam as beam
import pyarrow as pa

from transforms.parquet_shards import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_ROW_GROUP_BYTES,
    WriteSizedParquet,
)

__all__ = ["REJECT_SCHEMA", "ROW_SCHEMA", "WriteParquetShards"]

ROW_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string()),
        pa.field("title", pa.string()),
        pa.field("text", pa.string()),
        pa.field("source_file", pa.string()),
        pa.field("record_id", pa.string()),
        pa.field("record_offset", pa.int64()),
        pa.field("warc_date", pa.timestamp("us", tz="UTC")),
        pa.field("http_status", pa.int32()),
        pa.field("content_type", pa.string()),
        pa.field("charset", pa.string()),
        pa.field("charset_source", pa.string()),
        pa.field("html_bytes", pa.int64()),
        pa.field("truncated", pa.bool_()),
    ]
)

REJECT_SCHEMA = pa.schema(
    [
        pa.field("source_file", pa.string()),
        pa.field("record_id", pa.string()),
        pa.field("record_offset", pa.int64()),
        pa.field("url", pa.string()),
        pa.field("reason", pa.string()),
        pa.field("detail", pa.string()),
    ]
)


class WriteParquetShards(beam.PTransform):
    """Write dicts to ``<directory>/part-SSSSS-of-NNNNN.parquet`` with ``schema``.

    The output is the PCollection of written file names, available once every shard is final.
    """

    def __init__(
        self,
        directory: str,
        schema: pa.Schema,
        *,
        row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ):
        super().__init__()
        self._directory = directory.rstrip("/")
        self._schema = schema
        self._row_group_bytes = row_group_bytes
        self._max_file_bytes = max_file_bytes

    def expand(self, rows):
        return rows | "WriteSizedParquet" >> WriteSizedParquet(
            self._directory,
            self._schema,
            row_group_bytes=self._row_group_bytes,
            max_file_bytes=self._max_file_bytes,
        )
