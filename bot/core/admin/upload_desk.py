"""Where files become uploads: only when an admin asked, into the collection they chose.

A file sent with an upload intent (Telegram `/upload`, Slack `upload` in a DM)
is stored and queued at once. A file an admin sent without one (forwarded or
not) is only offered: the reply has a button per collection the platform's
audience may read, and "Ignore"; the file's reference (platform file id or URL,
name, size, uploader, chat) waits in chat_state under an opaque id and expires.
Nothing is downloaded or stored until that same admin presses a button.

An upload held for personal data (bot.core.admin.jobs) is published anyway or
cancelled here too, again only by the admin who sent it. Every step is audited.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.core.admin.audit import Actor, AdminInputError
from bot.core.admin.knowledge import Knowledge
from bot.core.admin.uploads import Readers, human_size, receive_upload, store_upload
from bot.core.chat_state import ChatState
from bot.core.messages import Attachment, Audience, Button, InboundMessage, Reply
from storage.db import Database
from storage.filenames import display_name
from storage.repositories import uploads as uploads_repo
from textkit.catalog import say
from textkit.scripts import EN

logger = logging.getLogger(__name__)
OFFER_TTL_S = 24 * 3600.0  # an offer's buttons work for a day, then the reference is gone
OFFERED = ("public", "internal")  # the collections an offer may name, in button order
IGNORE = "ignore"
FileFetcher = Callable[[str], Awaitable[bytes]]  # the adapter downloads a reference
IsAdmin = Callable[[str, str, Audience | None], bool]
Collections = Callable[[str, Audience | None], Sequence[str] | None]


def offer_key(offer_id: str) -> str:
    """Where a pending file waits in chat_state."""
    return f"offer:{offer_id}"


class UploadDesk:
    """Receives files, offers the ones nobody asked to add, and handles the buttons."""

    def __init__(
        self,
        db: Database,
        knowledge: Knowledge,
        chat_state: ChatState,
        is_admin: IsAdmin,
        collections: Collections,
        readers: Readers,
    ) -> None:
        self._db = db
        self._knowledge = knowledge
        self._state = chat_state
        self._is_admin = is_admin
        self._collections = collections
        self.readers = readers

    async def receive(
        self, message: InboundMessage, attachment: Attachment, language: str
    ) -> Reply:
        """One file of a message: uploaded, offered, or refused.

        Non-admins are refused (and audited) whatever they meant; an admin's file
        without an upload intent is offered in a one-to-one chat, and outside one
        (a Slack channel or thread) only gets a hint that uploads happen in a DM.
        """
        actor = Actor(message.platform, message.user_id, message.is_admin)
        if not actor.is_admin or message.upload_intent:
            return await receive_upload(
                self._knowledge, actor, message, attachment, language, self.readers
            )
        if not message.direct or attachment.ref is None:
            await self._knowledge.log.audit(actor, "upload:not_asked", attachment.name, "ignored")
            return Reply(say("upload_in_dm", language), language, "upload_in_dm")
        return await self._offer(message, actor, attachment, language)

    async def _offer(
        self, message: InboundMessage, actor: Actor, attachment: Attachment, language: str
    ) -> Reply:
        readable = self._collections(message.platform, message.audience)
        choices = [c for c in OFFERED if readable is None or c in readable]
        if not choices:  # the platform reads neither: its default is the one choice
            choices = [self._knowledge.policy.collection_for(message.platform)]
        offer_id = secrets.token_urlsafe(9)  # 12 characters: fits Telegram's 64-byte data
        pending = {
            "ref": attachment.ref,
            "name": attachment.name,
            "size": attachment.size,
            "mime": attachment.mime,
            "limit": attachment.platform_limit,
            "user": message.user_id,
            "conversation": message.conversation_key,
            "choices": choices,
            "language": language,
        }
        await self._state.remember(message.platform, offer_key(offer_id), json.dumps(pending))
        await self._knowledge.log.audit(
            actor, "upload:offered", attachment.name, "pending", ",".join(choices)
        )
        buttons = [
            Button("upload", f"{offer_id}:{c}", say("upload_add_to", language, collection=c))
            for c in choices
        ] + [Button("upload", f"{offer_id}:{IGNORE}", say("upload_ignore_button", language))]
        size = human_size(attachment.size) if attachment.size else "?"
        text = say("upload_offer", language, name=display_name(attachment.name), size=size)
        return Reply(text, language, "upload_offer", {"buttons": tuple(buttons)})

    # --- buttons -------------------------------------------------------------------

    async def press(
        self,
        platform: str,
        user_id: str,
        audience: Audience | None,
        action: str,
        value: str,
        fetch: FileFetcher,
        language: str | None = None,
    ) -> Reply:
        """A button under an offer or a held upload. Only the admin who sent the file
        may choose: another admin's press changes nothing (kind `not_yours`).

        A non-admin's press is answered "gone" (for the presser alone: `private`)
        before anything is looked up or audited: it learns nothing about which
        uploads exist, and forged presses cannot flood the audit log.
        """
        language = language or EN
        actor = Actor(platform, user_id, self._is_admin(platform, user_id, audience))
        if not actor.is_admin:
            return _gone(language, private=True)
        if action == "upload":
            return await self._choose(actor, value, fetch, language)
        if action == "held":
            return await self._settle(actor, value, language)
        return _gone(language)

    async def _choose(self, actor: Actor, value: str, fetch: FileFetcher, language: str) -> Reply:
        platform = actor.platform
        offer_id, _, choice = value.partition(":")
        key = offer_key(offer_id)
        raw = await self._state.recall(platform, key, OFFER_TTL_S)
        if raw is None:
            return _gone(language)
        pending: dict[str, Any] = json.loads(raw)
        language = str(pending.get("language") or language)
        if pending.get("user") != actor.user_id:
            await self._knowledge.log.audit(
                actor, "upload:press", pending.get("name"), "refused", "not theirs"
            )
            return Reply(say("upload_not_yours", language), language, "not_yours")
        if choice != IGNORE and choice not in pending.get("choices", ()):
            return _gone(language)
        if await self._state.take(platform, key, OFFER_TTL_S) is None:
            return _gone(language)  # pressed twice: the first press has it
        name = str(pending["name"])
        if choice == IGNORE:
            await self._knowledge.log.audit(actor, "upload:ignored", name, "ok")
            return Reply(
                say("upload_ignored", language, name=display_name(name)), language, "upload_ignored"
            )
        ref = str(pending["ref"])

        async def download() -> bytes:
            return await fetch(ref)

        attachment = Attachment(
            name=name,
            size=pending.get("size"),
            platform_limit=pending.get("limit"),
            mime=pending.get("mime"),
            fetch=download,
            ref=ref,
        )
        return await store_upload(
            self._knowledge,
            actor,
            attachment,
            None,
            choice,
            pending.get("conversation"),
            language,
            self.readers,
        )

    async def _settle(self, actor: Actor, value: str, language: str) -> Reply:
        """Publish a held upload anyway (queued again, unscreened) or cancel it (bytes deleted).

        Only ever called for an admin (`press` answers everyone else first).
        """
        raw_id, _, what = value.partition(":")
        if not raw_id.isdigit() or what not in ("publish", "cancel"):
            return _gone(language)
        upload_id = int(raw_id)
        publish = what == "publish"
        try:
            held = await self._knowledge.settle_held(actor, upload_id, publish)
        except AdminInputError:  # a worker without a queue cannot publish: it stays held
            return _gone(language)
        except Exception:  # the queue is down: held again, so the admin can press once more
            logger.exception("could not queue held upload %s", upload_id)
            return Reply(say("error", language), language, "error")
        if held is None:
            async with self._db.sessions() as session:
                current = await uploads_repo.get_upload(session, upload_id)
            language = (current.language if current else None) or language
            if current is not None and current.status == "held":  # someone else's
                await self._knowledge.log.audit(
                    actor, "upload:press", current.file_name, "refused", "not theirs"
                )
                return Reply(say("upload_not_yours", language), language, "not_yours")
            return _gone(language)
        language = held.language or language
        name = display_name(held.file_name)
        if not publish:
            return Reply(say("upload_cancelled", language, name=name), language, "upload_cancelled")
        text = say(
            "upload_publishing",
            language,
            name=name,
            collection=held.collection,
            readers=self.readers(held.collection, language),
        )
        return Reply(text, language, "upload_publishing", {"upload_id": upload_id})


def _gone(language: str, *, private: bool = False) -> Reply:
    """The offer or held upload is not (or no longer) there to act on.

    `private`: tell only the presser (a toast, an ephemeral message) and leave
    the message with the buttons as it is.
    """
    data = {"private": True} if private else {}
    return Reply(say("upload_offer_gone", language), language, "gone", data)
