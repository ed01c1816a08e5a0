"""The run summary, computed inside the pipeline so that every runner writes it.

``Summarize`` folds rows, rejects, skipped records and per-file stats into one dict; the
``WriteSummary`` step writes it as ``_SUMMARY.json`` only after the Parquet shards are final, so
a summary on disk means the run finished: it is written under a temporary name and renamed, so
that a full disk cannot leave half a summary, and not at all when the output was taken over by
another run (``Ownership``). Its top level holds the identity users check:
``documents == rows + rejects``; ``rows_by_language`` splits the rows by their ``language``
column (most first).
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from transforms.records import FileStats
from transforms.write.output import SUMMARY_FILE, OutputError, Ownership

__all__ = ["SUMMARY_FILE", "Summarize", "WriteSummary", "check_summary", "write_summary_file"]


def _new_file_entry() -> dict[str, Any]:
    return {
        "format": None,
        "records": 0,
        "bytes_read": 0,
        "rows": 0,
        "rejects": 0,
        "skipped": 0,
        "damaged": False,
        "stopped_at": None,
        "error": None,
    }


class _SummaryFn(beam.CombineFn):
    """Accumulator: (rows, rejects by reason, skipped by type, per-file entries, rows by
    language)."""

    def create_accumulator(self):
        return Counter(), Counter(), {}, Counter()

    def add_input(self, acc, event):
        outcomes, skipped, files, languages = acc
        if isinstance(event, FileStats):
            entry = files.setdefault(event.source_file, _new_file_entry())
            entry.update(
                format=event.format,
                records=event.records,
                bytes_read=event.bytes_read,
                damaged=event.damaged,
                stopped_at=event.stopped_at,
                error=event.error,
            )
            return acc
        kind, source_file, name = event
        if kind == "language":  # a row's language; the row itself is counted by its "row" event
            languages[name] += 1
            return acc
        entry = files.setdefault(source_file, _new_file_entry())
        if kind == "skipped":
            skipped[name] += 1
            entry["skipped"] += 1
        else:
            outcomes[name] += 1
            entry["rows" if name == "row" else "rejects"] += 1
        return acc

    def merge_accumulators(self, accumulators):
        outcomes, skipped, files, languages = self.create_accumulator()
        for acc_outcomes, acc_skipped, acc_files, acc_languages in accumulators:
            outcomes.update(acc_outcomes)
            skipped.update(acc_skipped)
            languages.update(acc_languages)
            for path, entry in acc_files.items():
                merged = files.setdefault(path, _new_file_entry())
                for key in ("rows", "rejects", "skipped"):
                    merged[key] += entry[key]
                if entry["format"] is not None:  # the reader's stats for this file
                    for key in (
                        "format",
                        "records",
                        "bytes_read",
                        "damaged",
                        "stopped_at",
                        "error",
                    ):
                        merged[key] = entry[key]
        return outcomes, skipped, files, languages

    def extract_output(self, acc):
        outcomes, skipped, files, languages = acc
        rows = outcomes.pop("row", 0)
        rejects_by_reason = dict(sorted(outcomes.items()))
        rejects = sum(rejects_by_reason.values())
        return {
            "documents": rows + rejects,
            "rows": rows,
            "rejects": rejects,
            "skipped": sum(skipped.values()),
            "rejects_by_reason": rejects_by_reason,
            "skipped_by_type": dict(sorted(skipped.items())),
            # most rows first, ties by code: the same order whatever the runner
            "rows_by_language": dict(sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))),
            "files": {
                "count": len(files),
                "damaged": sum(1 for entry in files.values() if entry["damaged"]),
                "per_file": [{"source_file": path, **files[path]} for path in sorted(files)],
            },
        }


class Summarize(beam.PTransform):
    """Fold ``CleanHtml``'s outputs and ``ReadArchives``' file stats into one summary dict."""

    def expand(self, pcolls):
        rows, rejects, skipped, files = pcolls
        events = (
            rows | "RowEvents" >> beam.Map(lambda row: ("row", row["source_file"], "row")),
            rows
            | "LanguageEvents"
            >> beam.Map(lambda row: ("language", row["source_file"], row.get("language") or "")),
            rejects
            | "RejectEvents" >> beam.Map(lambda rej: ("reject", rej["source_file"], rej["reason"])),
            skipped | "SkipEvents" >> beam.MapTuple(lambda path, kind: ("skipped", path, kind)),
            files,
        ) | "AllEvents" >> beam.Flatten()
        return events | "Combine" >> beam.CombineGlobally(_SummaryFn())


def write_summary_file(
    path: str, summary: dict[str, Any], run_id: str, ownership: Ownership | None
) -> None:
    """Write ``summary`` as JSON to ``path``: under a temporary name, then renamed into place
    while the output is still this run's; ``OutputError`` when it cannot be written."""
    temp = f"{path}.temp-{run_id}"
    try:
        with FileSystems.create(temp) as f:
            f.write(json.dumps(summary, indent=2, sort_keys=False).encode("utf-8"))
        if ownership is not None:
            ownership.verify()
        FileSystems.rename([temp], [path])
    except OSError as e:
        raise OutputError.writing(path, e) from None


class _WriteSummaryFn(beam.DoFn):
    def __init__(self, path: str, run_id: str, ownership: Ownership | None):
        self._path = path
        self._run_id = run_id
        self._ownership = ownership

    def process(self, summary, data_files, reject_files):
        summary = dict(
            summary, output={"data": sorted(data_files), "rejects": sorted(reject_files)}
        )
        write_summary_file(self._path, summary, self._run_id, self._ownership)
        yield summary


class WriteSummary(beam.PTransform):
    """Write the summary to ``path`` once the Parquet writes it is given have finished."""

    def __init__(
        self,
        path: str,
        data_files,
        reject_files,
        *,
        run_id: str | None = None,
        ownership: Ownership | None = None,
    ):
        super().__init__()
        self._path = path
        self._data_files = data_files
        self._reject_files = reject_files
        self._run_id = run_id or uuid.uuid4().hex
        self._ownership = ownership

    def expand(self, summary):
        return summary | "WriteJson" >> beam.ParDo(
            _WriteSummaryFn(self._path, self._run_id, self._ownership),
            data_files=beam.pvalue.AsList(self._data_files),
            reject_files=beam.pvalue.AsList(self._reject_files),
        )


def check_summary(summary: dict[str, Any]) -> list[str]:
    """The ways ``summary`` breaks the accounting identities; empty when it holds."""
    problems = []
    if summary["documents"] != summary["rows"] + summary["rejects"]:
        problems.append("documents != rows + rejects")
    if summary["rejects"] != sum(summary["rejects_by_reason"].values()):
        problems.append("rejects != sum(rejects_by_reason)")
    if summary["skipped"] != sum(summary["skipped_by_type"].values()):
        problems.append("skipped != sum(skipped_by_type)")
    if "rows_by_language" in summary and summary["rows"] != sum(
        summary["rows_by_language"].values()
    ):
        problems.append("rows != sum(rows_by_language)")
    per_file = summary["files"]["per_file"]
    for key in ("rows", "rejects", "skipped"):
        if sum(entry[key] for entry in per_file) != summary[key]:
            problems.append(f"per-file {key} do not add up")
    for entry in per_file:
        expected = entry["rows"] + entry["rejects"] + entry["skipped"]
        # An unreadable file yields no records but one reject.
        if entry["records"] != expected and not (entry["records"] == 0 and entry["rejects"] == 1):
            problems.append(
                f"{entry['source_file']}: {entry['records']} records, {expected} outcomes"
            )
    return problems
