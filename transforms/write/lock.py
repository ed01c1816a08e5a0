"""One run at a time per output folder: ``OUT/_LOCK.json`` names the run writing there.

A run claims its output before any work (``RunLock.acquire``) and lets it go when it ends,
whether it succeeded or not (``release``). The lock is a small JSON record: the run's id, its
host, the driver's process id and start time, when it started and its ``heartbeat``, which the
driver rewrites every ``HEARTBEAT_S`` seconds while the pipeline runs (the driver waits for the
pipeline on every runner, Dataflow's included).

**Live or stale.** A run that finds another's lock stops, naming that run (``OutputInUse``),
unless the lock is stale, which it then takes over (and logs):

- on the same machine (same kernel boot and process namespace), a lock is stale as soon as its
  process is gone, or its pid belongs to a newer process: the ``kill -9`` case needs no action;
- from another machine (a shared mount, a bucket), a lock is stale when its heartbeat is older
  than ``STALE_AFTER_S``, so a run killed elsewhere frees its output after two minutes; to go
  on sooner, delete the lock file (the refusal says where it is).

**Taken over.** A run whose lock now names another run (it was judged stale while it still
ran: a driver frozen for minutes, a lock deleted by hand) has lost its output. The heartbeat
notices; the steps that rename shards into place and write the summary check the lock first
(``Ownership.verify``), so the run fails with ``OutputError`` instead of mixing its files into
the other run's output, and its driver fails at the end.

**What each storage allows.** Creating and replacing the lock must be atomic so that two runs
never both believe they hold it:

- local folders: a new lock appears by ``link`` (which fails when the name exists), and a
  stale one is replaced, and a lock released, under ``flock`` on the output folder, after
  checking that the lock is still the one read;
- ``gs://``: the same through object generations (create with ``if_generation_match=0``,
  replace and delete with the generation read), using the client Beam's GCS filesystem builds;
- other Beam filesystems (``s3://`` among them: Beam's S3 filesystem writes by multipart
  upload and offers no conditional write) check, then write: two runs starting within the
  same second can both proceed, and the ownership checks above then fail one of them at its
  end, before it renames anything into place.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import logging
import os
import socket
import threading
import uuid
from dataclasses import asdict, dataclass, fields, replace

from apache_beam.io.filesystems import FileSystems

from transforms.paths import is_local

__all__ = [
    "HEARTBEAT_S",
    "LOCK_FILE",
    "STALE_AFTER_S",
    "LockRecord",
    "OutputInUse",
    "RunLock",
    "lock_store",
    "new_run_id",
    "read_lock",
]

_LOG = logging.getLogger(__name__)

LOCK_FILE = "_LOCK.json"
HEARTBEAT_S = 20.0
# Six missed heartbeats: long enough for a slow write to a bucket, short enough that a run
# killed on another machine (an Airflow retry elsewhere, 5 minutes later) finds its output free.
STALE_AFTER_S = 120.0


class OutputInUse(RuntimeError):
    """Another run, alive, holds the output's lock."""


def new_run_id() -> str:
    return uuid.uuid4().hex


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return None


def _host_id() -> str:
    """Who can see whose processes: the host name, its kernel boot and the pid namespace.
    Two containers on one machine share the boot id but not the namespace."""
    parts = [socket.gethostname(), _read_text("/proc/sys/kernel/random/boot_id") or ""]
    with contextlib.suppress(OSError):
        parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
    return "/".join(parts)


