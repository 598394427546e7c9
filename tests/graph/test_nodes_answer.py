"""retrieval_checker, response_synth and telemetry, each alone (no database, no HTTP)."""

from __future__ import annotations

import json

import pytest

from graph.events import Reset, Token
from graph.extractive import cite
from graph.nodes.response_synth import response_synth
from graph.nodes.retrieval_checker import retrieval_checker
from graph.nodes.telemetry import telemetry
from tests.support.node_fakes import FakeLLM, chunk, runtime
from textkit.catalog import say
from textkit.scripts import detect_language


@pytest.mark.parametrize(
    ("loop", "threshold", "scores", "status", "kept"),
    [
        (1, 0.65, [0.7, 0.4, 0.3], "generate", 2),  # answer from everything above the floor
        (1, 0.65, [0.6, 0.4], "retry", 0),
        (2, 0.50, [0.6, 0.4], "generate", 2),
        (3, 0.35, [0.3], "fallback", 0),
        (1, 0.65, [], "retry", 0),
    ],
)
async def test_retrieval_checker(
    loop: int, threshold: float, scores: list[float], status: str, kept: int
) -> None:
    rt, _ = runtime()
    evidence = [chunk(i, s) for i, s in enumerate(scores)]
    state = {"retrieval": {"loop": loop, "threshold": threshold}, "evidence": evidence}
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["status"] == status and len(out["evidence"]) == kept
    assert out["decision_path"][0].startswith(f"retrieval_checker:{status}")


def other_language(chunk_id: int, sentence_cosine: float) -> dict:
    """A passage in another language, judged by meaning alone (cosine 0.3)."""
    return {**chunk(chunk_id, 0.1), "cross_language": True, "cosine": 0.3,
            "sentence_cosine": sentence_cosine}  # fmt: skip


@pytest.mark.parametrize(
    ("llm", "cosines", "kept"),
    [
        (False, [0.38, 0.37], []),  # 0.53, 0.52 by meaning: under 0.6, no model to read them
        (True, [0.38, 0.37, 0.36], [0, 1]),  # a model reads the best two of them as support
        (True, [0.30], []),  # 0.45: too far for a model too
    ],
)
async def test_other_language_passages_near_the_bar_reach_a_model_as_support(
    llm: bool, cosines: list[float], kept: list[int]
) -> None:
    rt, _ = runtime(llm=FakeLLM([]) if llm else None)
    evidence = [other_language(i, c) for i, c in enumerate(cosines)]
    state = {"retrieval": {"loop": 3, "threshold": 0.35}, "evidence": evidence}
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert [e["chunk_id"] for e in out["evidence"]] == kept
    assert all(e["graded"] == "support" and not e["grounded"] for e in out["evidence"])
    assert out["retrieval"]["status"] == ("generate" if llm else "fallback")


async def test_a_model_reads_no_other_language_passage_besides_a_grounded_one() -> None:
    # the grounded passage is what a claim rests on; the near ones would only lengthen
    # the prompt (each ~180 tokens)
    rt, _ = runtime(llm=FakeLLM([]))
    grounded = {**other_language(0, 0.9), "cosine": 0.8}
    evidence = [grounded, other_language(1, 0.38), other_language(2, 0.37)]
    state = {"retrieval": {"loop": 3, "threshold": 0.35}, "evidence": evidence}
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert [(e["chunk_id"], e["grounded"]) for e in out["evidence"]] == [(0, True)]
    assert out["retrieval"]["status"] == "generate"


async def test_response_synth_extractive_answer_cites_in_the_users_script() -> None:
    rt, _ = runtime()
    evidence = [
        chunk(1, 0.8, "停車許可證每年收費新臺幣一千二百元。請攜帶身分證。", "停車許可證"),
        chunk(2, 0.5, "Unrelated text about libraries.", "library"),
    ]
    state = {
        "language": "zh-hans",
        "normalized_question": "停车许可证多少钱",
        "plan": {"task_type": "simple_faq"},
        "evidence": evidence,
    }
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "停车许可证每年收费" in out["answer"] and "[1]" in out["answer"]
    assert out["citations"][0] == {
        "n": 1,
        "document": "停車許可證",
        "page": None,
        "url": None,
        # the cited passage, as stored
        "passage": "停車許可證每年收費新臺幣一千二百元。請攜帶身分證。",
        # the title as the Simplified reader sees it; `document` keeps the stored one
        "title": "停车许可证",
        "chunk": 1,  # the cited chunk: the source view marks it
    }


