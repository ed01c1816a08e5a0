"""The output folder: what a run writes there, what it may delete, and how writing fails.

::

    OUT/_LOCK.json                      while a run writes (``transforms.write.lock``)
    OUT/data/part-SSSSS-of-NNNNN.parquet
    OUT/rejects/part-SSSSS-of-NNNNN.parquet
    OUT/{data,rejects}/.temp-RUN/       a run's shards until they are renamed into place
    OUT/_SUMMARY.json                   last (written as _SUMMARY.json.temp-RUN, then renamed)

The shard folders are the layout's (``ShardFolder``): ``data/`` and ``rejects/`` for the cleaning
job (``CLEANED_SHARDS``), others for a job that writes other shards (the dedup job's
``duplicates/`` and ``data/``). Their names are also the keys of the summary's ``output``,
which lists the shards the run wrote in each.

**Deleting.** The job deletes only files it wrote, each by its own name: never a folder (but the
empty ``.temp-RUN`` folders it made) and never a file it did not write. Before a run,
``survey`` sorts what the shard folders hold:

- a previous run's shards: ``part-SSSSS-of-NNNNN.parquet`` files that the previous
  ``_SUMMARY.json`` lists or, where no summary lists them (a run that died before writing it),
  whose Parquet columns include the folder's own (``ShardFolder.columns``; a folder without
  them takes only the shards a summary lists);
- a previous run's temporary files (``.temp-RUN/ID-NNNNN.parquet``, and the summary or lock
  record it was writing when it died);
- anything else, which the job did not write: a user's file stops the job before any work, and
  so does a summary whose ``output`` names other folders (another job's output folder).

**Failing.** A write that fails in a worker (no space left, a read-only folder, a rename that
finds its files gone) raises ``OutputError``, whose message is one line naming the folder and
the reason; ``output_error_in`` finds it again in what the runner raises, so the driver can
end with that line rather than with the runner's tracebacks. ``Ownership.verify`` is called
before a run renames anything into place: a run whose output another run took over fails there
instead of mixing its files into the other's.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from transforms.paths import delete_files, is_local, remove_empty_folder
from transforms.records import valid_utf8
from transforms.write.lock import LOCK_FILE, read_lock

__all__ = [
    "CLEANED_SHARDS",
    "JOB_COLUMNS",
    "SUMMARY_FILE",
    "OutputError",
    "OutputLayout",
    "Ownership",
    "ShardFolder",
    "Survey",
    "output_error_in",
    "run_files",
    "shards_on_disk",
    "survey",
    "temp_files",
]

SUMMARY_FILE = "_SUMMARY.json"
SHARD_NAME = re.compile(r"part-\d{5}-of-\d{5}\.parquet\Z")
TEMP_FOLDER = re.compile(r"\.temp-[0-9a-f]{32}\Z")
TEMP_FILE = re.compile(r"([0-9a-f]{32}-\d{5}|empty)\.parquet\Z")
SUMMARY_TEMP = re.compile(re.escape(SUMMARY_FILE) + r"\.temp-[0-9a-f]{32}\Z")
LOCK_TEMP = re.compile(re.escape(LOCK_FILE) + r"\.temp-[0-9a-f]{32}\Z")
# Columns every shard of this job has had, rows and rejects alike: a Parquet file named like a
# shard but without them was written by something else.
JOB_COLUMNS = frozenset({"source_file", "record_id", "record_offset", "url"})
_SHOWN = 3  # names quoted in a refusal


class OutputError(Exception):
    """Writing the output failed; the message is the one line to show."""

    # Beam logs a DoFn's exception with its traceback unless it is marked as already reported
    # for its step; this one is reported by the driver, in one line.
    _tagged_with_step = True

    @classmethod
    def writing(cls, target: str, error: BaseException) -> OutputError:
        return cls(f"cannot write {target}: {_reason(error)}")


def _reason(error: BaseException) -> str:
    details = getattr(error, "exception_details", None)  # Beam's BeamIOError, one per file
    if details:
        error = next(iter(details.values()))
    while error.args and isinstance(error.args[0], BaseException):  # Beam's IOError(error)
        error = error.args[0]
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


_REPORTED = re.compile(r"OutputError: ([^\n]+)")


def output_error_in(error: BaseException) -> OutputError | None:
    """The ``OutputError`` behind what a runner raised: the exception itself or one it chains
    to (in-process workers), or its line in the text of a remote worker's traceback."""
    seen = error
    while seen is not None:
        if isinstance(seen, OutputError):
            return seen
        seen = seen.__cause__ or seen.__context__
    found = _REPORTED.findall(str(error))
    if found:
        return OutputError(found[-1].removesuffix("\\n").strip())
    return None


@dataclass(frozen=True)
class ShardFolder:
    """A folder of ``part-*`` shards in the output: its name (also its key in the summary's
    ``output``) and the columns every shard the job writes there has (None: none to tell its
    shards by, so only the shards a summary lists are the job's)."""

    name: str
    columns: frozenset[str] | None


