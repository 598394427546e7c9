"""The web chat's server side: a conversation's history for its own key only, the page's
config (suggested questions, the operator's look), and the warning for a site that embeds
the chat without being listed in API_CORS_ORIGINS."""

from __future__ import annotations

import logging

import pytest
from pydantic import ValidationError

from storage.embeddings import Embedder
from tests.api.conftest import api_harness
from tests.support.core_fixtures import settings_for_tests

QUESTION = "How much does an adult passport renewal cost?"
GREETING = "Hello"


async def test_a_conversations_history_is_its_own_keys_and_its_own_ids_only(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder, web_chat=True) as h:
        web = h.client("public")
        first = (await web.post("/api/v1/ask", json={"question": QUESTION})).json()
        conversation = first["conversation_id"]
        follow = {"question": "Thanks!", "conversation_id": conversation}
        second = (await web.post("/api/v1/ask", json=follow)).json()

        shown = await web.get(f"/api/v1/conversations/{conversation}/history")
        assert shown.status_code == 200, shown.text
        messages = shown.json()["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
        assert messages[0]["text"] == QUESTION and messages[2]["text"] == "Thanks!"
        answer = messages[1]
        assert answer["text"] == first["answer"] and "1,300" in answer["text"]
        assert answer["answer_id"] == first["answer_id"] and answer["outcome"] == "answered"
        assert [c["document"] for c in answer["citations"]] == ["passport"]
        # a reloaded answer's source opens as the fresh one's did: a link minted now
        reopened = await web.get(answer["citations"][0]["source_url"])
        assert reopened.status_code == 200 and "<mark" in reopened.text
        assert messages[3]["outcome"] == second["outcome"] != "answered"
        limited = await web.get(f"/api/v1/conversations/{conversation}/history?limit=2")
        assert [m["role"] for m in limited.json()["messages"]] == ["user", "assistant"]
        assert limited.json()["messages"][0]["text"] == "Thanks!"

        # another visitor's made-up id, and the same id under another key: nothing
        other = await web.get("/api/v1/conversations/not-this-visitors-0001/history")
        assert other.status_code == 404 and other.json()["code"] == "not_found"
        staff = await h.client("staff").get(f"/api/v1/conversations/{conversation}/history")
        assert staff.status_code == 404
        nobody = await h.client(None).get(f"/api/v1/conversations/{conversation}/history")
        assert nobody.status_code == 401
        short = await web.get("/api/v1/conversations/short/history")
        assert short.status_code == 422


async def test_the_config_carries_suggestions_per_language_and_the_operators_look(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(
        database_url,
        embedder,
        web_chat=True,
        SUGGESTED_QUESTIONS_EN="How much is a passport?|Where do I park?",
        SUGGESTED_QUESTIONS_ZH_HANT="護照多少錢？",
        # the operator's look
        WEB_CHAT_TITLE="City Help",
        WEB_CHAT_COLOR="#116633",
        WEB_CHAT_LOGO_URL="https://cdn.example.org/logo.png",
        WEB_CHAT_GREETING="Ask about city services.",
    ) as h:
        client = h.client(None)
        config = (await client.get("/chat/config.json")).json()
        assert config["suggestions"]["en"] == ["How much is a passport?", "Where do I park?"]
        assert config["suggestions"]["zh-hant"] == ["護照多少錢？"]
        assert config["theme"] == {
            "title": "City Help",
            "color": "#116633",
            "logo": "https://cdn.example.org/logo.png",
            "greeting": "Ask about city services.",
        }
        page = await client.get("/chat")
        # the logo's origin may be shown, and only it
        assert (
            "img-src 'self' data: https://cdn.example.org;"
            in page.headers["content-security-policy"]
        )


async def test_an_unlisted_site_embedding_the_chat_is_warned_once_per_origin(
    database_url: str, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    listed = "https://www.city.example.org"
    async with api_harness(database_url, embedder, web_chat=True, API_CORS_ORIGINS=listed) as h:
        client = h.client(None)
        caplog.set_level(logging.WARNING, logger="bot.api.webchat")
        unlisted = "https://blog.unlisted-7.example"
        for _ in range(3):
            asked = await client.get("/chat/embed-check", headers={"Origin": unlisted})
            assert asked.status_code == 200 and asked.json() == {"allowed": False}
            assert asked.headers["access-control-allow-origin"] in ("*", unlisted)
        ok = await client.get("/chat/embed-check", headers={"Origin": listed})
        assert ok.json() == {"allowed": True}
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        about = [w for w in warnings if unlisted in w]
        assert len(about) == 1, warnings
        assert "API_CORS_ORIGINS" in about[0]
        assert not [w for w in warnings if listed in w]


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("WEB_CHAT_COLOR", "blue"),
        ("WEB_CHAT_COLOR", "#12345g"),
        # its origin goes into the page's CSP header: a non-ASCII host cannot be sent,
        # a ";" would start another directive
        ("WEB_CHAT_LOGO_URL", "https://例え.jp/logo.png"),
        ("WEB_CHAT_LOGO_URL", "https://cdn.example.org;sandbox/x.png"),
        ("WEB_CHAT_LOGO_URL", "javascript:alert(1)"),
    ],
)
def test_a_look_the_page_cannot_carry_is_refused_at_start_in_plain_words(
    setting: str, value: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        settings_for_tests(**{setting: value})
    said = str(refused.value)
    assert setting in said and "pattern" not in said
