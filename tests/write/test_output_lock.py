"""The output lock (``transforms.write.lock``): the compare-and-swap of each store, live and
stale locks, takeovers seen by the heartbeat, and races between runs starting together."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import subprocess
import time

import pytest

from tests import memstore
from transforms.write import lock as lock_module
from transforms.write.lock import LockRecord, OutputInUse, RunLock, lock_store, read_lock
from transforms.write.output import OutputError, Ownership, output_error_in


class _PreconditionFailed(Exception):
    code = 412


class _NotFound(Exception):
    code = 404


class _FakeBlob:
    """What ``_GcsStore`` uses of ``google.cloud.storage.Blob``, with GCS's generation rules:
    ``if_generation_match=0`` means "only if absent", any other number "only if current"."""

    def __init__(self, bucket: _FakeBucket, name: str):
        self._bucket, self._name = bucket, name
        self.generation = bucket.objects.get(name, (None, None))[1]

    def _check(self, generation):
        current = self._bucket.objects.get(self._name, (None, 0))[1]
        if generation is not None and generation != current:
            raise _PreconditionFailed()

    def upload_from_string(self, data, content_type=None, if_generation_match=None):
        self._check(if_generation_match)
        self._bucket.next_generation += 1
        self.generation = self._bucket.next_generation
        self._bucket.objects[self._name] = (data, self.generation)

    def download_as_bytes(self, if_generation_match=None):
        if self._name not in self._bucket.objects:
            raise _NotFound()
        self._check(if_generation_match)
        return self._bucket.objects[self._name][0]

    def delete(self, if_generation_match=None):
        if self._name not in self._bucket.objects:
            raise _NotFound()
        self._check(if_generation_match)
        del self._bucket.objects[self._name]


class _FakeBucket:
    def __init__(self):
        self.objects: dict[str, tuple[bytes, int]] = {}
        self.next_generation = 1000

    def blob(self, name):
        return _FakeBlob(self, name)

    def get_blob(self, name):
        return _FakeBlob(self, name) if name in self.objects else None


def _store(kind: str, tmp_path):
    if kind == "local":
        return lock_store(str(tmp_path / "_LOCK.json"))
    if kind == "check-then-write":
        memstore.OBJECTS.clear()
        return lock_store(f"{memstore.SCHEME}://bucket/out-{tmp_path.name}/_LOCK.json")
    return lock_module._GcsStore("gs://bucket/out/_LOCK.json", bucket=_FakeBucket())


STORES = ["local", "check-then-write", "gcs"]


@pytest.mark.parametrize("kind", STORES)
def test_each_store_creates_replaces_and_deletes_only_what_it_read(tmp_path, kind):
    store = _store(kind, tmp_path)
    assert store.read() is None
    first = store.create(b"one")
    assert first is not None and store.read()[0] == b"one"
    assert store.create(b"two") is None  # it exists
    second = store.replace(b"two", first)
    assert second is not None and store.read()[0] == b"two"
    assert store.replace(b"three", first) is None  # read before the replace: refused
    assert not store.delete(first) and store.read()[0] == b"two"
    assert store.delete(second) and store.read() is None


def _record(run_id: str, **changes) -> LockRecord:
    return dataclasses.replace(LockRecord.mine(run_id), **changes)


def _ago(seconds: float) -> str:
    import datetime as dt

    then = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=seconds)
    return then.isoformat(timespec="seconds")


def _reaped_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _lock(tmp_path, record: LockRecord | None = None, raw: bytes | None = None) -> str:
    path = tmp_path / "_LOCK.json"
    if record is not None or raw is not None:
        path.write_bytes(raw if raw is not None else record.encode())
    return str(path)


def test_a_free_output_is_taken_and_given_back(tmp_path):
    path = _lock(tmp_path)
    lock = RunLock(path, "a" * 32)
    lock.acquire()
    assert read_lock(path).run_id == "a" * 32 and lock.held()
    lock.release()
    assert not os.path.exists(path)


def test_a_live_run_on_this_machine_keeps_its_lock(tmp_path):
    path = _lock(tmp_path, _record("b" * 32))  # this very process: alive
    with pytest.raises(OutputInUse, match=f"run bbbbbbbbbbbb \\(pid {os.getpid()} on "):
        RunLock(path, "a" * 32).acquire()
    assert read_lock(path).run_id == "b" * 32


@pytest.mark.parametrize(
    "stale, why",
    [
        ({"pid": "dead"}, "is gone"),
        ({"pid_started": 1}, "is gone"),  # the pid now belongs to a newer process
        ({"host_id": "elsewhere", "heartbeat": _ago(600)}, "no heartbeat for"),
    ],
)
def test_a_stale_lock_is_taken_over_and_logged(tmp_path, caplog, stale, why):
    if stale.get("pid") == "dead":
        stale = {"pid": _reaped_pid()}
    path = _lock(tmp_path, _record("b" * 32, **stale))
    lock = RunLock(path, "a" * 32)
    with caplog.at_level("WARNING"):
        lock.acquire()
    assert read_lock(path).run_id == "a" * 32 and why in caplog.text
    lock.release()


def test_a_run_on_another_machine_with_a_recent_heartbeat_keeps_its_lock(tmp_path):
    path = _lock(tmp_path, _record("b" * 32, host_id="elsewhere", heartbeat=_ago(30)))
    with pytest.raises(OutputInUse, match="last heartbeat 3[0-9] s ago"):
        RunLock(path, "a" * 32).acquire()


def test_a_lock_written_by_a_later_version_is_still_read(tmp_path):
    record = json.loads(_record("b" * 32).encode())
    path = _lock(tmp_path, raw=json.dumps(dict(record, command="clean_html ...")).encode())
    with pytest.raises(OutputInUse, match="run bbbbbbbbbbbb"):
        RunLock(path, "a" * 32).acquire()


def test_a_damaged_lock_file_is_taken_over(tmp_path):
    path = _lock(tmp_path, raw=b"{not json")
    lock = RunLock(path, "a" * 32)
    lock.acquire()
    assert read_lock(path).run_id == "a" * 32
    lock.release()


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def test_the_heartbeat_renews_the_lock_and_notices_a_takeover(tmp_path, monkeypatch):
    monkeypatch.setattr(lock_module, "HEARTBEAT_S", 0.02)
    path = _lock(tmp_path)
    lock = RunLock(path, "a" * 32)
    lock.acquire()
    first = _read(path)
    time.sleep(1.2)  # the heartbeat's time has a resolution of one second
    assert _read(path) != first and lock.held()
    other, store = _record("f" * 32).encode(), lock_store(path)
    while store.replace(other, store.read()[1]) is None:  # as a run taking it over does
        pass
    end = time.monotonic() + 10
    while not lock.lost and time.monotonic() < end:
        time.sleep(0.02)
    assert lock.lost and not lock.held()
    with pytest.raises(OutputError, match="taken over by run ffffffffffff"):
        Ownership(path, "a" * 32).verify()
    lock.release()
    assert _read(path) == other  # the other run's lock is not deleted


def _race(path: str, start, results, hold) -> None:
    lock = RunLock(path, os.urandom(16).hex())
    start.wait()
    try:
        lock.acquire()
    except OutputInUse:
        results.put("refused")
        return
    results.put("took")
    hold.wait()
    lock.release()


@pytest.mark.parametrize("initially", ["free", "stale"])
def test_of_runs_starting_together_exactly_one_takes_the_output(tmp_path, initially):
    path = _lock(tmp_path, _record("b" * 32, pid=_reaped_pid()) if initially == "stale" else None)
    context = multiprocessing.get_context("fork")
    start, hold, results = context.Barrier(8), context.Event(), context.Queue()
    runs = [context.Process(target=_race, args=(path, start, results, hold)) for _ in range(8)]
    for proc in runs:
        proc.start()
    outcomes = sorted(results.get(timeout=60) for _ in runs)
    hold.set()
    for proc in runs:
        proc.join(60)
    assert outcomes == ["refused"] * 7 + ["took"]
    assert not os.path.exists(path)


def test_output_errors_are_found_in_what_runners_raise():
    in_process = RuntimeError("wrapped")
    in_process.__context__ = OutputError("cannot write out/data: No space left on device")
    assert str(output_error_in(in_process)) == "cannot write out/data: No space left on device"
    remote = RuntimeError(
        'Traceback (most recent call last):\n  File "x.py", line 1, in process\n'
        "transforms.write.output.OutputError: cannot write out/rejects: File too large\n"
    )
    assert str(output_error_in(remote)) == "cannot write out/rejects: File too large"
    assert output_error_in(RuntimeError("KeyError: 'x'")) is None


def test_a_heartbeat_whose_write_landed_but_failed_is_not_a_takeover(monkeypatch):
    """On a bucket a write can succeed and still raise (a lost reply): the next beat finds the
    generation moved, reads the lock, sees its own run and goes on."""
    monkeypatch.setattr(lock_module, "HEARTBEAT_S", 0.02)
    bucket = _FakeBucket()
    lock = RunLock(
        "gs://bucket/out/_LOCK.json",
        "a" * 32,
        lock_module._GcsStore("gs://bucket/out/_LOCK.json", bucket=bucket),
    )
    lock.acquire()
    data, generation = bucket.objects["out/_LOCK.json"]
    bucket.next_generation += 1
    bucket.objects["out/_LOCK.json"] = (data, bucket.next_generation)  # our write, reply lost
    time.sleep(0.5)
    assert not lock.lost and lock.held()
    lock.release()
    assert "out/_LOCK.json" not in bucket.objects
