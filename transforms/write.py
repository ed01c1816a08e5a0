"""Parquet output: the row and reject schemas, and the sinks that write them.

Shards are ``part-SSSSS-of-NNNNN.parquet``, zstd-compressed, readable by pyarrow, pandas and
DuckDB. Beam writes each shard to a temporary folder and renames it into place only when the
whole write succeeds, so a failed run leaves no half-written shard under ``data/``.
"""

from __future__ import annotations

import apache_beam as beam
import pyarrow as pa

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

SHARD_TEMPLATE = "-SSSSS-of-NNNNN"
# Rows are buffered up to this many bytes of Arrow data before a row group is flushed: large
# enough for good compression and fast column scans, small enough to keep worker memory flat.
ROW_GROUP_BYTES = 64 * 1024 * 1024


class WriteParquetShards(beam.PTransform):
    """Write dicts to ``<directory>/part-SSSSS-of-NNNNN.parquet`` with ``schema``.

    The output is the PCollection of written file names, available once every shard is final.
    """

    def __init__(self, directory: str, schema: pa.Schema, num_shards: int = 0):
        super().__init__()
        self._directory = directory.rstrip("/")
        self._schema = schema
        self._num_shards = num_shards

    def expand(self, rows):
        return rows | "WriteToParquet" >> beam.io.WriteToParquet(
            f"{self._directory}/part",
            schema=self._schema,
            codec="zstd",
            row_group_buffer_size=ROW_GROUP_BYTES,
            record_batch_size=1000,
            file_name_suffix=".parquet",
            num_shards=self._num_shards,
            shard_name_template=SHARD_TEMPLATE,
        )
