"""The driver's side of ``--output``: what is checked before any work, and how a run holds,
clears and gives back its output folder (the folder itself: ``transforms.write.output``).

Before any work, each of these stops the job with one line (``UsageError``, exit 2):

- ``check_output_path``: a remote path with wildcard characters; a path that is a file, or
  lies under one;
- ``check_inputs_outside``: an input file inside the output folder (matched by ``--input``,
  named by ``--input_list``, or reached through a symbolic link), or an ``--input`` that could
  match the output folder or anything the job writes in it: a folder given as input, ``DIR/``
  and ``**`` reach into every folder below;
- ``OutputClaim.__enter__``: a folder that cannot be created or written (read-only, no space
  for the lock), another live run's lock (``transforms.write.lock``), files in its shard
  folders that the job did not write, or another job's summary.

Each job names its shard folders (``shards``: the cleaning job's ``data/`` and ``rejects/`` by
default, the dedup job's ``duplicates/`` and ``data/``); the rest is the same for both.

Then the claim deletes the previous run's files, by name, and makes this run's temporary
folders. When the pipeline fails, ``__exit__`` deletes what this run wrote (its temporary
files, and, while the output is still its own, the shards it renamed into place), gives the
lock back and turns an ``OutputError`` into the one line it carries. ``finish`` checks, after
the pipeline, that the output is still this run's and holds no shard it did not write. A job's
``main`` runs under ``sigterm_as_interrupt``, so that SIGTERM (Airflow, Kubernetes, a timeout)
gives the output back as Ctrl-C does; ``interrupted`` tells either from other errors.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence

from apache_beam.io.filesystem import FileSystem
from apache_beam.io.filesystems import FileSystems

from beam_jobs.config import UsageError
from transforms.paths import delete_files, has_wildcards, is_inside, is_local, remove_empty_folder
from transforms.records import valid_utf8
from transforms.write.lock import OutputInUse, RunLock, lock_store, new_run_id
from transforms.write.output import (
    CLEANED_SHARDS,
    OutputError,
    OutputLayout,
    Ownership,
    ShardFolder,
    output_error_in,
    run_files,
    shards_on_disk,
    survey,
)

__all__ = [
    "OutputClaim",
    "check_inputs_outside",
    "check_output_path",
    "interrupted",
    "sigterm_as_interrupt",
]

_LOG = logging.getLogger(__name__)

_RUN = "0" * 32


def _written(shards: tuple[ShardFolder, ...]) -> tuple[str, ...]:
    """Paths that stand for what the job writes in an output folder, to test input patterns on."""
    top = ("_SUMMARY.json", "_LOCK.json", f"_SUMMARY.json.temp-{_RUN}")
    return top + tuple(
        path
        for name in (shard.name for shard in shards)
        for path in (
            f"{name}/part-00000-of-00001.parquet",
            f"{name}/.temp-{_RUN}/{_RUN}-00000.parquet",
        )
    )


def check_output_path(output: str) -> None:
    """Refuse an output path the run could never write, before any work."""
    if has_wildcards(output) and not is_local(output):
        raise UsageError(
            f"--output {output!r}: [ ] ? * in a remote path are read as wildcards by Beam; "
            "choose a path without them"
        )
    base = OutputLayout.of(output).base
    if not is_local(base):
        if FileSystems.exists(base):  # an object of that very name: folders are prefixes
            raise UsageError(f"--output {output!r} is an existing file, not a folder")
        return
    if os.path.exists(base) and not os.path.isdir(base):
        raise UsageError(f"--output {output!r} is an existing file, not a folder")
    above = os.path.dirname(os.path.abspath(base))
    while not os.path.exists(above):
        above = os.path.dirname(above)
    if not os.path.isdir(above):
        raise UsageError(f"--output {output!r} lies under {above}, which is a file")


def _local_forms(path: str) -> set[str]:
    """A local path as written (absolute) and with its symbolic links resolved."""
    return {os.path.abspath(path), os.path.realpath(path)}


def _reaches(pattern: str, output: str, written: tuple[str, ...]) -> str | None:
    """How ``pattern`` reaches into the job's output, or None when it does not."""
    local = is_local(pattern)
    if local != is_local(output):
        return None
    if local:
        folder_input = pattern.endswith(("/", os.sep)) or os.path.isdir(pattern)
        pattern = os.path.abspath(pattern)
        cut = min((pattern.find(c) for c in "[]?*" if c in pattern), default=len(pattern))
        fixed = os.path.dirname(pattern[:cut]) if cut < len(pattern) else pattern
        patterns = {pattern, os.path.realpath(fixed) + pattern[len(fixed) :]}
        outputs = _local_forms(output)
    else:
        folder_input = pattern.endswith("/")
        patterns, outputs = {pattern}, {output.rstrip("/")}
    for pattern in patterns:
        if folder_input:  # a folder reads what is in it: the output must not be under it
            if any(is_inside(out, pattern.rstrip("/")) for out in outputs):
                return "it reads all that its folder holds"
            continue
        matches = re.compile(FileSystem.translate_pattern(pattern)).match
        for out in outputs:
            for path in written:
                if matches(f"{out}/{path}"):
                    return f"it would match {path}"
    return None


