"""The MCP tools at /mcp: the official `mcp` client over streamable HTTP against the served API."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from sqlalchemy import text

from storage.embeddings import Embedder
from tests.api.conftest import ApiHarness, api_harness
from tests.support.core_fixtures import window_with_time_left


@contextlib.asynccontextmanager
async def mcp_session(h: ApiHarness, key: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP session to the bot's /mcp, sending the named key as its bearer."""
    headers = {"Authorization": f"Bearer {h.keys.get(key, key)}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{h.url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        yield session


def said(called: Any) -> str:
    """A tool result's text (an error's message)."""
    return str(getattr(called.content[0], "text", ""))


def result_of(called: Any) -> dict[str, Any]:
    """A tool's structured result (the text part holds the same JSON)."""
    assert not called.is_error, called.content
    data: dict[str, Any] = called.structured_content or json.loads(said(called))
    return data


async def test_the_tools_are_listed_and_ask_cites_the_ingested_document(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h, mcp_session(h, "public") as session:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert tools == {"search", "ask", "list_documents"}
        answered = result_of(
            await session.call_tool(
                "ask", {"question": "How much does an adult passport renewal cost?"}
            )
        )
        assert "1,300" in answered["answer"] and answered["outcome"] == "answered"
        assert answered["citations"][0]["document"] == "passport"
        assert "https://city.example.org/docs/passport" in answered["sources"]
        found = result_of(await session.call_tool("search", {"query": "passport renewal fee"}))
        [best, *_] = found["passages"]
        assert best["document"] == "passport" and best["url"].endswith("/docs/passport")
        assert best["score"] > 0 and "1,300" in best["text"]
        # in the asker's language
        parking = {"question": "住宅區停車許可證一年多少錢？"}
        chinese = result_of(await session.call_tool("ask", parking))
        assert chinese["language"] == "zh-hant" and "一千二百" in chinese["answer"]
        # a public key is no admin key
        listed = await session.call_tool("list_documents", {})
        assert listed.is_error and "admin key" in said(listed)
        async with h.worker.db.sessions() as db:
            actions = (
                await db.execute(text("SELECT action FROM audit_log WHERE action LIKE 'mcp:%'"))
            ).scalars()
            assert {"mcp:ask", "mcp:search", "mcp:list_documents"} <= set(actions)


async def test_a_public_key_never_reads_an_internal_document(
    database_url: str, embedder: Embedder
) -> None:
    question = "What is the staff per diem for overseas travel?"
    async with api_harness(database_url, embedder) as h:
        async with mcp_session(h, "public") as session:
            found = result_of(await session.call_tool("search", {"query": question}))
            assert all(p["document"] != "travel" for p in found["passages"])
            assert all("95 dollars" not in p["text"] for p in found["passages"])
            answered = result_of(await session.call_tool("ask", {"question": question}))
            assert "95" not in answered["answer"]
            assert all(c["document"] != "travel" for c in answered["citations"])
        async with mcp_session(h, "admin") as session:
            staff = result_of(await session.call_tool("search", {"query": question}))
            assert staff["passages"][0]["document"] == "travel"
            listed = result_of(await session.call_tool("list_documents", {}))
            titles = {d["title"] for d in listed["documents"]}
            assert {"travel", "passport"} <= titles


async def test_a_bad_key_is_refused_and_the_rate_limit_counts(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        # the SDK's client fails to connect (it names no status: the raw call below does)
        with pytest.raises(Exception):  # noqa: B017
            async with mcp_session(h, "rbk_not-a-real-key"):
                pass
        raw = await h.client("rbk_not-a-real-key").post("/mcp", json={})
        assert raw.status_code == 401 and raw.json()["code"] == "unauthorized"
        await window_with_time_left(20)  # the 4 calls must share one calendar minute
        async with mcp_session(h, "staff") as session:  # 3 calls a minute
            for _ in range(3):
                result_of(await session.call_tool("search", {"query": "passport fee"}))
            over = await session.call_tool("search", {"query": "passport fee"})
            assert over.is_error and "Too many calls" in said(over)
