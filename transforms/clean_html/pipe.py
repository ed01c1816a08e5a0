"""The crash guard's transport: records to the cleaning child and outcomes back, over two pipes.

``Connection.send`` would pickle the whole ``ArchiveRecord`` (copying its payload, some 250 KB
of HTML, into the pickle), push it through a 64 KiB pipe in several blocking rounds, and the
child would gather it in a ``BytesIO`` and unpickle it: three more copies. Here a record
travels as one frame: a length prefix, a small pickle of its other fields, then the payload
bytes as they are, written with one ``writev`` into a pipe enlarged to ``PIPE_BYTES``. The child
reads each part with ``os.read``, which for a frame already in the pipe returns the payload in
one piece, and puts the record back together. Outcomes (a row or a reject: small dicts) go back
as a length-prefixed pickle with the moment (``time.monotonic``, one clock for all processes on
Linux) the child finished that record: the parent times the next record from it.

The ends are ``multiprocessing`` ``Connection`` objects, so that they pass to a forkserver
child and can be polled with a timeout; only their file descriptors are used for the data.
A peer that went away shows as ``EOFError`` (reading) or ``BrokenPipeError`` (writing).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import struct
from multiprocessing.connection import Connection
from typing import Any

from transforms.records import ArchiveRecord

__all__ = [
    "PIPE_BYTES",
    "OutcomeReader",
    "enlarge",
    "receive_outcome",
    "receive_record",
    "record_frame",
    "send_outcome",
    "send_record",
    "write_some",
]

# Most pages fit whole, so a send is one system call and the child reads each part at once.
# Linux lets any process raise a pipe to 1 MiB (/proc/sys/fs/pipe-max-size).
PIPE_BYTES = 1 << 20
_RECORD_PREFIX = struct.Struct("!QQ")  # pickled fields, payload
_OUTCOME_PREFIX = struct.Struct("!Qd")  # pickled outcome, finished at
_PROTOCOL = pickle.HIGHEST_PROTOCOL
_IOV_MAX = 1024  # writev's limit on the number of parts (Linux)


def enlarge(conn: Connection, size: int = PIPE_BYTES) -> bool:
    """Make the pipe behind ``conn`` hold ``size`` bytes; False where that is not allowed."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux, or over the system's cap
        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, size)
        return True
    return False


def write_some(fd: int, views: list[memoryview]) -> None:
    """Write what the pipe takes now of ``views`` (a non-blocking ``fd``), dropping what was
    written from the front of the list: the rest is for a later call."""
    try:
        written = os.writev(fd, views[:_IOV_MAX])
    except BlockingIOError:
        return
    while views and written >= len(views[0]):
        written -= len(views[0])
        views.pop(0)
    if views and written:
        views[0] = views[0][written:]


def _write_all(fd: int, parts: list[bytes]) -> None:
    """Write ``parts`` in order, in as few system calls as the pipe allows."""
    views = [memoryview(part) for part in parts if len(part)]
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if views and written:
            views[0] = views[0][written:]


def _read_exact(fd: int, size: int) -> bytes:
    """Exactly ``size`` bytes; one ``os.read`` when they are all in the pipe already."""
    if size == 0:
        return b""
    data = os.read(fd, size)
    if len(data) == size:
        return data
    chunks = [data]
    got = len(data)
    while data and got < size:
        data = os.read(fd, size - got)
        chunks.append(data)
        got += len(data)
    if got < size:
        raise EOFError(f"pipe closed after {got} of {size} bytes")
    return b"".join(chunks)


def record_frame(record: ArchiveRecord | None) -> list[bytes]:
    """The parts of one record's frame, in order: frames of several records may be written
    back to back with one ``writev``."""
    payload = record.payload if record is not None else b""
    fields = pickle.dumps(record._replace(payload=b"") if payload else record, _PROTOCOL)
    return [_RECORD_PREFIX.pack(len(fields), len(payload)), fields, payload]


def send_record(conn: Connection, record: ArchiveRecord | None) -> None:
    """Send one record, or None (the child's signal to stop)."""
    _write_all(conn.fileno(), record_frame(record))


def receive_record(conn: Connection) -> ArchiveRecord | None:
    """The child's side of ``send_record``."""
    fd = conn.fileno()
    fields_size, payload_size = _RECORD_PREFIX.unpack(_read_exact(fd, _RECORD_PREFIX.size))
    record = pickle.loads(_read_exact(fd, fields_size))
    if payload_size:
        record = record._replace(payload=_read_exact(fd, payload_size))
    return record


def send_outcome(
    conn: Connection, outcome: tuple[str, dict[str, Any]], finished_at: float = 0.0
) -> None:
    """Send one cleaning outcome, ``("row", row)`` or ``("reject", reject)``, to the parent,
    with the ``time.monotonic()`` at which the child finished it."""
    data = pickle.dumps(outcome, _PROTOCOL)
    _write_all(conn.fileno(), [_OUTCOME_PREFIX.pack(len(data), finished_at), data])


def receive_outcome(conn: Connection) -> tuple[tuple[str, dict[str, Any]], float]:
    """The parent's side of ``send_outcome``: the outcome and when the child finished it."""
    fd = conn.fileno()
    size, finished_at = _OUTCOME_PREFIX.unpack(_read_exact(fd, _OUTCOME_PREFIX.size))
    return pickle.loads(_read_exact(fd, size)), finished_at


class OutcomeReader:
    """The parent's side of ``send_outcome`` on a non-blocking pipe: ``read()`` takes all the
    pipe holds now and returns the outcomes complete so far, ``(outcome, finished_at)`` each.

    One ``os.read`` per call whatever the number of outcomes waiting, and no poll: asking
    ``Connection.poll`` before each outcome cost more than reading it.
    """

    def __init__(self, conn: Connection, chunk: int = PIPE_BYTES) -> None:
        self._fd = conn.fileno()
        os.set_blocking(self._fd, False)
        self._chunk = chunk
        self._buffer = bytearray()

    def fileno(self) -> int:
        return self._fd

    def read(self) -> list[tuple[tuple[str, dict[str, Any]], float]]:
        """The outcomes that arrived; ``EOFError`` once the child is gone and all are read."""
        closed = False
        while True:
            try:
                data = os.read(self._fd, self._chunk)
            except BlockingIOError:
                break
            if not data:
                closed = True
                break
            self._buffer += data
            if len(data) < self._chunk:
                break
        outcomes = []
        view = memoryview(self._buffer)
        start = 0
        while len(view) - start >= _OUTCOME_PREFIX.size:
            size, finished_at = _OUTCOME_PREFIX.unpack_from(view, start)
            end = start + _OUTCOME_PREFIX.size + size
            if end > len(view):
                break
            outcomes.append((pickle.loads(view[start + _OUTCOME_PREFIX.size : end]), finished_at))
            start = end
        view.release()
        if start:
            del self._buffer[:start]
        if closed and not outcomes:
            raise EOFError("the cleaning process closed its pipe")
        return outcomes
