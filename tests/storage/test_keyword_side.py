"""The keyword side in one statement: which terms it ranks by, and how a search treats
its vector side when one side fails or the search is cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import storage.search as search_module
import storage.search_sides as sides
from storage.db import Database
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from storage.search_types import SearchFilters


async def _corpus(ingestion: IngestionService) -> None:
    # "zebra" in one document, "permit" in all four
    await ingestion.ingest_bytes("a.md", b"# A\n\nA zebra permit is issued at the zoo office.\n")
    for name in ("b", "c", "d"):
        body = f"# {name.upper()}\n\nA parking permit is issued at office {name}.\n"
        await ingestion.ingest_bytes(f"{name}.md", body.encode())


async def _ranked(db: Database, terms: list[str]) -> tuple[sides.IndexStats, list[int]]:
    async with db.autocommit() as session:
        stats, ranked = await sides.keyword_side(session, terms, terms, SearchFilters(), 10)
    return stats, [chunk for chunk, _ in ranked]


async def test_the_rarest_terms_within_the_postings_cap_rank_the_rarest_always(
    db: Database, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _corpus(ingestion)
    stats, both = await _ranked(db, ["zebra", "permit", "unknownword"])
    assert stats.dfs == {"permit": 4, "zebra": 1} and stats.chunks == 4
    assert len(both) == 4  # within the cap: "permit" ranks every chunk too
    monkeypatch.setattr(sides, "MAX_KEYWORD_POSTINGS", 2)
    _, rare = await _ranked(db, ["zebra", "permit"])
    assert rare == both[:1]  # "permit" (4 postings) is over the cap: "zebra" alone
    monkeypatch.setattr(sides, "MAX_KEYWORD_POSTINGS", 0)
    _, rarest = await _ranked(db, ["permit"])
    assert len(rarest) == 4  # the rarest term is taken even over the cap
    _, none = await _ranked(db, ["unknownword"])
    assert none == []


async def test_a_failing_vector_side_fails_the_search(
    searcher: HybridSearcher, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _corpus(ingestion)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("vector side down")

    monkeypatch.setattr(search_module, "vector_ids", broken)
    with pytest.raises(RuntimeError, match="vector side down"):
        await searcher.search("zebra permit", top_k=3)


async def test_a_cancelled_search_cancels_its_vector_side(
    searcher: HybridSearcher, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _corpus(ingestion)
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow_vectors(*args: Any, **kwargs: Any) -> Any:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def slow_keywords(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(30)

    monkeypatch.setattr(search_module, "vector_ids", slow_vectors)
    monkeypatch.setattr(search_module, "keyword_side", slow_keywords)
    search = asyncio.create_task(searcher.search("zebra permit", top_k=3))
    await asyncio.wait_for(started.wait(), 5)
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(search, 5)  # not the vector side's 30 s
    assert cancelled.is_set()
