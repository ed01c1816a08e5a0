"""Run document cleaning in a persistent child process, so one bad document costs one reject.

Decoding and extraction call native code (selectolax/Lexbor, brotli, zstd, charset-normalizer)
that can crash the process (a segfault) or never return on a pathological page. In-process, a
crash kills the Beam worker and the runner retries the whole bundle until the job fails; a hang
stalls the worker forever. ``GuardedCleaner`` moves that work into one long-lived child process
per worker and talks to it over a pipe:

- a document that makes the child die becomes an ``extract_error`` reject naming the signal;
- a document that takes longer than ``timeout_s`` becomes a ``timeout`` reject;

and in both cases the child is killed and a fresh one started for the next document. Children
come from a ``forkserver``: Beam workers run gRPC threads, which a plain ``fork`` of the worker
does not survive safely, and ``spawn`` would re-import everything on each restart; the fork
server is a clean single-threaded process that has imported the cleaning code once, so a
restart is a cheap fork. The steady cost is moving each record and its result across the pipes
(``transforms.clean_html.pipe``; see README, "Crash guard").
"""

from __future__ import annotations

import contextlib
import multiprocessing
import resource
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from transforms import reasons
from transforms.clean_html import cleaner
from transforms.clean_html.cleaner import Cleaner
from transforms.clean_html.pipe import (
    enlarge,
    receive_outcome,
    receive_record,
    send_outcome,
    send_record,
)
from transforms.records import ArchiveRecord
from transforms.rows import reject_row

__all__ = ["GuardedCleaner"]

_STOP = None
_KILL_WAIT_S = 5.0


def _serve(inbox: Connection, outbox: Connection, make_cleaner: Callable[[], Cleaner]) -> None:
    """The child's loop: build the cleaner once, then clean records until told to stop."""
    # A crash here is expected now and then and is reported as a reject: no core dump (slow to
    # write, and large).
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cleaner = make_cleaner()
    while True:
        try:
            record = receive_record(inbox)
        except EOFError:  # the parent went away
            return
        if record is _STOP:
            return
        try:
            result = cleaner(record)
        except Exception as e:  # a bug in decoding or extraction: this document only
            result = "reject", reject_row(record, reasons.EXTRACT_ERROR, f"{type(e).__name__}: {e}")
        send_outcome(outbox, result)


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
    ``restarts`` counts the children replaced after a crash or a timeout.
    """

    def __init__(self, make_cleaner: Callable[[], Cleaner], timeout_s: float) -> None:
        self._make_cleaner = make_cleaner
        self.timeout_s = timeout_s
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_preload_modules())
        self._process: Any = None
        self._conns: tuple[Connection, Connection] | None = None  # to the child, from it
        self.restarts = 0

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
        self._process, self._conns = process, (to_child, from_child)

    def _kill(self) -> int | None:
        """Stop the child for good (it may be hung in native code) and return its exit code."""
        process, conns = self._process, self._conns
        self._process, self._conns = None, None
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

    def __call__(self, record: ArchiveRecord) -> tuple[str, dict[str, Any]]:
        """Clean one record: the child's result, or a ``timeout`` / ``extract_error`` reject."""
        if self._process is None or not self._process.is_alive():
            if self._process is not None:
                self._kill()
                self.restarts += 1
            self._start()
        assert self._conns is not None
        to_child, from_child = self._conns
        try:
            send_record(to_child, record)
            if from_child.poll(self.timeout_s):
                return receive_outcome(from_child)
        except (EOFError, OSError):  # the child died on this record
            exitcode = self._kill()
            self.restarts += 1
            return "reject", reject_row(
                record, reasons.EXTRACT_ERROR, f"cleaning process {_death_text(exitcode)}"
            )
        self._kill()
        self.restarts += 1
        return "reject", reject_row(
            record, reasons.TIMEOUT, f"cleaning took longer than {self.timeout_s:g} s"
        )

    def close(self) -> None:
        """Ask the child to exit, and kill it if it does not."""
        if self._conns is not None:
            with contextlib.suppress(OSError):
                send_record(self._conns[0], _STOP)
        if self._process is not None:
            self._process.join(_KILL_WAIT_S)
        self._kill()
