"""Answer memory: a question answered well before is answered again at once.

A long-term memory and a search cache in one feature. An entry is
found by its *question key*: the question's words in order, with script
(Traditional/Simplified), case, width, plurals, punctuation, articles and
politeness particles folded. Question words, verbs and tense stay: "when did
X begin" and "where did X begin", "who is" and "who was" are different
questions. A key match is served only when the embeddings of the whole
questions agree too (cosine ≥ MEMORY_MIN_SIMILARITY) and the entry is valid:
younger than MEMORY_TTL_DAYS since it was stored or last voted helpful,
embedded by this embedder, every document it cites still the very version the
turn read (same row: not replaced, removed or moved since), and every form it offers
unchanged. Stale entries met on the way are dropped.

Why keys and not a similarity threshold alone: on 3,600 dev questions (DRCD,
XQuAD en/zh) different questions reach cosines of 0.97-0.99 ("one algorithm"
/ "another algorithm for testing primality", "when" / "where did the
movement begin" at 0.95). Paraphrases in other words are therefore not
matched: they take a normal turn.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from storage.db import Database
from storage.embeddings import Embedder, vector_literal
from storage.repositories import memory as memory_repo
from textkit.scripts import plain
from textkit.tokens import keyword_tokens

logger = logging.getLogger(__name__)

# words whose absence changes no question's meaning
KEY_SKIP = frozenset(
    ["a", "an", "the", "please", "的", "了", "吗", "呢", "吧", "啊", "呀", "请", "请问"]
)


def question_key(question: str) -> str:
    """The question's words in order: script, case, width, articles and particles folded."""
    return " ".join(t for t in keyword_tokens(question) if t not in KEY_SKIP)


@dataclass(frozen=True)
class MemoryHit:
    """An answer served from memory."""

    id: int
    answer: str
    language: str
    citations: list[dict[str, Any]]
    forms: list[dict[str, Any]]
    similarity: float


class AnswerMemory:
    """Looks entries up, prepares new ones, lists and forgets them."""

    def __init__(
        self, db: Database, embedder: Embedder, ttl_days: int = 30, min_similarity: float = 0.9
    ) -> None:
        self._db = db
        self._embedder = embedder
        self.ttl_days = ttl_days
        self.min_similarity = min_similarity

    async def _vector(self, question: str) -> str:
        # embedding is CPU (or network) work: off the event loop
        vector = await asyncio.to_thread(self._embedder.model.embed_query, question)
        return vector_literal(vector)

    def for_asker(self, voter: str | None) -> AskerMemory:
        """This memory as one asker sees it: entries they voted unhelpful are not served."""
        return AskerMemory(self, voter)

    async def lookup(
        self, question: str, collections: Sequence[str] | None, voter: str | None = None
    ) -> MemoryHit | None:
        """The remembered answer to `question` the asker may read (and did not reject), or None.

        `voter` is the asker's pseudonym, as their votes are stored.
        """
        key = await asyncio.to_thread(question_key, question)
        if not key:
            return None
        model = self._embedder.model_id
        async with self._db.sessions() as session:
            found = await memory_repo.candidates(
                session, key, collections, self.ttl_days, model, voter
            )
        stale = [i for i, valid in found if not valid]
        if stale:
            async with self._db.transaction() as session:
                await memory_repo.drop(session, stale)
            logger.info("answer memory: dropped %d stale entries", len(stale))
        valid = [i for i, ok in found if ok]
        if not valid:
            return None
        vector = await self._vector(plain(question))
        async with self._db.transaction() as session:
            row = await memory_repo.closest(session, valid, vector, self.ttl_days, model)
            if row is None or float(row["similarity"]) < self.min_similarity:
                return None
            await memory_repo.mark_hit(session, int(row["id"]), voter)
        return MemoryHit(
            id=int(row["id"]),
            answer=str(row["answer"]),
            language=str(row["language"]),
            citations=list(row["citations"]),
            forms=list(row["forms"]),
            similarity=round(float(row["similarity"]), 4),
        )

    async def prepare(self, entry: dict[str, Any], trace_id: str) -> dict[str, Any] | None:
        """The row to store for a consolidated turn (key and vector), or None.

        Never raises: an embedder that fails costs the entry, not the turn.
        """
        try:
            key = await asyncio.to_thread(question_key, entry["question"])
            if not key:
                return None
            vector = await self._vector(plain(entry["question"]))
        except Exception:
            logger.warning("could not prepare the answer-memory entry", exc_info=True)
            return None
        return {
            **entry,
            "question_key": key,
            "embedding": vector,
            "embedding_model": self._embedder.model_id,
            "source_trace_id": trace_id,
        }

    @staticmethod
    async def store(session: AsyncSession, row: dict[str, Any]) -> None:
        """Remember a prepared row inside the caller's transaction (the turn's store).

        A savepoint: when the entry cannot be written, the turn is stored anyway.
        """
        try:
            async with session.begin_nested():
                await memory_repo.remember(session, row)
        except Exception:
            logger.warning("could not store the answer-memory entry", exc_info=True)

    async def entries(
        self,
        limit: int = 100,
        collections: Sequence[str] | None = None,
        platform: str | None = None,
    ) -> list[dict[str, Any]]:
        """The newest entries with whether each would still be served.

        Scoped when asked: only entries readable by `collections` and first asked on
        `platform` (None: no limit on either).
        """
        async with self._db.sessions() as session:
            return await memory_repo.entries(
                session, self.ttl_days, self._embedder.model_id, limit, collections, platform
            )

    async def most_asked(
        self,
        language: str,
        collections: Sequence[str] | None,
        platform: str | None,
        min_askers: int,
        limit: int = 3,
    ) -> list[str]:
        """The remembered questions most people asked in `language` on `platform` that
        `collections` may read (each asked by at least `min_askers` people)."""
        async with self._db.sessions() as session:
            return await memory_repo.most_asked(
                session,
                self.ttl_days,
                self._embedder.model_id,
                language,
                (collections, platform),
                min_askers,
                limit,
            )

    async def forget(
        self,
        entry_id: int | None,
        collections: Sequence[str] | None = None,
        platform: str | None = None,
    ) -> int:
        """Delete one entry (or all with None) within the same scope as `entries`."""
        async with self._db.transaction() as session:
            return await memory_repo.forget(session, entry_id, collections, platform)


@dataclass(frozen=True)
class AskerMemory:
    """The answer memory bound to one asker, as the graph's per-turn context holds it."""

    memory: AnswerMemory
    voter: str | None

    async def lookup(self, question: str, collections: Sequence[str] | None) -> MemoryHit | None:
        """The remembered answer this asker may be served, or None."""
        return await self.memory.lookup(question, collections, self.voter)
