"""The crash guard's transport: records to the cleaning child, outcomes back, progress beside.

Three channels join the worker (the parent) and its cleaning child:

- **A shared region** (``SharedRegion``: a ``memfd`` mapped by both) holds the payloads. The
  parent copies each record's payload (some 200 KB of HTTP response on average) into the next
  free part of a ring there, and the child copies it out into a ``bytes`` when it takes the
  record. Through a pipe the same bytes cost a kernel copy each way, a pipe page allocated and
  charged for every 4 KiB, and a reader spinning on the pipe's lock while the writer copies a
  batch in; through the ring, two ``memcpy``. A payload that does not fit in the ring's free
  space at that moment (one of the largest few) travels in the pipe after its frame instead.
  Space is given back in the order it was taken, when the record's outcome is in.
- **The record pipe** carries one small frame per record: its other fields pickled and where its
  payload is. The parent writes a batch of frames with one ``writev``; the child reads all the
  pipe holds with one ``read`` and takes the frames from that buffer (``RecordReader``).
- **The outcome pipe** carries the outcomes (a row or a reject: small dicts, pickled). The child
  sends those it has together (``send_outcomes``) when it has no further record to start
  without waiting, or ``flush_every`` of them: the parent is then woken once a batch, not once a
  page, and reads them all with one ``read`` (``OutcomeReader``).

Outcomes waiting in the child say nothing about where a crash or a hang hit, so the region's
first bytes hold the child's progress: how many records it has taken and the moment
(``time.monotonic``, one clock for all processes on Linux) it took the last one, written
before it starts cleaning each. After a death the parent reads it to name the record, and
while it waits it times the record in progress from it.

The pipe ends are ``multiprocessing`` ``Connection`` objects and the region pickles into a
duplicate of its descriptor, so that both pass to a forkserver child; only the descriptors
are used. A peer that went away shows as ``EOFError`` (reading) or ``BrokenPipeError``
(writing).
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import pickle
import select
import struct
import tempfile
from collections import deque
from multiprocessing import reduction
from multiprocessing.connection import Connection
from typing import Any

from transforms.records import ArchiveRecord

__all__ = [
    "PIPE_BYTES",
    "RING_BYTES",
    "OutcomeReader",
    "PayloadRing",
    "RecordReader",
    "SharedRegion",
    "enlarge",
    "receive_outcome",
    "record_frame",
    "send_outcomes",
    "send_record",
    "write_some",
]

# Most outcomes and the payloads that miss the ring fit whole, so a send is one system call.
# Linux lets any process raise a pipe to 1 MiB (/proc/sys/fs/pipe-max-size).
PIPE_BYTES = 1 << 20
# Sixteen records in flight of 200 KB on average take 3 MB; at 8 MiB about one payload in
# sixty (the largest) misses the ring on the benchmark pages (simulated in their order).
RING_BYTES = 8 << 20
IN_PIPE = -1  # a frame's payload place when the payload follows the frame in the pipe
_HEADER_BYTES = 64  # the progress (records taken, when the last one was), then the ring
_RECORD_PREFIX = struct.Struct("=QQq")  # pickled fields, payload size, payload place
_OUTCOME_PREFIX = struct.Struct("=Q")  # pickled outcome
_PROTOCOL = pickle.HIGHEST_PROTOCOL
_IOV_MAX = 1024  # writev's limit on the number of parts (Linux)
_READ_BYTES = 1 << 16  # what the child asks the record pipe for at once: many frames


def enlarge(conn: Connection, size: int = PIPE_BYTES) -> bool:
    """Make the pipe behind ``conn`` hold ``size`` bytes; False where that is not allowed."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux, or over the system's cap
        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, size)
        return True
    return False


def _shared_fd() -> int:
    """A descriptor of anonymous memory that another process can map: a memfd, or an
    unlinked temporary file where there are no memfds."""
    with contextlib.suppress(AttributeError, OSError):
        return os.memfd_create("clean-html-guard", os.MFD_CLOEXEC)
    with tempfile.TemporaryFile() as file:
        return os.dup(file.fileno())


