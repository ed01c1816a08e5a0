"""Run document cleaning in a persistent child process, so one bad document costs one reject.

Decoding and extraction call native code (selectolax/Lexbor, brotli, zstd, charset-normalizer)
that can crash the process (a segfault) or never return on a pathological page. In-process, a
crash kills the Beam worker and the runner retries the whole bundle until the job fails; a hang
stalls the worker forever. ``GuardedCleaner`` moves that work into one long-lived child process
per worker and talks to it over a pipe:

- a document that makes the child die becomes an ``extract_error`` reject naming the signal;
- a document that takes longer than ``timeout_s`` becomes a ``timeout`` reject;
- a document whose cleaning needs more than ``memory_bytes`` becomes a ``too_large`` reject;

and in each case the child is killed and a fresh one started for the rest. Children come from
a ``forkserver``: Beam workers run gRPC threads, which a plain ``fork`` of the worker does not
survive safely, and ``spawn`` would re-import everything on each restart; the fork server is a
clean single-threaded process that has imported the cleaning code once, so a restart is a cheap
fork.

Records go to the child in batches and the parent does not wait for them: ``submit`` queues a
record, writes a full batch into the pipe and returns whatever outcomes the child has finished
so far; ``drain`` (at the end of a bundle) waits for the rest. The child cleans records in the
order sent and sends back the outcomes of a batch together, as soon as it has no further
record to start on (``transforms.clean_html.pipe`` has the transport: payloads through shared
memory, small frames through pipes). So the parent (reading the next records, writing
Parquet) and the child (cleaning) work at the same time, the child goes from one record to the
next without sleeping in between, and each side is woken once a batch rather than once a page.

The child writes its progress (records taken, when it took the last) into the shared memory
before it starts on each record; outcomes come back in order. So the record a crash or a hang
belongs to is the one the child took last: it alone becomes the reject, and every other record
without an outcome (those after it, and those before it whose outcomes died with the child
unsent) goes to the new child again, the reject keeping its place in the order. The time limit
runs from the moment the child took the record; for a record not taken yet, from when it was
sent or when the child took the one before, whichever is later.

The memory cap is the child's ``RLIMIT_DATA`` (its heap and private mappings: what a page's
parse grows; the libraries it maps are not counted): an allocation past it fails, as a
``MemoryError`` in Python and as an error from Lexbor, which then leaves what it had taken
allocated. So a child whose peak resident memory passed half the cap during a page is replaced
after it (``_REPLACE_EXIT``: it has sent every outcome it had, nothing is blamed), and that
page, if cleaning it failed, is a ``too_large`` reject; a ``MemoryError`` anywhere else in the
child ends it at once (``_OUT_OF_MEMORY_EXIT``), blamed like a crash.

The parent writes without blocking and reads outcomes while a batch is still going into the
pipe, so a child blocked on a full outcome pipe can never wait for a parent blocked on a full
record pipe; at most ``max_in_flight`` records are out at once, and the ring and the child's
unsent outcomes are bounded, which bounds the memory held.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import resource
import select
import signal
import sys
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from transforms import reasons
from transforms.clean_html import cleaner
from transforms.clean_html.cleaner import Cleaner
from transforms.clean_html.pipe import (
    RING_BYTES,
    OutcomeReader,
    PayloadRing,
    RecordReader,
    SharedRegion,
    enlarge,
    record_frame,
    send_outcomes,
    send_record,
    write_some,
)
from transforms.memory import hold_heap
from transforms.records import ArchiveRecord
from transforms.rows import reject_row

__all__ = ["GuardedCleaner"]

_STOP = None
# Exit codes of a child that ends itself: it ran out of memory, or asks to be replaced.
_OUT_OF_MEMORY_EXIT = 86
_REPLACE_EXIT = 87
# How often the parent looks at the child's memory while it waits for it: a page that grows
# memory at 500 MB/s passes the cap by 25 MB at most.
_MEMORY_POLL_S = 0.05
_KILL_WAIT_S = 5.0
_DEATH_WAIT_S = 1.0
# Records per write: enough that the pipe's system calls and wake-ups are paid once for many
# pages, few enough that a bundle's last batch does not keep the child idle for long.
DEFAULT_BATCH = 8
# Records out at once (sent, outcome not yet read): two batches, so the child has the next
# batch in its pipe while the parent collects the previous one's outcomes.
DEFAULT_IN_FLIGHT = 2 * DEFAULT_BATCH


def _serve(
    inbox: Connection,
    outbox: Connection,
    region: SharedRegion,
    make_cleaner: Callable[[], Cleaner],
    flush_every: int,
    memory_bytes: int | None = None,
) -> None:
    """The child's loop: build the cleaner once, then clean records until told to stop, and
    send the outcomes it has whenever the next record is not there yet or ``flush_every``
    are waiting. Under a ``memory_bytes`` cap, see the module's docstring."""
    # A crash here is expected now and then and is reported as a reject: no core dump (slow to
    # write, and large).
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    clean = make_cleaner()
    hold_heap()  # see transforms.memory: no page faults for each page's memory
    if memory_bytes:
        # A backstop for the parent's watch, should it look away: the data segment may grow
        # by the cap and no more (it holds mappings made before the first page, whose size
        # depends on what the fork server imported).
        data = _data_bytes()
        if data is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (data + memory_bytes, data + memory_bytes))
    try:
        _clean_records(
            RecordReader(inbox, region), outbox, region, clean, flush_every, memory_bytes
        )
    except MemoryError:  # past the cap outside a page's cleaning: blamed on the one taken last
        os._exit(_OUT_OF_MEMORY_EXIT)


