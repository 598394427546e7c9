"""response_synth: the reply per task type, grounded only in graded evidence, in the user's script.

With a model the answer is its verified claims (graph.llm_answer); without one, or
when none of its claims holds, the answer is extractive (graph.extractive): evidence
sentences quoted with inline [n] citations. Greetings, forms, two-part questions and
refusals are composed here.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.entry_question import confirmed_entry
from graph.events import Reset, Token
from graph.extractive import extractive_answer
from graph.grounding import is_grounded
from graph.kind_held import finer_kinds, holds_kind
from graph.llm_answer import model_answer
from graph.message_shapes import is_thanks
from graph.nodes.recording import Step, recorded
from graph.part_grades import part_marks
from graph.part_reply import answered_question, parts_reply, with_missing
from graph.person_asked import asks_for_person
from graph.related_list import with_related
from graph.related_questions import related_questions
from graph.replies import contact_for, refusal
from graph.state import GraphState, Outcome
from graph.subject import on_subject
from graph.titles import with_display_titles
from textkit.catalog import say

logger = logging.getLogger(__name__)

# the kind of reply (decision_path's response_synth:<kind>) → the turn's outcome
OUTCOMES: dict[str, Outcome] = {
    "greeting": "smalltalk",
    "no_offer": "smalltalk",  # asked to write the question out: no refusal, no gap
    "out_of_scope": "refused",
    "person": "refused",
    "forms": "forms",
    "llm": "answered",
    "extractive": "answered",
    "refusal": "refused",
    "llm_refusal": "refused",
}
# the refusals of a question looked up and not found: they name FAQ questions near it
# (a model's answer discarded, "llm_discarded:<why>", is one when nothing stood in)
LOOKED_UP = frozenset({"refusal", "llm_refusal"})


def forms_answer(forms: list[dict[str, Any]], language: str) -> str:
    """The form links offered."""
    lines = [say("forms_intro", language)]
    for form in forms:
        target = form.get("url") or ""
        if form.get("send_file"):
            target = f"{target} ({form['file_name']})".strip()
        lines.append(f"- {form['name']}: {target}")
    return "\n".join(lines)


async def _related(
    state: GraphState, runtime: Runtime[GraphContext], language: str
) -> tuple[list[str], str, float]:
    """The FAQ questions a refusal offers (graph.related_questions), its decision-path
    note ("" when none was offered) and the milliseconds spent. A failure offers none:
    the refusal stands."""
    run = runtime.context
    asked = state.get("standalone_question") or state.get("normalized_question", "")
    started = time.perf_counter()
    try:
        offered = await related_questions(
            run.embedder, run.searcher, asked, language, run.search_filters, run.related_questions
        )
        note = f"response_synth:related:{len(offered)}" if offered else ""
    except Exception as error:  # an extra to the refusal: never the turn's failure
        # the class alone: a database error's text may hold the question's words
        logger.warning("related questions not offered: %s", type(error).__name__)
        offered, note = [], "response_synth:related:failed"
    return offered, note, round((time.perf_counter() - started) * 1000, 3)


async def _answer(
    state: GraphState,
    runtime: Runtime[GraphContext],
    evidence: list[dict[str, Any]],
    language: str,
    notes: list[str],
) -> tuple[str, list[dict[str, Any]], str, int, float]:
    """Answer from evidence: the model's checked answer, else the extractive one when a
    passage is grounded, else the refusal. (answer, citations, kind, calls, ms waited);
    why model claims were dropped goes to `notes` (decision-path entries)."""
    calls = 0
    waited = 0.0
    discarded = ""  # the model's answer was discarded: why (said in the decision path)
    question = state.get("normalized_question", "")
    context = state.get("standalone_question", "")
    # retrieval_checker marks each passage; evidence handed in unmarked is tested here
    marks = [e["grounded"] if "grounded" in e else is_grounded(e) for e in evidence]
    # a kind of answer found about another thing answers nothing (graph.subject), with
    # a model or without: the model is never offered a passage about another thing
    run = runtime.context
    about = await on_subject(question, evidence, run.embedder, run.searcher, run.search_filters)
    # an FAQ entry a model read as asking what was asked is about its thing, whatever
    # words its question uses for it ("daycare" for "childcare"; graph.entry_check)
    about = [a or confirmed_entry(e) for a, e in zip(about, evidence, strict=True)]
    marked = [(m, e) for m, e, a in zip(marks, evidence, about, strict=True) if a]
    if any(marks) and not any(m for m, _ in marked):
        notes.append("response_synth:off_subject")
    kinds = finer_kinds(question)
    if any(m for m, _ in marked) and not any(holds_kind(e, kinds) for _, e in marked):
        # an hour, a price, a count or a duration asked, and no passage holds one: the
        # passages say something else of the thing (its rules), not what is asked
        notes.append("response_synth:kind_not_found")
        marked = []
    if runtime.context.llm is not None:
        asked = time.perf_counter()
        on_subject_evidence = [e for _, e in marked]
        generated, calls = await model_answer(state, runtime, on_subject_evidence, language)
        waited = (time.perf_counter() - asked) * 1000
        # each claim of the model's dropped, and why (graph.claim_judge)
        notes.extend(f"response_synth:claim_dropped:{why}" for why in generated.dropped)
        if generated.verdict != "answered" and generated.shown:
            runtime.stream_writer(Reset())  # drop the sentences already shown
        if generated.verdict == "answered":
            return generated.text, generated.citations, "llm", calls, waited
        if generated.verdict == "refused":
            return refusal(language, runtime.context.handoff), [], "llm_refusal", calls, waited
        discarded = f"llm_discarded:{generated.reason or 'unknown'}"
        # an entry grounded by the model's "yes" alone is not quoted without the model's
        # own checked answer: three tokens are no evidence of their own (graph.entry_check)
        marked = [(m, e) for m, e in marked if not confirmed_entry(e)]
    if not any(m for m, _ in marked):
        # passages on the topic, none answering (or none about the thing asked): say so
        # rather than guess
        kind = discarded or "refusal"
        return refusal(language, runtime.context.handoff), [], kind, calls, waited
    grounded_first = [e for m, e in marked if m] + [e for m, e in marked if not m]
    answer, citations = await extractive_answer(
        question,
        grounded_first,
        language,
        context,
        runtime.context.embedder,
    )
    if not citations:
        # grounded passages, and no sentence of theirs bears on the question
        notes.append("response_synth:nothing_quoted")
        return refusal(language, runtime.context.handoff), [], discarded or "refusal", calls, waited
    return answer, citations, (discarded or "extractive"), calls, waited


async def _parts_answer(
    state: GraphState, runtime: Runtime[GraphContext], language: str, notes: list[str]
) -> tuple[str, list[dict[str, Any]], str, int, float]:
    """A split question's reply: with a model, its one call answers the answered parts
    (their evidence together) and each missing part is said missing; without one, or
    when the model's answer is discarded, the extractive answer of each part."""
    parts = state.get("plan", {}).get("parts", [])
    by_part = state.get("part_evidence", [])
    notes.append(f"response_synth:parts:{part_marks(by_part)}")
    calls, waited = 0, 0.0
    if runtime.context.llm is not None:
        asked: GraphState = {**state, "standalone_question": answered_question(parts, by_part)}
        answer, citations, kind, calls, waited = await _answer(
            asked, runtime, state.get("evidence", []), language, notes
        )
        if kind == "llm":
            full = with_missing(answer, parts, by_part, language)
            if full != answer:  # the missing parts' sentences follow the streamed answer
                runtime.stream_writer(Token(full[len(answer) :]))
            return full, citations, kind, calls, waited
        if kind == "llm_refusal":
            return answer, citations, kind, calls, waited
        notes.append(f"response_synth:{kind}")  # why the model's answer was discarded

    async def answer_one(question: str, found: list[dict[str, Any]]) -> tuple[str, list]:
        return await extractive_answer(question, found, language, "", runtime.context.embedder)

    answer, citations = await parts_reply(parts, by_part, language, answer_one)
    if not citations:  # no part had a sentence to quote: no reply of parts all missing
        notes.append("response_synth:nothing_quoted")
        return refusal(language, runtime.context.handoff), [], "refusal", calls, waited
    return answer, citations, "parts", calls, waited


