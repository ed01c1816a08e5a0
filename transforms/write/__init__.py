"""Write: rows and rejects in, Parquet shards and ``_SUMMARY.json`` out."""

from transforms.write.parquet import ShardWriter, WriteSizedParquet
from transforms.write.schemas import REJECT_SCHEMA, ROW_SCHEMA, WriteParquetShards
from transforms.write.summary import SUMMARY_FILE, Summarize, WriteSummary, check_summary

__all__ = [
    "REJECT_SCHEMA",
    "ROW_SCHEMA",
    "SUMMARY_FILE",
    "ShardWriter",
    "Summarize",
    "WriteParquetShards",
    "WriteSizedParquet",
    "WriteSummary",
    "check_summary",
]
