"""What settings make of uploads: the one upload policy (size, where each platform's
uploads land, which collections outside readers see), ingestion's limits under it,
and the collections the chat platforms read."""

from __future__ import annotations

from types import MappingProxyType

from bot.settings import Settings
from storage.ingestion import IngestOptions
from storage.sandbox import ParseLimits
from storage.upload_policy import DEFAULT_COLLECTION, UploadPolicy


def chat_collections(cfg: Settings) -> set[str]:
    """The collections the chat platforms are set to read, guests' and channels' too, and
    where their admins' uploads land."""
    found: set[str] = set()
    for platform in ("slack", "telegram"):
        found |= set(cfg.collections(platform) or ())
        found |= set(cfg.guest_collections(platform) or ())
        found |= {c for extra in cfg.channel_collections(platform).values() for c in extra}
        found.add(cfg.upload_collection(platform))
    return found


def upload_policy(settings: Settings) -> UploadPolicy:
    """What files from outside must be to get in: MAX_FILE_MB, where uploads land, and
    which collections outside readers see (TELEGRAM_COLLECTIONS: citizens,
    SLACK_GUEST_COLLECTIONS: guests), whose uploads are screened for personal data."""
    platforms = ("slack", "telegram")
    outside = (
        ("citizens", settings.collections("telegram")),
        ("guests", settings.guest_collections("slack")),
    )
    readers: dict[str, tuple[str, ...]] = {}
    for audience, collections in outside:
        for collection in collections or ():
            readers[collection] = (*readers.get(collection, ()), audience)
    readers.setdefault(DEFAULT_COLLECTION, ("citizens",))  # public by name: always screened
    return UploadPolicy(
        max_bytes=settings.max_file_bytes,
        platform_collections=MappingProxyType(
            {p: settings.upload_collection(p) for p in platforms}
        ),
        screened_collections=MappingProxyType(readers),
    )


def ingest_options(settings: Settings, policy: UploadPolicy) -> IngestOptions:
    """Ingestion limits from settings, under the process's one upload policy."""
    return IngestOptions(
        policy=policy,
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        batch_size=settings.embedding_batch_size,
        parse=ParseLimits(
            settings.parse_memory_mb,
            settings.parse_timeout_s,
            settings.ingest_nice,
            settings.ocr_memory_mb,
            settings.ocr_timeout_s,
        ),
    )