@pytest.mark.parametrize(
    ("question", "language", "fragment"),
    [
        ("I want to talk to a real person", "en", "a colleague can help you"),
        ("我要找真人客服", "zh-hant", "將由專人為您服務"),
        ("转人工", "zh-hans", "将由专人为您服务"),
    ],
)
async def test_a_person_asked_for_is_sent_to_the_contact_not_told_the_documents_lack_it(
    question: str, language: str, fragment: str
) -> None:
    rt, _ = runtime()
    rt.context.handoff = {"": "the help desk (phone 1999)"}
    state = {
        "language": language,
        "normalized_question": question,
        "plan": {"task_type": "out_of_scope"},
        "evidence": [],
    }
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert fragment in out["answer"] and "the help desk (phone 1999)" in out["answer"]
    assert "documents" not in out["answer"] and "文件" not in out["answer"]
    assert out["outcome"] == "refused" and out["decision_path"] == ["response_synth:person"]


@pytest.mark.parametrize(
    ("task", "language", "evidence", "fragment"),
    [
        ("greeting", "en", [], "Hello"),
        ("out_of_scope", "zh-hant", [], "只能協助回答"),
        ("simple_faq", "en", [], "documents don't answer"),
    ],
)
async def test_response_synth_replies_without_evidence(
    task: str, language: str, evidence: list, fragment: str
) -> None:
    rt, _ = runtime()
    state = {"language": language, "plan": {"task_type": task}, "evidence": evidence}
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert fragment in out["answer"] and out["citations"] == []


async def test_response_synth_lists_forms() -> None:
    rt, _ = runtime()
    form = {
        "name": "PS-11",
        "url": "https://x.example/ps",
        "file_name": "ps.pdf",
        "send_file": True,
    }
    state = {"language": "en", "plan": {"task_type": "form_download"}, "forms": [form]}
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "PS-11: https://x.example/ps (ps.pdf)" in out["answer"]


async def test_response_synth_streams_llm_tokens_and_rejects_uncited_answers() -> None:
    evidence = [chunk(1, 0.8, "Renewal costs 1,300 dollars.", "passport")]
    state = {"language": "en", "plan": {"task_type": "simple_faq"}, "evidence": evidence}
    rt, events = runtime(llm=FakeLLM(["It costs 1,300 dollars [1]."]))
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert out["answer"] == "It costs 1,300 dollars [1]." and out["llm_calls"] == 1
    assert events == [Token("It costs 1,300 dollars [1].")]
    rt, events = runtime(llm=FakeLLM(["I think it is free."]))  # nothing supports it: held back
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "1,300 dollars. [1]" in out["answer"] and events == []
    assert out["decision_path"] == ["response_synth:llm_discarded:uncited"]


async def test_a_sentence_citing_a_passage_that_does_not_say_it_is_never_shown() -> None:
    evidence = [
        chunk(1, 0.8, "Renewal costs 1,300 dollars.", "passport"),
        chunk(2, 0.7, "The library opens at nine.", "library"),
    ]
    state = {"language": "en", "plan": {"task_type": "simple_faq"}, "evidence": evidence}
    reply = '{"answerable": true, "answer": "Renewal costs 1,300 dollars [1]. It is free on Sundays [2].", "citations": [1, 2]}'  # noqa: E501
    rt, events = runtime(llm=FakeLLM([reply]))
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    shown = "".join(e.text for e in events if isinstance(e, Token))
    assert "Sundays" not in shown and "Sundays" not in out["answer"]
    assert events[-1] == Reset()  # the first, checked sentence is taken back
    assert out["decision_path"] == ["response_synth:llm_discarded:unsupported"]
    assert out["outcome"] == "answered"  # by the extractive answer


TWO_RIVERS = "The Amazon River flows through Brazil. The Nile River flows through Egypt."
NO_EVIDENCE = "There is no evidence that people can get the virus from packages."
FEES = "Adults pay 1,300 dollars for a renewal. Children pay 900 dollars."
PARKING = "Residents can park free on Sundays. Visitors cannot park free."


