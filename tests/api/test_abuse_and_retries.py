"""The API against a careless or hostile client: polling floods, one visitor using up a
shared key, guessable conversation ids, replayed calls, bodies that are not JSON."""

from __future__ import annotations

import asyncio
import re

from sqlalchemy import text
from starlette.requests import Request

from bot.api.clients import client_address, trusted_networks
from bot.core.handoff.mailbox import Mailbox
from storage.embeddings import Embedder
from tests.api.conftest import ApiHarness, api_harness
from tests.api.test_stream import ANSWER, events_of
from tests.support.core_fixtures import settings_for_tests, window_with_time_left

CONVERSATION = "poll-conversation-0001"
QUESTION = {"question": "How much does an adult passport renewal cost?"}


async def _poll_audits(h: ApiHarness) -> int:
    async with h.worker.db.sessions() as session:
        found = await session.scalar(
            text("SELECT count(*) FROM audit_log WHERE action LIKE 'api:GET %messages'")
        )
    return int(found or 0)


async def test_polls_have_their_own_limit_and_only_reads_with_staff_messages_are_audited(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder, web_chat=True) as h:
        web = h.client("public")
        url = f"/api/v1/conversations/{CONVERSATION}/messages"
        first = await web.get(url)
        assert first.status_code == 200 and first.json()["messages"] == []
        # a staff reply waits in the conversation's mailbox: the next read hands it over
        grant = await h.worker.core.verify_key(h.keys["public"])
        assert grant is not None
        await h.worker.core.enqueue(
            "api", f"{grant.key_id}/{CONVERSATION}", "staff-reply-1", {"text": "We can help."}
        )
        mailbox = Mailbox(h.worker.db)
        for _ in range(100):
            if (await mailbox.read("api", f"{grant.key_id}/{CONVERSATION}"))[0]:
                break
            await asyncio.sleep(0.1)
        with_message = await web.get(url)
        assert [m["text"] for m in with_message.json()["messages"]] == ["We can help."]
        last = with_message.json()["messages"][-1]["id"]
        await window_with_time_left(30)  # the polls must share one calendar minute
        codes = [(await web.get(f"{url}?after={last}")).status_code for _ in range(200)]
        assert codes[:55] == [200] * 55  # a page polling every few seconds never gets near
        assert 429 in codes, "200 polls in a minute must meet the poll limit"
        limited = await web.get(url)
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        # one row: the read that handed over the staff's message (empty or refused: none)
        assert await _poll_audits(h) == 1


