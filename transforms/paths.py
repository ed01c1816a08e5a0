"""Output paths taken as written: ``out [1]`` is a folder name, not a pattern.

Beam's ``FileSystems.delete`` (and ``match``, which it calls on local and GCS paths) read
``[ ] ? *`` as wildcards, so deleting ``out [1]/data/.temp-x`` deletes nothing and raises
after the whole run has been processed. ``delete_literal`` deletes local paths with ``os``
calls, which do not glob. Remote file systems differ in whether their delete globs, so the job
refuses a remote output path holding wildcard characters before any work instead
(``has_wildcards``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable

from apache_beam.io.filesystems import FileSystems
from apache_beam.io.localfilesystem import LocalFileSystem

__all__ = ["WILDCARDS", "delete_literal", "has_wildcards", "is_local"]

WILDCARDS = frozenset("[]?*")


def is_local(path: str) -> bool:
    return isinstance(FileSystems.get_filesystem(path), LocalFileSystem)


def has_wildcards(path: str) -> bool:
    return not WILDCARDS.isdisjoint(path)


def delete_literal(paths: Iterable[str]) -> None:
    """Delete the files and folders (recursively) named exactly by ``paths``; missing ones are
    skipped. Raises ``ValueError`` for a remote path with wildcard characters."""
    for path in paths:
        if is_local(path):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.remove(path)
        elif has_wildcards(path):
            raise ValueError(f"{path!r}: Beam would read [ ] ? * in it as wildcards")
        elif FileSystems.exists(path):
            FileSystems.delete([path])
