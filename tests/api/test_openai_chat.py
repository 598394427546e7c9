"""The bot as an OpenAI-compatible model: the official `openai` client against the served API."""

from __future__ import annotations

import openai
import pytest
from sqlalchemy import text

from storage.embeddings import Embedder
from tests.api.conftest import ApiHarness, api_harness
from tests.api.test_stream import ANSWER
from tests.support.core_fixtures import window_with_time_left


def client_of(h: ApiHarness, key: str = "public") -> openai.AsyncOpenAI:
    """The `openai` client as a chat front-end sets it up: the bot's /v1, a ragbot key."""
    return openai.AsyncOpenAI(
        base_url=f"{h.url}/v1", api_key=h.keys.get(key, key), max_retries=0, timeout=30
    )


async def test_a_whole_completion_answers_with_its_sources_as_text_and_as_citations(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        client = client_of(h)
        listed = await client.models.list()
        assert [m.id for m in listed.data] == ["ragbot"]
        done = await client.chat.completions.create(
            model="ragbot",
            messages=[
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "How much does an adult passport renewal cost?"},
            ],
        )
        text = done.choices[0].message.content or ""
        assert "1,300" in text and done.choices[0].finish_reason == "stop"
        assert "\n\nSources:\n[1] passport — https://city.example.org/docs/passport" in text
        [cited] = done.model_dump()["citations"]
        assert cited["document"] == "passport" and cited["n"] == 1
        assert done.model_dump()["ragbot"]["outcome"] == "answered"
        await client.close()


async def test_a_follow_up_reads_the_chat_the_client_sends(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        client = client_of(h)
        question = "How much does an adult passport renewal cost?"
        first = await client.chat.completions.create(
            model="ragbot", messages=[{"role": "user", "content": question}]
        )
        answer = first.choices[0].message.content or ""
        follow_up = await client.chat.completions.create(
            model="ragbot",
            messages=[
                {"role": "user", "content": question},
                {"role": "assistant", "content": answer},
                {"role": "user", "content": "And how long does it take?"},
            ],
        )
        assert "four working days" in (follow_up.choices[0].message.content or "")
        # the same words with no chat before them are no follow-up of anything
        alone = await client.chat.completions.create(
            model="ragbot", messages=[{"role": "user", "content": "And how long does it take?"}]
        )
        assert "four working days" not in (alone.choices[0].message.content or "")
        await client.close()


async def test_a_streamed_completion_writes_chunks_then_sources_then_stops(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder, llm_answer=ANSWER) as h:
        client = client_of(h)
        stream = await client.chat.completions.create(
            model="ragbot",
            messages=[{"role": "user", "content": "How much does a passport renewal cost?"}],
            stream=True,
        )
        chunks = [c async for c in stream]
        assert all(c.object == "chat.completion.chunk" for c in chunks)
        assert chunks[0].choices[0].delta.role == "assistant"
        text = "".join(c.choices[0].delta.content or "" for c in chunks)
        assert "1,300 dollars" in text and "Sources:\n[1] passport" in text
        assert len([c for c in chunks if c.choices[0].delta.content]) > 2  # written as it comes
        last = chunks[-1]
        assert last.choices[0].finish_reason == "stop"
        assert last.model_dump()["citations"][0]["document"] == "passport"
        # the stream ends as OpenAI's does
        hello = [{"role": "user", "content": "hi"}]
        raw = await h.client("public").post(
            "/v1/chat/completions", json={"model": "ragbot", "stream": True, "messages": hello}
        )
        assert raw.text.rstrip().endswith("data: [DONE]")
        await client.close()


async def test_wrong_keys_bad_bodies_and_the_rate_limit_are_openai_errors(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        ask = [{"role": "user", "content": "passport fee?"}]
        wrong = client_of(h, "rbk_not-a-real-key")
        with pytest.raises(openai.AuthenticationError) as refused:
            await wrong.chat.completions.create(model="ragbot", messages=ask)  # type: ignore[arg-type]
        assert refused.value.status_code == 401
        assert refused.value.body == {
            "message": "Unknown or revoked API key.",
            "type": "invalid_request_error",
            "code": "unauthorized",
            "param": None,
        }
        public = client_of(h)
        with pytest.raises(openai.BadRequestError) as bad:
            await public.chat.completions.create(
                model="ragbot", messages=[{"role": "assistant", "content": "hello"}]
            )
        assert bad.value.status_code == 400 and "user's question" in bad.value.message
        with pytest.raises(openai.BadRequestError):
            await public.chat.completions.create(model="ragbot", messages=[])
        with pytest.raises(openai.NotFoundError):
            await public.chat.completions.create(model="gpt-4o", messages=ask)  # type: ignore[arg-type]
        staff = client_of(h, "staff")  # 3 calls a minute
        await window_with_time_left(20)  # the 4 calls must share one calendar minute
        for _ in range(3):
            await staff.chat.completions.create(model="ragbot", messages=ask)  # type: ignore[arg-type]
        with pytest.raises(openai.RateLimitError) as limited:
            await staff.chat.completions.create(model="ragbot", messages=ask)  # type: ignore[arg-type]
        assert 1 <= int(limited.value.response.headers["retry-after"]) <= 60
        assert limited.value.code == "rate_limited"
        # every call is audited under its key, as the other API routes are
        async with h.worker.db.sessions() as session:
            actions = (
                await session.execute(
                    text("SELECT action FROM audit_log WHERE action LIKE 'api:%v1/chat%'")
                )
            ).scalars()
            assert len(list(actions)) >= 4
        for made in (wrong, public, staff):
            await made.close()


async def test_a_refusal_points_at_no_button_the_client_does_not_have(
    database_url: str, embedder: Embedder
) -> None:
    """With people to hand over to (a staff inbox), the web chat's refusal says to press
    "Ask a person"; a chat front-end on /v1 has no such button, so its refusal does not."""
    async with api_harness(database_url, embedder, HANDOFF_WEB_INBOX="true") as h:
        question = "Who won the football world cup in 1966?"
        web = await h.client("public").post("/api/v1/ask", json={"question": question})
        assert web.json()["outcome"] == "refused"
        assert "Ask a person" in web.json()["answer"]
        client = client_of(h)
        done = await client.chat.completions.create(
            model="ragbot", messages=[{"role": "user", "content": question}]
        )
        text = done.choices[0].message.content or ""
        assert done.model_dump()["ragbot"]["outcome"] == "refused"
        assert "our documents don't answer" in text and "Ask a person" not in text
        await client.close()