class SharedRegion:
    """Memory shared with the cleaning child: the child's progress, then the payload ring.

    Pickling it (as a ``Process`` argument) duplicates its descriptor into the child, which maps
    the same pages. ``view`` and ``ring`` are memoryviews over them.
    """

    def __init__(self, ring_bytes: int = RING_BYTES, *, fd: int | None = None) -> None:
        self._fd = _shared_fd() if fd is None else fd
        self._size = _HEADER_BYTES + ring_bytes
        if fd is None:
            os.ftruncate(self._fd, self._size)
        self._map = mmap.mmap(self._fd, self._size)
        self.view = memoryview(self._map)
        self.ring = self.view[_HEADER_BYTES:]
        # Each an aligned 8-byte word, written and read whole (not with ``struct.pack_into``,
        # which zeroes its bytes before writing them: a reader in between would see a record
        # taken at time 0, long out of time).
        self._taken = self.view[0:8].cast("Q")
        self._taken_at = self.view[8:16].cast("d")

    def __reduce__(self) -> tuple:
        return _attach, (reduction.DupFd(self._fd), self._size - _HEADER_BYTES)

    def progress(self) -> tuple[int, float]:
        """How many records the child has taken and when it took the last one. Read while
        the child writes, the time may already be the next record's, never older."""
        taken = self._taken[0]
        return taken, self._taken_at[0]

    def set_progress(self, taken: int, at: float) -> None:
        """Record that ``taken`` records are taken, the last at ``at``: the time first."""
        self._taken_at[0] = at
        self._taken[0] = taken

    def close(self) -> None:
        self._taken.release()
        self._taken_at.release()
        self.ring.release()
        self.view.release()
        self._map.close()
        os.close(self._fd)


def _attach(fd: Any, ring_bytes: int) -> SharedRegion:
    """The child's side of pickling a ``SharedRegion``."""
    return SharedRegion(ring_bytes, fd=fd.detach())


class PayloadRing:
    """The parent's allocator over the region's ring: ``place`` copies a payload into free
    space, ``release`` gives back the oldest placed one (outcomes come back in order)."""

    def __init__(self, ring: memoryview) -> None:
        self._ring = ring
        self._size = len(ring)
        self._taken: deque[int] = deque()  # start of each placed payload, oldest first
        self._head = 0  # where the newest placed payload ends

    def _free_start(self, size: int) -> int:
        if not self._taken:
            return 0 if size <= self._size else IN_PIPE
        tail = self._taken[0]
        if self._head > tail:  # taken: [tail, head); free: [head, end) and [0, tail)
            if self._head + size <= self._size:
                return self._head
            return 0 if size <= tail else IN_PIPE
        return self._head if self._head + size <= tail else IN_PIPE  # free: [head, tail)

    def place(self, payload: bytes) -> int:
        """Copy ``payload`` into the ring and return where it starts, or ``IN_PIPE`` when the
        free space cannot take it now."""
        start = self._free_start(len(payload)) if payload else IN_PIPE
        if start != IN_PIPE:
            end = start + len(payload)
            self._ring[start:end] = payload
            self._taken.append(start)
            self._head = end
        return start

    def release(self) -> None:
        """Give back the space of the oldest payload placed."""
        self._taken.popleft()
        if not self._taken:
            self._head = 0

    def reset(self) -> None:
        """Forget every payload placed (the child that was to read them is gone)."""
        self._taken.clear()
        self._head = 0


def record_frame(record: ArchiveRecord | None, place: int = IN_PIPE) -> list[bytes]:
    """The parts of one record's frame: its payload is in the ring at ``place``, or follows the
    frame (``IN_PIPE``). Frames of several records may be written back to back."""
    payload = record.payload if record is not None else b""
    fields = pickle.dumps(record._replace(payload=b"") if payload else record, _PROTOCOL)
    head = _RECORD_PREFIX.pack(len(fields), len(payload), place)
    return [head, fields] if place != IN_PIPE else [head, fields, payload]


def _write_all(fd: int, parts: list[bytes]) -> None:
    """Write ``parts`` in order on a blocking ``fd``, in as few system calls as the pipe allows."""
    views = [memoryview(part) for part in parts if len(part)]
    while views:
        write_some(fd, views)


def write_some(fd: int, views: list[memoryview]) -> None:
    """Write what the pipe takes now of ``views``, dropping what was written from the front of
    the list: the rest is for a later call (on a non-blocking ``fd``)."""
    try:
        written = os.writev(fd, views[:_IOV_MAX])
    except BlockingIOError:
        return
    while views and written >= len(views[0]):
        written -= len(views[0])
        views.pop(0)
    if views and written:
        views[0] = views[0][written:]


def send_record(conn: Connection, record: ArchiveRecord | None) -> None:
    """Send one record with its payload in the pipe, or None (the child's signal to stop), on
    a blocking pipe."""
    _write_all(conn.fileno(), record_frame(record))


