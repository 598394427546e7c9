"""planner: task type, whether to retrieve, and the tool calls (rules when there is no LLM).

With an LLM, one structured-output call classifies the message (including
out-of-scope requests and small talk, which end the turn without a second
call) and writes the retrieval query and up to two alternates for retries.
The rules here are the no-LLM mode and the fallback when the model fails,
and they come first where they are certain: a message that is only a greeting
or thanks ("謝謝", "hi", "thank you!") is answered without any model call, so
the model cannot turn it into a document search; so is a clear request to make
something that is not an answer from documents ("write me a poem",
"幫我寫一首詩"), or to reach a person ("Can I talk to a real person?", 轉人工):
out of scope, at no model call; and a reply that only names a place ("2", "the
second one", 第二個) when no offered list is open (graph.offered_choice: an open
list's pick arrives here as the question it picked): nothing to look up, the
user is asked to write the question out. With `LLM_PLANNER=unsure` (the
default setting) a message without history is planned by the rules too: nothing
to resolve, the user's question is the query (tool_executor searches it beside
any planner query anyway), and the retries' rewrite is the rules'; the turn's
one model call is the answer's.
"""

from __future__ import annotations

import re
import time

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.llm import PlannerOutput
from graph.llm import plan as plan_with_llm
from graph.message_shapes import is_greeting, looks_like_followup
from graph.nodes.recording import Step, recorded
from graph.offered_choice import place_named
from graph.person_asked import asks_for_person
from graph.question_parts import split_question
from graph.state import GraphState, Plan, TaskType, ToolCall

# The whole message is a request to make something that is not an answer from documents:
# a poem, a story, a joke ("can you write me a short poem about the harbour?",
# "幫我寫一首詩"). Only the whole message: "作文比賽要寫一篇作文多少字？" and "Write a
# poem for the competition: what is the deadline?" are questions about the documents.
_MAKE_SOMETHING = re.compile(
    r"^\s*(please\s+)?((can|could|would|will)\s+you\s+(please\s+)?)?"
    r"(write|compose|make up|tell|sing)(\s+(me|us))?"
    r"(\s+(a|an|some|another|one|two|three|short|long|little|funny|nice|\w+-line))*\s+"
    r"(poems?|story|stories|songs?|jokes?|essays?|haiku|limericks?|raps?|lyrics|sonnets?|riddles?)"
    r"(\s+(about|on|of|for|with)\s+[^?.!:;]{1,60})?(\s+please)?\s*[?.!]*\s*$"
    r"|^\s*(請|请|幫我|帮我|給我|给我|為我|为我|你|可以|能不能|能否|來|来)*"
    r"(寫|写|作|創作|创作|講|讲|說|说|編|编|唱)(一|兩|两|幾|几)?(首|個|个|篇|段|則|则|支)"
    r"(關於|关于[^？?。！!]{1,20}的)?(小|短|長|长|搞笑|有趣)?"
    r"(詩|诗|故事|笑話|笑话|歌|歌詞|歌词|小說|小说|謎語|谜语)"
    r"(給我|给我|給我聽|给我听|來聽聽|来听听)?(吧|嗎|吗|好嗎|好吗|好不好|可以嗎|可以吗)?"
    r"\s*[？?。！!～~]*\s*$",
    re.IGNORECASE,
)
_FORM = re.compile(
    r"\b(forms?|download|application form)\b|表單|表单|表格|申請書|申请书|申請表|申请表|下載|下载",
    re.IGNORECASE,
)


def is_out_of_scope(text: str) -> bool:
    """True for a request to make something (a poem, a story, a joke, code) or to reach
    a person (graph.person_asked): not a question the documents answer, whatever the
    model would make of it."""
    return bool(_MAKE_SOMETHING.search(text)) or asks_for_person(text)


def certain(question: str) -> bool:
    """True when the rules alone decide the turn (greeting, thanks, a clear out-of-scope
    request, a place picking nothing): no model is asked, so it cannot turn them into
    document searches."""
    return is_greeting(question) or is_out_of_scope(question) or place_named(question) is not None


