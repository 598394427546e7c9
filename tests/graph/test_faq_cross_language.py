"""An FAQ page in English asked in Chinese, without a model (real Postgres, the local
embedder): an entry answers only the question it states, never a sibling's."""

from __future__ import annotations

import pytest

from graph.cross_entries import add_question_leads, asks_entry_question
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import FEE, PHOTO, PLACE, TIME, answer_service, faq_page

ASKED = "換發護照要多少錢？"  # "how much is a passport renewal?"
# "the fee to pay to renew a passport": the embedder puts it and "How much does it cost
# to renew a passport?" at a cosine of 0.58, as near as a sibling's question to a
# translation; the dictionary carries its three words (renew, passport, fee) to the
# entry's question and back
SHORT = "更新護照要付的費用"


@pytest.mark.parametrize("asked", [ASKED, SHORT])
async def test_a_chinese_question_is_answered_from_the_entry_that_asks_it(
    asked: str,
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
) -> None:
    service = await answer_service(
        {"passport-faq.txt": faq_page([FEE, TIME, PLACE])}, db, ingestion, searcher, embedder
    )
    result = await service.ask(asked)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert result.citations[0]["document"] == "passport-faq"
    assert "1,300 dollars" in result.answer
    assert TIME[1] not in result.answer and PLACE[1] not in result.answer
    assert FEE[0] not in result.answer


# the processing-time entry is on the topic (renewing a passport), and its answer would
# be quoted by meaning alone; it answers another question
@pytest.mark.parametrize(
    ("asked", "entries"), [(ASKED, [TIME, PLACE]), (SHORT, [TIME, PLACE, PHOTO])]
)
async def test_without_its_entry_the_question_is_refused_not_answered_by_a_sibling(
    asked: str,
    entries: list[tuple[str, str]],
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
) -> None:
    service = await answer_service(
        {"passport-faq.txt": faq_page(entries)}, db, ingestion, searcher, embedder
    )
    result = await service.ask(asked)
    assert result.outcome == "refused", result.answer
    assert result.citations == []


async def test_a_bare_topic_is_no_question_an_entry_asks(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # "renew passport": every content word of "Where can I renew my passport?" (where
    # is a question word), none of its question
    service = await answer_service(
        {"passport-faq.txt": faq_page([FEE, TIME, PLACE])}, db, ingestion, searcher, embedder
    )
    result = await service.ask("更新護照")
    assert PLACE[1] not in result.answer, result.answer
    # an aspect no entry names (urgent, online, abroad) is no question the fee entry
    # answers: 1,300 dollars is not what an urgent renewal costs
    for asked in ("急件更新護照費用", "網上更新護照費用", "海外更新護照費用"):
        result = await service.ask(asked)
        assert "1,300" not in result.answer, (asked, result.answer)


def test_shared_words_count_only_where_the_dictionary_scored_the_entry() -> None:
    scored = {**_entry("fee?", 0.6), "question_score": 0.85}
    bare = {**_entry("place?", 0.5), "question_score": 0.85}
    add_question_leads([bare, {**_entry("time?", 0.4), "question_score": 0.5}])
    assert not asks_entry_question(bare)  # leads with its words, too far by meaning
    sibling = {**_entry("time?", 0.55), "question_score": 0.7}
    add_question_leads([scored, sibling])
    assert scored["question_lead"] == 0.15
    assert asks_entry_question(scored)  # under MIN_QUESTION by cosine, over by both
    assert not asks_entry_question(sibling)  # under the bar with its words
    close = {**_entry("fee?", 0.7), "question_score": 0.8}
    add_question_leads([close, {**_entry("time?", 0.7), "question_score": 0.76}])
    assert not asks_entry_question(close)  # leads by 0.04: a sibling's question is as near


def _entry(question: str, cosine: float, document: str = "faq") -> dict[str, object]:
    return {
        "document": document,
        "question": question,
        "question_cosine": cosine,
        "cross_language": True,
    }


def test_an_entry_must_ask_the_question_and_lead_the_other_entries() -> None:
    fee, time, fee_part = _entry("fee?", 0.72), _entry("time?", 0.69), _entry("fee?", 0.72)
    add_question_leads([fee, time, fee_part])
    # a long entry's second chunk is the same entry, not a competitor
    assert fee["question_lead"] == fee_part["question_lead"] == 0.03
    assert not asks_entry_question(fee)  # too close to a sibling's question
    alone = _entry("fee?", 0.72)
    add_question_leads([alone, _entry("place?", 0.5)])
    assert asks_entry_question(alone)
    far = _entry("time?", 0.6)
    add_question_leads([far])
    assert not asks_entry_question(far)  # under MIN_QUESTION, however alone
    # a passage that is no FAQ entry, or not yet compared: not judged here
    assert asks_entry_question({"cross_language": True, "cosine": 0.5})
    assert asks_entry_question({"question": "fee?", "cross_language": True})
