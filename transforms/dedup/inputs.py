"""The dedup job's inputs: the cleaning job's Parquet shards, checked, then read by row group.

``match_inputs`` and ``plan_inputs`` run on the launcher, before any work. The first matches
every ``--input`` pattern (a folder stands for the ``*.parquet`` files in it); the second reads
each file's footer (a thread pool, so that thousands of remote files take seconds). Either
refuses, with one line naming the file, an input that is not this job's Parquet: a pattern or
folder matching nothing, a file that is not Parquet or was cut short (no footer), a missing
column or one of another type. Files are numbered in path order, and a document's id is its
file's number and its row in the file (``file << 40 | row``): unique, an int64, and the same on
every runner.

``ReadDocuments`` reads each row group with only the columns the job needs (Parquet column
projection: the text, its hash and what names the document), a batch at a time, into
``Document`` tuples.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.paths import has_wildcards, is_local
from transforms.read.matching import match_pattern
from transforms.rows import ROW_SCHEMA

__all__ = [
    "DOCUMENT_COLUMNS",
    "ROW_BITS",
    "Document",
    "InputError",
    "RowGroup",
    "match_inputs",
    "plan_inputs",
    "ReadDocuments",
]

DOCUMENT_COLUMNS = (
    "url",
    "text",
    "text_hash",
    "warc_date",
    "source_file",
    "record_id",
    "language",
)
ROW_BITS = 40  # a document id is file << ROW_BITS | row
_BATCH_ROWS = 256
_FOOTER_THREADS = 16


class InputError(ValueError):
    """An input the job refuses before any work."""


class RowGroup(NamedTuple):
    file: int  # the file's number, in path order
    path: str
    index: int  # the row group's index in the file
    first_row: int  # its first row's index in the file
    rows: int


class Document(NamedTuple):
    id: int
    text: str
    text_hash: str
    url: str
    warc_date: int | None  # microseconds since the epoch, UTC
    source_file: str
    record_id: str
    language: str


def _match(pattern: str) -> list[str]:
    if not has_wildcards(pattern) and is_local(pattern) and os.path.isdir(pattern):
        pattern = os.path.join(pattern, "*.parquet")
    found = [m.path for m in match_pattern(pattern) if not os.path.basename(m.path).startswith(".")]
    if not found:
        raise InputError(f"--input {pattern!r} matches no file")
    return found


def _footer(path: str) -> tuple[pa.Schema, list[int]]:
    try:
        with FileSystems.open(path, compression_type="uncompressed") as f:
            meta = pq.ParquetFile(f).metadata
            return meta.schema.to_arrow_schema(), [
                meta.row_group(i).num_rows for i in range(meta.num_row_groups)
            ]
    except Exception as e:
        raise InputError(f"{path}: not a readable Parquet file ({type(e).__name__}: {e})") from e


def _check_columns(path: str, schema: pa.Schema) -> None:
    for name in DOCUMENT_COLUMNS:
        wanted = ROW_SCHEMA.field(name).type
        if name not in schema.names:
            raise InputError(
                f"{path}: no column {name!r}: not the output of this version of "
                "beam_jobs.clean_html (its data/*.parquet)"
            )
        if schema.field(name).type != wanted:
            raise InputError(f"{path}: column {name!r} is {schema.field(name).type}, not {wanted}")


def match_inputs(patterns: Sequence[str]) -> dict[str, list[str]]:
    """The files each pattern matches, or ``InputError`` for one that matches none."""
    if not patterns:
        raise InputError("--input is required (one or more patterns or folders)")
    return {pattern: _match(pattern) for pattern in patterns}


def plan_inputs(
    patterns: Sequence[str],
    *,
    one_schema: bool = False,
    matched: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[str], list[RowGroup], pa.Schema]:
    """``(files, row groups, schema)`` of the inputs, or ``InputError`` (see the module).

    ``one_schema``: all files must have the same schema (to write them again as one corpus).
    ``matched``: what ``match_inputs(patterns)`` gave, when the caller has it already.
    """
    if matched is None:
        matched = match_inputs(patterns)
    files = sorted({path for paths in matched.values() for path in paths})
    if len(files) >= 1 << (63 - ROW_BITS):
        raise InputError(f"{len(files)} input files: at most {1 << (63 - ROW_BITS)}")
    with ThreadPoolExecutor(_FOOTER_THREADS) as pool:
        footers = list(pool.map(_footer, files))
    groups: list[RowGroup] = []
    first_schema = footers[0][0]
    for number, (path, (schema, sizes)) in enumerate(zip(files, footers, strict=True)):
        _check_columns(path, schema)
        if one_schema and not schema.equals(first_schema, check_metadata=False):
            raise InputError(
                f"{path}: its columns differ from {files[0]}'s; --write_corpus writes one "
                "schema, so give it outputs of one version of the cleaning job"
            )
        first = 0
        for index, rows in enumerate(sizes):
            if rows:
                groups.append(RowGroup(number, path, index, first, rows))
            first += rows
        if first >= 1 << ROW_BITS:
            raise InputError(f"{path}: {first} rows: at most {1 << ROW_BITS} a file")
    return files, groups, first_schema


class _ReadRowGroupFn(beam.DoFn):
    """One row group in; its ``Document``s out, ``_BATCH_ROWS`` rows of the needed columns at
    a time."""

    def process(self, group: RowGroup) -> Iterator[Document]:
        base = group.file << ROW_BITS
        row = group.first_row
        with FileSystems.open(group.path, compression_type="uncompressed") as f:
            parquet = pq.ParquetFile(f)
            batches = parquet.iter_batches(
                batch_size=_BATCH_ROWS, row_groups=[group.index], columns=list(DOCUMENT_COLUMNS)
            )
            for batch in batches:
                # microseconds as integers: to_pylist() refuses dates outside years 1-9999
                dates = batch.column("warc_date").cast(pa.int64()).to_pylist()
                columns = {
                    n: batch.column(n).to_pylist() for n in DOCUMENT_COLUMNS if n != "warc_date"
                }
                for i in range(batch.num_rows):
                    yield Document(
                        base | (row + i),
                        columns["text"][i] or "",
                        columns["text_hash"][i] or "",
                        columns["url"][i] or "",
                        dates[i],
                        columns["source_file"][i] or "",
                        columns["record_id"][i] or "",
                        columns["language"][i] or "",
                    )
                row += batch.num_rows


class ReadDocuments(beam.PTransform):
    """``RowGroup``s in (from ``plan_inputs``); ``Document``s out."""

    def expand(self, groups):
        return (
            groups
            | "SpreadRowGroups" >> beam.Reshuffle()
            | "ReadRowGroups" >> beam.ParDo(_ReadRowGroupFn())
        )