@pytest.mark.parametrize(
    ("passage", "question", "claim", "verdict"),
    [
        # the passage's other entity, in words the passage holds
        (
            TWO_RIVERS,
            "Which river flows through Egypt?",
            "The Amazon River flows through Egypt.",
            "other_entity",
        ),
        (
            TWO_RIVERS,
            "Which river flows through Egypt?",
            "The Nile River flows through Egypt.",
            None,
        ),
        # a flipped "no evidence"
        (
            NO_EVIDENCE,
            "Can I get the virus from a package?",
            "Yes, you can get the virus from a package.",
            "polarity",
        ),
        (
            NO_EVIDENCE,
            "Can I get the virus from a package?",
            "No, there is no evidence you can get the virus from a package.",
            None,
        ),
        # the passage's other figure, and a figure it does not hold
        (
            FEES,
            "How much do adults pay for a renewal?",
            "Adults pay 900 dollars for a renewal.",
            "number",
        ),
        (
            FEES,
            "How much do adults pay for a renewal?",
            "Adults pay 1,500 dollars for a renewal.",
            "number",
        ),
        (
            FEES,
            "How much do adults pay for a renewal?",
            "Adults pay 1300 dollars for a renewal.",
            None,
        ),
        # the same in Chinese
        (
            "成人護照換發費用為一千三百元。申請人不需要預約。",
            "換發護照需要預約嗎？",
            "換發護照需要預約。",
            "polarity",
        ),
        (
            "成人護照換發費用為一千三百元。申請人不需要預約。",
            "換發護照需要預約嗎？",
            "換發護照不需要預約。",
            None,
        ),
        (
            "成人換發護照收費1300元，兒童收費900元。",
            "成人換發護照收費多少？",
            "成人換發護照收費900元。",
            "number",
        ),
        # a negative claim must rest on what the passage negates, not on a neighbour's "no"
        (
            PARKING,
            "Can residents park free on Sundays?",
            "No, residents cannot park free on Sundays.",
            "polarity",
        ),
        (PARKING, "Can visitors park free on Sundays?", "No, visitors cannot park free.", None),
        # words holding a negation character that negate nothing: 特別 (special), 是否 (whether)
        (
            "長者特別優惠：辦理護照需要預約。",
            "辦理護照需要預約嗎？",
            "辦理護照不需要預約。",
            "polarity",
        ),
        ("是否需要預約？辦理護照需要預約。", "辦理護照需要預約嗎？", "辦理護照需要預約。", None),
        # a deadline is no negation; figures in words and in other writings are figures
        (
            "Forms must be submitted no later than 30 June 2025.",
            "When is the deadline for forms?",
            "Forms must be submitted by 2025-06-30.",
            None,
        ),
        (
            "The permit costs $1,200 a year.",
            "How much is the permit?",
            "The permit costs thirteen hundred dollars a year.",
            "number",
        ),
        (
            "The permit costs $1,200 a year.",
            "How much is the permit?",
            "The permit costs $1,200.00 a year.",
            None,
        ),
        (
            "停車許可證每年收費1200元。",
            "停車許可證多少錢？",
            "停車許可證每年收費一千三百元。",
            "number",
        ),
        (
            "Processing takes five working days.",
            "How long does processing take?",
            "Processing takes ten working days.",
            "number",
        ),
        # a fragment cannot pair two of the passage's clauses at will
        (
            TWO_RIVERS,
            "Which river flows through Egypt?",
            "The Amazon River, which flows through Egypt.",
            "other_entity",
        ),
        # a claim of two clauses is checked clause by clause (each where it rests)
        (
            "The library opens at 9 am, and the library closes at 5 pm.",
            "What are the library hours?",
            "The library opens at 9 am, and the library closes at 5 pm.",
            None,
        ),
        (
            "居住证由派出所办理，护照由出入境管理局办理。",
            "居住证和护照在哪里办理？",
            "居住证由派出所办理，护照由出入境管理局办理。",
            None,
        ),
        (
            "The library opens at 9 am, and the library closes at 5 pm.",
            "What are the library hours?",
            "The library opens at 5 am, and the library closes at 9 pm.",
            "number",
        ),
        (
            "许可证于二〇二五年推出，费用三亿元。",
            "许可证哪一年推出？",
            "许可证于2025年推出，费用3亿元。",
            None,
        ),
        # the question's subject told a fact the passage tells of something else
        (
            "The adult swimming pool fee is $100.",
            "How much is the swimming pool fee for children?",
            "The children's swimming pool fee is $100.",
            "other_entity",
        ),
        (
            "台北101於1999年7月開工，2004年完工。",
            "北堤主體工程於何年完工?",
            "北堤主體工程於1999年7月開工。",
            "other_entity",
        ),
        # a word of the model's own, where the passage says otherwise
        (
            "The office is closed on Mondays.",
            "Is the office open on Mondays?",
            "The office is open every day of the week.",
            "unsupported",
        ),
    ],
)
async def test_a_citation_must_agree_with_its_passage_not_only_share_its_words(
    passage: str, question: str, claim: str, verdict: str | None
) -> None:
    evidence = [chunk(1, 0.8, passage, "facts")]
    state = {
        "language": detect_language(claim),  # the answer comes back in the claim's script
        "normalized_question": question,
        "plan": {"task_type": "simple_faq"},
        "evidence": evidence,
    }
    reply = json.dumps({"answerable": True, "answer": f"{claim} [1]", "citations": [1]})
    rt, events = runtime(llm=FakeLLM([reply]))
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    shown = "".join(e.text for e in events if isinstance(e, Token))
    if verdict is None:
        assert out["decision_path"] == ["response_synth:llm"] and shown.startswith(claim[:-1])
    else:
        assert out["decision_path"] == [f"response_synth:llm_discarded:{verdict}"]
        assert shown == "" and claim[:-1] not in out["answer"]


