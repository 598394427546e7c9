"""An InboundMessage as JSON for the inbox, and back (any worker can answer it).

Attachments keep their platform reference (`ref`) only: bytes are never stored
here, and the worker that answers downloads the file again with its adapter's
fetcher.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.messages import Attachment, Audience, InboundMessage

FileFetcher = Callable[[str], Awaitable[bytes]]  # a platform reference → the file's bytes


def encode(message: InboundMessage) -> dict[str, Any]:
    """The message as JSON-ready data (attachments as references).

    NUL characters are dropped: Postgres refuses them in text and JSON, and a
    message that can never be stored would never be acknowledged either.
    """
    return _without_nul(
        {
            "platform": message.platform,
            "delivery_id": message.delivery_id,
            "conversation_key": message.conversation_key,
            "user_id": message.user_id,
            "text": message.text,
            "language_hint": message.language_hint,
            "language": message.language,
            "attachments": [
                {
                    "name": a.name,
                    "size": a.size,
                    "platform_limit": a.platform_limit,
                    "mime": a.mime,
                    "ref": a.ref,
                    "kind": a.kind,
                    "seconds": a.seconds,
                }
                for a in message.attachments
            ],
            "command": message.command,
            "args": list(message.args),
            "audience": dataclasses.asdict(message.audience),
            "upload_intent": message.upload_intent,
            "direct": message.direct,
            "route": message.route,
            "reply_to": message.reply_to,
        }
    )


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nul(v) for v in value]
    return value


def decode(data: dict[str, Any], fetcher: FileFetcher | None) -> InboundMessage:
    """The message again; attachments download through `fetcher` (None: they cannot)."""
    attachments = tuple(
        Attachment(
            name=a["name"],
            size=a.get("size"),
            platform_limit=a.get("platform_limit"),
            mime=a.get("mime"),
            ref=a.get("ref"),
            kind=a.get("kind") or "file",
            seconds=a.get("seconds"),
            fetch=_fetch(fetcher, a["ref"]) if fetcher and a.get("ref") else None,
        )
        for a in data.get("attachments") or ()
    )
    audience = data.get("audience") or {}
    return InboundMessage(
        platform=data["platform"],
        delivery_id=data["delivery_id"],
        conversation_key=data["conversation_key"],
        user_id=data["user_id"],
        text=data.get("text") or "",
        language_hint=data.get("language_hint"),
        language=data.get("language"),
        attachments=attachments,
        command=data.get("command"),
        args=tuple(data.get("args") or ()),
        audience=audience_from(audience),
        upload_intent=bool(data.get("upload_intent")),
        direct=bool(data.get("direct")),
        route=dict(data.get("route") or {}),
        reply_to=data.get("reply_to"),
    )


# a grant is never read back from storage: only the core's own key check makes one
_AUDIENCE_FIELDS = {f.name for f in dataclasses.fields(Audience)} - {"grant"}
_LOOKUP_FIELDS = {"pending", "sender_team", "in_channel"}  # a pending audience's only


def audience_from(data: dict[str, Any]) -> Audience:
    """An audience from stored JSON; fields this version does not know are left out."""
    return Audience(**{k: v for k, v in data.items() if k in _AUDIENCE_FIELDS})


def access_facts(audience: Audience) -> dict[str, Any]:
    """A learned audience as JSON for a send that reads by it (a form file): what
    decides access, without the grant or a pending audience's lookup fields."""
    data = dataclasses.asdict(audience)
    return {k: v for k, v in data.items() if k in _AUDIENCE_FIELDS - _LOOKUP_FIELDS}


def _fetch(fetcher: FileFetcher, ref: str) -> Callable[[], Awaitable[bytes]]:
    async def fetch() -> bytes:
        return await fetcher(ref)

    return fetch
