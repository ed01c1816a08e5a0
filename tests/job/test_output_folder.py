"""The output folder as a careless operator meets it: inputs inside it, files of their own in it,
two runs at once, a run killed or taken over, a full disk, a read-only folder. The job deletes
only files it wrote, refuses what it cannot do safely before any work (exit 2, one line), and a
write that fails at the end is one line (exit 1) with nothing of the run left behind."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from beam_jobs.clean_html import JobFailed, main, run
from tests.builders import WarcEntry, http_response, page, write_warc
from tests.conftest import read_output, run_job
from tests.fake_extractors import SLOW_MARKER
from tests.malformed import FOREIGN_FILES, OUTPUT_OVERLAPS, output_overlaps
from tests.processes import start_until
from transforms.extract import Extractor
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = "_SUMMARY.json"
LOCK = "_LOCK.json"


def crawl(folder: Path, pages: int = 3, *, marker: str = "", name: str = "c.warc.gz") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_warc(
        folder / name,
        [
            WarcEntry(
                "response",
                f"https://o.example/{i}",
                http_response(page(f"Page {i}", f"Text of page {i} {marker}.").encode()),
            )
            for i in range(pages)
        ]
        + [WarcEntry("response", "https://o.example/gone", http_response(b"", status="404 No"))],
    )
    return folder / name


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder), to compare before/after."""
    return {
        str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes()
        for p in sorted(folder.rglob("*"))
    }


def run_main(monkeypatch, capsys, argv: list[str]) -> tuple[int, list[str], str]:
    """Exit code, the job's own lines on stderr (``clean_html: ...``), and all of stderr."""
    monkeypatch.setattr(sys, "argv", ["clean_html", *argv])
    code = main()
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if line.startswith("clean_html")], err


def leftovers(out: Path) -> list[str]:
    """What a finished or failed run must never leave: temporary files, a lock."""
    return sorted(
        str(p.relative_to(out)) for p in out.rglob("*") if ".temp-" in p.name or p.name == LOCK
    )


def job_shard(path: Path, schema=ROW_SCHEMA) -> Path:
    """A shard as this job writes it (its schema, no rows)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(schema.empty_table(), path)
    return path


# --- inputs inside the output, or reached by an input pattern: exit 2 before any work --------


@pytest.mark.parametrize("case", OUTPUT_OVERLAPS)
def test_output_holding_or_reached_by_the_inputs_stops_before_any_work(
    tmp_path, monkeypatch, capsys, case
):
    cases = output_overlaps(tmp_path)
    assert list(cases) == OUTPUT_OVERLAPS
    argv, says = cases[case]
    before = tree(tmp_path)
    code, lines, err = run_main(monkeypatch, capsys, argv)
    assert code == 2 and len(lines) == 1 and says in lines[0], err
    assert "Traceback" not in err
    assert tree(tmp_path) == before  # nothing deleted, nothing written, no lock


def test_the_issues_crawl_survives(tmp_path, monkeypatch, capsys):
    """The issue's own commands: the crawl in crawl/data is still there, byte for byte."""
    warc = crawl(tmp_path / "crawl" / "data")
    data = warc.read_bytes()
    code, lines, _ = run_main(
        monkeypatch,
        capsys,
        [
            "--input",
            str(tmp_path / "crawl" / "data" / "*.warc.gz"),
            "--output",
            str(tmp_path / "crawl"),
        ],
    )
    assert code == 2 and "the output must not hold the inputs" in lines[0]
    assert warc.read_bytes() == data
    assert sorted(p.name for p in (tmp_path / "crawl" / "data").iterdir()) == ["c.warc.gz"]


def test_a_sibling_with_the_same_prefix_is_not_inside(tmp_path):
    """crawl-clean is beside crawl, not in it; crawl/* does not reach crawl/clean's files."""
    crawl(tmp_path / "crawl")
    rows, _, _ = run_job(
        ["--input", str(tmp_path / "crawl" / "*"), "--output", str(tmp_path / "crawl-clean")]
    )
    assert len(rows) == 3
    rows, _, _ = run_job(
        ["--input", str(tmp_path / "crawl" / "*"), "--output", str(tmp_path / "crawl" / "clean")]
    )
    assert len(rows) == 3


