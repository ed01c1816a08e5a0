"""The Airflow DAG (dags/clean_html.py) under real Airflow, in its own venv (.venv-airflow).

``make test`` builds that venv first (``make venv-airflow``, cached by a stamp file); run on its
own, this module builds it too, and is skipped only when it cannot be built. Each test shells out
to the Airflow venv: the DagBag import, template rendering per runner, and ``airflow dags test``
end to end on DirectRunner over a partition of the bundled samples, the Beam job itself running
in this project's interpreter (the DAG's ``py_interpreter``).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import (
    GoogleCloudOptions,
    PipelineOptions,
    SetupOptions,
    StandardOptions,
)
from packaging.requirements import Requirement

from beam_jobs.clean_html import CleanHtmlOptions
from beam_jobs.config import merge_config
from tests.conftest import read_output, run_job

ROOT = Path(__file__).resolve().parents[2]
AIRFLOW_VENV = Path(os.environ.get("AIRFLOW_VENV", ROOT / ".venv-airflow"))
AIRFLOW_BIN = AIRFLOW_VENV / "bin"
DAG_ID = "clean_html"
COMMAND_TIMEOUT = 600  # a bound for a hung subprocess, not an expectation

INSPECT_DAG = r"""
import json, sys
from airflow.dag_processing.dagbag import DagBag

bag = DagBag(dag_folder=sys.argv[1])
dag = bag.dags.get("clean_html")
out = {"import_errors": {str(k): v for k, v in bag.import_errors.items()}, "dag_ids": sorted(bag.dags)}
if dag is not None:
    out["tasks"] = {
        t.task_id: {
            "operator": type(t).__name__,
            "retries": t.retries,
            "downstream": sorted(t.downstream_task_ids),
        }
        for t in dag.tasks
    }
    out["params"] = dag.params.dump()
    beam = dag.get_task("clean_html")
    out["py_interpreter"] = beam.py_interpreter
    out["rendered"] = {}
    for runner in ("DirectRunner", "DataflowRunner"):
        params = {**dag.params.dump(), "runner": runner}
        context = {"params": params, "ds": "2026-01-02", "ds_nodash": "20260102"}
        out["rendered"][runner] = {
            "runner": beam.render_template(beam.runner, context),
            "pipeline_options": beam.render_template(beam.pipeline_options, context),
            "job_name": beam.render_template(beam.dataflow_config.job_name, context),
        }
