"""The dedup job's outputs: the duplicates rows, the summary, and (``--write_corpus``) the kept
rows with all their columns.

- ``DUPLICATE_SCHEMA``: one row per document dropped, naming it and the document kept.
- ``Summarize``: folds ``FindDuplicates``' events into the ``_SUMMARY.json`` dict: documents,
  empty ones, kept and dropped (by kind and by language), clusters, the residue of the
  connected components and the bytes each stage shuffled (with their sum per document).
- ``WriteCorpus``: the dropped ids are grouped by input file (a shuffle of the dropped ids
  only, never of the text), then each input row group is read again, whole, and written without
  its dropped rows: the corpus keeps every column of the cleaning job's rows.
- ``DEDUP_SHARDS``: the job's shard folders, for the output folder's rules
  (``transforms.write.output``): ``duplicates/`` (told by its columns) and ``data/`` (the
  cleaning job's columns, so only the shards a summary of this job lists are its own).

The shards and the summary are written as the cleaning job's are (``run_id`` names the
temporary files; with ``ownership``, nothing is put in place once another run holds the output).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.dedup.inputs import ROW_BITS, RowGroup
from transforms.dedup.pipeline import measured
from transforms.write import Ownership, ShardFolder, WriteParquetShards, write_summary_file

__all__ = ["DEDUP_SHARDS", "DUPLICATE_SCHEMA", "Summarize", "WriteCorpus", "WriteDedupSummary"]

_TIMESTAMP = pa.timestamp("us", tz="UTC")

DUPLICATE_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string()),
        pa.field("source_file", pa.string()),
        pa.field("record_id", pa.string()),
        pa.field("warc_date", _TIMESTAMP),
        pa.field("language", pa.string()),
        pa.field("text_hash", pa.string()),
        pa.field("kind", pa.string()),  # "exact" (same text_hash as the kept one) or "near"
        pa.field("similarity", pa.float64()),  # estimated Jaccard with the kept one; 1 if exact
        pa.field("cluster_size", pa.int64()),  # documents in its cluster, the kept one included
        pa.field("kept_url", pa.string()),
        pa.field("kept_source_file", pa.string()),
        pa.field("kept_record_id", pa.string()),
        pa.field("kept_warc_date", _TIMESTAMP),
    ]
)


DEDUP_SHARDS = (
    ShardFolder("duplicates", frozenset(DUPLICATE_SCHEMA.names)),
    ShardFolder("data", None),
)


def _by_count(counter: Counter) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


class _SummaryFn(beam.CombineFn):
    def create_accumulator(self) -> Counter:
        return Counter()

    def add_input(self, acc: Counter, event: tuple) -> Counter:
        kind, *rest = event
        if kind in ("document", "empty"):
            acc[("documents",)] += 1
            acc[(kind, rest[0])] += 1
        elif kind == "cluster":
            acc[("clusters",)] += 1
            acc[("clustered",)] += rest[0]
            acc[("largest", rest[0])] += 1
        elif kind == "dropped":
            acc[("dropped", rest[0])] += 1
            acc[("dropped_language", rest[1])] += 1
        elif kind == "shuffled":
            acc[("shuffled", rest[0])] += rest[1]
        elif kind == "residue":
            acc[("residue",)] += rest[0]
        return acc

    def merge_accumulators(self, accumulators) -> Counter:
        merged = Counter()
        for acc in accumulators:
            merged.update(acc)
        return merged

    def extract_output(self, acc: Counter) -> dict[str, Any]:
        def part(name: str) -> Counter:
            return Counter({k[1]: v for k, v in acc.items() if k[0] == name and v})

        documents = acc[("documents",)]
        dropped = part("dropped")
        shuffled = part("shuffled")
        total_shuffled = sum(shuffled.values())
        return {
            "documents": documents,
            "empty": sum(part("empty").values()),
            "kept": documents - sum(dropped.values()),
            "dropped": sum(dropped.values()),
            "dropped_by_kind": {k: dropped[k] for k in ("exact", "near")},
            "dropped_by_language": _by_count(part("dropped_language")),
            "clusters": acc[("clusters",)],
            "documents_in_clusters": acc[("clustered",)],
            "largest_cluster": max(part("largest"), default=0),
            "empty_by_language": _by_count(part("empty")),
            "components_residual_edges": acc[("residue",)],
            "shuffled_bytes": dict(sorted(shuffled.items())),
            "shuffled_bytes_total": total_shuffled,
            "shuffled_bytes_per_document": round(total_shuffled / documents, 1)
            if documents
            else 0.0,
        }


class Summarize(beam.PTransform):
    """``FindDuplicates``' events in; the summary dict out (one element)."""

    def expand(self, events):
        return events | "Combine" >> beam.CombineGlobally(_SummaryFn())


