"""The clean-HTML job: WARC, ARC and tar shards in; Parquet of title and main text out.

    python -m beam_jobs.clean_html --input 'crawl/*.warc.gz' --input 'pages/*.tar.gz' \\
        --output out/ [--config configs/dataflow.yaml] [Beam options, e.g. --runner DataflowRunner ...]

``--config FILE`` merges a YAML preset of options under the command line (see ``beam_jobs.config``).

Writes ``OUT/data/part-*.parquet`` (one row per kept document), ``OUT/rejects/part-*.parquet``
(one row per document not kept, with a reason code) and, last, ``OUT/_SUMMARY.json``; the run
holds ``OUT/_LOCK.json`` meanwhile, and deletes only files of the job's own (``beam_jobs.output``).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions, SetupOptions, StandardOptions

from beam_jobs.command import command_main
from beam_jobs.config import ConfigError, UsageError, check_flags, merge_config, number_type
from beam_jobs.output import (
    OutputClaim,
    check_inputs_outside,
    check_output_path,
)
from transforms.clean_html import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, GUARDS, CleanHtml
from transforms.decode import DEFAULT_MAX_BYTES
from transforms.extract import FORMATS, Extractor
from transforms.language import check_languages, parse_languages
from transforms.paths import has_wildcards, is_local
from transforms.read import DEFAULT_MAX_RECORD_BYTES, DEFAULT_SPLIT_BYTES, ReadArchives
from transforms.read.lists import listed_paths
from transforms.read.matching import folder_contents, match_pattern
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA
from transforms.write import (
    OutputError,
    OutputLayout,
    Ownership,
    Summarize,
    WriteParquetShards,
    WriteSummary,
)

_LOG = logging.getLogger("clean_html")

__all__ = [
    "CleanHtmlOptions",
    "ConfigError",
    "JobFailed",
    "UsageError",
    "build_pipeline",
    "help_text",
    "run",
]

# Crawls reject redirects, errors and images as a matter of course (30-50% is common in a
# Heritrix crawl); a job where over 80% are rejected is almost surely a bug, not the crawl.
DEFAULT_MAX_REJECT_RATIO = 0.8

# The output's size against the inputs' (WARC.gz): 9% on the benchmark's corpus pages; a disk
# with less than twice that free is worth a warning before the run (benchmarks/RESULTS.md).
_OUTPUT_SHARE = 0.2


class JobFailed(RuntimeError):
    """The pipeline ran, but its output must not be taken as a success."""


def _language_codes(text: str) -> str:
    """An argparse ``type`` for ``--languages``: codes a row can carry (``did you mean en?``),
    kept as written for Beam's options (parsed again by ``parse_languages``)."""
    try:
        check_languages(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


_POSITIVE_INT = number_type(int, 0, low_included=False)
_NON_NEGATIVE_INT = number_type(int, 0, low_included=True)
_POSITIVE_SECONDS = number_type(float, 0, low_included=False)
# The cleaning process holds 120-165 MB before any page: a smaller cap could clean nothing.
_MEMORY_MB = number_type(int, 256, low_included=True)
_RATIO = number_type(float, 0, low_included=True, high=1.0)


class CleanHtmlOptions(PipelineOptions):
    """The job's own flags. ``--input`` and ``--output`` are checked in ``run`` rather than marked
    required here, since Beam parses every options class for every pipeline in the process."""

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument(
            "--config",
            default=None,
            help="YAML preset of options (configs/*.yaml); flags on the command line override it.",
        )
        parser.add_argument(
            "--input",
            action="append",
            help="File pattern of WARC, ARC or tar archives (local, gs://, s3://). Repeatable.",
        )
        parser.add_argument(
            "--input_list",
            action="append",
            help="A file listing archive paths, one a line (plain or .gz, as Common Crawl's "
            "warc.paths.gz). Repeatable; a path listed twice is read once, and one that does "
            "not exist is an unreadable_file reject.",
        )
        parser.add_argument(
            "--input_prefix",
            default="",
            help="Put before each relative path of --input_list (e.g. s3://commoncrawl/ or a "
            "local mirror folder).",
        )
        parser.add_argument(
            "--output",
            help="Output directory; a previous run's output there is replaced (the job deletes "
            "only files it wrote, and refuses an output holding the inputs or other files in "
            "data/ and rejects/, or one another run is writing).",
        )
        parser.add_argument(
            "--mode",
            choices=("main", "full"),
            default="main",
            help="main: the page's main content; full: all visible text.",
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            default="text",
            help="text: plain text with blank lines between blocks (default); markdown: "
            "headings, lists, tables, code blocks and quotes as Markdown.",
        )
        parser.add_argument(
            "--markdown_links",
            action="store_true",
            help="With --format markdown, write links as [text](url) instead of their text.",
        )
        parser.add_argument(
            "--languages",
            type=_language_codes,
            default=None,
            help="Keep only rows in these languages (comma-separated codes of the language "
            "column, e.g. de,en); the others are rejected as language.",
        )
        parser.add_argument(
            "--min_language_score",
            type=_RATIO,
            default=0.0,
            help="Reject rows whose language score is below this (0-1) as language.",
        )
        parser.add_argument(
            "--quality_signals",
            action="store_true",
            help="Fill the quality signal columns (words, line, repetition and stop-word "
            "measures of Gopher, C4 and FineWeb; about a quarter more CPU per page). Without "
            "it they are null; text_hash is always filled.",
        )
        parser.add_argument(
            "--max_record_bytes",
            type=_POSITIVE_INT,
            default=DEFAULT_MAX_RECORD_BYTES,
            help="Records larger than this are rejected as too_large without being read.",
        )
        parser.add_argument(
            "--max_decoded_bytes",
            type=_POSITIVE_INT,
            default=DEFAULT_MAX_BYTES,
            help="Bodies that decompress past this are rejected as too_large.",
        )
        parser.add_argument(
            "--split_archive_bytes",
            type=_NON_NEGATIVE_INT,
            default=DEFAULT_SPLIT_BYTES,
            help="WARC.gz files larger than this are read in ranges of about this size by "
            "several workers; 0 reads every file whole.",
        )
        parser.add_argument(
            "--max_reject_ratio",
            type=_RATIO,
            default=DEFAULT_MAX_REJECT_RATIO,
            help="Fail the job (after writing the summary) when rejects / documents exceeds this.",
        )
        parser.add_argument(
            "--extract_guard",
            choices=GUARDS,
            default="process",
            help="process: decode and extract in a child process per worker, so that a crash "
            "or hang costs one document (default); none: in the worker itself.",
        )
        parser.add_argument(
            "--extract_timeout_s",
            type=_POSITIVE_SECONDS,
            default=DEFAULT_TIMEOUT_S,
            help="Under the process guard, a document that takes longer is rejected as timeout.",
        )
        parser.add_argument(
            "--extract_memory_mb",
            type=_MEMORY_MB,
            default=DEFAULT_MEMORY_MB,
            help="Under the process guard, the cleaning process's memory cap: a document that "
            "needs more is rejected as too_large.",
        )


def build_pipeline(
    pipeline: beam.Pipeline,
    options: CleanHtmlOptions,
    *,
    extractor_factory: Callable[..., Any] = Extractor,
    listed: Sequence[str] | None = None,
    run_id: str | None = None,
    ownership: Ownership | None = None,
) -> None:
    """Add the job's steps to ``pipeline``: read, clean, write rows and rejects, summarise.

    ``extractor_factory(mode=...)`` builds the extractor on each worker (tests pass fakes).
    ``listed`` is what ``--input_list`` names, when the caller has read the lists already.
    ``run_id`` names the temporary files; with ``ownership``, nothing is renamed into place
    unless the output is still this run's (see ``beam_jobs.output``).
    """
    layout = OutputLayout.of(options.output)
    owned = {"run_id": run_id, "ownership": ownership}
    if listed is None:
        listed = listed_paths(options.input_list or (), options.input_prefix)
    records = (
        pipeline
        | "InputPatterns" >> beam.Create(options.input or [])
        | "ReadArchives"
        >> ReadArchives(
            max_record_bytes=options.max_record_bytes,
            split_bytes=options.split_archive_bytes,
            listed=listed,
        )
    )
    cleaned = records.records | "CleanHtml" >> CleanHtml(
        mode=options.mode,
        max_decoded_bytes=options.max_decoded_bytes,
        guard=options.extract_guard,
        timeout_s=options.extract_timeout_s,
        memory_mb=options.extract_memory_mb,
        extractor_factory=extractor_factory,
        output_format=options.format,
        markdown_links=options.markdown_links,
        languages=parse_languages(options.languages),
        min_language_score=options.min_language_score,
        quality_signals=options.quality_signals,
    )
    data_files = cleaned.rows | "WriteRows" >> WriteParquetShards(layout.data, ROW_SCHEMA, **owned)
    reject_files = cleaned.rejects | "WriteRejects" >> WriteParquetShards(
        layout.rejects, REJECT_SCHEMA, **owned
    )
    (
        (cleaned.rows, cleaned.rejects, cleaned.skipped, records.files)
        | "Summarize" >> Summarize()
        | "WriteSummary" >> WriteSummary(layout.summary, data_files, reject_files, **owned)
    )


def _no_file_hint(pattern: str, folder: tuple[list[str], list[str]] | None) -> str:
    """What to type instead, when a pattern that matches nothing names a folder."""
    if folder is not None and folder[1]:
        inside = f"{pattern.rstrip('/')}/**"
        return f": a folder holding {len(folder[1])} folders and no file ({inside!r} reads them)"
    if folder is not None:
        return ": an empty folder"
    if not is_local(pattern) and not has_wildcards(pattern) and not pattern.endswith("/"):
        return f" (the objects under a folder are matched by {pattern + '/'!r})"
    return ""


def _check_inputs(
    patterns: Sequence[str], matched: dict[str, list[str]] | None = None
) -> tuple[int, int]:
    """Files and bytes the patterns match (each file once, as the pipeline reads them); fails
    before launching when a pattern matches nothing, since a typo must not look like success.
    ``matched``, when given, receives each pattern's files."""
    sizes: dict[str, int] = {}
    repeated = 0
    for pattern in patterns:
        found = match_pattern(pattern)
        if matched is not None:
            matched[pattern] = [metadata.path for metadata in found]
        folder = folder_contents(pattern)
        if not found:
            raise JobFailed(f"--input {pattern!r} matches no file{_no_file_hint(pattern, folder)}")
        if folder is not None:
            _LOG.info(
                "--input %r is a folder: the %d files in it are read, not its %d subfolders",
                pattern,
                len(folder[0]),
                len(folder[1]),
            )
        if len(found) == 1 and found[0].path == pattern and has_wildcards(pattern):
            _LOG.info("--input %r matches no pattern; read as a file of that name", pattern)
        for metadata in found:
            repeated += metadata.path in sizes
            sizes[metadata.path] = metadata.size_in_bytes
    if repeated:
        _LOG.info("%d files matched by more than one --input pattern are read once", repeated)
    return len(sizes), sum(sizes.values())


def help_text() -> str:
    """``--help``: the job's own flags with their defaults, then where Beam's options are."""
    parser = argparse.ArgumentParser(
        prog="python -m beam_jobs.clean_html",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        epilog="Beam's pipeline options (--runner, --project, --region, --temp_location, "
        "--num_workers, ...) are accepted too; --help_beam lists them all.",
    )
    CleanHtmlOptions._add_argparse_args(parser)
    return parser.format_help()


def read_summary(output: str) -> dict[str, Any]:
    with FileSystems.open(OutputLayout.of(output).summary) as f:
        return json.loads(f.read().decode("utf-8"))


def format_summary(summary: dict[str, Any], seconds: float | None = None) -> str:
    """A plain-text table of the summary counts, for the end of a run."""
    lines = [
        f"{'documents':<28}{summary['documents']:>10,}",
        f"{'  rows':<28}{summary['rows']:>10,}",
    ]
    lines.append(f"{'  rejects':<28}{summary['rejects']:>10,}")
    lines += [
        f"{'    ' + reason:<28}{n:>10,}" for reason, n in summary["rejects_by_reason"].items()
    ]
    by_language = summary.get("rows_by_language") or {}
    if by_language:
        lines.append("languages: " + ", ".join(f"{code} {n}" for code, n in by_language.items()))
    lines.append(f"{'skipped records':<28}{summary['skipped']:>10,}")
    lines += [f"{'    ' + kind:<28}{n:>10,}" for kind, n in summary["skipped_by_type"].items()]
    files = summary["files"]
    # archives inside a tar (TAR!/MEMBER) are files of the summary, not input files
    inside = sum("!/" in entry["source_file"] for entry in files.get("per_file", ()))
    lines.append(f"{'input files':<28}{files['count'] - inside:>10,}")
    if inside:
        lines.append(f"{'  archives inside tars':<28}{inside:>10,}")
    lines.append(f"{'  damaged':<28}{files['damaged']:>10,}")
    if seconds is not None:
        lines.append(f"{'wall time (s)':<28}{seconds:>10.1f}")
        lines.append(f"{'documents/s':<28}{summary['documents'] / max(seconds, 1e-9):>10.1f}")
    return "\n".join(lines)


def run(
    argv: Sequence[str] | None = None, *, extractor_factory: Callable[..., Any] = Extractor
) -> dict[str, Any]:
    """Run the job and return its summary; raises ``JobFailed`` when rejects are over the limit
    or the output could not be written (one line: no space left, taken over by another run).

    ``--config FILE`` in ``argv`` is merged first (``ConfigError`` for a bad preset). An
    unknown flag, a value out of range, or an output that cannot be written, holds or is
    reached by the inputs, holds files the job did not write or is in use by another run,
    raise ``UsageError`` before any work (see ``beam_jobs.output``).
    ``extractor_factory(mode=...)`` builds the extractor on each worker (tests pass fakes).
    """
    argv = merge_config(argv if argv is not None else sys.argv[1:])
    check_flags(argv)
    options = PipelineOptions(argv)
    options.view_as(SetupOptions).save_main_session = False
    standard = options.view_as(StandardOptions)
    if standard.runner is None:
        # The engine DirectRunner uses for batch, without its first attempt to download Prism.
        standard.runner = "FnApiRunner"
    job = options.view_as(CleanHtmlOptions)
    if not (job.input or job.input_list) or not job.output:
        raise JobFailed("--input or --input_list (one or more) and --output are required")
    check_output_path(job.output)
    matched: dict[str, list[str]] = {}
    files, size = _check_inputs(job.input or [], matched)
    listed: list[str] = []
    if job.input_list:
        try:  # a list itself that cannot be read is a mistake in the launch, not in the crawl
            listed = listed_paths(job.input_list, job.input_prefix)
        except Exception as e:
            raise JobFailed(f"--input_list cannot be read: {type(e).__name__}: {e}") from e
    check_inputs_outside(job.output, matched, listed)

    try:
        with OutputClaim(job.output, options) as claim:
            free = claim.free_bytes()
            _LOG.info(
                "%d input files (%.1f MB) -> %s%s",
                files,
                size / 1e6,
                job.output,
                "" if free is None else f" ({free / 1e6:,.1f} MB free)",
            )
            if free is not None and free < size * _OUTPUT_SHARE:
                _LOG.warning(
                    "%s has %.1f MB free for %.1f MB of inputs: the output may not fit",
                    job.output,
                    free / 1e6,
                    size / 1e6,
                )
            if job.input_list:
                _LOG.info("%d more files listed in --input_list", len(listed))
            started = time.monotonic()
            with beam.Pipeline(options=options) as pipeline:
                build_pipeline(
                    pipeline,
                    job,
                    extractor_factory=extractor_factory,
                    listed=listed,
                    run_id=claim.run_id,
                    ownership=claim.ownership,
                )
            seconds = time.monotonic() - started
            summary = read_summary(job.output)
            claim.finish(summary)
    except OutputError as e:
        raise JobFailed(str(e)) from None

    layout = OutputLayout.of(job.output)
    print(f"Output: {layout.base}/{{data,rejects}}/part-*.parquet and {layout.summary}")
    print(format_summary(summary, seconds))
    ratio = summary["rejects"] / summary["documents"] if summary["documents"] else 0.0
    if ratio > job.max_reject_ratio:
        raise JobFailed(
            f"{summary['rejects']} of {summary['documents']} documents rejected ({ratio:.1%}), "
            f"over --max_reject_ratio {job.max_reject_ratio:.1%}; see {layout.summary}"
        )
    return summary


def main() -> int:
    return command_main(
        "clean_html", run, help_text, usage_errors=(UsageError,), failures=(JobFailed,)
    )


if __name__ == "__main__":
    sys.exit(main())
