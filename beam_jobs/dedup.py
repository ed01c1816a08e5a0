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
Parquet and outputs that would overwrite the inputs stop it before any work, with one line.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions, SetupOptions, StandardOptions

from beam_jobs.config import ConfigError, UsageError, all_options_help, check_flags, merge_config
from transforms.dedup import (
    DUPLICATE_SCHEMA,
    FindDuplicates,
    InputError,
    MinHashParams,
    ReadDocuments,
    Summarize,
    WriteCorpus,
    WriteDedupSummary,
    plan_inputs,
)
from transforms.paths import delete_literal, has_wildcards, is_local
from transforms.write import SUMMARY_FILE, WriteParquetShards

_LOG = logging.getLogger("dedup")

__all__ = ["DEFAULT_ROUNDS", "build_pipeline", "format_summary", "parse_args", "run"]

DEFAULT_ROUNDS = 6
_DEFAULTS = MinHashParams()


def _bounded(kind: type, low: float, high: float):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if math.isnan(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range ({low} to {high})")
        return value

    parse.__name__ = kind.__name__
    return parse


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
        "--bands", type=_bounded(int, 1, 64), default=_DEFAULTS.bands,
        help="LSH bands.",
    )  # fmt: skip
    parser.add_argument(
        "--rows", type=_bounded(int, 1, 32), default=_DEFAULTS.rows,
        help="MinHash values per band (bands x rows hashes in all).",
    )  # fmt: skip
    parser.add_argument(
        "--hashes",
        type=_bounded(int, 16, 1024),
        default=_DEFAULTS.hashes,
        help="MinHash values per document: the first bands x rows make the bands, all of "
        "them estimate the similarity of a candidate pair.",
    )
    parser.add_argument(
        "--threshold",
        type=_bounded(float, 0.0, 1.0),
        default=_DEFAULTS.threshold,
        help="A candidate pair is a near duplicate when its signatures agree on at least this "
        "share of values (the estimated Jaccard similarity of their word 5-grams).",
    )
    parser.add_argument(
        "--components_rounds",
        type=_bounded(int, 0, 64),
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


def output_paths(output: str) -> dict[str, str]:
    """What the job writes under ``output``, and so what it replaces there."""
    base = output.rstrip("/")
    return {
        "duplicates": FileSystems.join(base, "duplicates"),
        "data": FileSystems.join(base, "data"),
        "summary": FileSystems.join(base, SUMMARY_FILE),
    }


def _inside(path: str, folder: str) -> bool:
    if is_local(path) and is_local(folder):
        path, folder = os.path.realpath(path), os.path.realpath(folder)
    folder = folder.rstrip("/") + "/"
    return path.startswith(folder) or path.rstrip("/") + "/" == folder


def check_output(output: str, inputs: Sequence[str]) -> None:
    """Refuse, before any work, an output the run could not write or that holds its inputs."""
    if has_wildcards(output) and not is_local(output):
        raise UsageError(f"--output {output!r}: [ ] ? * in a remote path are wildcards to Beam")
    base = output.rstrip("/")
    if is_local(base) and os.path.exists(base) and not os.path.isdir(base):
        raise UsageError(f"--output {output!r} is an existing file, not a folder")
    for path in inputs:
        if _inside(path, base):
            raise UsageError(
                f"--output {output!r} holds the input {path}: the run would replace its own "
                "input; write it elsewhere"
            )


def build_pipeline(pipeline: beam.Pipeline, own: argparse.Namespace, plan) -> None:
    """Add the job's steps to ``pipeline``: read, find duplicates, write, summarise."""
    files, groups, schema = plan
    params = MinHashParams(own.bands, own.rows, own.threshold, own.hashes)
    paths = output_paths(own.output)
    documents = (
        pipeline
        | "RowGroups" >> beam.Create(groups)
        | "ReadDocuments" >> ReadDocuments()
    )  # fmt: skip
    finder = FindDuplicates(params, rounds=own.components_rounds)
    found = documents | "FindDuplicates" >> finder
    duplicate_files = found["rows"] | "WriteDuplicates" >> WriteParquetShards(
        paths["duplicates"], DUPLICATE_SCHEMA
    )
    if own.write_corpus:
        corpus = found["dropped_ids"] | "WriteCorpus" >> WriteCorpus(groups, schema, paths["data"])
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
        >> WriteDedupSummary(paths["summary"], duplicate_files, corpus_files, extra)
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
    any work for a bad command line, preset or input."""
    argv = merge_config(argv if argv is not None else sys.argv[1:])
    own, rest = parse_args(argv)
    plan = plan_inputs(own.input, one_schema=own.write_corpus)
    check_output(own.output, plan[0])
    paths = output_paths(own.output)
    options = PipelineOptions(rest)
    options.view_as(SetupOptions).save_main_session = False
    standard = options.view_as(StandardOptions)
    if standard.runner is None:
        standard.runner = "FnApiRunner"
    delete_literal(paths.values())
    _LOG.info("%d input files, %d row groups -> %s", len(plan[0]), len(plan[1]), own.output)
    started = time.monotonic()
    with beam.Pipeline(options=options) as pipeline:
        build_pipeline(pipeline, own, plan)
    seconds = time.monotonic() - started
    with FileSystems.open(paths["summary"]) as f:
        summary = json.loads(f.read().decode("utf-8"))
    print(f"Output: {paths['duplicates']}/part-*.parquet and {paths['summary']}")
    print(format_summary(summary, seconds))
    return summary


def main() -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    logging.getLogger("apache_beam").setLevel(logging.WARNING)
    argv = sys.argv[1:]
    if "-h" in argv or "--help" in argv:
        print(_parser().format_help())
        return 0
    if "--help_beam" in argv:
        print(all_options_help())
        return 0
    try:
        run(argv)
    except (UsageError, InputError) as e:
        print(f"dedup: error: {e}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"dedup: bad --config: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
