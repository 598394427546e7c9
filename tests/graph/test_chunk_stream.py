"""Streamed replies handed over as dicts (graph.chunk_stream): the answer, its usage and
finish reason as the SDK's objects gave them; a malformed or failing stream a provider
error (retried, or explained), never a crash of the turn; connections reused."""

from __future__ import annotations

import openai
import pytest
from langchain_core.messages import HumanMessage

from graph.llm_client import provider_errors, stream_text
from graph.models import build_chat_model
from tests.support.fake_openai import FakeOpenAI, Reply


async def _stream(fake: FakeOpenAI, reply: Reply, shown: list[str] | None = None) -> str:
    llm = build_chat_model(fake.url, "k", "fake", timeout=5.0)
    fake.script = [reply]
    sink = shown if shown is not None else []
    return await stream_text(llm, [HumanMessage("fee?")], 5.0, sink.append)


async def test_a_streamed_answer_arrives_whole_with_its_usage(fake: FakeOpenAI) -> None:
    llm = build_chat_model(fake.url, "k", "fake", timeout=5.0)
    # U+2028 and U+0085 as servers write them, raw inside the JSON: not line ends of SSE
    answer = "An adult passport renewal\u2028costs 1,300\x85dollars [1]."
    fake.script = [Reply(answer)]
    chunks = [c async for c in llm.astream([HumanMessage("fee?")])]
    assert "".join(str(c.content) for c in chunks) == answer
    assert "stop" in [c.response_metadata.get("finish_reason") for c in chunks]
    usage = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert usage and usage[-1]["total_tokens"] > 0  # what the trace's generation records


async def test_comments_and_a_chunk_without_its_delta_are_read_as_servers_mean(
    fake: FakeOpenAI,
) -> None:
    # a gateway's comment while the model works; a last chunk naming only its finish reason
    last = '{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "fake",'
    last += ' "choices": [{"index": 0, "finish_reason": "stop"}]}'
    # and events without data: a gateway's ping, a reconnection hint
    lines = (": PROCESSING", "event: ping", "", "retry: 3000", "", f"data: {last}")
    reply = Reply("It costs 1,300 dollars.", cut=True, raw_lines=lines)
    text = await _stream(fake, reply)
    assert text == "It costs 1,300 dollars."  # the finish reason counted: not a cut stream


@pytest.mark.parametrize(
    "reply, says",
    [
        (Reply("It costs", stream_error="The server had an error"), "The server had an error"),
        (Reply("It costs", raw_lines=("data: {not json",)), "malformed stream event"),
        (Reply("It costs", raw_lines=("data: [1, 2]",)), "malformed stream event"),
        (Reply("It costs", raw_lines=('data: {"choices": 5}',)), "malformed stream event"),
        (Reply("It costs", raw_lines=('data: {"choices": [1]}',)), "malformed stream event"),
        (Reply("It costs", raw_lines=('data: {"choices": [{"delta": "x"}]}',)), "malformed"),
        (Reply("It costs", abort=True), "Connection error"),
    ],
)
async def test_a_failing_or_malformed_stream_is_a_provider_error(
    fake: FakeOpenAI, reply: Reply, says: str
) -> None:
    shown: list[str] = []
    with pytest.raises(openai.APIError, match=says) as raised:
        await _stream(fake, reply, shown)
    assert isinstance(raised.value, provider_errors())  # retried or explained, not a crash
    assert "".join(shown) == "It costs"  # what came before it was shown


async def test_streams_and_plain_calls_share_one_kept_alive_connection(fake: FakeOpenAI) -> None:
    llm = build_chat_model(fake.url, "k", "fake", timeout=5.0)
    fake.script = [Reply("one [1]."), Reply("{}"), Reply("two [1].")]
    _ = [c async for c in llm.astream([HumanMessage("a")])]
    await llm.ainvoke([HumanMessage("b")])
    _ = [c async for c in llm.astream([HumanMessage("c")])]
    assert fake.connections == 1  # each stream was read to its end: the connection went back


async def test_a_stopped_server_answers_no_kept_alive_connection() -> None:
    server = FakeOpenAI().start()
    llm = build_chat_model(server.url, "k", "fake", timeout=5.0)
    server.script = [Reply("{}")]
    await llm.ainvoke([HumanMessage("a")])
    server.stop()  # the model server went down: its kept-alive connection with it
    with pytest.raises(openai.APIConnectionError):
        await llm.ainvoke([HumanMessage("b")])
