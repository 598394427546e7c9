"""The nodes after the guard, each alone, with small in-process fakes (no database, no HTTP)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.nodes.followup_transform import followup_transform
from graph.nodes.planner import planner
from graph.nodes.query_builder import query_builder
from graph.nodes.response_synth import response_synth
from graph.nodes.retrieval_checker import retrieval_checker
from graph.nodes.telemetry import telemetry
from graph.nodes.tool_executor import tool_executor


@dataclass
class Hit:
    """What a searcher returns."""

    chunk_id: int
    score: float
    document: str = "doc"
    text: str = "Passports are renewed at the City Service Centre."
    page: int | None = None
    heading: str | None = None


@dataclass
class FakeSearcher:
    """Returns scripted hits and records each query."""

    hits: list[Hit] = field(default_factory=list)
    queries: list[tuple[str, float]] = field(default_factory=list)

    async def search(self, query: str, top_k: int = 5, threshold: float = 0.0, **_: Any) -> list:
        self.queries.append((query, threshold))
        return [h for h in self.hits if h.score >= threshold][:top_k]


@dataclass
class FakeLLM:
    """A chat model that replies with scripted texts (or raises), recording the prompts."""

    replies: list[str | Exception]
    seen: list[list[Any]] = field(default_factory=list)

    def _next(self, messages: list[Any]) -> str:
        self.seen.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def ainvoke(self, messages: list[Any], **_: Any) -> AIMessage:
        return AIMessage(self._next(messages))

    async def astream(self, messages: list[Any], **_: Any) -> Any:
        yield AIMessageChunk(self._next(messages))


def runtime(**kwargs: Any) -> tuple[Runtime[GraphContext], list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    context = GraphContext(searcher=kwargs.pop("searcher", FakeSearcher()), **kwargs)
    return Runtime(context=context, stream_writer=events.append), events


def chunk(chunk_id: int, score: float, text: str = "", document: str = "doc") -> dict[str, Any]:
    return {"chunk_id": chunk_id, "score": score, "text": text, "document": document, "page": None}


@pytest.mark.parametrize(
    ("question", "history", "task", "tools"),
    [
        ("Hello!", [], "greeting", []),
        ("謝謝", [], "greeting", []),
        ("我要下載護照申請書", [], "form_download",
         ["retrieve_documents", "get_form_download_links"]),
        ("And how much is it?", [{"role": "user", "content": "passport?"}],
         "conversation_followup", ["retrieve_documents"]),
        ("And how much is it?", [], "simple_faq", ["retrieve_documents"]),
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


@pytest.mark.parametrize("reply", ["not json at all", RuntimeError("500"), '{"task_type": 3}'])
async def test_llm_planner_falls_back_to_rules(reply: str | Exception) -> None:
    rt, _ = runtime(llm=FakeLLM([reply]))
    out = await planner({"normalized_question": "Hi"}, rt)
    assert out["plan"]["task_type"] == "greeting"
    assert out["decision_path"] == ["planner:greeting:fallback"] and out["llm_calls"] == 1


def test_followup_transform_joins_the_previous_question() -> None:
    state = {
        "normalized_question": "how much is it?",
        "history": [
            {"role": "user", "content": "How do I renew a passport?"},
            {"role": "assistant", "content": "At the centre [1]."},
        ],
        "plan": {"task_type": "conversation_followup", "source": "rules"},
    }
    out = followup_transform(state)  # type: ignore[arg-type]
    assert out["standalone_question"] == "How do I renew a passport? how much is it?"
    assert out["plan"]["tool_calls"][0]["args"]["query"] == out["standalone_question"]


def test_followup_transform_keeps_the_llm_planners_query() -> None:
    state = {
        "normalized_question": "how much is it?",
        "plan": {"task_type": "conversation_followup", "source": "llm", "query": "passport fee"},
    }
    assert followup_transform(state)["standalone_question"] == "passport fee"  # type: ignore[arg-type]


async def test_query_builder_lowers_the_threshold_and_rewrites_from_the_failures() -> None:
    llm = FakeLLM(["passport renewal fee"])
    rt, _ = runtime(llm=llm)
    state: dict[str, Any] = {"plan": {"query": "What is the price?"}, "normalized_question": "q"}
    first = await query_builder(state, rt)  # type: ignore[arg-type]
    assert first["retrieval"]["threshold"] == 0.65 and first["llm_calls"] == 0
    state["retrieval"] = first["retrieval"]
    second = await query_builder(state, rt)  # type: ignore[arg-type]
    assert second["retrieval"]["threshold"] == 0.5
    assert second["retrieval"]["query"] == "passport renewal fee" and second["llm_calls"] == 1
    assert second["decision_path"] == ["query_builder:loop2:rewrite=llm"]
    assert "What is the price?" in llm.seen[0][1].content  # the rewrite saw what failed


async def test_query_builder_spends_no_llm_call_when_candidates_reach_the_threshold() -> None:
    llm = FakeLLM([])  # any call would fail the test: the script is empty
    rt, _ = runtime(llm=llm)
    state = {
        "plan": {"query": "What is the passport fee?"},
        "retrieval": {"loop": 1, "query": "What is the passport fee?", "threshold": 0.65},
        "candidates": [chunk(1, 0.55)],
    }
    out = await query_builder(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["rewrite_by"] == "rules"
    assert out["retrieval"]["query"] == "passport fee"
    assert out["llm_calls"] == 0 and out["decision_path"] == ["query_builder:loop2:rewrite=rules"]


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
    searcher.hits = [Hit(2, 0.6), Hit(4, 0.5)]
    state |= {
        "candidates": out["candidates"],
        "retrieval": {"query": "q2", "failed_queries": ["q1"]},
    }
    again = await tool_executor(state, rt)  # type: ignore[arg-type]
    # the newest search first, in its order; a chunk found twice keeps its best score
    assert [(c["chunk_id"], c["score"]) for c in again["candidates"]] == [
        (2, 0.6),
        (4, 0.5),
        (1, 0.9),
    ]


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
def test_retrieval_checker(
    loop: int, threshold: float, scores: list[float], status: str, kept: int
) -> None:
    rt, _ = runtime()
    evidence = [chunk(i, s) for i, s in enumerate(scores)]
    state = {"retrieval": {"loop": loop, "threshold": threshold}, "evidence": evidence}
    out = retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["status"] == status and len(out["evidence"]) == kept
    assert out["decision_path"][0].startswith(f"retrieval_checker:{status}")


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
    assert out["citations"][0] == {"n": 1, "document": "停車許可證", "page": None, "url": None}


@pytest.mark.parametrize(
    ("task", "language", "evidence", "fragment"),
    [
        ("greeting", "en", [], "Hello"),
        ("out_of_scope", "zh-hant", [], "只能協助回答"),
        ("simple_faq", "en", [], "couldn't find"),
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
    assert events == [{"type": "token", "text": "It costs 1,300 dollars [1]."}]
    rt, events = runtime(llm=FakeLLM(["I think it is free."]))  # cites nothing: not grounded
    out = await response_synth(state, rt)  # type: ignore[arg-type]
    assert "1,300 dollars. [1]" in out["answer"] and events[-1] == {"type": "reset"}
    assert out["decision_path"] == ["response_synth:fallback_extractive"]


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


def test_retrieval_checker_puts_passing_evidence_before_supporting() -> None:
    rt, _ = runtime()
    evidence = [chunk(1, 0.5), chunk(2, 0.7), chunk(3, 0.2), chunk(4, 0.4)]
    state = {"retrieval": {"loop": 1, "threshold": 0.65}, "evidence": evidence}
    out = retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert [e["chunk_id"] for e in out["evidence"]] == [2, 1, 4]
