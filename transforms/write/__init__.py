"""Write: rows and rejects in, Parquet shards and ``_SUMMARY.json`` out, into an output folder
one run holds at a time."""

from transforms.write.lock import OutputInUse, RunLock
from transforms.write.output import (
    CLEANED_SHARDS,
    SUMMARY_FILE,
    OutputError,
    OutputLayout,
    Ownership,
    ShardFolder,
)
from transforms.write.parquet import ShardWriter, WriteParquetShards
from transforms.write.summary import Summarize, WriteSummary, check_summary, write_summary_file

__all__ = [
    "CLEANED_SHARDS",
    "SUMMARY_FILE",
    "OutputError",
    "OutputInUse",
    "OutputLayout",
    "Ownership",
    "RunLock",
    "ShardFolder",
    "ShardWriter",
    "Summarize",
    "WriteParquetShards",
    "WriteSummary",
    "check_summary",
    "write_summary_file",
]