CLEANED_SHARDS = (ShardFolder("data", JOB_COLUMNS), ShardFolder("rejects", JOB_COLUMNS))


@dataclass(frozen=True)
class OutputLayout:
    """The paths of an output folder (``base`` without a trailing slash)."""

    base: str
    shards: tuple[ShardFolder, ...] = CLEANED_SHARDS

    @classmethod
    def of(cls, output: str, shards: tuple[ShardFolder, ...] = CLEANED_SHARDS) -> OutputLayout:
        return cls(output.rstrip("/") or "/", shards)

    def folder(self, name: str) -> str:
        return FileSystems.join(self.base, name)

    @property
    def data(self) -> str:
        return self.folder("data")

    @property
    def rejects(self) -> str:
        return self.folder("rejects")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(shard.name for shard in self.shards)

    @property
    def folders(self) -> tuple[str, ...]:
        return tuple(self.folder(name) for name in self.names)

    @property
    def summary(self) -> str:
        return FileSystems.join(self.base, SUMMARY_FILE)

    @property
    def lock(self) -> str:
        return FileSystems.join(self.base, LOCK_FILE)

    def summary_temp(self, run_id: str) -> str:
        return f"{self.summary}.temp-{run_id}"

    @staticmethod
    def temp_folder(folder: str, run_id: str) -> str:
        return FileSystems.join(folder, f".temp-{run_id}")


@dataclass(frozen=True)
class Ownership:
    """Checked by workers before they rename into place: is the output still this run's?"""

    lock: str
    run_id: str

    def verify(self) -> None:
        holder = read_lock(self.lock)
        if holder is None or holder.run_id != self.run_id:
            other = "another run" if holder is None else holder.describe()
            raise OutputError(
                f"the output was taken over by {other} while this run was writing; "
                "this run stops without putting more files in place"
            )


@dataclass
class Survey:
    """What an output folder holds before a run (see the module docstring)."""

    names: tuple[str, ...] = ("data", "rejects")  # the shard folders looked in
    previous: list[str] = field(default_factory=list)  # the job's files, the summary first
    temp_folders: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)  # relative to the output folder
    problems: list[str] = field(default_factory=list)

    def refusal(self) -> str | None:
        """The one line that stops the run, or None."""
        if self.problems:
            return self.problems[0]
        if not self.foreign:
            return None
        names = ", ".join(self.foreign[:_SHOWN])
        more = len(self.foreign) - _SHOWN
        if more > 0:
            names += f" and {more} more"
        folders = " and ".join(f"{name}/" for name in self.names)
        return (
            f"{names}: not written by this job, which deletes its own files in {folders} "
            "before writing; move them away, or choose another --output"
        )

    def clear(self) -> None:
        """Delete the previous run's files by name, then its emptied temporary folders."""
        delete_files(self.previous)
        for folder in self.temp_folders:
            remove_empty_folder(folder)


def _read_summary_output(summary: str) -> dict | None:
    """The ``output`` of a previous summary (the shards it lists, by folder), or None when it
    has none to read (absent, damaged, or not a summary of these jobs)."""
    try:
        with FileSystems.open(summary) as f:
            output = json.loads(f.read())["output"]
    except Exception:
        return None
    return output if isinstance(output, dict) else None


def _listed(output: dict, names: tuple[str, ...]) -> set[str]:
    """The shards a previous run's summary names, as ``FOLDER/NAME``."""
    try:
        return {
            f"{name}/{path.rsplit('/', 1)[-1]}" for name in names for path in output.get(name, ())
        }
    except Exception:  # not a list of paths: its shards are told by content
        return set()


def _has_columns(path: str, columns: frozenset[str] | None) -> bool:
    if columns is None:
        return False
    try:
        with FileSystems.open(path) as f:
            return set(pq.ParquetFile(f).schema_arrow.names) >= columns
    except Exception:
        return False


def _entries(folder: str) -> list[tuple[str, str]]:
    """(path relative to ``folder``, kind) of what it holds; kind is ``file``, ``folder`` or
    ``other`` (a symbolic link, a FIFO ...). A local folder is listed two levels deep."""
    if is_local(folder):
        found = []
        for top in os.scandir(folder):
            kind = _kind(top)
            found.append((top.name, kind))
            if kind == "folder" and TEMP_FOLDER.match(top.name):
                found += [(f"{top.name}/{e.name}", _kind(e)) for e in os.scandir(top.path)]
        return found
    prefix = folder.rstrip("/") + "/"
    listed = FileSystems.match([prefix + "**"])[0].metadata_list
    # Object stores have no folders: a name ending in "/" is a console's folder marker.
    return [(m.path[len(prefix) :], "file") for m in listed if not m.path.endswith("/")]