print("INSPECT=" + json.dumps(out))
"""


def _venv_ready() -> str | None:
    """Build the Airflow venv if needed; the reason it cannot be built, or None."""
    if os.environ.get("AIRFLOW_VENV"):
        return None if (AIRFLOW_BIN / "airflow").exists() else f"no airflow in {AIRFLOW_VENV}"
    result = subprocess.run(
        ["make", "-C", str(ROOT), "venv-airflow"],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT * 3,
    )
    if result.returncode != 0:
        return f"`make venv-airflow` failed:\n{(result.stdout + result.stderr)[-3000:]}"
    return None


@pytest.fixture(scope="module")
def airflow_env(tmp_path_factory) -> dict[str, str]:
    """Environment for Airflow commands: a fresh AIRFLOW_HOME with a migrated SQLite DB."""
    problem = _venv_ready()
    if problem:
        pytest.skip(problem)
    home = tmp_path_factory.mktemp("airflow_home")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AIRFLOW", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        PATH=f"{AIRFLOW_BIN}{os.pathsep}{env.get('PATH', '')}",
        AIRFLOW_HOME=str(home),
        AIRFLOW__CORE__DAGS_FOLDER=str(ROOT / "dags"),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        CLEAN_HTML_PYTHON=sys.executable,
        CLEAN_HTML_CONFIGS=str(ROOT / "configs"),
    )
    migrate = airflow(env, home, "db", "migrate")
    assert migrate.returncode == 0, migrate.stdout[-3000:]
    return env


def airflow(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(AIRFLOW_BIN / "airflow"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )


def partition(root: Path, ds: str) -> Path:
    """A crawl partition ``root/ds/`` holding copies of the bundled sample shards."""
    folder = root / ds
    folder.mkdir(parents=True)
    for name in ("crawl.warc.gz", "pages.tar.gz"):
        shutil.copy(ROOT / "samples" / name, folder / name)
    return folder


def dags_test(env: dict[str, str], tmp_path: Path, ds: str, **conf) -> subprocess.CompletedProcess:
    return airflow(env, tmp_path, "dags", "test", DAG_ID, ds, "-c", json.dumps(conf))


def test_airflow_venv_has_the_pinned_versions(airflow_env, tmp_path):
    lines = (ROOT / "airflow" / "requirements.txt").read_text().splitlines()
    pins = [Requirement(x) for x in lines if x.strip() and not x.startswith("#")]
    assert {p.name for p in pins} >= {
        "apache-airflow",
        "apache-airflow-providers-apache-beam",
        "apache-airflow-providers-google",  # without it the Beam operator does not import
    }
    script = "import importlib.metadata as m, sys; print([m.version(n) for n in sys.argv[1:]])"
    result = subprocess.run(
        [str(AIRFLOW_BIN / "python"), "-c", script, *(p.name for p in pins)],
        env=airflow_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    installed = ast.literal_eval(result.stdout.strip().splitlines()[-1])
    for pin, version in zip(pins, installed, strict=True):
        assert pin.specifier.contains(version), (pin, version)


def test_dagbag_imports_and_renders_each_runner(airflow_env, tmp_path):
    result = subprocess.run(
        [str(AIRFLOW_BIN / "python"), "-c", INSPECT_DAG, str(ROOT / "dags")],
        cwd=tmp_path,
        env=airflow_env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(x for x in result.stdout.splitlines() if x.startswith("INSPECT="))
    found = json.loads(line.removeprefix("INSPECT="))
    assert found["import_errors"] == {}
    assert found["dag_ids"] == [DAG_ID]
    assert found["tasks"] == {
        "clean_html": {
            "operator": "BeamRunPythonPipelineOperator",
            "retries": 2,
            "downstream": ["check_rejects"],
        },
        "check_rejects": {
            "operator": "_PythonDecoratedOperator",
            "retries": 0,
            "downstream": ["want_dedup"],
        },
        "want_dedup": {
            "operator": "_ShortCircuitDecoratedOperator",
            "retries": 0,
            "downstream": ["dedup"],
        },  # fmt: skip
        "dedup": {"operator": "BeamRunPythonPipelineOperator", "retries": 2, "downstream": []},
    }
    assert found["params"]["dedup"] is False
    assert found["params"]["runner"] == "DirectRunner"
    assert found["py_interpreter"] == sys.executable

    direct, dataflow = found["rendered"]["DirectRunner"], found["rendered"]["DataflowRunner"]
    crawl_root, output_root = found["params"]["crawl_root"], found["params"]["output_root"]
    assert direct["runner"] == "DirectRunner"
    assert direct["pipeline_options"] == {
        "config": str(ROOT / "configs" / "local.yaml"),
        "input": f"{crawl_root}/2026-01-02/*",
        "output": f"{output_root}/2026-01-02",
        "max_reject_ratio": 1.0,
    }
    assert dataflow["runner"] == "DataflowRunner"
    assert dataflow["pipeline_options"]["config"] == str(ROOT / "configs" / "dataflow.yaml")
    assert dataflow["job_name"] == "clean-html-20260102"

    # The flags the operator would pass for Dataflow merge with the preset into valid options.
    rendered = dataflow["pipeline_options"]
    argv = ["--runner=DataflowRunner", "--project=p1", "--region=us-east1"]
    argv += [f"--{k}={v}" for k, v in rendered.items()]
    options = PipelineOptions(merge_config(argv))
    assert options.view_as(StandardOptions).runner == "DataflowRunner"
    assert options.view_as(GoogleCloudOptions).project == "p1"
    assert options.view_as(GoogleCloudOptions).region == "us-east1"
    assert options.view_as(GoogleCloudOptions).temp_location.startswith("gs://")
    assert options.view_as(SetupOptions).setup_file == str(ROOT / "setup.py")
    assert options.view_as(CleanHtmlOptions).output == f"{output_root}/2026-01-02"


def test_dags_test_runs_the_dag_end_to_end_on_direct_runner(airflow_env, tmp_path):
    crawl, out = tmp_path / "crawl", tmp_path / "clean"
    partition(crawl, "2026-01-02")
    result = dags_test(
        airflow_env, tmp_path, "2026-01-02", crawl_root=str(crawl), output_root=str(out)
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    log = result.stdout + result.stderr
    assert "--runner=DirectRunner" in log and f"--config={ROOT / 'configs' / 'local.yaml'}" in log
    assert "DagRun Finished" in log and "state=success" in log

    produced = out / "2026-01-02"
    assert not (produced / "dedup").exists()  # the dedup param is off by default
    assert list((produced / "data").glob("part-*.parquet"))
    assert (produced / "_SUMMARY.json").is_file()
    rows, rejects, summary = read_output(produced)
    assert summary["documents"] > 0 and rows

    # The same partition run straight from the command line gives the same rows.
    direct = tmp_path / "direct"
    _, _, expected = run_job(["--input", str(crawl / "2026-01-02" / "*"), "--output", str(direct)])
    assert summary["rows"] == expected["rows"] and summary["rejects"] == expected["rejects"]
    key = lambda r: (r["source_file"], r["record_offset"], r["record_id"])  # noqa: E731
    assert sorted(rows, key=key) == sorted(pq.read_table(direct / "data").to_pylist(), key=key)


def test_dags_test_with_dedup_runs_it_after_the_gate(airflow_env, tmp_path):
    crawl, out = tmp_path / "crawl", tmp_path / "clean"
    partition(crawl, "2026-01-04")
    result = dags_test(
        airflow_env, tmp_path, "2026-01-04", crawl_root=str(crawl), output_root=str(out), dedup=True
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0 and "state=success" in log, log[-5000:]
    produced = out / "2026-01-04"
    rows, _, _ = read_output(produced)
    summary = json.loads((produced / "dedup" / "_SUMMARY.json").read_text())
    assert summary["documents"] == len(rows) == summary["kept"] + summary["dropped"]
    kept = pq.read_table(produced / "dedup" / "data").num_rows
    assert kept == summary["kept"]


def test_dags_test_fails_the_run_when_rejects_are_over_the_limit(airflow_env, tmp_path):
    crawl, out = tmp_path / "crawl", tmp_path / "clean"
    partition(crawl, "2026-01-03")
    result = dags_test(
        airflow_env,
        tmp_path,
        "2026-01-03",
        crawl_root=str(crawl),
        output_root=str(out),
        max_reject_ratio=0.0,
    )
    log = result.stdout + result.stderr
    assert result.returncode != 0, log[-5000:]
    # The Beam task succeeded and wrote its summary; the gate failed the run.
    assert (out / "2026-01-03" / "_SUMMARY.json").is_file()
    read_output(out / "2026-01-03")  # the accounting holds on a failed run too
    assert "over max_reject_ratio 0.0%" in log
    assert "state=failed" in log