def check_inputs_outside(
    output: str,
    matched: Mapping[str, Iterable[str]],
    listed: Sequence[str],
    shards: tuple[ShardFolder, ...] = CLEANED_SHARDS,
) -> None:
    """Refuse inputs that lie in the output folder or patterns that reach into it.

    ``matched`` maps each ``--input`` pattern to the files it matches now; ``listed`` is what
    ``--input_list`` names; ``shards`` are the job's shard folders.
    """
    written = _written(shards)
    base = OutputLayout.of(output).base
    local = is_local(base)
    outputs = _local_forms(base) if local else {base}

    def inside(path: str) -> bool:
        if is_local(path) != local:
            return False
        forms = _local_forms(path) if local else {path}
        return any(is_inside(form, out) for form in forms for out in outputs)

    for pattern, paths in matched.items():
        for path in paths:
            if inside(path):
                raise UsageError(
                    f"--input {pattern!r} matches {path}, inside --output {output!r}; "
                    "the output must not hold the inputs: choose another --output"
                )
        reached = _reaches(pattern, base, written)
        if reached:
            raise UsageError(
                f"--input {pattern!r} reaches into --output {output!r} ({reached}): "
                "the next run would read this run's output; put the output outside the "
                "input folders, or narrow the pattern"
            )
    for path in listed:
        if inside(path):
            raise UsageError(
                f"--input_list names {path}, inside --output {output!r}; the output must "
                "not hold the inputs: choose another --output"
            )


class OutputClaim:
    """The run's hold on its output folder (see the module docstring).

    ``shards`` are the job's shard folders; ``writing``, the names of those this run writes
    (all by default): the others are only cleared of the previous run's shards.
    """

    def __init__(
        self,
        output: str,
        options=None,
        run_id: str | None = None,
        *,
        shards: tuple[ShardFolder, ...] = CLEANED_SHARDS,
        writing: Sequence[str] | None = None,
    ):
        self.output = output
        self.layout = OutputLayout.of(output, shards)
        self.writing = tuple(self.layout.names if writing is None else writing)
        self.run_id = run_id or new_run_id()
        self.ownership = Ownership(self.layout.lock, self.run_id)
        self._options = options
        self._lock: RunLock | None = None

    def _refuse(self, why: str) -> UsageError:
        return UsageError(f"--output {self.output!r}: {why}")

    def __enter__(self) -> OutputClaim:
        layout = self.layout
        try:
            if is_local(layout.base):
                os.makedirs(layout.base, exist_ok=True)
            self._lock = RunLock(layout.lock, self.run_id, lock_store(layout.lock, self._options))
            self._lock.acquire()
        except OutputInUse as e:
            raise self._refuse(f"in use: {e}") from None
        except OSError as e:
            raise self._refuse(f"cannot be written: {e.strerror or e}") from None
        try:
            self._prepare()
        except BaseException:
            self._lock.release()
            raise
        return self

    def _prepare(self) -> None:
        layout = self.layout
        try:
            found = survey(layout)
        except OSError as e:
            raise self._refuse(f"cannot be read: {e.strerror or e}") from None
        refusal = found.refusal()
        if refusal:
            raise self._refuse(refusal)
        try:
            if found.previous:
                _LOG.info("deleting %d files of a previous run", len(found.previous))
            found.clear()
            for name in layout.names:
                folder = layout.folder(name)
                if name not in self.writing and any(is_inside(p, folder) for p in found.previous):
                    remove_empty_folder(folder)  # the previous run's, now empty
                elif is_local(layout.base) and name in self.writing:
                    # also proves that the shard folders can be written
                    os.makedirs(layout.temp_folder(folder, self.run_id))
        except OSError as e:
            raise self._refuse(f"cannot be written: {e.strerror or e}") from None

    def free_bytes(self) -> int | None:
        if not is_local(self.layout.base):
            return None
        return shutil.disk_usage(self.layout.base).free

    def held(self) -> bool:
        return self._lock is not None and self._lock.held()

    def finish(self, summary: dict) -> None:
        """After the pipeline: the output must still be this run's, holding only its shards."""
        if not self.held():
            holder = self._lock.holder()
            other = "another run" if holder is None else holder.describe()
            raise OutputError(f"the output was taken over by {other} while this run was writing")
        written = {path for name in self.layout.names for path in summary["output"][name]}
        on_disk = shards_on_disk(self.layout)
        strays = sorted(path for path in on_disk if valid_utf8(path) not in written)
        if strays:
            delete_files([self.layout.summary])
            raise OutputError(
                f"{strays[0]} (of {len(strays)} shards) was not written by this run: "
                "another run wrote there at the same time; run again"
            )

    def __exit__(self, kind, error, _tb) -> bool:
        try:
            if error is not None:
                self._clean_up()
        finally:
            self._lock.release()
        if isinstance(error, Exception) and not isinstance(error, OutputError):
            found = output_error_in(error)
            if found is not None:
                raise found from None
        return False

    def _clean_up(self) -> None:
        """Delete what this run wrote: its temporary files always; its shards and summary only
        while the output is still its own (after a takeover they are the other run's)."""
        files, folders = run_files(self.layout, self.run_id)
        try:
            if self.held():
                files = [self.layout.summary, *files, *shards_on_disk(self.layout)]
            delete_files(files)
            for folder in folders:
                remove_empty_folder(folder)
        except Exception as e:  # the run's own error is the one to report
            _LOG.warning("could not delete this run's files in %s: %s", self.layout.base, e)


def _interrupt(signum, _frame) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within it, SIGTERM raises ``KeyboardInterrupt``: the run deletes its files and its lock
    on its way out. Signals can only be handled on the main thread; elsewhere it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted(error: BaseException) -> bool:
    """Ctrl-C or SIGTERM, as raised or as a runner wraps it (``RuntimeError: KeyboardInterrupt
    [while running ...]``)."""
    return isinstance(error, KeyboardInterrupt) or str(error).startswith("KeyboardInterrupt")