def _clean_records(
    records: RecordReader,
    outbox: Connection,
    region: SharedRegion,
    clean: Cleaner,
    flush_every: int,
    memory_bytes: int | None,
) -> None:
    done: list[tuple[str, dict[str, Any]]] = []
    taken = 0
    while True:
        if done and (len(done) >= flush_every or not records.ready()):
            send_outcomes(outbox, done)
            done = []
        try:
            record = records.next()
        except EOFError:  # the parent went away
            return
        if record is _STOP:
            if done:
                send_outcomes(outbox, done)
            return
        taken += 1
        region.set_progress(taken, time.monotonic())
        try:
            result = clean(record)
        except Exception as e:  # a bug in decoding or extraction: this document only
            result = "reject", reject_row(record, reasons.EXTRACT_ERROR, f"{type(e).__name__}: {e}")
        if memory_bytes and _peak_memory() > memory_bytes // 2:
            done.append(_over_memory(result, record, memory_bytes))
            send_outcomes(outbox, done)
            os._exit(_REPLACE_EXIT)
        done.append(result)


_PAGE_BYTES = resource.getpagesize()


def _statm(pid: int | str, field: int) -> int | None:
    """A field of ``/proc/PID/statm``, in bytes; None where there is none (not Linux, gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[field]) * _PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return None


def _resident_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (0 when it cannot be read)."""
    return _statm(pid, 1) or 0


def _data_bytes() -> int | None:
    """This process's data segment and stack (what ``RLIMIT_DATA`` limits), in bytes."""
    return _statm("self", 5)


def _peak_memory() -> int:
    """This process's peak resident memory, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _memory_cap_text(memory_bytes: int) -> str:
    return f"cleaning it needs more than the {memory_bytes >> 20} MB memory cap"


def _over_memory(
    result: tuple[str, dict[str, Any]], record: ArchiveRecord, memory_bytes: int
) -> tuple[str, dict[str, Any]]:
    """The outcome of a page after which the child passed half its memory cap: a failure
    there is the cap's doing, a ``too_large`` reject; a row or another reject stays."""
    kind, value = result
    if kind == "reject" and value["reason"] == reasons.EXTRACT_ERROR:
        detail = f"{_memory_cap_text(memory_bytes)} ({value['detail']})"
        return "reject", reject_row(record, reasons.TOO_LARGE, detail)
    return result