# --- files the job did not write -----------------------------------------------------------


@pytest.mark.parametrize("case", sorted(FOREIGN_FILES))
def test_files_the_job_did_not_write_stop_it_and_stay(tmp_path, monkeypatch, capsys, case):
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    job_shard(out / "data" / "part-00000-of-00001.parquet")  # a previous run's: not mentioned
    path = FOREIGN_FILES[case](out)
    before = tree(out)
    code, lines, err = run_main(
        monkeypatch, capsys, ["--input", str(tmp_path / "in" / "*"), "--output", str(out)]
    )
    assert code == 2 and len(lines) == 1, err
    assert "not written by this job" in lines[0] and path.name in lines[0], lines
    assert tree(out) == before


def test_other_files_beside_data_and_rejects_are_left_alone(tmp_path):
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.txt").write_text("what this folder is")
    (out / "notes").mkdir()
    (out / "notes" / "n.md").write_text("n")
    for _ in range(2):
        run_job(["--input", str(tmp_path / "in" / "*"), "--output", str(out)])
    assert (out / "README.txt").read_text() == "what this folder is"
    assert (out / "notes" / "n.md").read_text() == "n"


def test_a_summary_that_is_a_folder_stops_the_job(tmp_path, monkeypatch, capsys):
    crawl(tmp_path / "in")
    (tmp_path / "out" / SUMMARY).mkdir(parents=True)
    (tmp_path / "out" / SUMMARY / "mine").write_text("x")
    code, lines, _ = run_main(
        monkeypatch,
        capsys,
        ["--input", str(tmp_path / "in" / "*"), "--output", str(tmp_path / "out")],
    )
    assert code == 2 and "is not a file this job wrote" in lines[0]
    assert (tmp_path / "out" / SUMMARY / "mine").exists()


# --- what a previous run left ----------------------------------------------------------------


def _files(out: Path) -> set[str]:
    return {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}


def test_a_finished_runs_shards_of_another_count_are_replaced(tmp_path):
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    args = ["--input", str(tmp_path / "in" / "*"), "--output", str(out)]
    run_job(args)
    summary = json.loads((out / SUMMARY).read_text())
    # As if that run had written three shards: rename its one and list three in its summary.
    (out / "data" / "part-00000-of-00001.parquet").rename(
        out / "data" / "part-00000-of-00003.parquet"
    )
    for i in (1, 2):
        job_shard(out / "data" / f"part-0000{i}-of-00003.parquet")
    summary["output"]["data"] = [
        str(out / "data" / f"part-0000{i}-of-00003.parquet") for i in range(3)
    ]
    (out / SUMMARY).write_text(json.dumps(summary))
    _, _, summary = run_job(args)
    assert _files(out) == {
        SUMMARY,
        "data/part-00000-of-00001.parquet",
        "rejects/part-00000-of-00001.parquet",
    }


def test_a_run_that_died_before_its_summary_is_cleared(tmp_path):
    """Shards renamed into place with no summary, and a temporary folder: all the job's own."""
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    job_shard(out / "data" / "part-00000-of-00002.parquet")
    job_shard(out / "data" / "part-00001-of-00002.parquet")
    job_shard(out / "rejects" / "part-00000-of-00001.parquet", REJECT_SCHEMA)
    temp = out / "rejects" / f".temp-{'b' * 32}"
    job_shard(temp / f"{'c' * 32}-00000.parquet", REJECT_SCHEMA)
    (temp / "empty.parquet").write_bytes(b"half")  # cut short by the crash
    (out / f"{SUMMARY}.temp-{'d' * 32}").write_text("{")  # its summary, half written
    old_lock_temp = out / f"{LOCK}.temp-{'e' * 32}"  # a lock record, written an hour ago
    old_lock_temp.write_text("{")
    os.utime(old_lock_temp, (time.time() - 3600,) * 2)
    rows, _, _ = run_job(["--input", str(tmp_path / "in" / "*"), "--output", str(out)])
    assert len(rows) == 3
    assert _files(out) == {
        SUMMARY,
        "data/part-00000-of-00001.parquet",
        "rejects/part-00000-of-00001.parquet",
    }
    assert not temp.exists()


# --- two runs, one output --------------------------------------------------------------------