def _process_start(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux), telling it from a later
    process given the same pid; None when unknown or a zombie (dead, not yet reaped)."""
    stat = _read_text(f"/proc/{pid}/stat")
    if stat is None:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if fields[0] == "Z":
        return None
    return int(fields[19])


def _process_alive(pid: int, started: int | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        pass
    if os.path.isdir("/proc/self"):
        return started is None or _process_start(pid) == started
    return True


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class LockRecord:
    run_id: str
    host: str
    host_id: str
    pid: int
    pid_started: int | None
    started: str
    heartbeat: str

    @classmethod
    def mine(cls, run_id: str) -> LockRecord:
        pid = os.getpid()
        now = _now()
        return cls(run_id, socket.gethostname(), _host_id(), pid, _process_start(pid), now, now)

    @classmethod
    def decode(cls, data: bytes) -> LockRecord | None:
        """The record, or None for bytes that are not one (a lock file damaged by hand)."""
        try:
            found = json.loads(data)
            return cls(**{f.name: found[f.name] for f in fields(cls)})  # later keys are ignored
        except (ValueError, TypeError, KeyError):
            return None

    def encode(self) -> bytes:
        return json.dumps(asdict(self), indent=1).encode()

    def beat(self) -> LockRecord:
        return replace(self, heartbeat=_now())

    def seconds_since_heartbeat(self) -> float:
        try:
            then = dt.datetime.fromisoformat(self.heartbeat)
        except ValueError:
            return float("inf")
        return (dt.datetime.now(dt.timezone.utc) - then).total_seconds()

    def why_stale(self) -> str | None:
        """Why this lock's run is taken to be over, or None when it may be running."""
        if self.host_id == _host_id():
            if not _process_alive(self.pid, self.pid_started):
                return f"its process {self.pid} is gone"
            return None
        silent = self.seconds_since_heartbeat()
        if silent > STALE_AFTER_S:
            return f"no heartbeat for {silent:.0f} s"
        return None

    def describe(self) -> str:
        return (
            f"run {self.run_id[:12]} (pid {self.pid} on {self.host}, started {self.started}, "
            f"last heartbeat {self.seconds_since_heartbeat():.0f} s ago)"
        )


# --- where the lock lives: compare-and-swap on the three kinds of storage ---------------------