def rules_sure(question: str, has_history: bool, mode: str = "always") -> bool:
    """True when the model is not asked to plan: the rules are certain (greeting, thanks,
    out of scope), or, in mode "unsure" (LLM_PLANNER), the message has no history to
    lean on, so the rules' plan (a question to look up, a form request) stands and the
    turn's one call is the answer's."""
    return certain(question) or (mode == "unsure" and not has_history)


def rule_plan(question: str, has_history: bool) -> Plan:
    """The deterministic plan: greeting, form request, follow-up or a question to look up."""
    task: TaskType
    if is_greeting(question):
        task = "greeting"
    elif is_out_of_scope(question):
        task = "out_of_scope"
    elif place_named(question) is not None:
        task = "no_offer"  # "the second one" of no list: a search would guess at it
    elif _FORM.search(question):
        task = "form_download"
    elif has_history and looks_like_followup(question):
        task = "conversation_followup"
    else:
        task = "simple_faq"
    retrieve = task not in ("greeting", "out_of_scope", "no_offer")
    calls: list[ToolCall] = []
    if retrieve:
        calls.append({"name": "retrieve_documents", "args": {"query": question}})
    if task == "form_download":
        calls.append({"name": "get_form_download_links", "args": {"query": question}})
        calls.append({"name": "export_form_file", "args": {"query": question}})
    return {
        "task_type": task,
        "should_retrieve": retrieve,
        "query": question,
        "tool_calls": calls,
        "source": "rules",
    }


def llm_plan(output: PlannerOutput, question: str) -> Plan:
    """The LLM's decision as a plan with tool calls."""
    query = output.query or question
    retrieve = output.should_retrieve and output.task_type not in ("greeting", "out_of_scope")
    calls: list[ToolCall] = []
    if retrieve:
        calls.append({"name": "retrieve_documents", "args": {"query": query}})
    if output.task_type == "form_download":
        calls.append({"name": "get_form_download_links", "args": {"query": question}})
        calls.append({"name": "export_form_file", "args": {"query": question}})
    return {
        "task_type": output.task_type,
        "should_retrieve": retrieve,
        "query": query,
        "alternates": [q for q in output.alternates if q != query] if retrieve else [],
        "tool_calls": calls,
        "source": "llm",
    }


@recorded("planner")
async def planner(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Plan the turn: one LLM call when configured, the rules otherwise or on failure."""
    context = runtime.context
    question = state.get("normalized_question", "")
    # a picked offered question stands alone: planned as a first question is
    history = [] if state.get("picked_offer") else state.get("history", [])
    calls = 0
    waited = 0.0
    plan: Plan | None = None
    # a bare greeting or thanks, or a clear out-of-scope request, is certain: the rules
    # answer it at no model call; so is a first question when the model plans only where
    # the rules are unsure (on one CPU thread the planning call is a third of the turn)
    if context.llm is not None and not rules_sure(question, bool(history), context.llm_planner):
        asked = time.perf_counter()
        output, calls = await plan_with_llm(
            context.llm, question, history, context.llm_limits, context.llm_formats
        )
        waited = (time.perf_counter() - asked) * 1000
        plan = llm_plan(output, question) if output is not None else None
    source = "llm" if plan is not None else ("fallback" if calls else "rules")
    if plan is None:
        plan = rule_plan(question, bool(history))
    notes = with_parts(plan, question)
    update: GraphState = {"plan": plan, "llm_calls": calls}
    if calls:
        update["timings_ms"] = {"llm:planner": round(waited, 3)}
    if notes:
        update["decision_path"] = notes
    return Step(update, f"planner:{plan['task_type']}:{source}")


def with_parts(plan: Plan, question: str) -> list[str]:
    """Record the asks of a two- or three-part question in `plan` (graph.question_parts),
    whichever way it was planned; the decision-path entries saying so.

    Only a question to look up is split: a form request, a follow-up or small talk
    goes as before.
    """
    if plan["task_type"] != "simple_faq" or not plan.get("should_retrieve"):
        return []
    parts = split_question(question)
    if not parts:
        return []
    plan["parts"] = [{"text": p.text, "query": p.query} for p in parts]
    return [f"planner:split:{len(parts)}"]