@recorded("response_synth")
async def response_synth(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Compose the reply for the planned task type (one LLM call when there is evidence)."""
    language = state.get("language", "en")
    task = state.get("plan", {}).get("task_type", "simple_faq")
    evidence = state.get("evidence", [])
    forms = state.get("forms", [])
    citations: list[dict[str, Any]] = []
    calls = 0
    waited = 0.0
    notes: list[str] = []
    if task == "greeting":
        thanks = is_thanks(state.get("normalized_question", ""))
        answer, kind = say("thanks" if thanks else "greeting", language), "greeting"
    elif task == "no_offer":
        answer, kind = say("no_offer", language), "no_offer"
    elif task == "out_of_scope" and asks_for_person(state.get("normalized_question", "")):
        # no answer to look up: who to contact (the core offers "Ask a person" besides,
        # as with a refusal, where staff can take over)
        contact = contact_for(language, runtime.context.handoff)
        answer, kind = say("person_asked", language, contact=contact), "person"
    elif task == "out_of_scope":
        answer, kind = say("out_of_scope", language), "out_of_scope"
    elif task == "form_download" and forms:
        answer, kind = forms_answer(forms, language), "forms"
    elif state.get("plan", {}).get("parts") and any(state.get("part_evidence", [])):
        # a split question: each part answered on its own evidence (graph.part_reply)
        answer, citations, kind, calls, waited = await _parts_answer(
            state, runtime, language, notes
        )
    elif evidence:
        answer, citations, kind, calls, waited = await _answer(
            state, runtime, evidence, language, notes
        )
    else:
        answer, kind = refusal(language, runtime.context.handoff), "refusal"
    # a discarded model answer: answered when the extractive one stood in, else refused
    outcome = OUTCOMES.get(kind) or ("answered" if citations else "refused")
    update: GraphState = {
        "answer": answer,
        "citations": with_display_titles(citations, language),
        "llm_calls": calls,
        "outcome": outcome,
    }
    timings: dict[str, float] = {"llm:synth": round(waited, 3)} if calls else {}
    offers = runtime.context.related_questions > 0
    if offers and outcome == "refused" and (kind in LOOKED_UP or kind.startswith("llm_discarded")):
        # the FAQ's questions near the one refused: the user may have meant one of them
        offered, note, timings["related_questions"] = await _related(state, runtime, language)
        if note:
            notes.append(note)
        if offered:
            update["answer"] = with_related(answer, offered, language)
            update["related_questions"] = offered
    if timings:
        update["timings_ms"] = timings
    if notes:
        update["decision_path"] = notes
    return Step(update, f"response_synth:{kind}")
