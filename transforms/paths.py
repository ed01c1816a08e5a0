"""Paths taken as written: ``out [1]`` is a folder name, not a pattern.

Beam's ``FileSystems.delete`` (and ``match``, which it calls on local and GCS paths) read
``[ ] ? *`` as wildcards, so deleting ``out [1]/data/.temp-x/y`` deletes nothing and raises
after the whole run has been processed. ``delete_files`` deletes local paths with ``os``
calls, which do not glob. Remote file systems differ in whether their delete globs, so the job
refuses a remote output path holding wildcard characters before any work instead
(``has_wildcards``).

Deleting is by file: ``delete_files`` refuses a folder, since Beam's delete of a folder
removes everything under it, whoever wrote it. ``remove_empty_folder`` removes a local folder
only once it is empty (object stores have no folders to remove).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable

from apache_beam.io.filesystems import FileSystems
from apache_beam.io.localfilesystem import LocalFileSystem

__all__ = [
    "WILDCARDS",
    "delete_files",
    "has_wildcards",
    "is_inside",
    "is_local",
    "remove_empty_folder",
]

WILDCARDS = frozenset("[]?*")


def is_local(path: str) -> bool:
    return isinstance(FileSystems.get_filesystem(path), LocalFileSystem)


def has_wildcards(path: str) -> bool:
    return not WILDCARDS.isdisjoint(path)


def is_inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both absolute, or both URLs)."""
    folder = folder.rstrip("/")
    return path == folder or path.startswith(folder + "/")


def delete_files(paths: Iterable[str]) -> None:
    """Delete the files named exactly by ``paths``; missing ones are skipped. Raises
    ``IsADirectoryError`` for a local folder and ``ValueError`` for a remote path with wildcard
    characters."""
    remote = []
    for path in paths:
        if is_local(path):
            if os.path.isdir(path) and not os.path.islink(path):
                raise IsADirectoryError(f"{path} is a folder; only files are deleted")
            if os.path.lexists(path):
                os.remove(path)
        elif has_wildcards(path):
            raise ValueError(f"{path!r}: Beam would read [ ] ? * in it as wildcards")
        else:
            remote.append(path)
    remote = [path for path in remote if FileSystems.exists(path)]
    if remote:
        FileSystems.delete(remote)


def remove_empty_folder(path: str) -> bool:
    """Remove a local folder if it is empty; False when it holds something (it is left).
    Object stores have no folders: there it does nothing."""
    if is_local(path):
        try:
            os.rmdir(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            if e.errno != errno.ENOTEMPTY:
                raise
            return False
    return True
