"""Streamed replies read as dicts (graph.chunk_stream): the answer, its usage and finish
reason as the SDK's objects gave them, errors mid-stream raised, connections reused."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage

from graph.chunk_stream import ChunkStream
from graph.llm_client import provider_errors, stream_text
from graph.models import build_chat_model
from tests.support.fake_openai import FakeOpenAI, Reply


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


async def test_a_streamed_answer_arrives_whole_with_its_usage(fake: FakeOpenAI) -> None:
    llm = build_chat_model(fake.url, "k", "fake", timeout=5.0)
    fake.script = [Reply("An adult passport renewal costs 1,300 dollars [1].")]
    chunks = [c async for c in llm.astream([HumanMessage("fee?")])]
    assert "".join(str(c.content) for c in chunks) == (
        "An adult passport renewal costs 1,300 dollars [1]."
    )
    finish = [c.response_metadata.get("finish_reason") for c in chunks]
    assert "stop" in finish
    usage = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert usage and usage[-1]["total_tokens"] > 0  # what the trace's generation records


async def test_an_error_event_mid_stream_is_a_provider_error(fake: FakeOpenAI) -> None:
    llm = build_chat_model(fake.url, "k", "fake", timeout=5.0)
    fake.script = [Reply("It costs 1,300 dollars", stream_error="The server had an error")]
    shown: list[str] = []
    with pytest.raises(openai.APIError, match="The server had an error") as raised:
        await stream_text(llm, [HumanMessage("fee?")], 5.0, shown.append)
    assert isinstance(raised.value, provider_errors())  # retried or explained, not a crash
    assert "".join(shown) == "It costs 1,300 dollars"  # what came before it was shown


async def test_streams_and_plain_calls_share_one_kept_alive_connection(fake: FakeOpenAI) -> None:
    llm = build_chat_model(fake.url, "k", "fake", timeout=5.0)
    fake.script = [Reply("one [1]."), Reply("{}"), Reply("two [1].")]
    _ = [c async for c in llm.astream([HumanMessage("a")])]
    await llm.ainvoke([HumanMessage("b")])
    _ = [c async for c in llm.astream([HumanMessage("c")])]
    assert fake.connections == 1  # the stream was read to its end: the connection went back


class _Lines:
    """An in-process response: the SSE lines a server sent."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.read = 0

    async def iter_lines(self) -> AsyncIterator[str]:
        for line in self.lines:
            self.read += 1
            yield line


async def _parse(lines: list[str]) -> tuple[list[dict[str, Any]], _Lines]:
    response = _Lines(lines)
    return [c async for c in ChunkStream(None, response)], response


async def test_comments_multiline_data_and_a_missing_delta_are_read_as_servers_mean() -> None:
    chunks, response = await _parse(
        [
            ": PROCESSING",  # a comment some gateways send while the model starts
            "",
            'data: {"choices": [{"index": 0,',
            'data: "delta": {"content": "Hi"}}]}',
            "",
            "event: message",
            'data: {"choices": [{"index": 0, "finish_reason": "stop"}]}',
            "",
            "data: [DONE]",
            "",
            "data: ignored after the end",
        ]
    )
    assert chunks == [
        {"choices": [{"index": 0, "delta": {"content": "Hi"}}]},
        {"choices": [{"index": 0, "finish_reason": "stop", "delta": {}}]},  # reason kept
    ]
    assert response.read == len(response.lines)  # read to the end: the connection is kept


async def test_a_last_event_without_its_blank_line_still_counts() -> None:
    chunks, _ = await _parse(['data: {"choices": []}', "", 'data: {"usage": {"total_tokens": 3}}'])
    assert chunks == [{"choices": []}, {"usage": {"total_tokens": 3}}]
