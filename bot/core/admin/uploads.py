"""A file an admin asked to add: size checked before downloading, then queued as a job.

Control goes one way: this module asks the audit log whether the sender is an
admin, gates the download on the UploadPolicy, then hands the file to
`Knowledge.upload`, the edge that checks it once and queues it. Whether the
sender asked at all (an upload intent, or a button on an offer) is decided
before, in bot.core.admin.upload_desk.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from bot.core.admin.audit import Actor, AdminInputError, NotAllowedError
from bot.core.admin.knowledge import Knowledge
from bot.core.messages import Attachment, InboundMessage, Reply
from storage.filenames import display_name
from storage.upload_policy import UploadPolicy
from textkit.catalog import say

logger = logging.getLogger(__name__)
_UPLOAD_CAPTION = re.compile(r"^/?upload\b\s*(.*)$", re.IGNORECASE | re.DOTALL)
_COLLECTION_ARG = re.compile(r"\bcollection[=:](\S+)", re.IGNORECASE)


def caption_options(text: str, default_collection: str) -> tuple[str | None, str]:
    """(title, collection) from a caption like `upload Staff handbook collection=internal`."""
    caption = _UPLOAD_CAPTION.match(text.strip())
    words = caption.group(1) if caption else ""
    named = _COLLECTION_ARG.search(words)
    title = _COLLECTION_ARG.sub("", words).strip() or None
    return title, named.group(1) if named else default_collection


Readers = Callable[[str, str], str]  # (collection, language) → who can read it, in words


async def receive_upload(
    knowledge: Knowledge,
    actor: Actor,
    message: InboundMessage,
    attachment: Attachment,
    language: str,
    readers: Readers,
) -> Reply:
    """Store and queue one attachment sent with an upload intent (the caption may name
    a title and `collection=`); the reply says "received" and where, or why not."""
    try:
        await knowledge.log.check(actor, "upload", attachment.name)
    except NotAllowedError:
        return Reply(say("not_admin", language), language, "not_admin")
    title, collection = caption_options(
        message.text, knowledge.policy.collection_for(actor.platform)
    )
    return await store_upload(
        knowledge, actor, attachment, title, collection, message.conversation_key, language, readers
    )


async def store_upload(
    knowledge: Knowledge,
    actor: Actor,
    attachment: Attachment,
    title: str | None,
    collection: str,
    conversation_key: str | None,
    language: str,
    readers: Readers,
) -> Reply:
    """Download, store and queue a file into `collection` for an admin who chose it.

    The receipt names the collection and who will be able to read it.
    """
    policy = knowledge.policy
    data, problem = await fetch_attachment(policy, attachment, actor.platform, collection)
    if problem is None:
        try:
            upload_id = await knowledge.upload(
                actor, attachment.name, data, title, collection, conversation_key, language
            )
        except AdminInputError as exc:
            problem = str(exc)
    if problem is not None:
        return refused(attachment, problem, language)
    text = say(
        "upload_received",
        language,
        name=display_name(attachment.name),
        size=human_size(len(data)),
        collection=collection,
        readers=readers(collection, language),
    )
    data_out = {"upload_id": upload_id, "collection": collection}
    return Reply(text, language, "upload_received", data_out)


async def fetch_attachment(
    policy: UploadPolicy, attachment: Attachment, platform: str, collection: str
) -> tuple[bytes, str | None]:
    """The attachment's bytes, or why not: sizes are checked before downloading.

    The reported size is checked against the policy (MAX_FILE_MB) and the
    platform's own download limit for bots (Telegram: 20 MB).
    """
    problem = policy.before_reading(attachment.size, collection)
    limit, size = attachment.platform_limit, attachment.size
    if problem is None and limit and size is not None and size > limit:
        problem = (
            f"the file is {size / 1024 / 1024:.1f} MB, over the {platform}"
            f" download limit for bots ({limit // (1024 * 1024)} MB)"
        )
    if problem is not None:
        return b"", problem
    try:
        return await attachment.read(), None
    except Exception as exc:  # the platform's error, whatever its kind: say it plainly
        logger.warning("download of %s failed: %s", attachment.name, exc)
        return b"", "the file could not be downloaded"


def human_size(size: int) -> str:
    """A byte count as people read it (kB / MB)."""
    if size < 1024 * 1024:
        return f"{max(1, round(size / 1024))} kB"
    return f"{size / 1024 / 1024:.1f} MB"


def refused(attachment: Attachment, problem: str, language: str) -> Reply:
    """The polite "I can't take this file" reply."""
    text = say("upload_refused", language, name=display_name(attachment.name), reason=problem)
    return Reply(text, language, "upload_refused", {"reason": problem})
