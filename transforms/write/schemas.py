"""Parquet output: the row and reject schemas, and the sinks that write them.

Shards are ``part-SSSSS-of-NNNNN.parquet``, zstd-compressed, readable by pyarrow, pandas and
DuckDB, with row groups of about 16 MiB of Arrow data and files rotated at 256 MiB (see
``transforms.write.parquet``). Each shard is written to a temporary folder and renamed into
place only when the whole write succeeds, so a failed run leaves no half-written shard under
``data/``.
"""

from __future__ import annotations

import pyarrow as pa

from transforms.write.parquet import WriteSizedParquet

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
        pa.field("language", pa.string()),  # transforms.language: the model's code
        pa.field("language_score", pa.float32()),
        pa.field("comments", pa.string()),  # a comment thread apart from the text; "" if none
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


# The sink the job uses: size-rotated shards with byte-sized row groups (transforms.write.parquet).
WriteParquetShards = WriteSizedParquet
