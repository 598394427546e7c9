"""A weak model over a set of questions never answers worse than no model at all.

The fake OpenAI-compatible server plays a small model on a CPU: planner
queries off the point or in the other language (with the bullets and quotes
small models add), and answers that cite nothing, cite a passage that does not
say what they claim, stream plain text instead of JSON, or are cut off by the
server. Over the whole set, the right source is cited about as often as with
no model, an invented fact is never shown, and no turn takes more than 2 calls.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.events import FinalAnswer, Token
from graph.models import build_chat_model
from storage.db import Database
from storage.forms import FormFinder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI, Reply, first_source_sentence

DOCUMENTS = {
    "passport.md": "An adult passport renewal costs 1,300 dollars and takes four working days.",
    "library.md": "市立圖書館借書證免費辦理，每張借書證最多可借二十冊圖書，借期二十一天。",
    "parking.md": "住宅區停車許可證每年收費新臺幣一千二百元，需攜帶行車執照正本與身分證辦理。",
    "opening.md": "The City Service Centre is open Monday to Friday from 8:30 to 17:30.",
    "pool.md": "The municipal swimming pool charges 60 dollars per adult entry. Children under"
    " six swim free.",
    "dogs.md": "家犬登記須於出生後四個月內完成，並植入晶片，登記費新臺幣五百元。",
    "business.md": "商業登記申請須備妥負責人身分證影本及營業場所使用同意書，審查期間約七個工作天。",
    "bulky-waste.md": "Bulky waste such as sofas and mattresses is collected free of charge on the"
    " first Saturday of each month. Book the collection by phone.",
}
QUESTIONS = {
    "How much does it cost to renew an adult passport?": "passport",
    "圖書館借書證可以借幾本書？": "library",
    "停車許可證一年收費多少？": "parking",
    "When is the City Service Centre open?": "opening",
    "How much is an adult entry to the swimming pool?": "pool",
    "家犬登記費是多少？": "dogs",
    "商業登記審查期間要多久？": "business",
    "When are sofas collected as bulky waste?": "bulky-waste",
}
INVENTED = "9,999"  # a fact no document holds; the weak model cites [1] for it


def weak_model() -> Callable[[dict[str, Any]], Reply]:
    """Replies of a weak model, cycling through its ways of failing."""
    plans = itertools.cycle(
        [
            ("- Final arbitrator in the World Cup", ['"tennis umpire rules"']),
            ("Query: 市政府 公告", ["- city news"]),
        ]
    )
    answers = itertools.cycle(["uncited", "invented", "cut", "plain", "refusal-less"])

    def reply(body: dict[str, Any]) -> Reply:
        system = str(body["messages"][0]["content"])
        if system.startswith("You are the planning step"):
            query, alternates = next(plans)
            plan = {"task_type": "simple_faq", "should_retrieve": True, "query": query}
            return Reply(json.dumps({**plan, "alternates": alternates}, ensure_ascii=False))
        sentence = first_source_sentence(body)
        mode = next(answers)
        if mode == "uncited":  # right, but without [n]
            return Reply(json.dumps({"answerable": True, "answer": sentence, "citations": []}))
        if mode == "invented":  # a true sentence, then an invented fact citing [1]
            answer = f"{sentence} [1] The fee rises to {INVENTED} dollars next year [1]."
            return Reply(json.dumps({"answerable": True, "answer": answer, "citations": [1]}))
        if mode == "cut":  # the server stops mid-answer, no finish_reason
            answer = json.dumps({"answerable": True, "answer": f"{sentence} [1] Also {INVENTED}"})
            return Reply(answer[: len(answer) - 3], cut=True)
        if mode == "plain":  # no JSON at all
            return Reply(f"{sentence} [1]")
        return Reply(json.dumps({"answerable": True, "answer": "Please see the website."}))

    return reply


async def cited_documents(service: AnswerService) -> tuple[int, list[str], list[int]]:
    """Questions answered from their own document, every text shown, calls per turn."""
    hits, shown, calls = 0, [], []
    for question, document in QUESTIONS.items():
        events = [e async for e in service.stream(question)]
        shown += [e.text for e in events if isinstance(e, Token)]
        final = events[-1]
        assert isinstance(final, FinalAnswer)
        result = final.result
        shown.append(result.answer)
        calls.append(result.llm_calls)
        hits += document in [c["document"] for c in result.citations]
    return hits, shown, calls


async def test_a_weak_model_cites_as_well_as_no_model_and_never_shows_invented_facts(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    for name, body in DOCUMENTS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"
    plain = AnswerService(db, GraphContext(searcher=searcher, forms=FormFinder(db)))
    plain_hits, _, plain_calls = await cited_documents(plain)
    assert plain_hits >= 6 and plain_calls == [0] * len(QUESTIONS)

    fake.responder = weak_model()
    llm = build_chat_model(fake.url, "test-key", "small-model", timeout=2.0)
    weak = AnswerService(
        db, GraphContext(searcher=searcher, forms=FormFinder(db), llm=llm, llm_timeout=2.0)
    )
    weak_hits, shown, calls = await cited_documents(weak)
    assert weak_hits >= plain_hits - 1, (weak_hits, plain_hits)
    assert not [text for text in shown if INVENTED in text]
    assert max(calls) <= 2 and len(fake.requests) == sum(calls)
