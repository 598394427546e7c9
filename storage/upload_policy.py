"""UploadPolicy: what a file from outside must be to get in (size, name, collection).

Built once from settings by the composition root and handed to the edges where
files enter: a chat upload or `ragbot upload` (AdminService.upload), and
`ragbot ingest` (IngestionService.ingest_path / ingest_bytes). What an edge has
accepted is trusted below it: the upload job does not check again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from storage import filenames

DEFAULT_COLLECTION = "public"
COLLECTION_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def collection_problem(collection: str) -> str | None:
    """Why `collection` is not a valid collection name (None: fine)."""
    if not COLLECTION_NAME.fullmatch(collection):
        return f"bad collection name {collection!r}"
    return None


@dataclass(frozen=True)
class UploadPolicy:
    """The size limit, file-name rules and where uploads land per platform."""

    max_bytes: int = 20 * 1024 * 1024
    # platform → the collection its admins' uploads land in unless they name one
    platform_collections: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # collection → who outside the organisation reads it ("citizens", "guests"): an
    # upload into one of these is screened for personal data before it is published
    screened_collections: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({DEFAULT_COLLECTION: ("citizens",)})
    )

    def collection_for(self, platform: str) -> str:
        """Where an upload from `platform` lands unless the uploader names a collection."""
        return self.platform_collections.get(platform, DEFAULT_COLLECTION)

    def screens(self, collection: str) -> bool:
        """True when an upload into `collection` is screened for personal data (outside
        readers can read it)."""
        return collection.strip() in self.screened_collections

    def readers(self, collection: str) -> str:
        """Who outside the organisation reads `collection`, e.g. `citizens/guests` ("" if none)."""
        return "/".join(self.screened_collections.get(collection.strip(), ()))

    def size_problem(self, size: int | None) -> str | None:
        """Why a file of `size` bytes is too large (None: fine, or the size is unknown)."""
        if size is None or size <= self.max_bytes:
            return None
        limit = self.max_bytes / 1024 / 1024
        return f"the file is {size / 1024 / 1024:.1f} MB, over the {limit:.3g} MB limit"

    def before_reading(self, size: int | None, collection: str) -> str | None:
        """Why a file of a declared `size` would be refused, checked before its bytes
        are downloaded or read, so that a refused file costs nothing (None: go on)."""
        return collection_problem(collection) or self.size_problem(size)

    def refusal(self, file_name: str, data: bytes, collection: str) -> str | None:
        """Why this file is refused as a whole: its name, collection, size, emptiness."""
        problem = self.name_problem(file_name) or self.before_reading(len(data), collection)
        if problem is None and not data:
            problem = "the file is empty"
        return problem

    @staticmethod
    def name_problem(file_name: str) -> str | None:
        """Why a file name is refused (folder parts, control characters), or None."""
        return filenames.name_problem(file_name)

    @staticmethod
    def clean_name(file_name: str) -> str:
        """The name the file is stored and shown under."""
        return filenames.clean_file_name(file_name)
