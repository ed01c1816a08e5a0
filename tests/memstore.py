"""``memstore://``: an object store in this process's memory, for testing the job's output on a
store without folders, as gs:// and s3:// are, with no network.

Like those stores it has no folders (only names with slashes), a rename is a copy then a
delete, and its objects appear whole when a writer closes. Beam finds it by its scheme once
this module is imported; in-process pipelines (FnApiRunner's default) share ``OBJECTS``.
"""

from __future__ import annotations

import io
import time

from apache_beam.io.filesystem import BeamIOError, FileMetadata, FileSystem

SCHEME = "memstore"
OBJECTS: dict[str, tuple[bytes, float]] = {}


class _Writer(io.BytesIO):
    def __init__(self, path: str):
        super().__init__()
        self._path = path

    def close(self) -> None:
        if not self.closed:
            OBJECTS[self._path] = (self.getvalue(), time.time())
        super().close()


class MemStore(FileSystem):
    @classmethod
    def scheme(cls) -> str:
        return SCHEME

    def join(self, basepath: str, *paths: str) -> str:
        return "/".join([basepath.rstrip("/"), *(p.strip("/") for p in paths)])

    def split(self, path: str) -> tuple[str, str]:
        head, _, tail = path.rpartition("/")
        return head, tail

    def mkdirs(self, path: str) -> None:
        pass

    def has_dirs(self) -> bool:
        return False

    def _list(self, dir_or_prefix: str):
        for path, (data, _) in sorted(OBJECTS.items()):
            if path.startswith(dir_or_prefix):
                yield FileMetadata(path, len(data))

    def create(self, path, mime_type="application/octet-stream", compression_type=None):
        return _Writer(path)

    def open(self, path, mime_type="application/octet-stream", compression_type=None):
        if path not in OBJECTS:
            raise FileNotFoundError(path)
        return io.BytesIO(OBJECTS[path][0])

    def copy(self, source_file_names, destination_file_names):
        failed = {}
        for src, dst in zip(source_file_names, destination_file_names, strict=True):
            if src in OBJECTS:
                OBJECTS[dst] = OBJECTS[src]
            else:
                failed[(src, dst)] = FileNotFoundError(src)
        if failed:
            raise BeamIOError("Copy operation failed", failed)

    def rename(self, source_file_names, destination_file_names):
        self.copy(source_file_names, destination_file_names)
        self.delete(source_file_names)

    def exists(self, path: str) -> bool:
        return path in OBJECTS

    def size(self, path: str) -> int:
        return len(OBJECTS[path][0])

    def last_updated(self, path: str) -> float:
        return OBJECTS[path][1]

    def checksum(self, path: str) -> str:
        return str(hash(OBJECTS[path][0]))

    def metadata(self, path: str) -> FileMetadata:
        return FileMetadata(path, self.size(path), self.last_updated(path))

    def delete(self, paths):
        failed = {}
        for path in paths:
            if OBJECTS.pop(path, None) is None:
                failed[path] = FileNotFoundError(path)
        if failed:
            raise BeamIOError("Delete operation failed", failed)
