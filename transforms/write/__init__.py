"""Write: rows and rejects in, Parquet shards and ``_SUMMARY.json`` out."""

from transforms.write.parquet import ShardWriter, WriteParquetShards
from transforms.write.summary import SUMMARY_FILE, Summarize, WriteSummary, check_summary

__all__ = [
    "SUMMARY_FILE",
    "ShardWriter",
    "Summarize",
    "WriteParquetShards",
    "WriteSummary",
    "check_summary",
]
