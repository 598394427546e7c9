"""The bot's MCP tools (`search`, `ask`, `list_documents`), for an API key's holder.

One MCP server (the official SDK's `MCPServer`) serves both transports: streamable
HTTP at `/mcp` on the shared server (`bot.api.mcp_http`), each call's key read from
its own `Authorization: Bearer` header; stdio for a desktop client (`ragbot mcp`),
with the key the process was started with. Every tool reads only the key's
collections through the serving core, counts in the key's rate limit and is
audited under the key's name (`mcp:<tool>`). A question asked with `ask` takes the
path of `POST /api/v1/ask` (`bot.api.whole`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from bot.api.auth import actor
from bot.api.errors import ApiError
from bot.api.models import AskRequest
from bot.api.openai_shapes import sources_text
from bot.api.turns import inbound
from bot.api.waiting import Waiting
from bot.api.whole import whole_answer
from bot.core.messages import Grant
from bot.core.serving import ServingCore

logger = logging.getLogger(__name__)
INSTRUCTIONS = (
    "Answers from the organisation's own documents. `search` finds passages; `ask` answers"
    " a question with numbered citations, in the question's language; `list_documents`"
    " (admin keys) lists what the knowledge base holds."
)


class McpTools:
    """What the tools do for a caller: its key checked, counted and audited."""

    def __init__(self, core: ServingCore, waiting: Waiting, key: str | None = None) -> None:
        """`key`: the one key of a stdio server (None: each HTTP call sends its own)."""
        self._core = core
        self._waiting = waiting
        self._key = key

    async def grant(self, headers: Mapping[str, str] | None) -> Grant:
        """The caller's grant: its bearer key, else the process's key (ToolError if none)."""
        bearer = self._key or ""
        if headers is not None:
            scheme, _, key = (headers.get("authorization") or "").partition(" ")
            bearer = key.strip() if scheme.lower() == "bearer" else ""
        grant = await self._core.verify_key(bearer) if bearer else None
        if grant is None:
            raise ToolError("Unknown or revoked API key.")
        return grant

    async def counted(self, grant: Grant, tool: str, target: str | None) -> None:
        """Count the call in the key's rate limit and audit it (ToolError when over)."""
        allowed = await self._core.count_call(grant)
        await self._audit(grant, tool, target, "200" if allowed else "429")
        if not allowed:
            raise ToolError("Too many calls with this key; wait for the next minute.")

    async def search(self, grant: Grant, query: str, top_k: int) -> list[dict[str, Any]]:
        """The passages of the key's collections that best match `query`."""
        await self.counted(grant, "search", query[:200])
        return await self._core.search(grant, query, top_k)

    async def ask(self, grant: Grant, question: str, language: str | None) -> dict[str, Any]:
        """The answer, with its citations (as `POST /api/v1/ask` gives them)."""
        try:
            body = AskRequest.model_validate({"question": question, "language": language})
        except ValueError as exc:
            raise ToolError(f"Not a question to ask: {exc}") from None
        message, conversation = inbound(grant, body, None, None)
        message = dataclasses.replace(message, offers_people=False)  # no button to press
        try:
            answer = await whole_answer(self._waiting, self._core, message, conversation)
        except ApiError as exc:  # rate limited, draining, the turn failed: said to the model
            await self._audit(grant, "ask", None, str(exc.status))
            raise ToolError(exc.message) from None
        await self._audit(grant, "ask", None, "200")
        return {
            "answer": answer["answer"],
            "citations": [
                {k: c.get(k) for k in ("n", "document", "title", "page", "url", "passage")}
                for c in answer["citations"]
            ],
            "sources": sources_text(answer["citations"], answer["language"]).strip(),
            "language": answer["language"],
            "outcome": answer["outcome"],
        }

    async def documents(self, grant: Grant) -> list[dict[str, Any]]:
        """The documents in the key's collections (admin keys only)."""
        if not grant.admin:
            await self._audit(grant, "list_documents", None, "403")
            raise ToolError("list_documents needs an admin key (ragbot apikey create --admin).")
        await self.counted(grant, "list_documents", None)
        listed: list[dict[str, Any]] = await self._core.knowledge.list_documents(
            actor(grant), grant.collections
        )
        return listed

    async def _audit(self, grant: Grant, tool: str, target: str | None, result: str) -> None:
        try:  # the call is answered; a lost audit row is logged, not raised
            await self._core.audit(actor(grant), f"mcp:{tool}", target, result)
        except Exception:
            logger.exception("could not audit mcp:%s by key %s", tool, grant.name)


def build_server(tools: McpTools) -> MCPServer[Any]:
    """The MCP server with the bot's tools (no transport: see `bot.api.mcp_http`, `ragbot
    mcp`)."""
    server: MCPServer[Any] = MCPServer(
        name="ragbot", instructions=INSTRUCTIONS, log_level="WARNING"
    )

    @server.tool()
    async def search(query: str, ctx: Context, top_k: int = 5) -> dict[str, Any]:
        """Passages of the knowledge base matching `query`, best first: each with its
        document, URL, page, relevance score and text (at most one per document)."""
        grant = await tools.grant(ctx.headers)
        return {"passages": await tools.search(grant, query, max(1, min(top_k, 20)))}

    @server.tool()
    async def ask(
        question: str,
        ctx: Context,
        language: Literal["en", "zh-hant", "zh-hans"] | None = None,
    ) -> dict[str, Any]:
        """Answer a question from the documents, with numbered citations ([n] in the
        answer); in the question's language unless `language` is given."""
        grant = await tools.grant(ctx.headers)
        return await tools.ask(grant, question, language)

    @server.tool()
    async def list_documents(ctx: Context) -> dict[str, Any]:
        """The documents in the key's collections: title, collection, language, URL
        (admin keys only)."""
        grant = await tools.grant(ctx.headers)
        return {"documents": await tools.documents(grant)}

    return server
