"""What the answer's request offers the model (synth.v7), and what its claims must still pass."""

from __future__ import annotations

import json
import re
from typing import Any

from graph.claim_judge import ClaimJudge
from graph.llm import ANSWER_MAX_TOKENS
from graph.nodes.response_synth import response_synth
from graph.prompts import load
from tests.support.node_fakes import FakeLLM, chunk, runtime

FEE = "An adult passport renewal costs 1,300 dollars."
HOURS = "The City Service Centre opens at nine on weekdays."


class SameMeaning:
    """A stand-in for the local embedder: every text means the same (the facts decide)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


def claims(*pairs: tuple[str, str]) -> str:
    """A synth.v7 reply: the sources answer, with these (sentence id, claim) pairs."""
    rows = [{"sentence": sid, "claim": text} for sid, text in pairs]
    return json.dumps({"answerable": True, "claims": rows})


def state(
    evidence: list[dict[str, Any]],
    language: str = "en",
    question: str = "How much is a passport renewal?",
) -> dict[str, Any]:
    return {
        "language": language,
        "normalized_question": question,
        "plan": {"task_type": "simple_faq"},
        "evidence": evidence,
    }


def user_message(llm: FakeLLM) -> str:
    return str(llm.seen[0][-1].content)


async def test_the_model_reads_only_the_passages_a_claim_may_rest_on() -> None:
    grounded = {**chunk(1, 0.9, FEE, "passport"), "grounded": True}
    on_topic = {**chunk(2, 0.8, HOURS, "opening hours", support=0.0), "grounded": False}
    llm = FakeLLM([claims(("1.1", "A renewal costs 1,300 dollars."))])
    rt, _ = runtime(llm=llm, screen_embedder=SameMeaning())
    out = await response_synth(state([on_topic, grounded]), rt)  # type: ignore[arg-type]
    message = user_message(llm)
    # the passage retrieval did not find answering is not read (a claim on it is dropped)
    assert "[1] (passport)" in message and "opening hours" not in message and HOURS not in message
    assert out["decision_path"] == ["response_synth:llm"]
    assert out["answer"] == "A renewal costs 1,300 dollars [1]."
    assert out["citations"][0]["document"] == "passport"


async def test_no_request_when_no_passage_may_carry_a_claim() -> None:
    on_topic = {**chunk(2, 0.8, HOURS, "opening hours", support=0.0), "grounded": False}
    llm = FakeLLM([claims(("1.1", "The centre opens at nine."))])
    rt, _ = runtime(llm=llm, screen_embedder=SameMeaning())
    out = await response_synth(state([on_topic]), rt)  # type: ignore[arg-type]
    assert llm.seen == [] and out["llm_calls"] == 0
    assert out["outcome"] == "refused" and out["citations"] == []
    assert out["decision_path"] == ["response_synth:llm_discarded:ungrounded"]


async def test_without_the_local_embedder_every_passage_is_read_as_before() -> None:
    # an answer in the older shape is then judged by its words alone, on any passage
    # (a question asking no price: the opening hours are about the thing asked too)
    grounded = {**chunk(1, 0.9, FEE, "passport"), "grounded": True}
    on_topic = {**chunk(2, 0.8, HOURS, "opening hours", support=0.0), "grounded": False}
    llm = FakeLLM([claims(("1.1", "A renewal costs 1,300 dollars."))])
    rt, _ = runtime(llm=llm)
    asked = state([grounded, on_topic], question="Tell me about passport renewal.")
    await response_synth(asked, rt)  # type: ignore[arg-type]
    assert "(opening hours)" in user_message(llm)
    # asked its price, the renewal is the thing asked of: the hours are another section's
    llm = FakeLLM([claims(("1.1", "A renewal costs 1,300 dollars."))])
    rt, _ = runtime(llm=llm)
    await response_synth(state([grounded, on_topic]), rt)  # type: ignore[arg-type]
    assert "(opening hours)" not in user_message(llm) and "(passport)" in user_message(llm)


async def test_the_rules_are_one_text_in_every_language_and_the_language_comes_last() -> None:
    evidence = [{**chunk(1, 0.9, FEE, "passport"), "grounded": True}]
    systems = []
    for language, name in (("en", "English"), ("zh-hant", "Traditional Chinese")):
        llm = FakeLLM([claims(("1.1", "A renewal costs 1,300 dollars."))])
        rt, _ = runtime(llm=llm, screen_embedder=SameMeaning())
        await response_synth(state(evidence, language), rt)  # type: ignore[arg-type]
        system = llm.seen[0][0]
        systems.append(system.content)
        # the rules come first: the server reuses their evaluated tokens turn after turn
        assert system.type == "system" and system.content == load("synth").text
        # the claims' language is said last, after the question
        tail = user_message(llm).rsplit("</question>", 1)[1]
        assert tail.startswith("\n\nWrite each claim in ") and name in tail
    assert systems[0] == systems[1]
    assert ANSWER_MAX_TOKENS <= 200  # a short answer: two claims cited by id


def test_the_rules_name_no_sentence_id_a_model_could_copy() -> None:
    # a real 1.5B model cited the rules' example id ("2.3") in 6 of 14 replies, whatever
    # sentence held its answer: the reply's shape is given with no id in it
    rules = load("synth").text
    assert '"sentence"' in rules
    assert not re.search(r"\d+\.\d+", rules)


def test_a_translated_claim_stands_and_a_changed_fact_still_falls() -> None:
    sentence = "皮凯蒂认为，1914年至1945年间，战争减少了不平等。"
    judge = ClaimJudge([sentence], SameMeaning())
    right = "Piketty says that from 1914 to 1945 wars reduced inequality."
    assert judge.judge(right, None, None, [(1, 1)]).source == 1
    other_year = "Piketty says that from 1914 to 1950 wars reduced inequality."
    assert judge.judge(other_year, None, None, [(1, 1)]).reason == "number"
    opposite = "Piketty says that from 1914 to 1945 wars did not reduce inequality."
    assert judge.judge(opposite, None, None, [(1, 1)]).reason == "polarity"