async def test_one_web_visitor_cannot_use_up_the_sites_key(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(
        database_url,
        embedder,
        web_chat=True,
        WEB_CHAT_CLIENT_RATE_PER_MINUTE="3",
        API_TRUSTED_PROXIES="127.0.0.1",
    ) as h:
        web = h.client("public")
        visitor_a = {"X-Forwarded-For": "203.0.113.5"}
        visitor_b = {"X-Forwarded-For": "198.51.100.7"}
        codes = []
        await window_with_time_left(20)  # the calls must share one calendar minute
        for _ in range(5):
            codes.append(
                (await web.post("/api/v1/ask", json=QUESTION, headers=visitor_a)).status_code
            )
        assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
        over = await web.post("/api/v1/ask/stream", json=QUESTION, headers=visitor_a)
        assert over.status_code == 429 and over.json()["code"] == "rate_limited"
        other = await web.post("/api/v1/ask", json=QUESTION, headers=visitor_b)
        assert other.status_code == 200, other.text
        assert "1,300" in other.json()["answer"]
        # another key (not the web chat's) is not counted per address
        staff = h.client("staff")
        assert (
            await staff.post("/api/v1/ask", json=QUESTION, headers=visitor_a)
        ).status_code == 200


def test_forwarded_addresses_count_only_behind_a_listed_proxy() -> None:
    def request(peer: str, forwarded: str) -> Request:
        headers = [(b"x-forwarded-for", forwarded.encode())]
        return Request({"type": "http", "client": (peer, 5000), "headers": headers})

    nobody = trusted_networks(settings_for_tests())
    assert client_address(request("10.0.0.2", "203.0.113.5"), nobody) == "10.0.0.2"
    proxies = trusted_networks(settings_for_tests(API_TRUSTED_PROXIES="10.0.0.0/8"))
    # the visitor's own header is ignored: the address the proxy appended counts
    spoofed = request("10.0.0.2", "1.2.3.4, 203.0.113.5")
    assert client_address(spoofed, proxies) == "203.0.113.5"
    assert client_address(request("192.0.2.1", "203.0.113.5"), proxies) == "192.0.2.1"


async def test_conversation_ids_must_be_long_enough_and_the_servers_own_are(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder, web_chat=True) as h:
        web = h.client("public")
        short = await web.post("/api/v1/ask", json={**QUESTION, "conversation_id": "a"})
        assert short.status_code == 422, short.text
        body = short.json()
        assert body["code"] == "invalid" and body["field"] == "conversation_id"
        assert "16-64" in body["message"]
        poll = await web.get("/api/v1/conversations/t1/messages")
        assert poll.status_code == 422 and poll.json()["field"] == "conversation_id"
        # the web chat sends back the id the first answer gave it
        first = await web.post("/api/v1/ask/stream", json=QUESTION)
        done = [data for kind, data in await events_of(first.aiter_lines()) if kind == "done"]
        issued = done[0]["conversation_id"]
        follow = {"question": "And how long does it take?", "conversation_id": issued}
        again = await web.post("/api/v1/ask", json=follow)
        assert again.status_code == 200 and again.json()["conversation_id"] == issued
        mailbox = await web.get(f"/api/v1/conversations/{issued}/messages")
        assert mailbox.status_code == 200


async def test_a_call_sent_again_with_its_idempotency_key_gets_the_first_answer(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        client = h.client("public")
        once = {"Idempotency-Key": "call-0001-retried"}
        first = await client.post("/api/v1/ask", json=QUESTION, headers=once)
        second = await client.post("/api/v1/ask", json=QUESTION, headers=once)
        assert first.status_code == 200 and second.status_code == 200, second.text
        assert second.json() == first.json()
        streamed = await client.post("/api/v1/ask/stream", json=QUESTION, headers=once)
        assert streamed.status_code == 200
        done = [data for kind, data in await events_of(streamed.aiter_lines()) if kind == "done"]
        assert done[0]["answer_id"] == first.json()["answer_id"]


async def test_a_short_idempotency_key_is_refused_so_no_visitor_reads_anothers_answer(
    database_url: str, embedder: Embedder
) -> None:
    # a kept answer names its conversation: with a shared key, a guessable Idempotency-Key
    # would hand one visitor another's answer and conversation id
    async with api_harness(database_url, embedder, web_chat=True) as h:
        web = h.client("public")
        for key in ("1", "call-1", "fifteen-chars-x"):
            short = await web.post("/api/v1/ask", json=QUESTION, headers={"Idempotency-Key": key})
            assert short.status_code == 422, short.text
            assert short.json()["field"] == "headers"


async def test_a_client_that_left_mid_stream_gets_the_answer_when_it_retries(
    database_url: str, embedder: Embedder
) -> None:
    slow = ANSWER * 3
    async with api_harness(database_url, embedder, llm_answer=slow, pace=0.05) as h:
        client = h.client("public")
        once = {"Idempotency-Key": "flaky-network-0001"}
        async with client.stream(
            "POST", "/api/v1/ask/stream", json=QUESTION, headers=once
        ) as response:
            async for line in response.aiter_lines():
                if line == "event: chunk":
                    break  # the connection drops as the answer starts
        retry = await client.post("/api/v1/ask", json=QUESTION, headers=once)
        waited = 0
        while retry.status_code == 409 and waited < 60:
            body = retry.json()
            assert body["code"] == "in_progress", body
            assert int(retry.headers["retry-after"]) >= 1
            await asyncio.sleep(1)
            waited += 1
            retry = await client.post("/api/v1/ask", json=QUESTION, headers=once)
        assert retry.status_code == 200, retry.text
        assert retry.json()["answer"].strip() == slow.strip()
        assert retry.json()["outcome"] == "answered"


async def test_a_body_that_is_not_json_is_said_so_by_line_and_column(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        client = h.client("public")
        broken = '{"question": "passport fee?",\n  oops}'
        response = await client.post(
            "/api/v1/ask", content=broken, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422
        body = response.json()
        assert body["code"] == "invalid_json" and body["field"] is None, body
        assert "line 2" in body["message"] and "column 3" in body["message"]
        missing = await client.post("/api/v1/ask", json={"top_k": 3})
        assert missing.status_code == 422 and missing.json()["field"] == "question"


async def test_the_docs_page_loads_nothing_from_another_host(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        docs = await h.client(None).get("/api/docs")
        assert docs.status_code == 200
        external = re.findall(r"(?:https?:)?//[\w.-]+", docs.text)
        assert not external, f"the page loads from {external}"
        assert "/api/v1/ask" in docs.text and "/api/openapi.json" in docs.text