async def test_the_model_saying_the_sources_do_not_answer_is_a_refusal_in_one_call() -> None:
    evidence = [chunk(1, 0.8, "Renewal costs 1,300 dollars.", "passport")]
    state = {"language": "zh-hant", "plan": {"task_type": "simple_faq"}, "evidence": evidence}
    rt, events = runtime(
        llm=FakeLLM(['{"answerable": false, "answer": "", "citations": []}']),
        handoff={"zh-hant": "市民熱線 1999"},
    )
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "市民熱線 1999" in out["answer"] and out["citations"] == []
    assert out["llm_calls"] == 1 and out["decision_path"] == ["response_synth:llm_refusal"]
    assert events == []


async def test_no_llm_refuses_passages_on_the_topic_that_do_not_answer() -> None:
    evidence = [chunk(1, 0.7, "Passports are issued by the ministry.", "passport", support=0.3)]
    state = {"language": "en", "plan": {"task_type": "simple_faq"}, "evidence": evidence}
    rt, _ = runtime(handoff={"": "the front desk (phone 1999)"})
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "the front desk (phone 1999)" in out["answer"] and out["citations"] == []
    state = {"retrieval": {"loop": 3, "threshold": 0.35}, "evidence": evidence}
    checked = await retrieval_checker(state, runtime()[0])  # type: ignore[arg-type]
    assert checked["retrieval"]["status"] == "fallback"


async def test_a_document_cited_through_two_chunks_is_one_source() -> None:
    evidence = [
        chunk(1, 0.8, "Adults renew passports at the City Service Centre.", "passport"),
        chunk(2, 0.7, "An adult renewal costs 1,300 dollars.", "passport"),
    ]
    state = {"language": "en", "plan": {"task_type": "simple_faq"}, "evidence": evidence}
    reply = "You renew at the City Service Centre [1]. It costs 1,300 dollars [2][1]."
    rt, events = runtime(llm=FakeLLM([reply]))
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert out["decision_path"] == ["response_synth:llm"]
    assert out["answer"] == "You renew at the City Service Centre [1]. It costs 1,300 dollars [1]."
    assert "".join(e.text for e in events if isinstance(e, Token)) == out["answer"]
    assert [c["document"] for c in out["citations"]] == ["passport"]
    # the extractive answer numbers it once too, even across pages
    paged = [{**evidence[0], "page": 1}, {**evidence[1], "page": 2}]
    numbers, citations = cite(paged, [0, 1])
    assert numbers == {0: 1, 1: 1} and [c["page"] for c in citations] == [1]


async def test_an_abbreviation_does_not_cut_a_model_sentence() -> None:
    evidence = [chunk(1, 0.8, "The U.S. embassy issues student visas in May.", "visas")]
    state = {"language": "en", "plan": {"task_type": "simple_faq"}, "evidence": evidence}
    rt, events = runtime(llm=FakeLLM(["The U.S. embassy issues student visas in May [1]."]))
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert out["answer"] == "The U.S. embassy issues student visas in May [1]."
    assert events == [Token("The U.S. embassy issues student visas in May [1].")]


