"""The optional reranker (graph.rerank) on real Postgres, against a fake `/rerank` server."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.nodes.tool_executor import tool_executor
from graph.rerank import (
    Reranker,
    RerankError,
    build_reranker,
    parse_scores,
    printable,
    without_userinfo,
)
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_rerank import FakeRerank
from tests.support.node_fakes import Hit, runtime

# The fusion ranks the counter page first for the question (it repeats its words);
# the fees section, which answers, comes second.
DOCS = {
    "passport.md": (
        "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
        "## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
    ),
    "passport-counter.md": (
        "# Passport renewal counter\n\nThe passport renewal counter moved to the second floor."
        " Ask at the passport renewal counter how much a renewal costs.\n"
    ),
}
QUESTION = "How much does a passport renewal cost?"
KEY = "rk-secret-123"


@pytest.fixture
async def indexed(ingestion: IngestionService) -> None:
    for name, body in DOCS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"


@pytest.fixture
def fake() -> Iterator[FakeRerank]:
    server = FakeRerank(prefer="1,300").start()  # the rule: the passage with the fee wins
    try:
        yield server
    finally:
        server.stop()


def _state() -> dict[str, Any]:
    plan = {"tool_calls": [{"name": "retrieve_documents", "args": {}}]}
    retrieval = {"loop": 1, "query": "passport renewal cost"}
    return {"plan": plan, "normalized_question": QUESTION, "retrieval": retrieval}


def _ranks(candidates: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """The candidates in the search's order (their best rank in the turn's searches)."""
    ordered = sorted(candidates, key=lambda c: (c["rank"], -c["score"]))
    return [(c["document"], c["heading"]) for c in ordered]


@pytest.mark.usefixtures("indexed")
async def test_the_reranker_puts_the_passage_that_answers_first(
    searcher: HybridSearcher, embedder: Embedder, fake: FakeRerank
) -> None:
    plain, _ = runtime(searcher=searcher, embedder=embedder.model)
    before = await tool_executor(_state(), plain)  # type: ignore[arg-type]
    assert _ranks(before["candidates"])[0] == ("passport-counter", "Passport renewal counter")
    assert not any(s.startswith("rerank") for s in before["decision_path"])

    reranker = Reranker(fake.url, "bge-reranker-v2-m3", KEY, timeout=5.0)
    ranked, _ = runtime(searcher=searcher, embedder=embedder.model, reranker=reranker)
    after = await tool_executor(_state(), ranked)  # type: ignore[arg-type]
    assert _ranks(after["candidates"])[0] == ("passport", "Fees")
    # the same candidates, in another order
    assert {c["chunk_id"] for c in after["candidates"]} == {
        c["chunk_id"] for c in before["candidates"]
    }
    assert after["decision_path"] == [
        "rerank:used",
        "tool_executor:retrieve_documents+own_question",
    ]
    # the planner's query and the user's own question: each search is reranked
    assert len(fake.requests) == 2
    for body, headers in zip(fake.requests, fake.headers, strict=True):
        assert set(body) == {"model", "query", "documents", "top_n"}
        assert body["model"] == "bge-reranker-v2-m3"
        # judged against what the user asked, whatever query found the passages
        assert body["query"] == QUESTION
        assert body["top_n"] == len(body["documents"]) >= 2
        # each passage as it is indexed: under its document's title and heading
        assert "passport\nFees\nAn adult passport renewal costs 1,300 dollars" in " ".join(
            body["documents"]
        )
        assert headers["Authorization"] == f"Bearer {KEY}"


@pytest.fixture
def service(db: Database, searcher: HybridSearcher, embedder: Embedder) -> Any:
    def make(reranker: Reranker | None) -> AnswerService:
        context = GraphContext(searcher=searcher, embedder=embedder.model, reranker=reranker)
        return AnswerService(db, context, memory=None)

    return make


@pytest.mark.usefixtures("indexed")
async def test_a_turn_with_the_reranker_says_it_used_it(service: Any, fake: FakeRerank) -> None:
    result = await service(Reranker(fake.url, "m", None)).ask(QUESTION)
    assert "1,300 dollars" in result.answer
    assert result.citations[0]["document"] == "passport"
    assert "rerank:used" in result.decision_path
    # no key set: no Authorization header
    assert fake.requests and all("Authorization" not in h for h in fake.headers)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("down", "unreachable"),
        ("error", "http_500"),
        ("slow", "timeout"),
        ("garbage", "malformed"),
        ("bad_index", "malformed"),
    ],
)
@pytest.mark.usefixtures("indexed")
async def test_a_reranker_that_fails_is_skipped_and_the_answer_still_comes(
    service: Any, fake: FakeRerank, mode: str, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    plain = await service(None).ask(QUESTION)
    fake.mode = mode
    fake.delay = 2.0
    if mode == "down":
        fake.stop()  # its port now refuses connections
    # only the slow server is meant to run out the time; the others fail at once, and a
    # busy machine must not make their failure a timeout
    reranker = Reranker(fake.url, "m", KEY, timeout=0.5 if mode == "slow" else 10.0)
    with caplog.at_level(logging.WARNING, logger="graph.rerank"):
        first = await service(reranker).ask(QUESTION)
        second = await service(reranker).ask("What does a passport renewal cost?")
    # the answer and its sources are those of the turn without a reranker
    assert first.answer == plain.answer
    assert first.citations == plain.citations
    assert f"rerank:skipped:{reason}" in first.decision_path
    # a reranker that timed out rests: the next turn skips it without waiting again
    again = "resting" if mode == "slow" else reason
    assert f"rerank:skipped:{again}" in second.decision_path
    # one warning for the run of failures, not one per search or per turn
    warnings = [r for r in caplog.records if r.name == "graph.rerank"]
    assert len(warnings) == 1 and reason in warnings[0].getMessage()
    assert KEY not in caplog.text


@pytest.mark.usefixtures("indexed")
async def test_a_reranker_that_timed_out_is_not_waited_for_again_while_it_rests(
    service: Any, fake: FakeRerank
) -> None:
    fake.mode, fake.delay = "slow", 2.0
    reranker = Reranker(fake.url, "m", None, timeout=0.5)
    await service(reranker).ask(QUESTION)
    asked = len(fake.requests)
    resting = await service(reranker).ask(QUESTION)
    assert "rerank:skipped:resting" in resting.decision_path
    assert len(fake.requests) == asked  # not asked while it rests
    fake.mode = "ok"
    reranker._resting_until = 0.0  # its rest is over
    assert "rerank:used" in (await service(reranker).ask(QUESTION)).decision_path


@pytest.mark.usefixtures("indexed")
async def test_a_reranker_back_after_failures_is_used_again(
    service: Any, fake: FakeRerank, caplog: pytest.LogCaptureFixture
) -> None:
    reranker = Reranker(fake.url, "m", None, timeout=2.0)
    fake.mode = "error"
    with caplog.at_level(logging.INFO, logger="graph.rerank"):
        failed = await service(reranker).ask(QUESTION)
        fake.mode = "ok"
        back = await service(reranker).ask(QUESTION)
        fake.mode = "error"
        again = await service(reranker).ask(QUESTION)
    assert "rerank:skipped:http_500" in failed.decision_path
    assert "rerank:used" in back.decision_path
    assert "rerank:skipped:http_500" in again.decision_path
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "graph.rerank"]
    # a warning for each run of failures, and word when it answered again
    assert [level for level, _ in said] == [logging.WARNING, logging.INFO, logging.WARNING]


async def test_unset_base_url_means_no_reranker() -> None:
    assert build_reranker(None, "m", "k", 5.0) is None
    assert build_reranker("", "m", "k", 5.0) is None
    built = build_reranker("http://localhost:8080/v1/", "m", KEY, 3.0)
    assert built is not None and built.url == "http://localhost:8080/v1/rerank"
    assert KEY not in repr(built)  # the key is never in a repr


@pytest.mark.usefixtures("indexed")
async def test_without_a_reranker_no_request_is_made(service: Any, fake: FakeRerank) -> None:
    result = await service(None).ask(QUESTION)
    assert "1,300 dollars" in result.answer
    assert not any(s.startswith("rerank") for s in result.decision_path)
    assert fake.requests == []


def test_replies_are_read_strictly() -> None:
    assert parse_scores({"results": [{"index": 1, "relevance_score": 0.5}]}, 2) == {1: 0.5}
    # some servers name it `score`
    assert parse_scores({"results": [{"index": 0, "score": 2}]}, 1) == {0: 2.0}
    bad: Any
    for bad in (
        [],
        {"results": []},
        {"data": []},
        {"results": [{"index": 2, "relevance_score": 0.5}]},
        {"results": [{"index": True, "relevance_score": 0.5}]},
        {"results": [{"index": 0, "relevance_score": "high"}]},
        {"results": [{"index": 0, "relevance_score": math.nan}]},
        {"results": [{"index": 0, "score": 0.1}, {"index": 0, "score": 0.2}]},
    ):
        with pytest.raises(RerankError) as caught:
            parse_scores(bad, 2)
        assert caught.value.reason == "malformed"


@dataclass
class _Hit(Hit):
    cross_language: bool = False


async def test_each_language_group_is_reranked_and_cut_to_top_k(fake: FakeRerank) -> None:
    """The search is asked for the reranker's pool; each group keeps top_k, in the
    reranker's order, the question's language first."""
    native = [_Hit(i, 0.9 - i / 100, document=f"d{i}", text=f"native {i}") for i in range(8)]
    other = [
        _Hit(100 + i, 0.5, document=f"o{i}", text=f"other {i}", cross_language=True)
        for i in range(8)
    ]
    native[6].text, other[7].text = "native 6 1,300", "other 7 1,300"
    searcher = _WideSearcher([*native, *other])
    rt, _ = runtime(searcher=searcher, top_k=3, reranker=Reranker(fake.url, "m"))
    state = {**_state(), "retrieval": {"loop": 1, "query": QUESTION}}
    out = await tool_executor(state, rt)  # type: ignore[arg-type]
    assert searcher.asked == [20]
    assert [c["chunk_id"] for c in out["candidates"]] == [6, 0, 1, 107, 100, 101]
    assert out["decision_path"][0] == "rerank:used"
    assert len(fake.requests[0]["documents"]) == 16


@dataclass
class _WideSearcher:
    hits: list[_Hit]
    asked: list[int] = field(default_factory=list)

    async def search(self, query: str, top_k: int = 5, **_: Any) -> list[_Hit]:
        self.asked.append(top_k)
        return self.hits


def test_what_the_log_says_of_a_reranker_holds_no_secret_and_no_forged_line() -> None:
    detail = printable("upstream said:\nAuthorization: Bearer sk-live-123\n\nfake log line")
    assert "sk-live-123" not in detail and "\n" not in detail
    assert without_userinfo("https://user:sk-9@rerank.example.org/v1/rerank") == (
        "https://rerank.example.org/v1/rerank"
    )
    assert without_userinfo("http://127.0.0.1:8080/v1/rerank") == "http://127.0.0.1:8080/v1/rerank"
