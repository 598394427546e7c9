"""planner, followup_transform, query_builder and tool_executor, each alone (small fakes)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from graph.message_shapes import looks_like_followup
from graph.nodes.followup_transform import followup_transform
from graph.nodes.planner import planner
from graph.nodes.query_builder import query_builder
from graph.nodes.tool_executor import tool_executor
from tests.support.node_fakes import FakeLLM, FakeSearcher, Hit, chunk, runtime


@pytest.mark.parametrize(
    ("question", "history", "task", "tools"),
    [
        ("Hello!", [], "greeting", []),
        ("謝謝", [], "greeting", []),
        ("幫我寫一首詩", [], "out_of_scope", []),
        ("Can you write me a short poem about the harbour?", [], "out_of_scope", []),
        ("Can I talk to a real person?", [], "out_of_scope", []),
        ("可以轉人工嗎？", [], "out_of_scope", []),
        ("How do I contact a person at the tax office?", [], "simple_faq",
         ["retrieve_documents"]),
        ("圖書館說故事活動幾點開始？", [], "simple_faq", ["retrieve_documents"]),
        ("How do I write an appeal letter?", [], "simple_faq", ["retrieve_documents"]),
        ("我要下載護照申請書", [], "form_download",
         ["retrieve_documents", "get_form_download_links"]),
        ("And how much is it?", [{"role": "user", "content": "passport?"}],
         "conversation_followup", ["retrieve_documents"]),
        ("And how much is it?", [], "simple_faq", ["retrieve_documents"]),
        ("When are they allocated?", [{"role": "user", "content": "garden plots?"}],
         "conversation_followup", ["retrieve_documents"]),
        ("学生呢？", [{"role": "user", "content": "公交卡多少钱？"}],
         "conversation_followup", ["retrieve_documents"]),
        ("你们周末营业的时间是几点到几点呢？", [{"role": "user", "content": "公交卡多少钱？"}],
         "simple_faq", ["retrieve_documents"]),
        ("多少钱呢？", [{"role": "user", "content": "公交卡在哪里办理？"}],
         "conversation_followup", ["retrieve_documents"]),
        ("他们几点开门？", [{"role": "user", "content": "市民中心在哪里？"}],
         "conversation_followup", ["retrieve_documents"]),
        # a short question of its own ending in 呢, and a "they" naming things of its own
        ("退卡要多少钱呢？", [{"role": "user", "content": "卡丢了怎么办？"}],
         "simple_faq", ["retrieve_documents"]),
        ("Do they allow dogs in the garden?", [{"role": "user", "content": "garden plots?"}],
         "simple_faq", ["retrieve_documents"]),
        ("停车许可证多少钱", [], "simple_faq", ["retrieve_documents"]),
    ],
)  # fmt: skip
async def test_rule_planner(question: str, history: list, task: str, tools: list[str]) -> None:
    rt, _ = runtime()
    out = await planner({"normalized_question": question, "history": history}, rt)
    assert out["plan"]["task_type"] == task
    assert [c["name"] for c in out["plan"]["tool_calls"]][: len(tools)] == tools
    assert out["llm_calls"] == 0 and out["decision_path"] == [f"planner:{task}:rules"]


async def test_llm_planner_gives_the_query_in_the_same_call() -> None:
    llm = FakeLLM(['{"task_type": "simple_faq", "should_retrieve": true, "query": "passport fee"}'])
    rt, _ = runtime(llm=llm)
    out = await planner({"normalized_question": "How much is a passport?"}, rt)
    assert out["plan"]["query"] == "passport fee" and out["plan"]["source"] == "llm"
    assert out["llm_calls"] == 1 and "llm:planner" in out["timings_ms"]


@pytest.mark.parametrize(
    ("question", "task"),
    [
        ("How much is a passport?", "simple_faq"),
        ("护照续期要多少钱？", "simple_faq"),
        ("Where is the passport form?", "form_download"),
    ],
)
async def test_unsure_mode_plans_a_first_question_by_the_rules_at_no_call(
    question: str, task: str
) -> None:
    llm = FakeLLM(['{"task_type": "simple_faq", "should_retrieve": true, "query": "x"}'])
    rt, _ = runtime(llm=llm, llm_planner="unsure")
    out = await planner({"normalized_question": question, "history": []}, rt)
    assert out["plan"]["task_type"] == task and out["plan"]["query"] == question
    assert out["decision_path"] == [f"planner:{task}:rules"] and out["llm_calls"] == 0
    assert llm.seen == []  # the turn's one call is the answer's


async def test_unsure_mode_still_asks_the_model_when_there_is_history() -> None:
    reply = (
        '{"task_type": "conversation_followup", "should_retrieve": true, "query": "passport fee"}'
    )
    llm = FakeLLM([reply])
    rt, _ = runtime(llm=llm, llm_planner="unsure")
    history = [{"role": "user", "content": "How do I renew a passport?"}]
    out = await planner({"normalized_question": "and how much?", "history": history}, rt)
    assert out["decision_path"] == ["planner:conversation_followup:llm"]
    assert out["plan"]["query"] == "passport fee" and out["llm_calls"] == 1


@pytest.mark.parametrize(
    "reply", ["not json at all", httpx.ConnectError("connection refused"), '{"task_type": 3}']
)
async def test_llm_planner_falls_back_to_rules(reply: str | Exception) -> None:
    rt, _ = runtime(llm=FakeLLM([reply]))
    out = await planner({"normalized_question": "Where is the passport form?"}, rt)
    assert out["plan"]["task_type"] == "form_download"
    assert out["decision_path"] == ["planner:form_download:fallback"] and out["llm_calls"] == 1


@pytest.mark.parametrize("greeting", ["謝謝", "谢谢！", "thanks", "Thank you!", "hi", "你好"])
async def test_a_bare_greeting_or_thanks_is_decided_by_the_rules_before_the_model(
    greeting: str,
) -> None:
    llm = FakeLLM(['{"task_type": "simple_faq", "should_retrieve": true, "query": "thanks"}'])
    rt, _ = runtime(llm=llm)
    out = await planner({"normalized_question": greeting}, rt)
    assert out["plan"]["task_type"] == "greeting" and out["plan"]["tool_calls"] == []
    assert out["decision_path"] == ["planner:greeting:rules"] and out["llm_calls"] == 0
    assert llm.seen == []  # the model was never asked


@pytest.mark.parametrize("place", ["2", "the second one", "第二個", "最后一个"])
async def test_a_place_with_no_list_open_asks_for_the_question_without_the_model(
    place: str,
) -> None:
    # a pick of an open list reaches the planner as the question it picked
    # (language_normalizer); a place left bare picked nothing, and a search would guess
    llm = FakeLLM(['{"task_type": "simple_faq", "should_retrieve": true, "query": "2"}'])
    rt, _ = runtime(llm=llm)
    history = [{"role": "user", "content": "How do I renew a passport?"},
               {"role": "assistant", "content": "At the centre [1]."}]  # fmt: skip
    out = await planner({"normalized_question": place, "history": history}, rt)
    assert out["plan"]["task_type"] == "no_offer" and out["plan"]["tool_calls"] == []
    assert out["decision_path"] == ["planner:no_offer:rules"] and llm.seen == []


@pytest.mark.parametrize(
    ("message", "leans"),
    [
        ("要多少錢？", True),
        ("需要帶什麼？", True),
        ("多久？", True),
        ("幾點開門？", True),
        ("how much?", True),
        ("how long?", True),
        ("what time?", True),
        ("what do I need to bring?", True),
        # a kind no answer is checked to hold: leaning it on the last question would
        # quote that one's answer again
        ("when?", False),
        ("在哪裡辦？", False),
        ("Who are you?", False),
        ("什麼？", False),
        ("車在哪停？", False),
        # a reaction to the answer asks nothing of its thing
        ("是嗎？", False),
        ("真的嗎？", False),
        ("why?", False),
        ("為什麼？", False),
        ("ok", False),
        # naming a thing of its own: a question of its own
        ("圖書館幾點開門？", False),
        ("How much is a library card?", False),
    ],
)
def test_a_question_naming_nothing_leans_on_the_last_one(message: str, leans: bool) -> None:
    assert looks_like_followup(message) is leans


async def test_a_question_after_thanks_still_goes_to_the_model() -> None:
    reply = '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport renewal"}'
    rt, _ = runtime(llm=FakeLLM([reply]))
    out = await planner({"normalized_question": "thanks, and how do I renew a passport?"}, rt)
    assert out["decision_path"] == ["planner:simple_faq:llm"] and out["llm_calls"] == 1


async def test_provider_errors_are_retried_and_every_request_counts() -> None:
    reply = '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport fee"}'
    rt, _ = runtime(llm=FakeLLM([TimeoutError(), reply]), llm_retries=1)
    out = await planner({"normalized_question": "How much is a passport?"}, rt)
    assert out["plan"]["source"] == "llm" and out["llm_calls"] == 2


async def test_a_programming_error_in_the_llm_path_is_not_swallowed() -> None:
    rt, _ = runtime(llm=FakeLLM([TypeError("a bug, not the provider")]))
    with pytest.raises(TypeError):
        await planner({"normalized_question": "How much is a passport?"}, rt)


@pytest.mark.parametrize(
    ("asked", "standalone", "judged_as"),
    [
        # it asks only a price: what it asks first, then the thing it is about, and the
        # turn is judged as that (a price of a passport renewal, not a "how")
        ("how much is it?", "how much is it? renew passport", "how much is it? renew passport"),
        # a follow-up naming a thing of its own is joined to the question and judged alone
        ("and for children?", "How do I renew a passport? and for children?", None),
    ],
)
def test_followup_transform_joins_the_previous_question(
    asked: str, standalone: str, judged_as: str | None
) -> None:
    state = {
        "normalized_question": asked,
        "history": [
            {"role": "user", "content": "How do I renew a passport?"},
            {"role": "assistant", "content": "At the centre [1]."},
        ],
        "plan": {"task_type": "conversation_followup", "source": "rules"},
    }
    out = followup_transform(state)  # type: ignore[arg-type]
    assert out["standalone_question"] == standalone
    assert out.get("normalized_question") == judged_as
    assert out["plan"]["tool_calls"][0]["args"]["query"] == standalone


@pytest.mark.parametrize(
    ("earlier", "asked", "standalone"),
    [
        # Chinese drops the subject it has just spoken of
        (["護照怎麼換發？"], "要多少錢？", "要多少錢？ 護照 換發"),
        # an earlier ask naming nothing adds its kind, not the thing: passed over
        (["護照怎麼換發？", "要多少錢？"], "多久？", "多久？ 護照 換發"),
        # a question word's piece (時候 of 什麼時候) names no thing to carry
        (["垃圾車什麼時候來？"], "要多少錢？", "要多少錢？ 垃圾車"),
        # a place that picked nothing ("the second one" with no list open) is no question
        (["How do I renew my passport?", "the second one"], "how much?",
         "how much? renew passport"),
        (["How do I renew my passport?", "the second one"], "and for children?",
         "How do I renew my passport? and for children?"),
        (["How do I renew my passport?"], "what documents do I need?",
         "what documents do I need? renew passport"),
    ],
)  # fmt: skip
def test_what_a_follow_up_leans_on(earlier: list[str], asked: str, standalone: str) -> None:
    history = [
        m for q in earlier for m in ({"role": "user", "content": q},
                                     {"role": "assistant", "content": "…"})
    ]  # fmt: skip
    state = {
        "normalized_question": asked,
        "history": history,
        "plan": {"task_type": "conversation_followup", "source": "rules"},
    }
    assert followup_transform(state)["standalone_question"] == standalone  # type: ignore[arg-type]


def test_a_follow_up_on_a_follow_up_reaches_back_to_the_question_they_lean_on() -> None:
    state = {
        "normalized_question": "when are they allocated?",
        "history": [
            {"role": "user", "content": "How do I renew a passport?"},
            {"role": "assistant", "content": "At the centre [1]."},
            {"role": "user", "content": "How much is a garden plot?"},
            {"role": "assistant", "content": "40 euros a year [1]."},
            {"role": "user", "content": "and for students?"},
            {"role": "assistant", "content": "20 euros [1]."},
        ],
        "plan": {"task_type": "conversation_followup", "source": "rules"},
    }
    out = followup_transform(state)  # type: ignore[arg-type]
    # the passport question, which the plot question did not lean on, stays out
    assert out["standalone_question"] == (
        "How much is a garden plot? and for students? when are they allocated?"
    )


@pytest.mark.parametrize(
    ("earlier", "standalone"),
    [
        # a follow-up naming a thing of its own starts a topic: the garden stays out
        # (asking only a price, what it asks comes first, then the thing)
        (["How much is a garden plot?", "Then how do I get a library card?"],
         "and what does it cost? library card"),
        # thanks is no question to lean on
        (["How much is a library card?", "thanks"],
         "and what does it cost? library card"),
    ],
)  # fmt: skip
def test_a_follow_up_leans_on_the_question_it_follows(earlier: list[str], standalone: str) -> None:
    history = [
        m for q in earlier for m in ({"role": "user", "content": q},
                                     {"role": "assistant", "content": "…"})
    ]  # fmt: skip
    state = {
        "normalized_question": "and what does it cost?",
        "history": history,
        "plan": {"task_type": "conversation_followup", "source": "rules"},
    }
    out = followup_transform(state)  # type: ignore[arg-type]
    assert out["standalone_question"] == standalone


def test_followup_transform_keeps_the_llm_planners_query() -> None:
    state = {
        "normalized_question": "how much is it?",
        "plan": {"task_type": "conversation_followup", "source": "llm", "query": "passport fee"},
    }
    assert followup_transform(state)["standalone_question"] == "passport fee"  # type: ignore[arg-type]


async def test_query_builder_retries_with_the_planners_alternates_without_a_call() -> None:
    llm = FakeLLM([])  # any call would fail the test: the script is empty
    rt, _ = runtime(llm=llm)
    plan = {"query": "What is the price?", "alternates": ["passport renewal fee", "護照 費用"]}
    state: dict[str, Any] = {"plan": plan, "normalized_question": "What is the price?"}
    first = await query_builder(state, rt)  # type: ignore[arg-type]
    assert first["retrieval"]["threshold"] == 0.65 and "llm_calls" not in first
    state["retrieval"] = first["retrieval"]
    second = await query_builder(state, rt)  # type: ignore[arg-type]
    assert second["retrieval"]["threshold"] == 0.5
    assert second["retrieval"]["query"] == "passport renewal fee"
    state["retrieval"] = second["retrieval"]
    third = await query_builder(state, rt)  # type: ignore[arg-type]
    assert third["retrieval"]["query"] == "護照 費用"
    assert third["retrieval"]["failed_queries"] == ["What is the price?", "passport renewal fee"]
    assert third["decision_path"] == ["query_builder:loop3"]


async def test_query_builder_without_llm_drops_question_words() -> None:
    rt, _ = runtime()
    state = {
        "plan": {"query": "What is the passport fee?"},
        "retrieval": {"loop": 1, "query": "What is the passport fee?", "threshold": 0.65},
    }
    out = await query_builder(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["query"] == "passport fee"
    assert out["retrieval"]["failed_queries"] == ["What is the passport fee?"]


async def test_tool_executor_searches_at_the_floor_and_merges_loops() -> None:
    searcher = FakeSearcher([Hit(1, 0.9), Hit(2, 0.4), Hit(3, 0.2)])
    rt, _ = runtime(searcher=searcher)
    plan = {"tool_calls": [{"name": "retrieve_documents", "args": {}}]}
    state: dict[str, Any] = {"plan": plan, "retrieval": {"query": "q1", "threshold": 0.65}}
    out = await tool_executor(state, rt)  # type: ignore[arg-type]
    assert searcher.queries == [("q1", 0.35)]
    assert [c["chunk_id"] for c in out["candidates"]] == [1, 2]
    searcher.hits = [Hit(2, 0.6), Hit(4, 0.5, support=0.1)]
    state |= {
        "candidates": out["candidates"],
        "retrieval": {"loop": 2, "query": "q2", "failed_queries": ["q1"]},
    }
    again = await tool_executor(state, rt)  # type: ignore[arg-type]
    # grounded passages first, then by score; a chunk found twice keeps its best score
    assert [(c["chunk_id"], c["score"]) for c in again["candidates"]] == [
        (1, 0.9),
        (2, 0.6),
        (4, 0.5),
    ]


async def test_tool_executor_also_searches_the_users_own_question_on_loop_one() -> None:
    searcher = FakeSearcher([Hit(1, 0.9)])
    rt, _ = runtime(searcher=searcher)
    plan = {"tool_calls": [{"name": "retrieve_documents", "args": {}}]}
    state: dict[str, Any] = {
        "plan": plan,
        "normalized_question": "網球比賽誰是最終裁判？",
        "retrieval": {"loop": 1, "query": "Final arbitrator in the World Cup"},
    }
    out = await tool_executor(state, rt)  # type: ignore[arg-type]
    assert sorted(q for q, _ in searcher.queries) == sorted(
        ["Final arbitrator in the World Cup", "網球比賽誰是最終裁判？"]
    )
    assert out["decision_path"] == ["tool_executor:retrieve_documents+own_question"]


async def test_tool_executor_does_not_search_a_query_twice() -> None:
    searcher = FakeSearcher([Hit(1, 0.9)])
    rt, _ = runtime(searcher=searcher)
    state = {
        "plan": {"tool_calls": [{"name": "retrieve_documents", "args": {}}]},
        "retrieval": {"query": "q1", "failed_queries": ["q1"]},
        "candidates": [chunk(7, 0.5)],
    }
    out = await tool_executor(state, rt)  # type: ignore[arg-type]
    assert searcher.queries == [] and out["candidates"] == [chunk(7, 0.5)]
    assert out["decision_path"] == ["tool_executor:retrieve_documents:cached"]
