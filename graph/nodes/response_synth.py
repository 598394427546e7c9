"""response_synth: the reply per task type, grounded only in graded evidence, in the user's script.

Without an LLM the answer is extractive: the evidence sentences that share the
most keywords with the question, each with an inline [n] citation.
"""

from __future__ import annotations

import math
import time
from typing import Any

from graph.messages import message
from graph.state import GraphState
from storage.chunking import split_sentences
from storage.text import keyword_tokens, to_script

MAX_SENTENCES = 3


def pick_sentences(
    question: str, evidence: list[dict[str, Any]], context: str = ""
) -> list[tuple[str, int]]:
    """(sentence, evidence index) pairs that best match the question, in evidence order.

    `context` (a follow-up's earlier question) counts a little: the sentence
    must answer what is asked now.
    """
    wanted = set(keyword_tokens(question))
    background = set(keyword_tokens(context)) - wanted
    scored: list[tuple[float, int, int, str]] = []
    for idx, item in enumerate(evidence):
        for pos, sentence in enumerate(split_sentences(item["text"])):
            tokens = set(keyword_tokens(sentence))
            if not tokens:
                continue
            hits = len(wanted & tokens) + 0.3 * len(background & tokens)
            overlap = hits / math.sqrt(len(tokens))
            # the best-ranked evidence breaks ties
            scored.append((overlap - 0.01 * idx, idx, pos, sentence))
    best = sorted(scored, key=lambda s: -s[0])[:MAX_SENTENCES]
    best = [b for b in best if b[0] > 0] or best[:1]
    return [(s, idx) for _, idx, _, s in sorted(best, key=lambda b: (b[1], b[2]))]


def cite(evidence: list[dict[str, Any]], used: list[int]) -> tuple[dict[int, int], list[dict]]:
    """Citation numbers by first use, one per document and page."""
    numbers: dict[tuple[str, Any], int] = {}
    by_index: dict[int, int] = {}
    citations: list[dict[str, Any]] = []
    for idx in used:
        item = evidence[idx]
        key = (item["document"], item.get("page"))
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            citations.append(
                {
                    "n": numbers[key],
                    "document": item["document"],
                    "page": item.get("page"),
                    "url": item.get("url"),
                }
            )
        by_index[idx] = numbers[key]
    return by_index, citations


def extractive_answer(
    question: str, evidence: list[dict], language: str, context: str = ""
) -> tuple[str, list]:
    """An answer made of cited evidence sentences, in the user's script."""
    picked = pick_sentences(question, evidence, context)
    numbers, citations = cite(evidence, [idx for _, idx in picked])
    lines = [message("answer_intro", language)]
    lines += [f"- {to_script(sentence, language)} [{numbers[idx]}]" for sentence, idx in picked]
    return "\n".join(lines), citations


def forms_answer(forms: list[dict[str, Any]], language: str) -> str:
    """The form links offered."""
    lines = [message("forms_intro", language)]
    for form in forms:
        target = form.get("url") or form.get("file_name") or ""
        lines.append(f"- {form['name']}: {target}")
    return "\n".join(lines)


def response_synth(state: GraphState) -> GraphState:
    """Compose the reply for the planned task type."""
    start = time.perf_counter()
    language = state.get("language", "en")
    plan = state.get("plan", {})
    task = plan.get("task_type", "simple_faq")
    evidence = state.get("evidence", [])
    forms = state.get("forms", [])
    citations: list[dict[str, Any]] = []
    if task == "greeting":
        answer, kind = message("greeting", language), "greeting"
    elif task == "form_download" and forms:
        answer, kind = forms_answer(forms, language), "forms"
    elif evidence:
        question = state.get("normalized_question", "")
        context = state.get("standalone_question", "")
        answer, citations = extractive_answer(question, evidence, language, context)
        kind = "extractive"
    else:
        answer, kind = message("refusal", language), "refusal"
    return {
        "answer": answer,
        "citations": citations,
        "decision_path": [f"response_synth:{kind}"],
        "timings_ms": {"response_synth": round((time.perf_counter() - start) * 1000, 3)},
    }
