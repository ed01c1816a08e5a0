"""The portable path: the Job API and an external SDK worker pool, as Flink on Kubernetes runs it.

A worker pool (``apache_beam.runners.worker.worker_pool_main``) runs in its own process group;
the job is submitted with ``--config configs/portable.yaml`` (PortableRunner, embedded job
server, EXTERNAL environment) pointed at the pool's port, and its output must equal a
DirectRunner run's over the same bundled sample shards.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from beam_jobs.clean_html import run
from tests.conftest import read_output

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_INPUTS = ["--input", str(ROOT / "samples" / "*.warc.gz")]
SAMPLE_INPUTS += ["--input", str(ROOT / "samples" / "*.tar.gz")]
READY_WITHIN_SECONDS = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def wait_until_listening(proc: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + READY_WITHIN_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker pool exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("localhost", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"worker pool not listening on {port}:\n{log.read_text()}")


@pytest.fixture
def worker_pool(tmp_path) -> Iterator[tuple[int, Path]]:
    """A worker pool process on a free port; yields the port and the pool's log file."""
    port, log = free_port(), tmp_path / "worker_pool.log"
    # The pool starts each SDK worker as `python` from PATH: put this interpreter's first.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main"]
            + ["--service_port", str(port)],
            cwd=tmp_path,  # workers must find the job's code installed, not in the working dir
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_listening(proc, port, log)
        yield port, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def by_record(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (r["source_file"], r["record_offset"], r["record_id"]))


def test_portable_runner_with_external_workers_matches_direct_runner(tmp_path, worker_pool):
    port, pool_log = worker_pool
    direct_out, portable_out = tmp_path / "direct", tmp_path / "portable"

    run([*SAMPLE_INPUTS, "--output", str(direct_out), "--runner", "DirectRunner"])
    run(
        [
            "--config",
            str(ROOT / "configs" / "portable.yaml"),
            "--environment_config",
            f"localhost:{port}",
            *SAMPLE_INPUTS,
            "--output",
            str(portable_out),
        ]
    )

    direct_rows, direct_rejects, direct_summary = read_output(direct_out)
    rows, rejects, summary = read_output(portable_out)
    assert direct_rows, "the samples must give rows for the comparison to mean anything"
    assert by_record(rows) == by_record(direct_rows)
    assert by_record(rejects) == by_record(direct_rejects)
    # The summaries agree on every count; only the output file names differ (other folders).
    summary.pop("output"), direct_summary.pop("output")
    assert summary == direct_summary
    # The work ran in SDK workers that the pool started, not in this process.
    assert "Starting worker with command" in pool_log.read_text()
