"""The dedup job's output folder, held as the cleaning job's is (``beam_jobs.output``): it
deletes only its own files, by name; a user's files, another job's output, another live run or
inputs inside the output stop it before any work (exit 2, one line, nothing touched); a write
that fails at the end is one line (exit 1) with nothing of the run left behind."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from beam_jobs import clean_html, dedup
from benchmarks.dedup_corpus import planted_corpus, write_parquet
from tests.builders import WarcEntry, http_response, page, write_warc
from tests.processes import start_until
from transforms.rows import REJECT_SCHEMA, ROW_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = "_SUMMARY.json"
LOCK = "_LOCK.json"


@pytest.fixture
def rows(tmp_path) -> Path:
    """The cleaning job's rows, some of them duplicates, in ``runs/day1/data``."""
    folder = tmp_path / "runs" / "day1" / "data"
    write_parquet(planted_corpus(8, seed=4, family_share=1.0), str(folder))
    return folder


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder), to compare before/after."""
    return {
        str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes()
        for p in sorted(folder.rglob("*"))
    }


def files(out: Path) -> set[str]:
    return {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}


def run_main(monkeypatch, capsys, module, argv: list[str]) -> tuple[int, list[str], str]:
    """Exit code, the job's own lines on stderr (``dedup: ...``), and all of stderr."""
    name = module.__name__.rsplit(".", 1)[-1]
    monkeypatch.setattr(sys, "argv", [name, *argv])
    code = module.main()
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if line.startswith(name)], err


def refused(monkeypatch, capsys, argv: list[str], root: Path) -> str:
    """Run dedup; assert exit 2 with one line and nothing under ``root`` changed."""
    before = tree(root)
    code, lines, err = run_main(monkeypatch, capsys, dedup, argv)
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert tree(root) == before
    return lines[0]


def leftovers(out: Path) -> list[str]:
    return sorted(
        str(p.relative_to(out)) for p in out.rglob("*") if ".temp-" in p.name or p.name == LOCK
    )


# --- what is in the output folder ------------------------------------------------------------


@pytest.mark.parametrize("corpus", [[], ["--write_corpus"]], ids=["duplicates", "corpus"])
def test_a_crawl_in_the_output_data_folder_survives(monkeypatch, capsys, rows, tmp_path, corpus):
    """The cleaning job's issue 21 case, for dedup: ``--output CRAWL`` over a crawl kept in
    ``CRAWL/data``. The job used to delete ``CRAWL/data`` with all in it."""
    crawl = tmp_path / "crawl"
    (crawl / "data").mkdir(parents=True)
    (crawl / "data" / "c.warc.gz").write_bytes(b"WARC/1.0\r\n precious")
    (crawl / "data" / "notes.txt").write_text("my notes")
    line = refused(
        monkeypatch,
        capsys,
        ["--input", f"{rows}/*.parquet", "--output", str(crawl), *corpus],
        crawl,
    )
    assert "not written by this job" in line and "data/c.warc.gz" in line, line
    assert "duplicates/ and data/" in line


def _clean_rows_shard(out: Path) -> Path:
    path = out / "duplicates" / "part-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(ROW_SCHEMA.empty_table(), path)  # the cleaning job's, not duplicates
    return path


def _unlisted_corpus_shard(out: Path) -> Path:
    path = out / "data" / "part-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(ROW_SCHEMA.empty_table(), path)  # rows no summary of this job lists
    return path