def test_telemetry_summarises_the_turn() -> None:
    rt, _ = runtime(prompt_versions={"planner": "v1"})
    state = {
        "plan": {"task_type": "simple_faq", "tool_calls": [{"name": "retrieve_documents"}]},
        "retrieval": {"loop": 3, "status": "fallback", "failed_queries": ["a", "b"]},
        "language": "en",
    }
    trace = telemetry(state, rt)["trace"]  # type: ignore[arg-type]
    assert trace["retrieval_loops"] == 3 and trace["is_out_of_scope"] is True
    assert trace["used_tools"] == ["retrieve_documents"]
    assert trace["prompt_versions"] == {"planner": "v1"}


async def test_retrieval_checker_puts_passing_evidence_before_supporting() -> None:
    rt, _ = runtime()
    evidence = [chunk(1, 0.5), chunk(2, 0.7), chunk(3, 0.2), chunk(4, 0.4)]
    state = {"retrieval": {"loop": 1, "threshold": 0.65}, "evidence": evidence}
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert [e["chunk_id"] for e in out["evidence"]] == [2, 1, 4]


@pytest.mark.parametrize(
    ("forms", "status"), [([{"name": "passport"}], "generate"), ([], "fallback")]
)
async def test_retrieval_checker_does_not_retry_a_forms_only_plan(forms: list, status: str) -> None:
    rt, _ = runtime()
    plan = {"task_type": "form_download", "tool_calls": [{"name": "get_form_download_links"}]}
    state = {"retrieval": {"loop": 1, "threshold": 0.65}, "plan": plan, "forms": forms}
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["status"] == status and out["evidence"] == []


def _battery_entry() -> dict:
    # an English passage marked grounded for a Chinese question, none of whose sentences
    # can be quoted for it (no embedder to read them across languages)
    return {**chunk(1, 0.1, "No. Batteries can start fires in the truck.", "recycling-faq"),
            "cross_language": True, "language": "en", "grounded": True}  # fmt: skip


async def test_grounded_evidence_with_no_sentence_to_quote_is_a_refusal_not_a_bare_lead() -> None:
    rt, _ = runtime()
    state = {
        "language": "zh-hant",
        "normalized_question": "可以帶狗嗎？",
        "plan": {"task_type": "simple_faq"},
        "evidence": [_battery_entry()],
    }
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert out["outcome"] == "refused" and out["citations"] == []
    assert "沒有這個問題的答案" in out["answer"] and out["answer"] != "根據文件內容："
    assert "response_synth:nothing_quoted" in out["decision_path"]


async def test_a_part_with_no_sentence_to_quote_is_said_missing() -> None:
    rt, _ = runtime()
    fee = chunk(2, 0.8, "停車許可證每年收費新臺幣一千二百元。", "停車許可證")
    state = {
        "language": "zh-hant",
        "normalized_question": "停車許可證多少錢？可以帶狗嗎？",
        "plan": {
            "task_type": "simple_faq",
            "parts": [
                {"text": "停車許可證多少錢？", "query": "停車許可證多少錢"},
                {"text": "可以帶狗嗎？", "query": "可以帶狗嗎"},
            ],
        },
        "part_evidence": [[fee], [_battery_entry()]],
        "evidence": [fee, _battery_entry()],
    }
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "一千二百元" in out["answer"]
    assert "Batteries" not in out["answer"]
    assert [c["document"] for c in out["citations"]] == ["停車許可證"]
    assert say("part_missing", "zh-hant") in out["answer"]


async def test_a_split_question_with_nothing_to_quote_in_any_part_is_the_refusal() -> None:
    rt, _ = runtime()
    state = {
        "language": "zh-hant",
        "normalized_question": "可以帶狗嗎？可以帶貓嗎？",
        "plan": {
            "task_type": "simple_faq",
            "parts": [
                {"text": "可以帶狗嗎？", "query": "可以帶狗嗎"},
                {"text": "可以帶貓嗎？", "query": "可以帶貓嗎"},
            ],
        },
        "part_evidence": [[_battery_entry()], [_battery_entry()]],
        "evidence": [_battery_entry()],
    }
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert out["outcome"] == "refused" and out["citations"] == []
    assert out["answer"].startswith("抱歉") and say("answer_intro", "zh-hant") not in out["answer"]
    assert "response_synth:nothing_quoted" in out["decision_path"]
