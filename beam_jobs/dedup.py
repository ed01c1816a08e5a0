"""The dedup job: the cleaning job's Parquet in; its exact and near duplicates, as clusters, out.

    python -m beam_jobs.dedup --input 'OUT/data/*.parquet' [--input ...] --output DEDUP/ \\
        [--write_corpus] [--config configs/dataflow.yaml] [Beam options]

Reads only the columns it needs (``transforms.dedup.inputs``), from one run or several, finds
exact duplicates by ``text_hash`` and near duplicates by MinHash over word 5-grams with LSH
bands, joins them into clusters (connected components) and keeps one document per cluster
(``transforms.dedup.pipeline``). Writes ``DEDUP/duplicates/part-*.parquet`` (one row per
document dropped, naming the one kept), with ``--write_corpus`` ``DEDUP/data/part-*.parquet``
(the kept rows, every column) and, last, ``DEDUP/_SUMMARY.json``.

Its own flags are parsed here; the rest are Beam's, with ``--config`` presets and the FnApiRunner
default shared with the cleaning job (``beam_jobs.config``). Inputs that are not this job's
Parquet stop it before any work, with one line (exit 2). The output folder is held and cleared
as the cleaning job's is (``beam_jobs.output``, with this job's shard folders): inputs inside
it or reaching into it, files there it did not write, or another live run's lock stop it before
any work (exit 2); it deletes only its own files, by name; a write that fails, or an output
taken over meanwhile, ends it with one line (exit 1) and nothing of the run left behind.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions, SetupOptions, StandardOptions

from beam_jobs.command import command_main
from beam_jobs.config import UsageError, check_flags, merge_config, number_type
from beam_jobs.output import (
    OutputClaim,
    check_inputs_outside,
    check_output_path,
)
from transforms.dedup import (
    DEDUP_SHARDS,
    DUPLICATE_SCHEMA,
    FindDuplicates,
    InputError,
    MinHashParams,
    ReadDocuments,
    Summarize,
    WriteCorpus,
    WriteDedupSummary,
    match_inputs,
    plan_inputs,
)
from transforms.write import OutputError, OutputLayout, Ownership, WriteParquetShards

_LOG = logging.getLogger("dedup")

__all__ = ["DEFAULT_ROUNDS", "JobFailed", "build_pipeline", "format_summary", "parse_args", "run"]

DEFAULT_ROUNDS = 6
_DEFAULTS = MinHashParams()


class JobFailed(Exception):
    """The run failed at the end (its output could not be written); the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m beam_jobs.dedup",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        allow_abbrev=False,
        add_help=False,
        epilog="Beam's pipeline options (--runner, --direct_num_workers, --project, ...) are "
        "accepted too; --help_beam lists them all.",
    )
    parser.add_argument(
        "--input",
        action="append",
        help="Parquet files of beam_jobs.clean_html (its OUT/data/*.parquet), or a folder of "
        "them. Repeatable: several runs (months of a crawl) are deduplicated together.",
    )
    parser.add_argument("--output", help="Output directory.")
    parser.add_argument("--config", default=None, help="YAML preset of Beam options.")
    parser.add_argument(
        "--write_corpus",
        action="store_true",
        help="Also write the kept rows, with all their columns, to OUTPUT/data/.",
    )
    parser.add_argument(
        "--bands",
        type=number_type(int, 1, low_included=True, high=64),
        default=_DEFAULTS.bands,
        help="LSH bands.",
    )
    parser.add_argument(
        "--rows",
        type=number_type(int, 1, low_included=True, high=32),
        default=_DEFAULTS.rows,
        help="MinHash values per band (bands x rows hashes in all).",
    )
    parser.add_argument(
        "--hashes",
        type=number_type(int, 16, low_included=True, high=1024),
        default=_DEFAULTS.hashes,
        help="MinHash values per document: the first bands x rows make the bands, all of "
        "them estimate the similarity of a candidate pair.",
    )
    parser.add_argument(
        "--threshold",
        type=number_type(float, 0.0, low_included=True, high=1.0),
        default=_DEFAULTS.threshold,
        help="A candidate pair is a near duplicate when its signatures agree on at least this "
        "share of values (the estimated Jaccard similarity of their word 5-grams).",
    )
    parser.add_argument(
        "--components_rounds",
        type=number_type(int, 0, low_included=True, high=64),
        default=DEFAULT_ROUNDS,
        help="Large-star / small-star rounds of the connected components; what is left "
        "unconverged is finished by a union-find (counted in the summary).",
    )
    return parser


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """The job's own flags, and the rest (Beam's, checked: an unknown flag is a UsageError)."""
    own, rest = _parser().parse_known_args(list(argv))
    check_flags(rest)
    if not own.input or not own.output:
        raise UsageError("--input (one or more) and --output are required")
    if own.bands * own.rows > own.hashes:
        raise UsageError(f"--bands {own.bands} of --rows {own.rows} need --hashes of at least "
                         f"{own.bands * own.rows}")  # fmt: skip
    return own, rest