def _text(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("mine")
    return path


FOREIGN = {
    "notes-in-duplicates": lambda out: _text(out / "duplicates" / "notes.txt"),
    "a-folder-in-data": lambda out: _text(out / "data" / "old" / "keep.parquet").parent,
    "rows-named-like-a-duplicates-shard": _clean_rows_shard,
    "rows-in-data-no-summary-lists": _unlisted_corpus_shard,
}


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_files_the_job_did_not_write_stop_it_and_stay(monkeypatch, capsys, rows, tmp_path, case):
    out = tmp_path / "out"
    path = FOREIGN[case](out)
    line = refused(monkeypatch, capsys, ["--input", str(rows), "--output", str(out)], tmp_path)
    assert "not written by this job" in line and path.name in line, line


def test_a_cleaning_runs_output_is_not_dedups_to_replace(monkeypatch, capsys, rows, tmp_path):
    """``--output`` naming another day's cleaning output: its summary and shards stay."""
    day2 = tmp_path / "runs" / "day2"
    shards = {}
    for folder, schema in (("data", ROW_SCHEMA), ("rejects", REJECT_SCHEMA)):
        path = day2 / folder / "part-00000-of-00001.parquet"
        path.parent.mkdir(parents=True)
        pq.write_table(schema.empty_table(), path)
        shards[folder] = [str(path)]
    (day2 / SUMMARY).write_text(json.dumps({"documents": 0, "output": shards}))
    line = refused(monkeypatch, capsys, ["--input", str(rows), "--output", str(day2)], tmp_path)
    assert f"{day2}/{SUMMARY} is the summary of another job's output (data/ and rejects/)" in line


def test_the_previous_runs_files_are_replaced_and_others_left(rows, tmp_path):
    """Its own shards by name, a killed run's temporary folder; a user's files beside them
    stay, and without --write_corpus the previous corpus goes."""
    out = tmp_path / "out"
    args = ["--input", str(rows), "--output", str(out)]
    dedup.run([*args, "--write_corpus"])
    (out / "README.txt").write_text("what this is")
    killed = out / "duplicates" / f".temp-{'a' * 32}"
    killed.mkdir()
    (killed / f"{'b' * 32}-00000.parquet").write_bytes(b"half")
    summary = dedup.run(args)
    assert files(out) == {SUMMARY, "README.txt", "duplicates/part-00000-of-00001.parquet"}
    assert not (out / "data").exists() and summary["output"]["data"] == []
    assert (out / "README.txt").read_text() == "what this is"


# --- inputs inside the output, or reaching into it -------------------------------------------


def overlaps(rows: Path) -> dict[str, tuple[list[str], str]]:
    runs = rows.parent.parent
    return {
        "inputs-inside-the-output": (
            ["--input", f"{rows}/*.parquet", "--output", str(rows.parent)],
            "the output must not hold the inputs",
        ),
        "a-pattern-that-would-read-the-corpus": (
            ["--input", f"{runs}/*/data/*.parquet", "--output", str(runs / "dedup")],
            "it would match data/part-00000-of-00001.parquet",
        ),
        "a-folder-above-the-output": (
            ["--input", str(rows), "--output", str(rows / "dedup")],
            "it reads all that its folder holds",
        ),
    }


@pytest.mark.parametrize("case", sorted(overlaps(Path("/r/d/data"))))
def test_inputs_inside_or_reaching_into_the_output_stop_it(monkeypatch, capsys, rows, case):
    argv, says = overlaps(rows)[case]
    line = refused(monkeypatch, capsys, [*argv, "--write_corpus"], rows.parent.parent)
    assert says in line, line


# --- two runs, one output --------------------------------------------------------------------

HOLD_LOCK = (
    "import sys\n"
    "from transforms.write.lock import RunLock, new_run_id\n"
    "lock = RunLock(sys.argv[1], new_run_id())\n"
    "lock.acquire()\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
    "lock.release()\n"
)


def test_a_second_run_into_an_output_in_use_stops_naming_the_first(
    monkeypatch, capsys, rows, tmp_path
):
    out = tmp_path / "out"
    out.mkdir()
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(out / LOCK)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout.readline() == "held\n"
        line = refused(monkeypatch, capsys, ["--input", str(rows), "--output", str(out)], out)
    finally:
        first.communicate("", timeout=60)
    assert "in use" in line and f"pid {first.pid}" in line and f"delete {out / LOCK}" in line
    assert list(out.iterdir()) == []  # the first run gave its lock back; nothing else there


# A run that leaves each shard it wrote in its temporary folder for five seconds before going on
# (a shard is only opened once its rows are all in, so a slow write alone leaves a window of
# milliseconds for the test to see it).
SLOW_RUN = (
    "import sys, time\n"
    "from transforms.write import parquet\n"
    "close = parquet.ShardWriter.close\n"
    "def slow(self):\n"
    "    paths = close(self)\n"
    "    time.sleep(5)\n"
    "    return paths\n"
    "parquet.ShardWriter.close = slow\n"
    "from beam_jobs import dedup\n"
    "sys.exit(dedup.main())\n"
)


def start_slow_run(rows: Path, out: Path) -> subprocess.Popen:
    """A run in another process; returns once its first shard is in its temporary folder."""
    return start_until(
        ["-c", SLOW_RUN, "--input", str(rows), "--output", str(out)],
        lambda: bool(list(out.glob("duplicates/.temp-*/*"))),
    )


def test_sigterm_deletes_the_runs_files_and_its_lock(rows, tmp_path):
    out = tmp_path / "out"
    run = start_slow_run(rows, out)
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stderr[-3000:]
    assert stderr.strip().splitlines()[-1] == "dedup: interrupted; this run's files were deleted"
    assert leftovers(out) == [] and not list(out.rglob("part-*")) and not (out / SUMMARY).exists()


def test_a_run_whose_output_was_taken_over_fails_and_puts_nothing_in_place(rows, tmp_path):
    """What a second run taking the lock over does (the first one's driver frozen for minutes):
    the first puts no shard in place, fails with one line and leaves the other run's lock."""
    out = tmp_path / "out"
    run = start_slow_run(rows, out)
    record = json.loads((out / LOCK).read_text())
    (out / LOCK).write_text(json.dumps(dict(record, run_id="f" * 32, pid=1)))
    _, stderr = run.communicate(timeout=120)
    ours = [line for line in stderr.splitlines() if line.startswith("dedup")]
    assert run.returncode == 1 and len(ours) == 1, stderr[-3000:]
    assert ours[0].startswith("dedup: FAILED: the output was taken over by run ffffffffffff")
    assert "Traceback" not in stderr
    assert not list(out.rglob("part-*")) and not (out / SUMMARY).exists()
    assert not list(out.rglob(".temp-*"))
    assert json.loads((out / LOCK).read_text())["run_id"] == "f" * 32  # the other run's, kept


# --- writes that fail at the end -------------------------------------------------------------


def test_no_space_left_is_one_line_and_leaves_nothing(monkeypatch, capsys, rows, tmp_path):
    from transforms.write import parquet

    def full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(parquet._CountingStream, "write", full)
    out = tmp_path / "out"
    code, lines, err = run_main(
        monkeypatch, capsys, dedup, ["--input", str(rows), "--output", str(out), "--write_corpus"]
    )
    assert code == 1 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0] in {
        f"dedup: FAILED: cannot write {out}/{folder}: No space left on device"
        for folder in ("duplicates", "data")
    }, lines
    assert not (out / SUMMARY).exists() and leftovers(out) == [] and not list(out.rglob("part-*"))