SLOW_RUN = (
    "import sys\n"
    "from beam_jobs import clean_html\n"
    "from tests.fake_extractors import MisbehavingExtractor\n"
    "if __name__ == '__main__':\n"
    "    run = clean_html.run\n"
    "    clean_html.run = lambda argv: run(argv, extractor_factory=MisbehavingExtractor)\n"
    "    sys.exit(clean_html.main())\n"
)


def start_slow_run(tmp_path: Path, out: Path, pages: int = 8) -> subprocess.Popen:
    """A run in another process that takes ``pages`` half-seconds; returns once it has started
    writing (its lock, or on a tree without one, its first temporary file)."""
    crawl(tmp_path / "slow", pages=pages, marker=SLOW_MARKER)
    script = tmp_path / "slow_run.py"
    script.write_text(SLOW_RUN)
    return start_until(
        [str(script), "--input", str(tmp_path / "slow" / "*")]
        + ["--output", str(out), "--extract_guard", "none"],
        lambda: (out / LOCK).exists() or bool(list(out.rglob(".temp-*/*"))),
    )


def test_a_second_run_into_an_output_in_use_stops_naming_the_first(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    first = start_slow_run(tmp_path, out)
    crawl(tmp_path / "in")
    code, lines, err = run_main(
        monkeypatch, capsys, ["--input", str(tmp_path / "in" / "*"), "--output", str(out)]
    )
    stdout, stderr = first.communicate(timeout=300)
    assert code == 2 and len(lines) == 1 and "in use" in lines[0], err
    assert f"pid {first.pid}" in lines[0] and f"delete {out / LOCK}" in lines[0]
    assert first.returncode == 0, stderr[-3000:]
    rows, _, summary = read_output(out)  # the first run's output, whole
    assert len(rows) == 8 and summary["files"]["count"] == 1
    assert leftovers(out) == []


def test_a_run_killed_hard_leaves_a_lock_the_next_run_takes_over(tmp_path, caplog):
    out = tmp_path / "out"
    first = start_slow_run(tmp_path, out)
    first.kill()  # SIGKILL: no clean-up at all
    first.communicate()
    crawl(tmp_path / "in")
    with caplog.at_level("WARNING"):
        rows, _, _ = run_job(["--input", str(tmp_path / "in" / "*"), "--output", str(out)])
    assert len(rows) == 3 and leftovers(out) == []
    assert f"its process {first.pid} is gone" in caplog.text


def test_sigterm_deletes_the_runs_files_and_its_lock(tmp_path):
    out = tmp_path / "out"
    first = start_slow_run(tmp_path, out)
    first.send_signal(signal.SIGTERM)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 130, stderr[-3000:]
    assert (
        stderr.strip().splitlines()[-1] == "clean_html: interrupted; this run's files were deleted"
    )
    assert leftovers(out) == [] and not list(out.rglob("part-*")) and not (out / SUMMARY).exists()


class _TakenOverMidRun(Extractor):
    """On its first page, does what a second run taking the output over does to the lock."""

    lock: Path | None = None

    def __call__(self, html, url=None, *, utf8=None):
        if self.lock is not None and self.lock.exists():
            record = json.loads(self.lock.read_text())
            self.lock.write_text(json.dumps(dict(record, run_id="f" * 32, pid=1)))
            type(self).lock = None
        return super().__call__(html, url, utf8=utf8)


def test_a_run_whose_output_was_taken_over_fails_and_puts_nothing_in_place(tmp_path):
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    _TakenOverMidRun.lock = out / LOCK
    with pytest.raises(JobFailed, match="taken over by run ffffffffffff"):
        run(
            [
                "--input",
                str(tmp_path / "in" / "*"),
                "--output",
                str(out),
                "--extract_guard",
                "none",
            ],
            extractor_factory=_TakenOverMidRun,
        )
    assert not list(out.rglob("part-*")) and not (out / SUMMARY).exists()
    assert not list(out.rglob(".temp-*"))
    assert json.loads((out / LOCK).read_text())["run_id"] == "f" * 32  # the other run's, kept


# --- writes that fail at the end: one line, no summary, nothing of the run left -------------


def test_no_space_left_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    import errno

    from transforms.write import parquet

    def full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(parquet._CountingStream, "write", full)
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    code, lines, err = run_main(
        monkeypatch, capsys, ["--input", str(tmp_path / "in" / "*"), "--output", str(out)]
    )
    assert code == 1 and len(lines) == 1, err
    assert re.fullmatch(
        f"clean_html: FAILED: cannot write {re.escape(str(out))}/(data|rejects): "
        "No space left on device",
        lines[0],
    ), lines
    assert "Traceback" not in err
    assert not (out / SUMMARY).exists() and leftovers(out) == [] and not list(out.rglob("part-*"))


def test_a_write_the_kernel_refuses_is_one_line_in_a_real_run(tmp_path):
    """A file-size limit makes the kernel refuse the shard's writes (EFBIG), as a full disk
    does (ENOSPC), in a real process: one line, exit 1, nothing left."""
    crawl(tmp_path / "in", pages=40)
    out = tmp_path / "out"

    def limit_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write fails instead of killing

    done = subprocess.run(
        [sys.executable, "-m", "beam_jobs.clean_html", "--input", str(tmp_path / "in" / "*")]
        + ["--output", str(out), "--extract_guard", "none"],
        cwd=ROOT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=limit_files,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ours = [line for line in done.stderr.splitlines() if line.startswith("clean_html")]
    assert done.returncode == 1 and ours == [
        f"clean_html: FAILED: cannot write {out}/data: File too large"
    ], done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert not (out / SUMMARY).exists() and leftovers(out) == [] and not list(out.rglob("part-*"))


def test_an_output_under_a_file_stops_before_any_work(tmp_path, monkeypatch, capsys):
    crawl(tmp_path / "in")
    (tmp_path / "notes.txt").write_text("a file")
    code, lines, err = run_main(
        monkeypatch,
        capsys,
        ["--input", str(tmp_path / "in" / "*"), "--output", str(tmp_path / "notes.txt" / "out")],
    )
    assert code == 2 and lines == [
        f"clean_html: error: --output '{tmp_path}/notes.txt/out' lies under "
        f"{tmp_path}/notes.txt, which is a file"
    ], err
    assert (tmp_path / "notes.txt").read_text() == "a file"


def test_a_read_only_output_stops_before_any_work(tmp_path, monkeypatch, capsys):
    crawl(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("this user writes into read-only folders (root)")
        code, lines, err = run_main(
            monkeypatch, capsys, ["--input", str(tmp_path / "in" / "*"), "--output", str(out)]
        )
    finally:
        out.chmod(0o755)
    assert code == 2 and lines == [
        f"clean_html: error: --output '{out}': cannot be written: Permission denied"
    ], err
    assert list(out.iterdir()) == []


def test_an_output_name_that_is_not_utf8_is_written_and_rewritten(tmp_path):
    """Beam's str coder refuses the lone surrogate such a name becomes in Python: its paths
    travel as bytes, and the summary shows the byte as U+FFFD, as it shows input names."""
    crawl(tmp_path / "in")
    out = tmp_path / os.fsdecode(b"out-\xe9")
    for _ in range(2):
        summary = run(["--input", str(tmp_path / "in" / "*"), "--output", str(out)])
        assert summary["rows"] == 3
    assert _files(out) == {
        SUMMARY,
        "data/part-00000-of-00001.parquet",
        "rejects/part-00000-of-00001.parquet",
    }
    assert summary["output"]["data"] == [f"{tmp_path}/out-\ufffd/data/part-00000-of-00001.parquet"]
    with open(out / "data" / "part-00000-of-00001.parquet", "rb") as f:
        assert pq.read_table(f).num_rows == 3


def test_little_free_space_for_the_inputs_is_a_warning_before_the_run(
    tmp_path, monkeypatch, caplog
):
    import shutil

    from beam_jobs import output

    crawl(tmp_path / "in")
    monkeypatch.setattr(output.shutil, "disk_usage", lambda _: shutil._ntuple_diskusage(1, 1, 0))
    with caplog.at_level("WARNING"):
        run_job(["--input", str(tmp_path / "in" / "*"), "--output", str(tmp_path / "out")])
    assert "0.0 MB free for 0.0 MB of inputs: the output may not fit" in caplog.text