class _LocalStore:
    """A lock file in a local (or mounted) folder. The token is the bytes read."""

    def __init__(self, path: str):
        self.path = path
        self._folder = os.path.dirname(path) or "."

    def read(self) -> tuple[bytes, bytes] | None:
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        return data, data

    def _temp(self, data: bytes) -> str:
        temp = f"{self.path}.temp-{new_run_id()}"
        with open(temp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return temp

    @contextlib.contextmanager
    def _exclusive(self):
        fd = os.open(self._folder, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the flock

    def create(self, data: bytes) -> bytes | None:
        temp = self._temp(data)
        try:
            os.link(temp, self.path)  # the whole record appears at once, or fails if it exists
        except FileExistsError:
            return None
        except OSError:  # a filesystem without hard links: create exclusively, then write
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                return None
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.remove(temp)
        return data

    def replace(self, data: bytes, token: bytes) -> bytes | None:
        with self._exclusive():
            if self.read() != (token, token):
                return None
            temp = self._temp(data)
            try:
                os.replace(temp, self.path)
            except BaseException:
                os.remove(temp)
                raise
        return data

    def delete(self, token: bytes) -> bool:
        with self._exclusive():
            if self.read() != (token, token):
                return False
            os.remove(self.path)
        return True


class _GcsStore:
    """A lock object on GCS; the token is its generation. ``bucket`` is a
    ``google.cloud.storage`` bucket (by default from the client Beam's GCS filesystem builds)."""

    def __init__(self, path: str, options=None, bucket=None):
        bucket_name, _, self._name = path.removeprefix("gs://").partition("/")
        if bucket is None:
            from apache_beam.io.gcp.gcsio import GcsIO

            bucket = GcsIO(pipeline_options=options).client.bucket(bucket_name)
        self.path = path
        self._bucket = bucket

    @staticmethod
    def _refused(e: Exception, *codes: int) -> bool:
        return getattr(e, "code", None) in codes  # google.api_core: 412 precondition, 404

    def read(self) -> tuple[bytes, int] | None:
        blob = self._bucket.get_blob(self._name)
        if blob is None:
            return None
        try:
            return blob.download_as_bytes(if_generation_match=blob.generation), blob.generation
        except Exception as e:
            if self._refused(e, 404, 412):  # replaced or deleted meanwhile: read again
                return self.read()
            raise

    def _upload(self, data: bytes, generation: int) -> int | None:
        blob = self._bucket.blob(self._name)
        try:
            blob.upload_from_string(
                data, content_type="application/json", if_generation_match=generation
            )
        except Exception as e:
            if self._refused(e, 412):
                return None
            raise
        return blob.generation

    def create(self, data: bytes) -> int | None:
        return self._upload(data, 0)

    def replace(self, data: bytes, token: int) -> int | None:
        return self._upload(data, token)

    def delete(self, token: int) -> bool:
        try:
            self._bucket.blob(self._name).delete(if_generation_match=token)
        except Exception as e:
            if self._refused(e, 404, 412):
                return False
            raise
        return True


class _CheckThenWriteStore:
    """Any other Beam filesystem: not atomic (see the module docstring)."""

    def __init__(self, path: str):
        self.path = path

    def read(self) -> tuple[bytes, bytes] | None:
        try:
            with FileSystems.open(self.path) as f:
                data = f.read()
        except Exception:
            if FileSystems.exists(self.path):
                raise
            return None
        return data, data

    def _write(self, data: bytes) -> bytes:
        with FileSystems.create(self.path, mime_type="application/json") as f:
            f.write(data)
        return data

    def create(self, data: bytes) -> bytes | None:
        return None if FileSystems.exists(self.path) else self._write(data)

    def replace(self, data: bytes, token: bytes) -> bytes | None:
        return self._write(data) if self.read() == (token, token) else None

    def delete(self, token: bytes) -> bool:
        if self.read() != (token, token):
            return False
        FileSystems.delete([self.path])
        return True


def lock_store(path: str, options=None):
    """The store for a lock at ``path`` (see the module docstring for what each guarantees)."""
    if is_local(path):
        return _LocalStore(path)
    if path.startswith("gs://"):
        return _GcsStore(path, options)
    return _CheckThenWriteStore(path)


def read_lock(path: str) -> LockRecord | None:
    """The record of the lock at ``path`` as any worker sees it (None when absent or damaged)."""
    found = (_LocalStore if is_local(path) else _CheckThenWriteStore)(path).read()
    return None if found is None else LockRecord.decode(found[0])


class RunLock:
    """The output lock of one run: ``acquire`` before any work, ``release`` at the end.

    ``lost`` is set when the heartbeat finds that another run took the lock over.
    """

    def __init__(self, path: str, run_id: str, store=None):
        self.path = path
        self.run_id = run_id
        self._store = store or lock_store(path)
        self._record = LockRecord.mine(run_id)
        self._token = None
        self._stop = threading.Event()
        self._beating: threading.Thread | None = None
        self.lost = False

    def acquire(self) -> None:
        """Take the lock, or a stale one over; ``OutputInUse`` when a live run holds it."""
        for _ in range(5):  # another run may take or free it between two of these steps
            self._token = self._store.create(self._record.encode())
            if self._token is not None:
                break
            found = self._store.read()
            if found is None:
                continue
            data, token = found
            other = LockRecord.decode(data)
            why = "its lock file is damaged" if other is None else other.why_stale()
            if why is None:
                raise OutputInUse(
                    f"{other.describe()} is writing there; wait for it to end, or if it is "
                    f"no longer running, delete {self.path}"
                )
            self._token = self._store.replace(self._record.encode(), token)
            if self._token is not None:
                name = "a run" if other is None else other.describe()
                _LOG.warning("taking over the output from %s: %s", name, why)
                break
        else:
            raise OutputInUse(f"other runs keep taking and freeing {self.path}; try again")
        self._beating = threading.Thread(target=self._beat, name="output-lock", daemon=True)
        self._beating.start()

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            record = self._record.beat()
            try:
                token = self._store.replace(record.encode(), self._token)
            except Exception as e:  # a storage hiccup: the next beat tries again
                _LOG.warning("could not renew the output lock %s: %s", self.path, e)
                continue
            if token is None:
                found = self._store.read()
                mine = found is not None and LockRecord.decode(found[0])
                if mine and mine.run_id == self.run_id:  # a beat that failed after writing
                    self._record, self._token = mine, found[1]
                    continue
                self.lost = True
                _LOG.error("the output lock %s was taken over by another run", self.path)
                return
            self._record, self._token = record, token

    def holder(self) -> LockRecord | None:
        """Who holds the lock now (this run, another, or nobody)."""
        found = self._store.read()
        return None if found is None else LockRecord.decode(found[0])

    def held(self) -> bool:
        holder = self.holder()
        return not self.lost and holder is not None and holder.run_id == self.run_id

    def release(self) -> None:
        """Stop the heartbeat and delete the lock if it is still this run's."""
        self._stop.set()
        if self._beating is not None:
            self._beating.join()
            self._beating = None
        if self._token is not None:
            with contextlib.suppress(Exception):
                self._store.delete(self._token)
            self._token = None
