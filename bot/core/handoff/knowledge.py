"""Staff answers become knowledge: a closed case's question and answer as an FAQ document.

"Add to knowledge base (collection)" on a closed card: once per case (a
conditional claim; one left by a worker that died frees itself), through
`Knowledge.upload` like any chat upload (the upload policy, the
personal-data hold of screened collections, the audit). The document is a
`Q:` line and an `A:` line, which the chunker reads as one FAQ entry, so the
next asker finds it by its question in any script. Its title is the case's
(`Staff answer #12`, storage.origins), never the asker's words: a question that
is an official document's title does not replace that document. The upload's result is
posted under the card.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from bot.core.admin.audit import Actor, AdminInputError, AuditLog
from bot.core.admin.knowledge import Knowledge
from bot.core.handoff.staff_rooms import StaffRooms
from bot.core.messages import Reply
from storage import origins
from storage.db import Database
from storage.repositories import handoff as cases
from textkit.catalog import say

KB_QUESTION_CHARS = 500  # of a question added to the knowledge base


class CaseKnowledge:
    """Adds closed cases to the knowledge base."""

    def __init__(
        self, db: Database, log: AuditLog, knowledge: Knowledge, rooms: StaffRooms
    ) -> None:
        self._db = db
        self._log = log
        self._knowledge = knowledge
        self.rooms = rooms

    async def add(self, case: dict[str, Any], actor: Actor, collection: str) -> Reply:
        """Add a closed case's question and staff answer to `collection` (one of the
        asker's platform's), for `actor`, whom the desk found may publish."""
        lang = self.rooms.language
        target = f"case {case['id']}"
        if case["status"] != "closed" or collection not in self.rooms.collections_for(case):
            text = say("staff:not_open", lang, case=case["id"], status=case["status"])
            return Reply(text, lang, "handoff", {"private": True})
        async with self._db.sessions() as session:
            answer = await cases.staff_answer(session, case["id"])
            card = await cases.card_ref(session, case["id"], actor.platform)
        question = " ".join(case["question"].split())[:KB_QUESTION_CHARS]
        if not answer or not question:
            text = say("staff:kb_nothing", lang, case=case["id"])
            return Reply(text, lang, "handoff", {"private": True})
        async with self._db.transaction() as session:
            claimed = await cases.claim_kb(session, case["id"])  # two presses: one upload
        if not claimed:
            text = say("staff:kb_done", lang, case=case["id"])
            return Reply(text, lang, "handoff", {"private": True})
        document = f"Q: {question}\nA: {answer}\n".encode()
        title = origins.case_title(case["id"])  # never the asker's words (storage.origins)
        try:
            upload_id = await self._knowledge.upload(
                # listed staff add what they answered: the desk checked they may
                Actor(actor.platform, actor.user_id, True),
                origins.case_file_name(case["id"]),
                document,
                title=title,
                collection=collection,
                conversation_key=card,  # the upload's result is posted under the card
                language=lang,  # its result goes to the staff room
            )
        except AdminInputError as exc:
            await asyncio.shield(self._free(case["id"]))  # it may be tried again
            text = say("staff:kb_refused", lang, case=case["id"], reason=str(exc))
            return Reply(text, lang, "handoff", {"private": True})
        except BaseException:  # cancelled at shutdown, the database: free it, then fail
            with contextlib.suppress(Exception):
                await asyncio.shield(self._free(case["id"]))
            raise
        async with self._db.transaction() as session:
            await cases.set_kb_upload(session, case["id"], upload_id)
            updated = await cases.get_case(session, case["id"])
            assert updated is not None
            await self.rooms.edit_cards(session, updated, "kb")
            note = say(
                "staff:kb_queued",
                lang,
                case=case["id"],
                title=title,
                collection=collection,
                upload=upload_id,
            )
            key = f"handoff:{case['id']}:kb"
            await self.rooms.into_threads(session, case["id"], note, key, answerable=False)
        self.rooms.wake()
        await self._log.audit(actor, "handoff:kb", target, "ok", collection)
        return Reply("", lang, "handoff", {"silent": True})

    async def _free(self, case_id: int) -> None:
        async with self._db.transaction() as session:
            await cases.set_kb_upload(session, case_id, None)
