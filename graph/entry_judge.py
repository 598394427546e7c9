"""With a model: the FAQ entry nearest the question, asked whether it asks the same.

Without a model an FAQ entry answers by meaning only when its question leads
every other entry near the question by `MEANING_LEAD` (graph.entry_question):
the local embedder puts a user's casual rewording ("pay taxes monthly") about
as near a sibling's question as its own entry's, so a smaller lead answers
questions whose entry is missing with a sibling's answer. Between 0 and that
lead the embedder cannot tell; a model reading the two questions can. When a
turn has a model and found nothing grounded, the entry nearest the question
(leading every other, by less than `MEANING_LEAD`) is put to it in one short
request (prompt `entry_match`: "yes" or "no", a few tokens); on "yes" the entry
answers as one leading by meaning does (`confirmed_entry`), and its answer is
then read by the answer's request like any grounded passage.

Asked at most once a turn, and only while the turn has sent no request (a
planned turn keeps to `CALLS_PER_TURN`: plan and answer). Anything but a reply
starting "yes" (an error, a timeout, another word) leaves the entry
unconfirmed: the turn goes on as without a model's judgement.

Measured with Qwen2.5-Coder-1.5B-Instruct (docs/benchmarks.md, "An FAQ entry
confirmed by the model"): on the project's FAQ sets and StackFAQ, pairs where
the embedder's nearest entry led by less than `MEANING_LEAD`, the model said
"yes" to about half of the paraphrases of that entry and to 1 in 90 questions
whose entry was removed (the sibling then nearest).
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from graph.cross_marks import crosses
from graph.entry_question import MEANING_LEAD, MIN_MEANING, few_rivals, question_lead_of
from graph.everyday_questions import near_as_everyday
from graph.llm import reply_cap
from graph.llm_client import CallLimits, call_with_retries, invoke
from graph.prompts import load

# "yes" or "no" is one or two tokens; a model running on is cut short
JUDGE_MAX_TOKENS = 3
_YES = re.compile(r"^\W*(yes|是|是的|對|对)\b", re.IGNORECASE)


def unsure_entry(evidence: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The FAQ entry in the question's language whose question is the nearest the
    question of every entry near it, compared with the collection (`rival_cosine`
    set), by a lead under `MEANING_LEAD`: the one a model may confirm. None when
    there is none, or when it already answers by meaning."""
    best: dict[str, Any] | None = None
    for item in evidence:
        if not item.get("question") or "rival_cosine" not in item or crosses(item):
            continue
        cosine = float(item.get("question_cosine", 0.0))
        if cosine < MIN_MEANING or (few_rivals(item) and not near_as_everyday(item)):
            continue
        lead = question_lead_of(item)
        if 0.0 <= lead < MEANING_LEAD and (best is None or lead > question_lead_of(best)):
            best = item
    return best


def confirmed_entry(item: dict[str, Any]) -> bool:
    """True when a model said the entry asks what the user asked (`judge_entry`)."""
    return bool(item.get("entry_confirmed"))


async def judge_entry(
    llm: Any, question: str, entry: dict[str, Any], limits: CallLimits
) -> tuple[bool, int]:
    """Whether the model says `entry`'s question asks what `question` asks, and the
    requests sent (a failure is a "no": the turn goes on as without the model)."""
    # the entry's question as written: read under its page's title ("Passports. Can I
    # get a passport urgently …?", "银行卡. 银行卡丢失了怎么办？") the model took a
    # sibling for the entry asked 7 times in 90 near-bar pairs, against once
    messages = [
        SystemMessage(load("entry_match").text),
        HumanMessage(
            f"User's question: {_one_line(question)}\nFAQ question: {_one_line(entry['question'])}"
        ),
    ]
    cap = reply_cap(llm, JUDGE_MAX_TOKENS)
    reply, calls = await call_with_retries(
        "entry check", lambda: invoke(llm, messages, limits.timeout, **cap), limits
    )
    text = str(getattr(reply, "content", "") or "") if reply is not None else ""
    return bool(_YES.match(text.strip())), calls


def _one_line(text: str) -> str:
    """The text on one line: a question cannot open a new line of the prompt."""
    return " ".join(str(text).split())[:500]
