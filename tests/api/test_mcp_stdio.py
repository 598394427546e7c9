"""`ragbot mcp`: the MCP tools over stdio, as RAGBOT_API_KEY, with the official `mcp` client."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from sqlalchemy import text

from storage.db import Database
from storage.embeddings import Embedder
from storage.index import check_embedder
from tests.api.conftest import _documents, _keys
from tests.conftest import EMPTYING
from tests.support.processes import RAGBOT


async def test_ragbot_mcp_answers_over_stdio_from_its_keys_collections(
    database_url: str, embedder: Embedder, tmp_path: Path
) -> None:
    db = Database.connect(database_url)
    try:
        await check_embedder(db, embedder)  # records the model, as the first start does
        await _documents(db, embedder)
        keys = await _keys(db)
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {
            "DATABASE_URL": database_url,
            "RAGBOT_API_KEY": keys["public"],
            "RAGBOT_DATA_DIR": str(tmp_path / "data"),
        }
        server = StdioServerParameters(command=RAGBOT, args=["mcp"], env=env, cwd=tmp_path)
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} >= {"search", "ask"}
            called = await session.call_tool(
                "ask", {"question": "How much does an adult passport renewal cost?"}
            )
            said = getattr(called.content[0], "text", "{}")
            answered = called.structured_content or json.loads(said)
            assert "1,300" in answered["answer"]
            assert answered["citations"][0]["document"] == "passport"
            question = {"query": "What is the staff per diem for overseas travel?"}
            found = await session.call_tool("search", question)
            passages = (found.structured_content or {})["passages"]
            assert all(p["document"] != "travel" for p in passages)  # a public key
    finally:
        async with db.transaction() as session:  # as the `db` fixture leaves it
            for statement in EMPTYING:
                await session.execute(text(statement))
        await db.dispose()