# --- the cleaning job meets a dedup output ---------------------------------------------------


def test_the_cleaning_job_leaves_a_dedup_output_alone(monkeypatch, capsys, rows, tmp_path):
    out = tmp_path / "out"
    dedup.run(["--input", str(rows), "--output", str(out), "--write_corpus"])
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    write_warc(
        crawl / "c.warc.gz",
        [WarcEntry("response", "https://o.example/", http_response(page("T", "Text.").encode()))],
    )
    before = tree(out)
    code, lines, err = run_main(
        monkeypatch, capsys, clean_html, ["--input", f"{crawl}/*", "--output", str(out)]
    )
    assert code == 2 and len(lines) == 1, err
    assert f"{out}/{SUMMARY} is the summary of another job's output" in lines[0], lines
    assert tree(out) == before


# --- on an object store ----------------------------------------------------------------------


def test_on_an_object_store_it_rewrites_only_its_own_objects(rows):
    """``tests/memstore.py``: no folders, rename by copy and delete, as gs:// and s3://."""
    from tests import memstore

    out = f"{memstore.SCHEME}://bucket/dedup"
    memstore.OBJECTS.clear()
    try:
        memstore.OBJECTS[f"{out}/README.txt"] = (b"what this is", 0.0)
        for corpus in (["--write_corpus"], []):
            dedup.run(["--input", str(rows), "--output", out, *corpus])
        assert sorted(memstore.OBJECTS) == [
            f"{out}/README.txt",
            f"{out}/{SUMMARY}",
            f"{out}/duplicates/part-00000-of-00001.parquet",
        ]
        memstore.OBJECTS[f"{out}/data/notes.txt"] = (b"mine", 0.0)
        with pytest.raises(dedup.UsageError, match="data/notes.txt: not written by this job"):
            dedup.run(["--input", str(rows), "--output", out])
        assert f"{out}/data/notes.txt" in memstore.OBJECTS
    finally:
        memstore.OBJECTS.clear()