class RecordReader:
    """The child's side of the record pipe: frames out of a buffer that one ``read`` fills
    with all the pipe holds, payloads out of the ring (``region``) or after their frame.

    The pipe is made non-blocking, so that ``ready`` can look without waiting; ``next`` waits.
    """

    def __init__(self, conn: Connection, region: SharedRegion | None = None) -> None:
        self._fd = conn.fileno()
        os.set_blocking(self._fd, False)
        self._ring = region.ring if region is not None else None
        self._buffer = bytearray()

    def _fill(self, wait: bool) -> bool:
        """Append what the pipe holds to the buffer; False if nothing came without waiting."""
        while True:
            try:
                data = os.read(self._fd, _READ_BYTES)
            except BlockingIOError:
                if not wait:
                    return False
                select.select([self._fd], [], [])
                continue
            if not data:
                raise EOFError("the pipe closed")
            self._buffer += data
            return True

    def _fields_end(self) -> int:
        """Where the next frame's pickled fields end in the buffer; 0 if they are not all in."""
        if len(self._buffer) < _RECORD_PREFIX.size:
            return 0
        end = _RECORD_PREFIX.size + _RECORD_PREFIX.unpack_from(self._buffer)[0]
        return end if len(self._buffer) >= end else 0

    def ready(self) -> bool:
        """Whether ``next`` can start on a record without waiting for the parent."""
        return bool(self._fields_end() or (self._fill(wait=False) and self._fields_end()))

    def next(self) -> ArchiveRecord | None:
        """The next record (None: the parent's signal to stop); ``EOFError`` if the pipe closed."""
        while not self._fields_end():
            self._fill(wait=True)
        fields_size, payload_size, place = _RECORD_PREFIX.unpack_from(self._buffer)
        end = _RECORD_PREFIX.size + fields_size
        record = pickle.loads(self._buffer[_RECORD_PREFIX.size : end])
        del self._buffer[:end]
        if not payload_size:
            return record
        if place == IN_PIPE:
            payload = self._take(payload_size)
        else:
            assert self._ring is not None, "a payload in the ring, but no ring"
            payload = bytes(self._ring[place : place + payload_size])
        return record._replace(payload=payload)

    def _take(self, size: int) -> bytes:
        """The next ``size`` bytes of the pipe: what the buffer holds, then the rest read."""
        parts = [bytes(self._buffer[:size])]
        del self._buffer[:size]
        missing = size - len(parts[0])
        while missing:
            try:
                data = os.read(self._fd, missing)
            except BlockingIOError:
                select.select([self._fd], [], [])
                continue
            if not data:
                raise EOFError(f"the pipe closed {missing} bytes before the end of a payload")
            parts.append(data)
            missing -= len(data)
        return parts[0] if len(parts) == 1 else b"".join(parts)


def send_outcomes(conn: Connection, outcomes: list[tuple[str, dict[str, Any]]]) -> None:
    """Send cleaning outcomes, ``("row", row)`` or ``("reject", reject)`` each, in one write
    where the pipe takes them (a blocking pipe)."""
    parts = []
    for outcome in outcomes:
        data = pickle.dumps(outcome, _PROTOCOL)
        parts += [_OUTCOME_PREFIX.pack(len(data)), data]
    _write_all(conn.fileno(), parts)


def _read_exact(fd: int, size: int) -> bytes:
    """Exactly ``size`` bytes from a blocking ``fd``."""
    chunks, got = [], 0
    while got < size:
        data = os.read(fd, size - got)
        if not data:
            raise EOFError(f"pipe closed after {got} of {size} bytes")
        chunks.append(data)
        got += len(data)
    return b"".join(chunks)


def receive_outcome(conn: Connection) -> tuple[str, dict[str, Any]]:
    """One outcome from a blocking pipe (``OutcomeReader`` is the guard's way)."""
    fd = conn.fileno()
    (size,) = _OUTCOME_PREFIX.unpack(_read_exact(fd, _OUTCOME_PREFIX.size))
    return pickle.loads(_read_exact(fd, size))


class OutcomeReader:
    """The parent's side of ``send_outcomes`` on a non-blocking pipe: ``read()`` takes all the
    pipe holds now and returns the outcomes complete so far.

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

    def read(self) -> list[tuple[str, dict[str, Any]]]:
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
            (size,) = _OUTCOME_PREFIX.unpack_from(view, start)
            end = start + _OUTCOME_PREFIX.size + size
            if end > len(view):
                break
            outcomes.append(pickle.loads(view[start + _OUTCOME_PREFIX.size : end]))
            start = end
        view.release()
        if start:
            del self._buffer[:start]
        if closed and not outcomes:
            raise EOFError("the cleaning process closed its pipe")
        return outcomes
