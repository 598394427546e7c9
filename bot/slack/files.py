"""Files shared in Slack: downloading one by its private URL with the bot's token."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import aiohttp


def file_fetcher(token: str, limit: int) -> Callable[[str], Awaitable[bytes]]:
    """Downloads a shared file's bytes (bearer `token`; never more than `limit` bytes).

    Registered with the core too: a delivery resumed by another worker has only
    the file's URL, and downloads it again.
    """

    async def fetch(url: str) -> bytes:
        headers = {"Authorization": f"Bearer {token}"}
        data = bytearray()
        async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as resp:
            resp.raise_for_status()
            async for piece in resp.content.iter_chunked(64 * 1024):
                data += piece
                if len(data) > limit:  # the reported size was wrong: stop reading
                    raise ValueError("the file is over the size limit")
        return bytes(data)

    return fetch
