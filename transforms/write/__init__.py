"""Write: rows and rejects in, Parquet shards and ``_SUMMARY.json`` out, into an output folder
one run holds at a time."""

from transforms.write.lock import OutputInUse, RunLock
from transforms.write.output import SUMMARY_FILE, OutputError, OutputLayout, Ownership
from transforms.write.parquet import ShardWriter, WriteParquetShards
from transforms.write.summary import Summarize, WriteSummary, check_summary

__all__ = [
    "SUMMARY_FILE",
    "OutputError",
    "OutputInUse",
    "OutputLayout",
    "Ownership",
    "RunLock",
    "ShardWriter",
    "Summarize",
    "WriteParquetShards",
    "WriteSummary",
    "check_summary",
]
