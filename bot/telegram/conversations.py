"""Which conversation a Telegram message (or a button pressed under the bot's) belongs to.

Private chats: the chat's current conversation (until /new). Groups: a user's
thread of replies to the bot, found by the bot message replied to (the
responder remembers each answer's conversation under it), else a new thread
named by its first message.
"""

from __future__ import annotations

from telegram import Chat

from bot.core.serving import ServingCore
from bot.telegram import translate
from bot.telegram.translate import PLATFORM


async def conversation_at(
    core: ServingCore, chat: Chat, user_id: int, replied: int | None, anchor: int
) -> tuple[str, str | None]:
    """(conversation key, chosen language) of `user_id` writing in `chat`, replying to the
    bot's message `replied` (if any), read together; `anchor` names a new group thread."""
    private = translate.is_private(chat)
    language_key = translate.language_key(user_id)
    if private:
        thread_key: str | None = translate.current_key(chat.id)
    elif replied is not None:
        thread_key = translate.message_key(chat.id, replied)
    else:
        thread_key = None
    keys = [language_key] + ([thread_key] if thread_key else [])
    found = await core.recall_many(PLATFORM, keys)
    conversation = found.get(thread_key) if thread_key else None
    if conversation is None:
        conversation = (
            str(chat.id) if private else translate.group_conversation(chat.id, user_id, anchor)
        )
    return conversation, found.get(language_key)
