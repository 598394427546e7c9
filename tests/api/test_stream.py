"""The answer as server-sent events: event order, first event time, cancel on disconnect."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy import text

from storage.embeddings import Embedder
from tests.api.conftest import PLAN, ApiHarness, api_harness
from tests.support.fake_openai import Reply

ANSWER = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. " * 2


async def events_of(lines: AsyncIterator[str]) -> list[tuple[str, dict[str, Any]]]:
    """Every (type, data) event of an SSE response's lines."""
    out: list[tuple[str, dict[str, Any]]] = []
    kind = None
    async for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: ") and kind is not None:
            out.append((kind, json.loads(line.removeprefix("data: "))))
    return out


async def test_the_stream_reasons_calls_tools_streams_chunks_then_is_done(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder, llm_answer=ANSWER) as h:
        client = h.client("public")
        started = time.perf_counter()
        question = {"question": "How much does a passport renewal cost?"}
        async with client.stream("POST", "/api/v1/ask/stream", json=question) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            lines = response.aiter_lines()
            first = await anext(lines)
            first_after = time.perf_counter() - started
            rest = await events_of(lines)
        assert first == "event: reasoning" and first_after < 1.0
        kinds = [kind for kind, _ in rest]
        assert kinds[-1] == "done" and "error" not in kinds and "chunk" in kinds, rest
        assert kinds.index("tool_call") < kinds.index("chunk") < kinds.index("done"), rest
        [call] = [data for kind, data in rest if kind == "tool_call"]
        assert call["name"] == "retrieve_documents" and call["args"]["query"]
        streamed = "".join(data["text"] for kind, data in rest if kind == "chunk")
        done = rest[-1][1]
        assert "1,300 dollars" in streamed and "1,300 dollars" in done["answer"]
        assert (
            done["sources"] == done["citations"] and done["citations"][0]["document"] == "passport"
        )
        assert done["answer_id"] > 0 and done["outcome"] == "answered"


async def test_the_get_form_streams_the_same_events(database_url: str, embedder: Embedder) -> None:
    async with api_harness(database_url, embedder) as h:
        params = {"question": "住宅區停車許可證一年多少錢？", "language": "zh-hant"}
        async with h.client("public").stream("GET", "/api/v1/ask/stream", params=params) as r:
            assert r.status_code == 200
            events = await events_of(r.aiter_lines())
        done = events[-1]
        assert done[0] == "done" and "一千二百" in done[1]["answer"]
        chunks = [data["text"] for kind, data in events if kind == "chunk"]
        assert chunks == [done[1]["answer"]]  # written at once (no model): one chunk
        assert done[1]["language"] == "zh-hant"


async def _stored_outcomes(h: ApiHarness) -> list[str | None]:
    async with h.worker.db.sessions() as session:
        rows = await session.execute(
            text("SELECT details->>'error' FROM messages WHERE role = 'user' ORDER BY id")
        )
        return [r[0] for r in rows]


async def test_a_client_that_disconnects_cancels_the_turn_and_its_model_call(
    database_url: str, embedder: Embedder
) -> None:
    slow = ANSWER * 8  # about 160 pieces at 0.1 s
    async with api_harness(database_url, embedder, llm_answer=slow, pace=0.1) as h:
        assert h.llm is not None
        client = h.client("public")
        question = {
            "question": "How much does a passport renewal cost?",
            "conversation_id": "closed-tab-000000001",
        }
        async with client.stream("POST", "/api/v1/ask/stream", json=question) as response:
            async for line in response.aiter_lines():
                if line == "event: chunk":
                    break  # the answer started: the user closes the tab
        requests, pieces = len(h.llm.requests), h.llm.pieces_sent
        await asyncio.sleep(1.5)
        assert len(h.llm.requests) == requests  # no further model request
        assert h.llm.pieces_sent <= pieces + 3  # the model's stream was cut, not read to the end
        assert pieces < 100
        assert await _stored_outcomes(h) == ["cancelled"]
        # the next question in the same conversation works normally
        h.llm.script = [Reply(PLAN), Reply(ANSWER)]
        again = await client.post("/api/v1/ask", json={**question, "question": "passport fee?"})
        assert again.status_code == 200 and "1,300 dollars" in again.json()["answer"]
        assert await _stored_outcomes(h) == ["cancelled", None]


async def test_a_question_sent_without_a_length_streams_to_the_end(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        raw = json.dumps({"question": "How much does a passport renewal cost?"}).encode()

        async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: read by the gate
            yield raw[:10]
            yield raw[10:]

        async with h.client("public").stream(
            "POST", "/api/v1/ask/stream", content=chunked(),
            headers={"Content-Type": "application/json"},
        ) as response:  # fmt: skip
            assert response.status_code == 200
            events = await events_of(response.aiter_lines())
        assert events[-1][0] == "done" and "1,300" in events[-1][1]["answer"]
