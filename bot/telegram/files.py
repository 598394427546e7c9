"""Files over the Bot API: downloading a sent document by its file id."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Bot


def file_fetcher(bot: Bot) -> Callable[[str], Awaitable[bytes]]:
    """Downloads a document by its file id (getFile, then the file URL).

    Registered with the core too: a delivery resumed by another worker has only
    the file id, and downloads the file again.
    """

    async def fetch(file_id: str) -> bytes:
        file = await bot.get_file(file_id)
        return bytes(await file.download_as_bytearray())

    return fetch
