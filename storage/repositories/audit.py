"""The audit log: who did what to the knowledge base, and with what result (never commits)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import AuditEntry


async def audit(
    session: AsyncSession,
    platform: str,
    user_id: str,
    action: str,
    target: str | None,
    result: str,
    detail: str | None = None,
) -> None:
    """Write one audit row."""
    session.add(
        AuditEntry(
            platform=platform,
            user_id=user_id,
            action=action,
            target=target,
            result=result,
            detail=detail,
        )
    )
