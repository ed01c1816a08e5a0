"""Path lists (``--input_list``): the files of a crawl named one per line, as Common Crawl's
``warc.paths.gz`` names them.

A list is plain text or gzip (by its ``.gz`` name), local or on any Beam filesystem. Each line
is a path relative to the list's prefix (``--input_prefix``, e.g. ``s3://commoncrawl/`` or a
local mirror folder) or, when it has a scheme (``s3://``, ``https://`` ...) or starts with
``/``, a full path used as it is. Blank lines and lines starting with ``#`` are skipped. A path
listed twice, in one list or in two, is read once (the first time it is listed). Lines are
UTF-8; a byte that is not (a list written on a latin-1 system) is kept as the operating system
keeps it in a name (``surrogateescape``), so that the file still opens; rows show it as U+FFFD.

Listed paths are not file patterns: they are not matched as globs when the job is launched,
and one that does not exist is not an error of the job. ``stat_listed`` gives each its size
(for the byte-range plan) or, when it cannot be found, a size of 0, so that the reader tries to
open it, fails and reports it as an ``unreadable_file`` reject like any unreadable input.
"""

from __future__ import annotations

from collections.abc import Iterable

from apache_beam.io.filesystem import CompressionTypes, FileMetadata
from apache_beam.io.filesystems import FileSystems

__all__ = ["join_prefix", "listed_paths", "read_path_list", "stat_listed", "stat_listed_bytes"]


def join_prefix(prefix: str, line: str) -> str:
    """The full path of a listed ``line`` under ``prefix``."""
    if not prefix or "://" in line or line.startswith("/"):
        return line
    return prefix.rstrip("/") + "/" + line


def read_path_list(list_path: str) -> list[str]:
    """The non-blank, non-comment lines of one list, stripped (gzip by a ``.gz`` name)."""
    compression = (
        CompressionTypes.GZIP if list_path.endswith(".gz") else CompressionTypes.UNCOMPRESSED
    )
    with FileSystems.open(list_path, compression_type=compression) as f:
        text = f.read().decode("utf-8", "surrogateescape")
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def listed_paths(list_paths: Iterable[str], prefix: str = "") -> list[str]:
    """Every path the lists name, under ``prefix``, each once, in the order first listed."""
    seen: dict[str, None] = {}
    for list_path in list_paths:
        for line in read_path_list(list_path):
            seen.setdefault(join_prefix(prefix, line), None)
    return list(seen)


def stat_listed(path: str) -> FileMetadata:
    """``path``'s metadata, or a size of 0 when it cannot be found (the reader reports why)."""
    try:
        for metadata in FileSystems.match([path])[0].metadata_list:
            if metadata.path == path:
                return metadata
    except Exception:  # missing, or the filesystem refused: read_file says which
        pass
    return FileMetadata(path, 0)


def stat_listed_bytes(raw: bytes) -> FileMetadata:
    """``stat_listed`` of a path carried as bytes: Beam's str coder refuses the lone surrogates
    an undecodable byte becomes, so listed paths travel encoded until here."""
    return stat_listed(raw.decode("utf-8", "surrogateescape"))
