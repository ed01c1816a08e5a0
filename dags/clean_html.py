"""Airflow DAG ``clean_html``: one Beam run per daily crawl partition, then a reject-ratio gate.

Each run cleans the partition named by its logical date::

    {crawl_root}/{ds}/{file_glob}  ->  {output_root}/{ds}/{data,rejects}/part-*.parquet
                                                          /_SUMMARY.json

``clean_html`` runs ``python -m beam_jobs.clean_html`` with ``BeamRunPythonPipelineOperator``
(apache-airflow-providers-apache-beam; the google provider must be installed too, or the operator
does not import). The DAG param ``runner`` picks DirectRunner (default) or FnApiRunner, with
configs/local.yaml, or DataflowRunner, with configs/dataflow.yaml and the operator's
``DataflowConfiguration``.

``check_rejects`` reads the run's ``_SUMMARY.json`` and fails the DAG run when rejects/documents
is over the ``max_reject_ratio`` param. The Beam job itself is given ``--max_reject_ratio 1`` so
that a data-quality failure is reported by this task, once, instead of being retried as if the
job had crashed.

With the ``dedup`` param set, ``dedup`` then runs ``python -m beam_jobs.dedup`` on the partition's
rows (``dedup_input``, by default ``{output_root}/{ds}/data``; a glob over several days
deduplicates across them) into ``{output_root}/{ds}/dedup/`` (``duplicates/``, the kept rows in
``data/``, ``_SUMMARY.json``); without it ``want_dedup`` skips it.

Set where things are with environment variables on the Airflow workers (read when the DAG is
parsed): ``CLEAN_HTML_PYTHON`` (the interpreter that has this package installed; default: the
repository's ``.venv``), ``CLEAN_HTML_CONFIGS`` (the configs/ folder), ``CLEAN_HTML_CRAWL_ROOT``
and ``CLEAN_HTML_OUTPUT_ROOT`` (the params' defaults), ``CLEAN_HTML_GCP_PROJECT`` (Dataflow
project; default: the Google Cloud connection's).
"""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from airflow.providers.apache.beam.operators.beam import BeamRunPythonPipelineOperator
from airflow.providers.google.cloud.operators.dataflow import DataflowConfiguration
from airflow.sdk import DAG, Param, task
from airflow.sdk.exceptions import AirflowFailException

REPO = Path(__file__).resolve().parents[1]
_REPO_PYTHON = REPO / ".venv" / "bin" / "python"
JOB_PYTHON = os.environ.get("CLEAN_HTML_PYTHON") or (
    str(_REPO_PYTHON) if _REPO_PYTHON.exists() else "python3"
)
CONFIGS = os.environ.get("CLEAN_HTML_CONFIGS") or str(REPO / "configs")
PARTITION_OUTPUT = "{{ params.output_root }}/{{ ds }}"


def _beam_job(module: str, job_name: str, options: dict[str, Any]) -> BeamRunPythonPipelineOperator:
    """A task running ``python -m beam_jobs.MODULE`` with the runner's preset and ``options``
    (the job's own flags), named ``MODULE``; on Dataflow as ``job_name``."""
    return BeamRunPythonPipelineOperator(
        task_id=module,
        runner="{{ params.runner }}",
        py_file=f"beam_jobs.{module}",
        py_options=["-m"],
        py_interpreter=JOB_PYTHON,
        pipeline_options={
            "config": CONFIGS
            + "/{{ 'dataflow' if params.runner == 'DataflowRunner' else 'local' }}.yaml",
            **options,
        },
        dataflow_config=DataflowConfiguration(
            job_name=job_name,
            project_id=os.environ.get("CLEAN_HTML_GCP_PROJECT") or None,
            location="{{ params.region }}",
            wait_until_finished=True,
        ),
    )


SUMMARY_FILE = "_SUMMARY.json"

log = logging.getLogger(__name__)


