"""A service not warmed at start (its process's turns run elsewhere, or a command's first
turn) builds its graph and loads its model client in a thread at the first turn, never on
the event loop every request shares; a copy without the answer memory shares them."""

from __future__ import annotations

import threading

import pytest

from bot.turn.service import AnswerService
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import sample_service


async def test_the_first_turn_builds_the_graph_off_the_event_loop(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = await sample_service(db, ingestion, searcher, embedder)
    loop_thread = threading.current_thread()
    warmed_in: list[threading.Thread] = []
    warm = AnswerService.warm

    def recording(self: AnswerService) -> None:
        warmed_in.append(threading.current_thread())
        warm(self)

    monkeypatch.setattr(AnswerService, "warm", recording)
    first = await service.ask("How much does it cost to renew a passport?")
    assert first.outcome == "answered" and "1,300" in first.answer
    assert len(warmed_in) == 1 and warmed_in[0] is not loop_thread
    # warmed once: the next turn, and a copy without the answer memory, reuse it
    await service.ask("When is the service centre open?")
    again = await service.without_memory().ask("How much does it cost to renew a passport?")
    assert "1,300" in again.answer
    assert len(warmed_in) == 1
