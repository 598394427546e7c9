"""Documents, upload jobs, forms and votes over HTTP, each with its key's rights."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from bot.core.admin.api_keys import ApiKeys
from storage.embeddings import Embedder
from tests.api.conftest import api_harness
from tests.support.core_fixtures import jobs_running

LIBRARY = b"# Library cards\n\nA library card is free for residents and replaced for 50 dollars.\n"


async def test_an_upload_is_ingested_and_its_job_reports_added(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h, jobs_running(h.worker):
        admin = h.client("admin")
        sent = await admin.post(
            "/api/v1/documents",
            files={"file": ("library.md", LIBRARY, "text/markdown")},
            data={"title": "Library cards", "collection": "public"},
        )
        assert sent.status_code == 202, sent.text
        job_id = sent.json()["job_id"]
        for _ in range(300):
            job = (await admin.get(f"/api/v1/jobs/{job_id}")).json()
            if job["status"] not in ("queued", "running"):
                break
            await asyncio.sleep(0.1)
        assert job["status"] == "added" and job["chunks"] >= 1 and job["title"] == "Library cards"
        titles = [d["title"] for d in (await admin.get("/api/v1/documents")).json()]
        assert "Library cards" in titles
        answer = await h.client("public").post(
            "/api/v1/ask", json={"question": "How much is a replacement library card?"}
        )
        assert "50 dollars" in answer.json()["answer"]
        # another key never sees this key's job; deleting takes an admin key
        assert (await h.client("staff").get(f"/api/v1/jobs/{job_id}")).status_code == 403
        gone = await h.client("public").delete("/api/v1/documents/Library cards")
        assert gone.status_code == 403
        deleted = await admin.delete("/api/v1/documents/Library cards")
        assert deleted.status_code == 200 and deleted.json() == {"deleted": "Library cards"}
        again = await admin.delete("/api/v1/documents/Library cards")
        assert again.status_code == 404 and again.json()["code"] == "not_found"
        async with h.worker.db.sessions() as session:
            audited = await session.execute(
                text("SELECT user_id, action, result FROM audit_log WHERE platform = 'api'")
            )
            rows = set(audited)
        assert ("ops", "api:POST /api/v1/documents", "202") in rows
        assert ("website", "api:DELETE /api/v1/documents/{title}", "403") in rows


async def test_uploads_over_the_limit_or_of_unknown_length_are_refused_unread(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder, MAX_FILE_MB="0.01") as h:
        admin = h.client("admin")
        big = await admin.post("/api/v1/documents", files={"file": ("big.md", b"x" * 200_000)})
        assert big.status_code == 413 and big.json()["code"] == "too_large"
        assert "MAX_FILE_MB" in big.json()["message"]

        async def body():  # type: ignore[no-untyped-def]
            yield b"--x\r\n"

        unknown = await admin.post(
            "/api/v1/documents",
            content=body(),
            headers={"Content-Type": "multipart/form-data; boundary=x"},
        )
        assert unknown.status_code == 411 and unknown.json()["code"] == "length_required"
        corrupt = await admin.post(
            "/api/v1/documents", files={"file": ("bad.pdf", b"%PDF-1.4 not really")}
        )
        assert corrupt.status_code in (202, 422)  # refused now, or failed by its job
        outside = await h.client("admin").post(
            "/api/v1/documents", files={"file": ("a.md", b"# A\n\nx\n")}, data={"collection": "hr"}
        )
        assert outside.status_code == 403


async def test_forms_are_added_listed_and_deleted_within_the_keys_collections(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        admin, public = h.client("admin"), h.client("public")
        form = {
            "name": "Leave request",
            "url": "https://intra.example/leave",
            "collection": "internal",
        }
        made = await admin.post("/api/v1/forms", json=form)
        assert made.status_code == 201 and made.json()["collection"] == "internal"
        assert "Leave request" not in [
            f["name"] for f in (await public.get("/api/v1/forms")).json()
        ]
        assert "Leave request" in [f["name"] for f in (await admin.get("/api/v1/forms")).json()]
        bad = await admin.post("/api/v1/forms", json={**form, "url": "javascript:alert(1)"})
        assert bad.status_code == 422 and bad.json()["field"] == "url"
        assert (await admin.delete("/api/v1/forms/Leave request")).status_code == 200
        assert (await admin.delete("/api/v1/forms/Leave request")).status_code == 404


async def test_a_vote_counts_only_in_the_answers_own_conversation(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        public = h.client("public")
        answer = (
            await public.post(
                "/api/v1/ask",
                json={"question": "passport fee?", "conversation_id": "browser-tab-0000000001"},
            )
        ).json()
        vote = {
            "answer_id": answer["answer_id"],
            "conversation_id": "browser-tab-0000000001",
            "helpful": True,
        }
        assert (await public.post("/api/v1/feedback", json=vote)).json() == {"counted": True}
        elsewhere = await public.post(
            "/api/v1/feedback", json={**vote, "conversation_id": "browser-tab-0000000002"}
        )
        assert elsewhere.status_code == 404
        other_key = await h.client("staff").post("/api/v1/feedback", json=vote)
        assert other_key.status_code == 404  # the same conversation id under another key
        changed = await public.post("/api/v1/feedback", json={**vote, "helpful": False})
        assert changed.status_code == 200
        async with h.worker.db.sessions() as session:
            votes = list(await session.execute(text("SELECT platform, rating FROM feedback")))
        assert votes == [("api", -1)]


async def test_bodies_are_capped_before_they_are_read_and_uploads_need_an_admin_key_first(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        huge = {"question": "x" * 200_000}
        nobody = await h.client(None).post("/api/v1/ask", json=huge)
        assert nobody.status_code == 413 and nobody.json()["code"] == "too_large"

        async def chunked():  # type: ignore[no-untyped-def]
            for _ in range(20):
                yield b"x" * 10_000

        streamed = await h.client("public").post(
            "/api/v1/ask", content=chunked(), headers={"Content-Type": "application/json"}
        )
        assert streamed.status_code == 413
        file = {"file": ("a.md", b"# A\n\ntext\n")}
        no_key = await h.client(None).post("/api/v1/documents", files=file)
        assert no_key.status_code == 401 and no_key.json()["code"] == "unauthorized"
        public = await h.client("public").post("/api/v1/documents", files=file)
        assert public.status_code == 403


async def test_an_upload_never_replaces_a_document_of_a_collection_the_key_cannot_change(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h, jobs_running(h.worker):
        _row, key = await ApiKeys(h.worker.db).create("public-admin", ["public"], admin=True)
        admin = h.client(key)
        sent = await admin.post(
            "/api/v1/documents",
            files={"file": ("x.md", b"# Travel\n\nAll travel is free now.\n")},
            data={"title": "travel"},  # the internal travel policy's title
        )
        assert sent.status_code == 202
        job_id = sent.json()["job_id"]
        for _ in range(300):
            job = (await admin.get(f"/api/v1/jobs/{job_id}")).json()
            if job["status"] not in ("queued", "running"):
                break
            await asyncio.sleep(0.1)
        assert job["status"] == "failed" and "another collection" in job["reason"]
        staff = await h.client("staff").post(
            "/api/v1/ask", json={"question": "What is the staff per diem for overseas travel?"}
        )
        assert "95 dollars" in staff.json()["answer"]  # the internal document is untouched