class _WriteSummaryFn(beam.DoFn):
    def __init__(self, path: str, extra: dict[str, Any], owned: dict[str, Any]):
        self._path = path
        self._extra = extra
        self._owned = owned

    def process(self, summary, duplicate_files, corpus_files):
        summary = {
            **summary,
            **self._extra,
            "output": {"duplicates": sorted(duplicate_files), "data": sorted(corpus_files)},
        }
        write_summary_file(self._path, summary, **self._owned)
        yield summary


class WriteDedupSummary(beam.PTransform):
    """Write the summary to ``path`` once the Parquet writes it is given have finished, with
    ``extra`` (the parameters and inputs) added."""

    def __init__(
        self,
        path: str,
        duplicate_files,
        corpus_files,
        extra: dict[str, Any],
        *,
        run_id: str | None = None,
        ownership: Ownership | None = None,
    ):
        super().__init__()
        self._args = (path, duplicate_files, corpus_files, extra)
        self._owned = {"run_id": run_id or uuid.uuid4().hex, "ownership": ownership}

    def expand(self, summary):
        path, duplicate_files, corpus_files, extra = self._args
        return summary | "WriteJson" >> beam.ParDo(
            _WriteSummaryFn(path, extra, self._owned),
            duplicate_files=beam.pvalue.AsList(duplicate_files),
            corpus_files=beam.pvalue.AsList(corpus_files),
        )


def _groups_with_dropped(item) -> Iterator[tuple[RowGroup, list[int]]]:
    _, grouped = item
    dropped = sorted(grouped["dropped"])
    for group in grouped["groups"]:
        end = group.first_row + group.rows
        yield group, [row - group.first_row for row in dropped if group.first_row <= row < end]


class _KeptRowsFn(beam.DoFn):
    """A row group and its dropped rows in; its other rows out, every column, as dicts."""

    def process(self, item: tuple[RowGroup, list[int]]) -> Iterator[dict[str, Any]]:
        group, dropped = item
        with FileSystems.open(group.path, compression_type="uncompressed") as f:
            table = pq.ParquetFile(f).read_row_group(group.index)
        if dropped:
            keep = pc.invert(pc.is_in(pa.array(range(table.num_rows)), pa.array(dropped)))
            table = table.filter(keep)
        for batch in table.to_batches(max_chunksize=256):
            yield from batch.to_pylist()


class WriteCorpus(beam.PTransform):
    """Dropped ids in; every input row not dropped, written as Parquet shards under
    ``directory`` with the inputs' ``schema``. Out: ``{"files": shard names, "events": the
    bytes it shuffled}``."""

    def __init__(
        self,
        groups: list[RowGroup],
        schema: pa.Schema,
        directory: str,
        *,
        run_id: str | None = None,
        ownership: Ownership | None = None,
    ):
        super().__init__()
        self._groups = groups
        self._schema = schema
        self._directory = directory
        self._owned = {"run_id": run_id, "ownership": ownership}

    def expand(self, dropped_ids):
        mask = (1 << ROW_BITS) - 1
        dropped = dropped_ids | "ByFile" >> beam.Map(lambda i: (i >> ROW_BITS, i & mask))
        dropped, events = measured(dropped, "Corpus")
        groups = dropped_ids.pipeline | "RowGroups" >> beam.Create(
            [(g.file, g) for g in self._groups]
        )
        files = (
            {"dropped": dropped, "groups": groups}
            | "GroupByFile" >> beam.CoGroupByKey()
            | "DroppedPerRowGroup" >> beam.FlatMap(_groups_with_dropped)
            | "SpreadRowGroups" >> beam.Reshuffle()
            | "KeptRows" >> beam.ParDo(_KeptRowsFn())
            | "WriteKept" >> WriteParquetShards(self._directory, self._schema, **self._owned)
        )
        return {"files": files, "events": events}
