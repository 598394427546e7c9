"""Files over the Bot API: downloading a sent document, sending a form's stored file."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import InputFile
from telegram.ext import ContextTypes

from bot.core.dispatcher import ServingCore
from bot.telegram.translate import PLATFORM

Context = ContextTypes.DEFAULT_TYPE


def document_fetcher(context: Context) -> Callable[[str], Awaitable[bytes]]:
    """Downloads a document by its file id (getFile, then the file URL)."""
    bot = context.bot

    async def fetch(file_id: str) -> bytes:
        file = await bot.get_file(file_id)
        return bytes(await file.download_as_bytearray())

    return fetch


async def send_form_file(core: ServingCore, name: str, chat_id: int, context: Context) -> bool:
    """Send the stored file of form `name` if Telegram's users may read it; False if not."""
    file = await core.form_file(PLATFORM, name)
    if file is None:
        return False
    await context.bot.send_document(
        chat_id, InputFile(file.data, filename=file.name), caption=name[:1024]
    )
    return True