def _kind(entry: os.DirEntry) -> str:
    if entry.is_symlink():
        return "other"
    if entry.is_dir():
        return "folder"
    return "file" if entry.is_file() else "other"


def _what(relative: str, kind: str, path: str, listed: set[str], shards: ShardFolder) -> str:
    """``job file``, ``temp folder`` or ``foreign``, for an entry of a shard folder
    (``relative`` starts with the folder's name)."""
    parts = relative.split("/")[1:]
    name = parts[-1]
    if len(parts) == 1 and kind == "folder" and TEMP_FOLDER.match(name):
        return "temp folder"
    if len(parts) == 1 and kind == "file" and SHARD_NAME.match(name):
        listed_here = valid_utf8(relative) in listed
        return "job file" if listed_here or _has_columns(path, shards.columns) else "foreign"
    in_temp = len(parts) == 2 and TEMP_FOLDER.match(parts[0])
    return "job file" if in_temp and kind == "file" and TEMP_FILE.match(name) else "foreign"


def _top_level_temp_files(layout: OutputLayout) -> list[str]:
    """A summary a run was writing when it died, and (locally) a lock record a run was writing
    when it died, ten minutes ago or more: a younger one may be another run's, starting."""
    if not is_local(layout.base):
        listed = FileSystems.match([layout.summary + ".temp-*"])[0].metadata_list
        return [m.path for m in listed if SUMMARY_TEMP.match(m.path.rsplit("/", 1)[-1])]
    if not os.path.isdir(layout.base):
        return []
    found = []
    for entry in os.scandir(layout.base):
        if _kind(entry) != "file":
            continue
        if SUMMARY_TEMP.match(entry.name) or (
            LOCK_TEMP.match(entry.name) and time.time() - entry.stat().st_mtime > 600
        ):
            found.append(entry.path)
    return found


def survey(layout: OutputLayout) -> Survey:
    """Sort what ``layout``'s shard folders and its summary are (a local folder that does not
    exist yet holds nothing)."""
    found = Survey(layout.names)
    local = is_local(layout.base)
    if not local:
        if FileSystems.exists(layout.summary):
            found.previous.append(layout.summary)
    elif os.path.lexists(layout.summary):
        if os.path.islink(layout.summary) or not os.path.isfile(layout.summary):
            found.problems.append(f"{layout.summary} is not a file this job wrote")
            return found
        found.previous.append(layout.summary)
    output = _read_summary_output(layout.summary) if found.previous else None
    if output is not None and set(output) != set(layout.names):
        others = " and ".join(f"{name}/" for name in output)
        found.problems.append(
            f"{layout.summary} is the summary of another job's output ({others or 'none'}): "
            "choose another --output"
        )
        return found
    found.previous += _top_level_temp_files(layout)
    listed = _listed(output, layout.names) if output is not None else set()
    for shards, folder in zip(layout.shards, layout.folders, strict=True):
        kind = shards.name
        if local and os.path.lexists(folder) and not os.path.isdir(folder):
            found.problems.append(f"{folder} is not a folder")
            continue
        if local and not os.path.exists(folder):
            continue
        for relative, entry_kind in _entries(folder):
            path = FileSystems.join(folder, relative)
            what = _what(f"{kind}/{relative}", entry_kind, path, listed, shards)
            if what == "temp folder":
                found.temp_folders.append(path)
            elif what == "job file":
                found.previous.append(path)
            else:
                found.foreign.append(f"{kind}/{relative}" + ("/" if entry_kind == "folder" else ""))
    return found


def shards_on_disk(layout: OutputLayout) -> list[str]:
    """Every ``part-*`` shard now in ``data/`` and ``rejects/``."""
    found = []
    for folder in layout.folders:
        if is_local(folder) and not os.path.isdir(folder):
            continue
        found += [
            FileSystems.join(folder, rel)
            for rel, kind in _entries(folder)
            if kind == "file" and SHARD_NAME.match(rel)
        ]
    return found


def temp_files(temp_folder: str) -> list[str]:
    """The files a run wrote in its temporary folder (named by the job's pattern)."""
    if is_local(temp_folder):
        if not os.path.isdir(temp_folder):
            return []
        names = [e.name for e in os.scandir(temp_folder)]
    else:
        listed = FileSystems.match([temp_folder + "/*"])[0].metadata_list
        names = [m.path.rsplit("/", 1)[-1] for m in listed]
    return [FileSystems.join(temp_folder, name) for name in sorted(names) if TEMP_FILE.match(name)]


def run_files(layout: OutputLayout, run_id: str) -> tuple[list[str], list[str]]:
    """One run's temporary files, and its temporary folders (to remove once emptied)."""
    folders = [layout.temp_folder(folder, run_id) for folder in layout.folders]
    files = [path for folder in folders for path in temp_files(folder)]
    if FileSystems.exists(layout.summary_temp(run_id)):
        files.append(layout.summary_temp(run_id))
    return files, folders
