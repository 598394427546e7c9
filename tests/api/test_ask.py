"""Asking over HTTP: answers, follow-ups, keys and their collections, error shapes."""

from __future__ import annotations

from bot.api.webchat import key_problem
from bot.core.messages import Grant
from storage.embeddings import Embedder
from tests.api.conftest import api_harness
from tests.support.core_fixtures import window_with_time_left


async def test_ask_answers_with_citations_passages_and_the_query_history(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        client = h.client("public")
        response = await client.post(
            "/api/v1/ask", json={"question": "How much does an adult passport renewal cost?"}
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert "1,300" in body["answer"] and body["outcome"] == "answered"
        [cited] = body["citations"]
        assert cited["document"] == "passport" and "1,300" in cited["passage"]
        assert body["language"] == "en" and body["answer_id"] > 0
        assert body["query"]["original"].startswith("How much") and body["query"]["final"]
        assert body["decision_path"] and body["trace_id"] and "total" in body["timings_ms"]
        # a follow-up in the same conversation reads the history (it is stored)
        again = await client.post(
            "/api/v1/ask",
            json={
                "question": "And how long does it take?",
                "conversation_id": body["conversation_id"],
            },
        )
        assert (
            again.status_code == 200 and again.json()["conversation_id"] == body["conversation_id"]
        )
        assert "four working days" in again.json()["answer"]


async def test_a_public_key_never_reads_internal_passages(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        question = {"question": "What is the staff per diem for overseas travel?"}
        public = (await h.client("public").post("/api/v1/ask", json=question)).json()
        assert "95" not in public["answer"] and public["outcome"] == "refused"
        assert all(c["document"] != "travel" for c in public["citations"])
        staff = (await h.client("staff").post("/api/v1/ask", json=question)).json()
        assert "95 dollars" in staff["answer"]
        assert staff["citations"][0]["document"] == "travel"


async def test_errors_have_a_stable_code_and_message(database_url: str, embedder: Embedder) -> None:
    async with api_harness(database_url, embedder) as h:
        ask = {"question": "passport fee?"}
        nobody = await h.client(None).post("/api/v1/ask", json=ask)
        assert nobody.status_code == 401 and nobody.json()["code"] == "unauthorized"
        assert nobody.headers["www-authenticate"] == "Bearer"
        wrong = await h.client("rbk_not-a-real-key").post("/api/v1/ask", json=ask)
        assert wrong.status_code == 401 and wrong.json()["code"] == "unauthorized"
        empty = await h.client("public").post("/api/v1/ask", json={"question": ""})
        assert empty.status_code == 422
        assert empty.json()["code"] == "invalid" and empty.json()["field"] == "question"
        bad_k = await h.client("public").post("/api/v1/ask", json={**ask, "top_k": 500})
        assert bad_k.status_code == 422 and bad_k.json()["field"] == "top_k"
        missing = await h.client("public").get("/api/v1/nothing-here")
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        upload = await h.client("public").post(
            "/api/v1/documents", files={"file": ("a.md", b"# A\n\ntext\n")}
        )
        assert upload.status_code == 403 and upload.json()["code"] == "forbidden"
        # a retried call with the same Idempotency-Key is not answered twice: it gets the
        # first call's answer again (tests/api/test_abuse_and_retries.py)
        once = {"Idempotency-Key": "call-0001-retried"}
        first = await h.client("public").post("/api/v1/ask", json=ask, headers=once)
        second = await h.client("public").post("/api/v1/ask", json=ask, headers=once)
        assert first.status_code == 200 and second.status_code == 200
        assert second.json()["answer_id"] == first.json()["answer_id"]


async def test_each_key_has_its_own_rate_limit(database_url: str, embedder: Embedder) -> None:
    async with api_harness(database_url, embedder) as h:
        staff, public = h.client("staff"), h.client("public")  # staff: 3 calls a minute
        ask = {"question": "passport fee?"}
        await window_with_time_left(20)  # the calls must share one calendar minute
        codes = [(await staff.post("/api/v1/ask", json=ask)).status_code for _ in range(4)]
        assert codes[:3] == [200, 200, 200] and codes[3] == 429
        limited = await staff.post("/api/v1/ask", json=ask)
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        # other calls count too; another key is not affected
        assert (await staff.get("/api/v1/forms")).status_code == 429
        assert (await public.post("/api/v1/ask", json=ask)).status_code == 200


async def test_no_key_made_means_the_api_is_off(database_url: str, embedder: Embedder) -> None:
    async with api_harness(database_url, embedder, keys=False) as h:
        response = await h.client("rbk_anything").post("/api/v1/ask", json={"question": "hi"})
        assert response.status_code == 404 and response.json()["code"] == "api_off"
        assert (await h.client(None).get("/healthz")).status_code == 200


async def test_the_schema_and_docs_are_served(database_url: str, embedder: Embedder) -> None:
    async with api_harness(database_url, embedder) as h:
        schema = (await h.client(None).get("/api/openapi.json")).json()
        assert {
            "/api/v1/ask",
            "/api/v1/ask/stream",
            "/api/v1/documents",
            "/api/v1/feedback",
        } <= set(schema["paths"])
        assert "AskResponse" in schema["components"]["schemas"]
        docs = await h.client(None).get("/api/docs")
        assert docs.status_code == 200 and "/api/openapi.json" in docs.text


async def test_a_draining_worker_says_503_and_browsers_need_a_listed_origin(
    database_url: str, embedder: Embedder
) -> None:
    site = "https://www.city.example.org"
    async with api_harness(database_url, embedder, API_CORS_ORIGINS=site) as h:
        client = h.client("public")
        preflight = await client.options(
            "/api/v1/ask/stream",
            headers={
                "Origin": site,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == site
        elsewhere = await client.post(
            "/api/v1/ask",
            json={"question": "passport fee?"},
            headers={"Origin": "https://evil.example"},
        )
        assert "access-control-allow-origin" not in elsewhere.headers
        h.worker.core.begin_drain()
        draining = await client.post("/api/v1/ask", json={"question": "passport fee?"})
        assert draining.status_code == 503 and draining.json()["code"] == "draining"
        assert draining.headers["retry-after"]


def test_the_web_chat_key_must_be_a_public_non_admin_key() -> None:
    public = {"public"}.__contains__
    fit = Grant(1, "web", ("public",))
    assert key_problem(fit, public) is None
    assert "not an active" in str(key_problem(None, public))
    assert "admin" in str(key_problem(Grant(2, "ops", ("public",), admin=True), public))
    assert "internal" in str(key_problem(Grant(3, "staff", ("public", "internal")), public))


async def test_a_simplified_reader_sees_a_traditional_titles_source_in_simplified(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        asked = await h.client("public").post(
            "/api/v1/ask", json={"question": "住宅区停车许可证每年收费多少？"}
        )
        assert asked.status_code == 200, asked.text
        [cited] = asked.json()["citations"]
        # the stored title stays the key other routes take; the reader's script is shown
        assert cited["document"] == "停車許可證" and cited["title"] == "停车许可证"
