"""Who asks an admin command, and the audit log every command writes, allowed or refused.

Who is admin comes from settings (SLACK_ADMIN_USER_IDS, TELEGRAM_ADMIN_USER_IDS);
the CLI is run by the operator and is always admin. A refused action changes
nothing and is written to the audit log like an allowed one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.settings import CONSOLE_PLATFORMS
from storage.db import Database
from storage.repositories import audit as audit_repo


class NotAllowedError(PermissionError):
    """The actor is not an admin; nothing was changed."""


class AdminInputError(ValueError):
    """The request cannot be carried out as given; the message says why."""


@dataclass(frozen=True)
class Actor:
    """Who asks: platform, user id, and whether settings make them an admin."""

    platform: str
    user_id: str
    is_admin: bool


class AuditLog:
    """The admin check and the audit rows, shared by every admin part (and the desks)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def check(self, actor: Actor, action: str, target: str | None) -> None:
        """Raise NotAllowedError (and audit the refusal) unless the actor is an admin."""
        if not actor.is_admin:
            await self.audit(actor, action, target, "refused", "not an admin")
            raise NotAllowedError(action)

    async def audit(
        self, actor: Actor, action: str, target: str | None, result: str, detail: str | None = None
    ) -> None:
        """Write one audit row in its own transaction (the desk's button presses use it too)."""
        async with self._db.transaction() as session:
            await audit_repo.audit(
                session, actor.platform, actor.user_id, action, target, result, detail
            )


def view_scope(
    actor: Actor, collections: Sequence[str] | None
) -> tuple[Sequence[str] | None, str | None]:
    """(collections, platform) an admin's views are limited to: none for the CLI."""
    if actor.platform in CONSOLE_PLATFORMS:
        return None, None
    return collections if collections is not None else (), actor.platform