def _preload_modules() -> list[str]:
    """What the fork server imports once, so that each (re)start is a fork (about 20 ms).

    Every child re-runs the main module (multiprocessing's rule for non-fork starts); with the
    main module's imports already loaded in the fork server that is cheap, without them each
    restart would import all of Beam again (1.5 s, 100 MB). A main run with ``-m`` (as the job
    is) must be preloaded by its module name: the fork server only preloads ``"__main__"`` from
    a file path. ``preload`` silences runpy's warning about that re-run.
    """
    main = sys.modules.get("__main__")
    name = getattr(getattr(main, "__spec__", None), "name", None)
    # Named from this package and the imported module, so that a rename cannot leave a stale name
    # (the fork server skips a module that fails to import, and every restart would be slow).
    return [f"{__package__}.preload", name or "__main__", cleaner.__name__]


def _death_text(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


class _Out:
    """A record sent to the child: when, whether its payload is in the ring, and the outcome
    decided without the child (its reject after a crash or a hang), given out in its turn."""

    __slots__ = ("record", "sent_at", "in_ring", "decided")

    def __init__(self, record: ArchiveRecord) -> None:
        self.record = record
        self.sent_at = 0.0
        self.in_ring = False
        self.decided: tuple[str, dict[str, Any]] | None = None


class GuardedCleaner:
    """Clean records in a child process with a per-document time limit; restart it on death.

    ``make_cleaner`` must be picklable (a module-level function or a ``functools.partial`` of
    one): the child calls it once to build its cleaner. Not thread-safe: one per DoFn instance.

    ``submit(record)`` and ``drain()`` give back outcomes in the order the records were
    submitted, each exactly once; calling the guard on one record submits and drains it.
    ``restarts`` counts the children replaced after a crash, a timeout or a page that took
    half of ``memory_bytes`` (the child's memory cap; None: none).
    """

    def __init__(
        self,
        make_cleaner: Callable[[], Cleaner],
        timeout_s: float,
        *,
        batch: int = DEFAULT_BATCH,
        max_in_flight: int = DEFAULT_IN_FLIGHT,
        ring_bytes: int = RING_BYTES,
        memory_bytes: int | None = None,
    ) -> None:
        self._make_cleaner = make_cleaner
        self.timeout_s = timeout_s
        self.memory_bytes = memory_bytes
        self._batch = max(1, batch)
        self._max_in_flight = max(self._batch, max_in_flight)
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_preload_modules())
        self._ring_bytes = ring_bytes
        self._region: Any = None  # made with the first child, kept for every later one
        self._ring: Any = None
        self._process: Any = None
        self._conns: tuple[Connection, Connection] | None = None  # to the child, from it
        self._outcomes: OutcomeReader | None = None
        self._received = 0  # outcomes read from the current child
        self._queued: list[ArchiveRecord] = []  # submitted, not yet sent
        self._in_flight: deque[_Out] = deque()  # sent (or decided), outcome not given out yet
        self._unwritten: list[memoryview] = []  # frames sent but not yet taken by the pipe
        self._ready: list[tuple[str, dict[str, Any]]] = []
        self.restarts = 0

    # -- the child ------------------------------------------------------------------------

    def _start(self) -> None:
        # One pipe each way (see transforms.clean_html.pipe): records in, outcomes out.
        inbox, to_child = self._context.Pipe(duplex=False)
        from_child, outbox = self._context.Pipe(duplex=False)
        enlarge(to_child)
        enlarge(from_child)
        if self._region is None:
            self._region = SharedRegion(self._ring_bytes)
            self._ring = PayloadRing(self._region.ring)
        self._ring.reset()
        self._region.set_progress(0, 0.0)
        self._received = 0
        process = self._context.Process(
            target=_serve,
            args=(inbox, outbox, self._region, self._make_cleaner, self._batch, self.memory_bytes),
            name="clean-html-guard",
            daemon=True,
        )
        process.start()
        inbox.close()
        outbox.close()
        os.set_blocking(to_child.fileno(), False)
        self._process, self._conns = process, (to_child, from_child)
        self._outcomes = OutcomeReader(from_child)

    def _kill(self) -> int | None:
        """Stop the child for good (it may be hung in native code) and return its exit code."""
        process, conns = self._process, self._conns
        self._process, self._conns, self._outcomes = None, None, None
        self._unwritten = []
        for conn in conns or ():
            conn.close()
        if process is None:
            return None
        if process.is_alive():
            process.kill()
        process.join(_KILL_WAIT_S)
        exitcode = process.exitcode
        if exitcode is not None:
            process.close()
        return exitcode

    def _transmit(self, outs: list[_Out]) -> None:
        """Frame ``outs`` for the current child (payloads into the ring where they fit) and
        write what the pipe takes now."""
        now = time.monotonic()
        for out in outs:
            place = self._ring.place(out.record.payload)
            out.sent_at, out.in_ring = now, place >= 0
            self._unwritten.extend(memoryview(part) for part in record_frame(out.record, place))
        self._pump(wait=False)

    def _send(self, records: list[ArchiveRecord]) -> None:
        """Send ``records`` to the child, starting one if needed."""
        if self._process is not None and not self._in_flight and not self._process.is_alive():
            self._kill()  # it died between documents (killed from outside): no document's fault
            self.restarts += 1
        if self._process is None:
            self._start()
        outs = [_Out(record) for record in records]
        self._in_flight.extend(outs)
        self._transmit(outs)

    # -- moving data ----------------------------------------------------------------------

    def _give_out_decided(self) -> None:
        while self._in_flight and self._in_flight[0].decided is not None:
            self._ready.append(self._in_flight.popleft().decided)  # type: ignore[arg-type]

    def _read_outcomes(self) -> None:
        """Take every outcome waiting in the pipe; EOFError or OSError when the child died."""
        assert self._outcomes is not None
        for outcome in self._outcomes.read():
            self._give_out_decided()
            out = self._in_flight.popleft()
            if out.in_ring:
                self._ring.release()
            self._received += 1
            self._ready.append(outcome)
        self._give_out_decided()

    def _waiting(self) -> list[_Out]:
        """The records sent to the current child whose outcomes it has not given back."""
        return [out for out in self._in_flight if out.decided is None]

    def _deadline(self) -> float:
        """When the record the child is on (or will take next) runs out of time."""
        taken, taken_at = self._region.progress()
        if taken > self._received:  # the last one it took is still out
            return taken_at + self.timeout_s
        return max(self._waiting()[0].sent_at, taken_at) + self.timeout_s

    def _pump(self, wait: bool) -> None:
        """Write what the pipe takes and read what the child has finished; with ``wait``,
        block until at least one more outcome is in or a crash or hang is dealt with."""
        while self._conns is not None:
            to_child, from_child = self._conns
            try:
                if self._unwritten:
                    write_some(to_child.fileno(), self._unwritten)
                before = len(self._in_flight)
                self._read_outcomes()
                if not wait or not self._in_flight or len(self._in_flight) < before:
                    return
                left = self._deadline() - time.monotonic()
                if left <= 0:
                    self._on_hang()
                    return
                if self.memory_bytes is not None:
                    if _resident_bytes(self._process.pid) > self.memory_bytes:
                        self._on_memory()
                        return
                    left = min(left, _MEMORY_POLL_S)
                writers = [to_child.fileno()] if self._unwritten else []
                select.select([from_child.fileno()], writers, [], left)
            except (EOFError, OSError):  # the child died: on the record it took last
                self._on_death()
                return

    def _blame(self, reason: str, detail: str) -> None:
        """Make the record the child took last (the oldest out if it took none since its last
        outcome) a reject, given out in its turn."""
        waiting = self._waiting()
        if waiting:
            taken, _ = self._region.progress()
            index = min(max(taken - self._received - 1, 0), len(waiting) - 1)
            waiting[index].decided = ("reject", reject_row(waiting[index].record, reason, detail))

    def _restart(self) -> None:
        """Replace the dead child and send it again every record still waiting: those after
        the culprit, and those before it whose outcomes the dead child had not sent."""
        self.restarts += 1
        self._give_out_decided()
        waiting = self._waiting()
        if waiting:
            self._start()
            self._transmit(waiting)

    def _on_death(self) -> None:
        # Outcomes the child sent before dying are still in the pipe: read them first.
        with contextlib.suppress(EOFError, OSError):
            self._read_outcomes()
        if self._process is not None:  # let it finish dying, so its own signal is reported
            self._process.join(_DEATH_WAIT_S)
        exitcode = self._kill()
        if exitcode == _OUT_OF_MEMORY_EXIT:
            self._blame(reasons.TOO_LARGE, _memory_cap_text(self.memory_bytes or 0))
        elif exitcode != _REPLACE_EXIT:  # that child sent every outcome it had
            self._blame(reasons.EXTRACT_ERROR, f"cleaning process {_death_text(exitcode)}")
        self._restart()

    def _stop_child(self) -> int:
        """Kill the child and read the outcomes it sent before; the count of records it had
        taken when it was stopped."""
        assert self._process is not None
        taken, _ = self._region.progress()
        self._process.kill()
        self._process.join(_KILL_WAIT_S)
        with contextlib.suppress(EOFError, OSError):
            self._read_outcomes()
        self._kill()
        return taken

    def _on_hang(self) -> None:
        taken = self._stop_child()
        # The child may have finished the record just before it was killed and taken the next
        # one: then nothing is blamed, and the records out are all sent again.
        if self._region.progress()[0] == taken:
            self._blame(reasons.TIMEOUT, f"cleaning took longer than {self.timeout_s:g} s")
        self._restart()

    def _on_memory(self) -> None:
        """The child is over its memory cap: stop it, and blame the record it is on (none when
        it is between records: the others are all sent again)."""
        taken = self._stop_child()
        if self._region.progress()[0] == taken > self._received:
            self._blame(reasons.TOO_LARGE, _memory_cap_text(self.memory_bytes or 0))
        self._restart()

    # -- the interface --------------------------------------------------------------------

    def _take_ready(self) -> list[tuple[str, dict[str, Any]]]:
        ready, self._ready = self._ready, []
        return ready

    def submit(self, record: ArchiveRecord) -> list[tuple[str, dict[str, Any]]]:
        """Queue ``record``; the outcomes finished so far (of this or earlier records), in
        order. Waits only while ``max_in_flight`` records are out."""
        self._queued.append(record)
        if len(self._queued) >= self._batch:
            batch, self._queued = self._queued, []
            while len(self._in_flight) + len(batch) > self._max_in_flight:
                self._pump(wait=True)
            self._send(batch)
        return self._take_ready()

    def drain(self) -> list[tuple[str, dict[str, Any]]]:
        """Send what is queued and wait for every outcome still out, in order."""
        if self._queued:
            batch, self._queued = self._queued, []
            self._send(batch)
        while self._in_flight:
            self._pump(wait=True)
        return self._take_ready()

    def discard(self) -> None:
        """Forget every record submitted and not drained (their bundle failed): the child is
        replaced when any were out, so that none of their outcomes is read later."""
        self._queued = []
        self._ready = []
        if self._in_flight:
            self._in_flight.clear()
            self._kill()

    def __call__(self, record: ArchiveRecord) -> tuple[str, dict[str, Any]]:
        """Clean one record: the child's result, or a ``timeout`` / ``extract_error`` reject."""
        if self._queued or self._in_flight:
            raise RuntimeError("a guard with records out cannot clean one record alone")
        self._queued.append(record)
        (outcome,) = self.drain()
        return outcome

    def close(self) -> None:
        """Ask the child to exit, kill it if it does not, and free the shared memory."""
        if self._conns is not None and not self._in_flight:
            with contextlib.suppress(OSError):
                os.set_blocking(self._conns[0].fileno(), True)
                send_record(self._conns[0], _STOP)
            if self._process is not None:
                self._process.join(_KILL_WAIT_S)
        self._kill()
        if self._region is not None:
            self._region.close()
            self._region = self._ring = None
