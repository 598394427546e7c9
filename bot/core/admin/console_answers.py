"""Answers written once in the admin console, published as FAQ entries, then checked.

Each collection has one FAQ document the console makes and owns, titled
`Answers from the console (<collection>)` (storage.origins keeps such titles for
it: it never replaces a document it did not make, and no upload takes its
title). Publishing keeps the answer, rebuilds the document from every answer of
the collection (`Q:` and `A:` lines: one FAQ entry each, found by its question)
and sends it through `Knowledge.upload`, as any upload (the upload policy, the
personal-data hold of screened collections, the job, the audit).

An answer can be withdrawn: it is kept for the record (who withdrew it, when) but
the document is rebuilt without it, or deleted when no answer is left. Deleting
the console's document (bot.core.admin.knowledge) withdraws its answers too, so
a later publish never silently brings one back.

The check says how many of a gap group's questions the published answer now
answers by a retrieval check: each question is searched as a turn's first search
is (its collection, its top results at its strictest threshold) and counts as
answered when the console's document is among what is found. No turn is run or
stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.admin.audit import AdminInputError
from bot.core.admin.console_sessions import ConsoleSession
from bot.core.admin.knowledge import Knowledge
from bot.turn.service import AnswerService
from storage import origins
from storage.db import Database
from storage.repositories import admin_console as console_repo

QUESTION_CHARS = 500
ANSWER_CHARS = 4000
CHECKED = 50  # questions of a group checked at most


def entries_text(entries: Sequence[dict[str, Any]]) -> str:
    """The FAQ document of a collection's answers: a `Q:` and an `A:` line each."""
    blocks = []
    for entry in entries:
        question = " ".join(str(entry["question"]).split())
        answer = "\n".join(line.rstrip() for line in str(entry["answer"]).strip().splitlines())
        blocks.append(f"Q: {question}\nA: {answer}\n")
    return "\n".join(blocks)


class ConsoleAnswers:
    """Publishes the console's answers and checks what they now answer."""

    def __init__(self, db: Database, knowledge: Knowledge, answers: AnswerService) -> None:
        self._db = db
        self._knowledge = knowledge
        self._answers = answers

    async def publish(
        self, who: ConsoleSession, question: str, answer: str, collection: str
    ) -> dict[str, Any]:
        """Keep the answer and queue the collection's console document again: its title and
        the upload's id. AdminInputError when the text is empty or too long, the
        collection is not the key's, or the upload is refused (nothing kept then)."""
        question = " ".join(question.split())
        answer = answer.strip()
        if not question or not answer:
            raise AdminInputError("write both the question and its answer")
        if len(question) > QUESTION_CHARS or len(answer) > ANSWER_CHARS:
            raise AdminInputError(
                f"at most {QUESTION_CHARS} characters of question, {ANSWER_CHARS} of answer"
            )
        if collection not in who.grant.collections:
            raise AdminInputError(f"this key cannot change collection {collection!r}")
        async with self._db.transaction() as session:
            await console_repo.lock_answers(session, collection)
            await console_repo.add_answer(session, collection, question, answer, who.grant.name)
            entries = await console_repo.answers_of(session, collection)
            title = origins.console_title(collection)
            # uploaded inside the transaction: a refused upload keeps no answer either
            upload_id = await self._rebuild(who, collection, entries)
        return {"title": title, "job_id": upload_id, "entries": len(entries)}

    async def _rebuild(
        self, who: ConsoleSession, collection: str, entries: Sequence[dict[str, Any]]
    ) -> int:
        """Queue the collection's console document made of `entries`; the upload's id."""
        return await self._knowledge.upload(
            who.actor,
            origins.CONSOLE_FILE_NAME,
            entries_text(entries).encode(),
            title=origins.console_title(collection),
            collection=collection,
        )

    async def published(self, who: ConsoleSession) -> list[dict[str, Any]]:
        """The answers in force in the key's collections, newest first."""
        async with self._db.sessions() as session:
            rows = await console_repo.published_answers(session, who.grant.collections)
        return [
            {**row, "created_at": row["created_at"].isoformat(timespec="seconds")} for row in rows
        ]

    async def withdraw(self, who: ConsoleSession, answer_id: int) -> dict[str, Any] | None:
        """Withdraw an answer of the key's collections: the document is rebuilt without it
        (its job's id) or, with no answer left, deleted. None: no such answer in force.
        AdminInputError when the rebuilt document's upload is refused (nothing changes)."""
        async with self._db.transaction() as session:
            collection = await console_repo.answer_collection(session, answer_id)
            if collection is None or collection not in who.grant.collections:
                return None
            await console_repo.lock_answers(session, collection)
            # withdrawn under the lock: a publish in flight has either kept it or not yet read
            if not await console_repo.withdraw_answers(
                session, collection, who.grant.name, answer_id
            ):
                return None
            entries = await console_repo.answers_of(session, collection)
            upload_id = await self._rebuild(who, collection, entries) if entries else None
        title = origins.console_title(collection)
        if upload_id is None:  # after the commit: the delete takes the same lock
            await self._knowledge.delete_document(who.actor, title, [collection])
        await self._knowledge.log.audit(who.actor, "console:withdraw", title, str(answer_id))
        return {
            "withdrawn": answer_id,
            "title": title,
            "job_id": upload_id,
            "entries": len(entries),
        }

    async def check(
        self, questions: Sequence[str], collection: str, who: ConsoleSession
    ) -> dict[str, Any]:
        """How many of `questions` the console's document in `collection` now answers (the
        retrieval check above), and which."""
        if collection not in who.grant.collections:
            raise AdminInputError(f"this key cannot read collection {collection!r}")
        title = origins.console_title(collection)
        answered: list[str] = []
        unanswered: list[str] = []
        for question in list(dict.fromkeys(q.strip() for q in questions if q.strip()))[:CHECKED]:
            found = await self._answers.found_documents(question, [collection])
            (answered if title in found else unanswered).append(question)
        result = f"{len(answered)}/{len(answered) + len(unanswered)}"
        await self._knowledge.log.audit(who.actor, "console:check", collection, result)
        return {
            "method": "retrieval",
            "answered": answered,
            "unanswered": unanswered,
        }
