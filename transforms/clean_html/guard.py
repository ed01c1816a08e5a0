"""Run document cleaning in a persistent child process, so one bad document costs one reject.

Decoding and extraction call native code (selectolax/Lexbor, brotli, zstd, charset-normalizer)
that can crash the process (a segfault) or never return on a pathological page. In-process, a
crash kills the Beam worker and the runner retries the whole bundle until the job fails; a hang
stalls the worker forever. ``GuardedCleaner`` moves that work into one long-lived child process
per worker and talks to it over a pipe:

- a document that makes the child die becomes an ``extract_error`` reject naming the signal;
- a document that takes longer than ``timeout_s`` becomes a ``timeout`` reject;

and in both cases the child is killed and a fresh one started for the rest. Children come from
a ``forkserver``: Beam workers run gRPC threads, which a plain ``fork`` of the worker does not
survive safely, and ``spawn`` would re-import everything on each restart; the fork server is a
clean single-threaded process that has imported the cleaning code once, so a restart is a cheap
fork.

Records go to the child in batches and the parent does not wait for them: ``submit`` queues a
record, writes a full batch into the pipe and returns whatever outcomes the child has finished
so far; ``drain`` (at the end of a bundle) waits for the rest. The child cleans records in the
order sent and sends each outcome back as soon as it has it, so the parent (reading the next
records, writing Parquet) and the child (cleaning) work at the same time, and the child goes
from one record to the next without sleeping in between: a synchronous round trip per record
cost more than the pipe copies themselves (README, "Crash guard"). Since outcomes come back in order, the record a crash or a
hang belongs to is the oldest one sent without an outcome: it alone becomes the reject, and the
records sent after it go to the new child again. The time limit runs from the moment the child
could start that record: when it was sent, or when the child finished the one before (the
outcome carries that moment), whichever is later.

The parent writes without blocking and reads outcomes while a batch is still going into the
pipe, so a child blocked on a full outcome pipe can never wait for a parent blocked on a full
record pipe; at most ``max_in_flight`` records are out at once, which bounds the memory held.
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
    OutcomeReader,
    enlarge,
    receive_record,
    record_frame,
    send_outcome,
    send_record,
    write_some,
)
from transforms.memory import hold_heap
from transforms.records import ArchiveRecord
from transforms.rows import reject_row

__all__ = ["GuardedCleaner"]

_STOP = None
_KILL_WAIT_S = 5.0
_DEATH_WAIT_S = 1.0
# Records per write: enough that the pipe's system calls and wake-ups are paid once for many
# pages, few enough that a bundle's last batch does not keep the child idle for long.
DEFAULT_BATCH = 8
# Records out at once (sent, outcome not yet read): two batches, so the child has the next
# batch in its pipe while the parent collects the previous one's outcomes.
DEFAULT_IN_FLIGHT = 2 * DEFAULT_BATCH


def _serve(inbox: Connection, outbox: Connection, make_cleaner: Callable[[], Cleaner]) -> None:
    """The child's loop: build the cleaner once, then clean records until told to stop."""
    # A crash here is expected now and then and is reported as a reject: no core dump (slow to
    # write, and large).
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    clean = make_cleaner()
    hold_heap()  # see transforms.memory: no page faults for each page's memory
    while True:
        try:
            record = receive_record(inbox)
        except EOFError:  # the parent went away
            return
        if record is _STOP:
            return
        try:
            result = clean(record)
        except Exception as e:  # a bug in decoding or extraction: this document only
            result = "reject", reject_row(record, reasons.EXTRACT_ERROR, f"{type(e).__name__}: {e}")
        send_outcome(outbox, result, time.monotonic())


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


