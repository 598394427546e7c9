"""Retention: conversations, closed hand-off cases, feedback, audit rows, chat state,
finished and stranded uploads (no job will ever finish them: their bytes go too) older
than RETENTION_DAYS go.

`ragbot purge` runs it on demand; the job worker runs it daily.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from storage.db import Database
from storage.repositories import retention

logger = logging.getLogger(__name__)


async def purge_expired(db: Database, days: int) -> dict[str, int]:
    """Delete everything past `days` in one transaction; rows deleted per table."""
    cutoff = datetime.now(UTC) - timedelta(days=days)
    async with db.transaction() as session:
        deleted = await retention.purge(session, cutoff)
    logger.info("retention %d days: deleted %s", days, deleted)
    return deleted
