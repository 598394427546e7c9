"""`ragbot mcp`: the MCP tools over stdio, for a desktop client that starts the command.

The process holds one API key (RAGBOT_API_KEY): every tool call acts as that key
(its collections, its rate limit, audited under its name), as a call to `/mcp` with
it would. Questions go through the inbox as the HTTP API's do; turns run in this
process. stdout carries the protocol alone: logs go to stderr.
"""

from __future__ import annotations

from bot.settings import ConfigurationError, Settings, reveal

SETTLE_S = 5.0  # what turns still running get when the client closes the pipe


async def serve_stdio(settings: Settings) -> None:
    """Serve the MCP tools on stdin/stdout until the client closes them."""
    from bot.api import turns
    from bot.api.mcp_tools import McpTools, build_server
    from bot.api.waiting import Waiting
    from bot.app.runtime import open_runtime
    from bot.core.handoff import mailbox
    from bot.core.platform import Platform
    from bot.settings import API_PLATFORM

    key = reveal(settings.ragbot_api_key)
    if not key:
        raise ConfigurationError("RAGBOT_API_KEY is not set: `ragbot apikey create` makes one")
    async with open_runtime(settings) as rt:
        core = rt.serving_core()
        if await core.verify_key(key) is None:
            raise ConfigurationError("RAGBOT_API_KEY is not an active API key")
        waiting = Waiting(core, keep=turns.kept)
        core.plug(Platform(API_PLATFORM, render=waiting.render, channel=mailbox.channel()))
        core.start()
        try:
            await build_server(McpTools(core, waiting, key)).run_stdio_async()
        finally:
            await core.begin_stop()
            await core.finish(SETTLE_S)
            waiting.stop_all()
            await core.close()
