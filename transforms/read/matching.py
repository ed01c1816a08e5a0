"""Which files the ``--input`` patterns name: Beam's match, with four gaps closed.

- A local folder named as a pattern (``--input crawl``) is the files in it, as ``crawl/``
  matches them (not those in its subfolders; ``crawl/**`` reads those too): Beam would match
  the folder itself, which no reader can open.
- A pattern that matches nothing but names an existing file literally (``in/page[1].warc.gz``,
  whose ``[1]`` Beam reads as a character class) is that file.
- A dangling symbolic link that a local pattern matches is listed (with size 0), so that its
  reader reports it as an ``unreadable_file`` reject: Beam's local listing drops it silently,
  and the summary must account for every path the patterns matched.
- A file that several patterns match is read once (``OncePerFile``; the job logs how many).

``match_pattern`` runs on the driver (to check the patterns before launching) and in the
pipeline (to list the files to read), so both see the same files.
"""

from __future__ import annotations

import os
import re

import apache_beam as beam
from apache_beam.io.filesystem import FileMetadata, FileSystem
from apache_beam.io.filesystems import FileSystems

from transforms.paths import has_wildcards, is_local

__all__ = ["OncePerFile", "dangling_links", "folder_contents", "match_pattern"]


def folder_contents(pattern: str) -> tuple[list[str], list[str]] | None:
    """The paths of the entries of the local folder ``pattern`` names literally (a link to a
    folder included), split into (files, subfolders), sorted; None when it names no folder.

    "Files" are all that is not a folder: FIFOs, sockets and dangling links too, so that the
    reader reports each rather than the listing dropping it."""
    if not is_local(pattern) or not os.path.isdir(pattern):
        return None
    files, folders = [], []
    with os.scandir(pattern) as entries:
        for entry in entries:
            (folders if entry.is_dir() else files).append(os.path.join(pattern, entry.name))
    return sorted(files), sorted(folders)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # a dangling link: its reader says why it cannot be read
        return 0


def dangling_links(pattern: str) -> list[str]:
    """Local symbolic links matched by ``pattern`` (Beam's syntax) whose target is missing."""
    if pattern.endswith(("/", "\\")):
        pattern += "*"
    prefix = re.match(r"^[^[*?]*", pattern).group(0)
    if prefix == pattern:
        return [pattern] if os.path.islink(pattern) and not os.path.exists(pattern) else []
    top = os.path.dirname(prefix)
    if not top:  # as Beam's local listing: a pattern without a folder lists nothing
        return []
    matches = re.compile(FileSystem.translate_pattern(pattern)).match
    found = []
    for folder, _, names in os.walk(top):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path) and not os.path.exists(path) and matches(path):
                found.append(path)
    return sorted(found)


def match_pattern(pattern: str) -> list[FileMetadata]:
    """The files ``pattern`` names, in Beam's glob syntax, else literally (see the module)."""
    folder = folder_contents(pattern)
    if folder is not None:
        return [FileMetadata(path, _size(path)) for path in folder[0]]
    found = list(FileSystems.match([pattern])[0].metadata_list)
    if not found and has_wildcards(pattern) and FileSystems.exists(pattern):
        found = [FileSystems.get_filesystem(pattern).metadata(pattern)]
    if is_local(pattern):
        found += [FileMetadata(path, 0) for path in dangling_links(pattern)]
    return found


def _path_key(metadata: FileMetadata) -> tuple[bytes, FileMetadata]:
    # A path may hold undecodable bytes (lone surrogates), which Beam's str coder refuses.
    return metadata.path.encode("utf-8", "surrogateescape"), metadata


class OncePerFile(beam.PTransform):
    """``FileMetadata`` in, one per distinct path out."""

    def expand(self, files):
        return (
            files
            | "KeyByPath" >> beam.Map(_path_key)
            | "GroupByPath" >> beam.GroupByKey()
            | "First" >> beam.MapTuple(lambda _path, same: next(iter(same)))
        )