class GuardedCleaner:
    """Clean records in a child process with a per-document time limit; restart it on death.

    ``make_cleaner`` must be picklable (a module-level function or a ``functools.partial`` of
    one): the child calls it once to build its cleaner. Not thread-safe: one per DoFn instance.

    ``submit(record)`` and ``drain()`` give back outcomes in the order the records were
    submitted, each exactly once; calling the guard on one record submits and drains it.
    ``restarts`` counts the children replaced after a crash or a timeout.
    """

    def __init__(
        self,
        make_cleaner: Callable[[], Cleaner],
        timeout_s: float,
        *,
        batch: int = DEFAULT_BATCH,
        max_in_flight: int = DEFAULT_IN_FLIGHT,
    ) -> None:
        self._make_cleaner = make_cleaner
        self.timeout_s = timeout_s
        self._batch = max(1, batch)
        self._max_in_flight = max(self._batch, max_in_flight)
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_preload_modules())
        self._process: Any = None
        self._conns: tuple[Connection, Connection] | None = None  # to the child, from it
        self._outcomes: OutcomeReader | None = None
        self._queued: list[ArchiveRecord] = []  # submitted, not yet sent
        self._in_flight: deque[tuple[ArchiveRecord, float]] = deque()  # (record, sent at)
        self._unwritten: list[memoryview] = []  # frames sent but not yet taken by the pipe
        self._finished_at = 0.0  # when the child finished its last outcome read
        self._ready: list[tuple[str, dict[str, Any]]] = []
        self.restarts = 0

    # -- the child ------------------------------------------------------------------------

    def _start(self) -> None:
        # One pipe each way (see transforms.clean_html.pipe): records in, outcomes out.
        inbox, to_child = self._context.Pipe(duplex=False)
        from_child, outbox = self._context.Pipe(duplex=False)
        enlarge(to_child)
        enlarge(from_child)
        process = self._context.Process(
            target=_serve,
            args=(inbox, outbox, self._make_cleaner),
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

    def _send(self, records: list[ArchiveRecord]) -> None:
        """Queue ``records`` for the child (starting one if needed) and write what fits now."""
        if self._process is not None and not self._in_flight and not self._process.is_alive():
            self._kill()  # it died between documents (killed from outside): no document's fault
            self.restarts += 1
        if self._process is None:
            self._start()
        now = time.monotonic()
        for record in records:
            self._in_flight.append((record, now))
            self._unwritten.extend(memoryview(part) for part in record_frame(record) if part)
        self._pump(wait=False)

    # -- moving data ----------------------------------------------------------------------

    def _read_outcomes(self) -> None:
        """Take every outcome waiting in the pipe; EOFError or OSError when the child died."""
        assert self._outcomes is not None
        for outcome, finished_at in self._outcomes.read():
            self._in_flight.popleft()
            self._ready.append(outcome)
            self._finished_at = finished_at

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
                head_sent = self._in_flight[0][1]
                deadline = max(head_sent, self._finished_at) + self.timeout_s
                left = deadline - time.monotonic()
                if left <= 0:
                    self._on_hang()
                    return
                writers = [to_child.fileno()] if self._unwritten else []
                select.select([from_child.fileno()], writers, [], left)
            except (EOFError, OSError):  # the child died: on the oldest record out
                self._on_death()
                return

    def _restart_with(self, records: list[ArchiveRecord]) -> None:
        """Replace the child and send it ``records`` (those sent after the culprit) again."""
        self.restarts += 1
        self._in_flight.clear()
        if records:
            self._send(records)

    def _on_death(self) -> None:
        # Outcomes the child sent before dying are still in the pipe: the culprit is the first
        # record after them.
        with contextlib.suppress(EOFError, OSError):
            self._read_outcomes()
        if self._process is not None:  # let it finish dying, so its own signal is reported
            self._process.join(_DEATH_WAIT_S)
        exitcode = self._kill()
        if not self._in_flight:
            self.restarts += 1
            return
        culprit = self._in_flight.popleft()[0]
        self._ready.append(
            (
                "reject",
                reject_row(
                    culprit, reasons.EXTRACT_ERROR, f"cleaning process {_death_text(exitcode)}"
                ),
            )
        )
        self._restart_with([record for record, _ in self._in_flight])

    def _on_hang(self) -> None:
        culprit = self._in_flight[0][0]
        assert self._process is not None
        self._process.kill()
        self._process.join(_KILL_WAIT_S)
        # The child may have finished the record just before it was killed: then it was
        # working on the next one, which is resent and not blamed.
        with contextlib.suppress(EOFError, OSError):
            self._read_outcomes()
        self._kill()
        if self._in_flight and self._in_flight[0][0] is culprit:
            self._in_flight.popleft()
            self._ready.append(
                (
                    "reject",
                    reject_row(
                        culprit, reasons.TIMEOUT, f"cleaning took longer than {self.timeout_s:g} s"
                    ),
                )
            )
        self._restart_with([record for record, _ in self._in_flight])

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
        """Ask the child to exit, and kill it if it does not."""
        if self._conns is not None and not self._in_flight:
            with contextlib.suppress(OSError):
                os.set_blocking(self._conns[0].fileno(), True)
                send_record(self._conns[0], _STOP)
            if self._process is not None:
                self._process.join(_KILL_WAIT_S)
        self._kill()
