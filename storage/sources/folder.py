"""Reading a folder source: its files below, recursively, with a cheap change stamp each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from storage.ingestion import collect_files
from storage.loaders import SUPPORTED_SUFFIXES


class FolderUnreadableError(Exception):
    """The folder is not there (an unmounted share): its documents are kept."""


@dataclass(frozen=True)
class FolderFile:
    """A file of the folder: its path below the folder, where it is, and its size/mtime stamp."""

    key: str
    path: Path
    stamp: str


def folder_files(root: Path) -> list[FolderFile]:
    """The files `ragbot ingest` reads below `root` (hidden ones left out), sorted.

    The stamp (size and modification time) spares reading a file that did not change;
    one whose stamp changed is read and compared by its content hash.
    """
    if not root.is_dir():
        raise FolderUnreadableError(f"{root}: no such folder")
    found = []
    inside = root.resolve()
    for path in collect_files([root]):
        if path.suffix.lower() not in SUPPORTED_SUFFIXES:
            continue
        if not path.resolve().is_relative_to(inside):
            continue  # a link out of the folder: its target is not the folder's to publish
        try:
            stat = path.stat()
        except OSError:
            continue  # gone meanwhile: counted missing like any file not found
        key = path.relative_to(root).as_posix()
        found.append(FolderFile(key, path, f"{stat.st_size}-{stat.st_mtime_ns}"))
    return found
