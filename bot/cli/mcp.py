"""`ragbot mcp`: the MCP tools over stdio, as the API key in RAGBOT_API_KEY."""

from __future__ import annotations

from bot.cli.base import app, run, settings


@app.command()
def mcp() -> None:
    """Serve the MCP tools (search, ask, list_documents) over stdio for a desktop client,
    as the API key in RAGBOT_API_KEY. Over HTTP, `ragbot serve` has them at /mcp."""
    from bot.app.mcp_stdio import serve_stdio  # the serving side: only for this command

    cfg = settings()

    async def go() -> None:
        await serve_stdio(cfg)

    run(go)