def reject_ratio_problem(summary: dict[str, Any], max_reject_ratio: float) -> str | None:
    """Why the run's output must not be used, or None: rejects/documents over the limit."""
    documents, rejects = summary["documents"], summary["rejects"]
    ratio = rejects / documents if documents else 0.0
    if ratio > max_reject_ratio:
        return (
            f"{rejects} of {documents} documents rejected ({ratio:.1%}), over "
            f"max_reject_ratio {max_reject_ratio:.1%}; by reason: {summary['rejects_by_reason']}"
        )
    return None


with DAG(
    dag_id="clean_html",
    description="WARC/ARC/tar crawl partition -> clean text Parquet, one run per day",
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=5)},
    params={
        "runner": Param(
            "DirectRunner",
            enum=["DirectRunner", "FnApiRunner", "DataflowRunner"],
            description="DataflowRunner uses configs/dataflow.yaml, the others local.yaml. "
            "DirectRunner tries Beam's Prism runner first; FnApiRunner skips that.",
        ),
        "crawl_root": Param(
            os.environ.get("CLEAN_HTML_CRAWL_ROOT", "/data/crawl"),
            type="string",
            description="Folder (or gs:// prefix) holding one sub-folder per day, YYYY-MM-DD.",
        ),
        "file_glob": Param("*", type="string", description="Archives to read in a partition."),
        "output_root": Param(
            os.environ.get("CLEAN_HTML_OUTPUT_ROOT", "/data/clean"),
            type="string",
            description="Each run writes {output_root}/{ds}/.",
        ),
        "max_reject_ratio": Param(
            0.5, type="number", minimum=0, maximum=1, description="Fail the run above this."
        ),
        "region": Param("europe-west1", type="string", description="Dataflow region."),
        "dedup": Param(
            False,
            type="boolean",
            description="After the gate, deduplicate the partition's rows (beam_jobs.dedup) "
            "into {output_root}/{ds}/dedup/.",
        ),
        "dedup_input": Param(
            "",
            type="string",
            description="What dedup reads; empty: the partition's data/. A glob over several "
            "days' data/ folders deduplicates across them.",
        ),
    },
    tags=["beam", "crawl"],
    doc_md=__doc__,
) as dag:
    clean = _beam_job(
        "clean_html",
        "clean-html-{{ ds_nodash }}",
        {
            "input": "{{ params.crawl_root }}/{{ ds }}/{{ params.file_glob }}",
            "output": PARTITION_OUTPUT,
            "max_reject_ratio": 1.0,
        },
    )

    @task(retries=0)
    def check_rejects(output: str, max_reject_ratio: str) -> dict[str, Any]:
        """Fail the run when the partition's reject ratio is over the limit; return the summary."""
        from apache_beam.io.filesystems import FileSystems  # heavy: import at run time only

        path = FileSystems.join(output, SUMMARY_FILE)
        with FileSystems.open(path) as f:
            summary = json.loads(f.read().decode("utf-8"))
        log.info(
            "%s: %s documents, %s rows, %s rejects",
            path,
            *(summary[k] for k in ("documents", "rows", "rejects")),
        )
        problem = reject_ratio_problem(summary, float(max_reject_ratio))
        if problem:
            raise AirflowFailException(f"{path}: {problem}")
        return {k: summary[k] for k in ("documents", "rows", "rejects", "skipped")}

    @task.short_circuit(retries=0)
    def want_dedup(wanted: str) -> bool:
        """Go on to ``dedup`` only when the ``dedup`` param is set."""
        return wanted == "True"

    dedup = _beam_job(
        "dedup",
        "dedup-{{ ds_nodash }}",
        {
            "input": "{{ params.dedup_input or (params.output_root ~ '/' ~ ds ~ '/data') }}",
            "output": PARTITION_OUTPUT + "/dedup",
            "write_corpus": True,
        },
    )

    (
        clean
        >> check_rejects(PARTITION_OUTPUT, "{{ params.max_reject_ratio }}")
        >> want_dedup("{{ params.dedup }}")
        >> dedup
    )