def build_pipeline(
    pipeline: beam.Pipeline,
    own: argparse.Namespace,
    plan,
    *,
    run_id: str | None = None,
    ownership: Ownership | None = None,
) -> None:
    """Add the job's steps to ``pipeline``: read, find duplicates, write, summarise.

    ``run_id`` names the temporary files; with ``ownership``, nothing is put in place unless the
    output is still this run's (see ``beam_jobs.output``).
    """
    files, groups, schema = plan
    params = MinHashParams(own.bands, own.rows, own.threshold, own.hashes)
    layout = OutputLayout.of(own.output, DEDUP_SHARDS)
    owned = {"run_id": run_id, "ownership": ownership}
    documents = (
        pipeline
        | "RowGroups" >> beam.Create(groups)
        | "ReadDocuments" >> ReadDocuments()
    )  # fmt: skip
    finder = FindDuplicates(params, rounds=own.components_rounds)
    found = documents | "FindDuplicates" >> finder
    duplicate_files = found["rows"] | "WriteDuplicates" >> WriteParquetShards(
        layout.folder("duplicates"), DUPLICATE_SCHEMA, **owned
    )
    if own.write_corpus:
        corpus = found["dropped_ids"] | "WriteCorpus" >> WriteCorpus(
            groups, schema, layout.data, **owned
        )
        corpus_files = corpus["files"]
        events = (found["events"], corpus["events"]) | "WithCorpusEvents" >> beam.Flatten()
    else:
        corpus_files = pipeline | "NoCorpus" >> beam.Create([])
        events = found["events"]
    extra = {
        "parameters": {
            "shingle": "word 5-grams",
            "bands": params.bands,
            "rows": params.rows,
            "hashes": params.num_perm,
            "threshold": params.threshold,
            "components_rounds": own.components_rounds,
        },
        "inputs": {"patterns": list(own.input), "files": len(files)},
    }
    (
        events
        | "Summarize" >> Summarize()
        | "WriteSummary"
        >> WriteDedupSummary(layout.summary, duplicate_files, corpus_files, extra, **owned)
    )


def format_summary(summary: dict[str, Any], seconds: float | None = None) -> str:
    lines = [
        f"{'documents':<28}{summary['documents']:>12,}",
        f"{'  empty (not clustered)':<28}{summary['empty']:>12,}",
        f"{'  kept':<28}{summary['kept']:>12,}",
        f"{'  dropped':<28}{summary['dropped']:>12,}",
    ]
    lines += [f"{'    ' + k:<28}{n:>12,}" for k, n in summary["dropped_by_kind"].items()]
    lines.append(f"{'clusters':<28}{summary['clusters']:>12,}")
    lines.append(
        f"{'bytes shuffled / document':<28}{summary['shuffled_bytes_per_document']:>12,.0f}"
    )
    if seconds is not None:
        lines.append(f"{'wall time (s)':<28}{seconds:>12.1f}")
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the job and return its summary. ``UsageError``/``ConfigError``/``InputError`` before
    any work for a bad command line, preset, input or output folder (``beam_jobs.output``);
    ``JobFailed`` when the output could not be written or was taken over by another run."""
    argv = merge_config(argv if argv is not None else sys.argv[1:])
    own, rest = parse_args(argv)
    check_output_path(own.output)
    matched = match_inputs(own.input)
    check_inputs_outside(own.output, matched, (), DEDUP_SHARDS)
    plan = plan_inputs(own.input, one_schema=own.write_corpus, matched=matched)
    options = PipelineOptions(rest)
    options.view_as(SetupOptions).save_main_session = False
    standard = options.view_as(StandardOptions)
    if standard.runner is None:
        standard.runner = "FnApiRunner"
    writing = ("duplicates", "data") if own.write_corpus else ("duplicates",)
    try:
        with OutputClaim(own.output, options, shards=DEDUP_SHARDS, writing=writing) as claim:
            _LOG.info("%d input files, %d row groups -> %s", len(plan[0]), len(plan[1]), own.output)
            started = time.monotonic()
            with beam.Pipeline(options=options) as pipeline:
                build_pipeline(pipeline, own, plan, run_id=claim.run_id, ownership=claim.ownership)
            seconds = time.monotonic() - started
            with FileSystems.open(claim.layout.summary) as f:
                summary = json.loads(f.read().decode("utf-8"))
            claim.finish(summary)
    except OutputError as e:
        raise JobFailed(str(e)) from None
    layout = claim.layout
    print(f"Output: {layout.folder('duplicates')}/part-*.parquet and {layout.summary}")
    print(format_summary(summary, seconds))
    return summary


def main() -> int:
    return command_main(
        "dedup",
        run,
        lambda: _parser().format_help(),
        usage_errors=(UsageError, InputError),
        failures=(JobFailed,),
    )


if __name__ == "__main__":
    sys.exit(main())
