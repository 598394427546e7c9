"""With a model and LLM_ENTRY_CHECK: the FAQ entry nearest the question, checked for
asking the same thing.

Without a model an FAQ entry answers by meaning only when its question leads
every other entry near the question by `MEANING_LEAD` (graph.entry_question):
the local embedder puts a user's casual rewording ("pay taxes monthly") about
as near a sibling's question as its own entry's, so a smaller lead answers
questions whose entry is missing with a sibling's answer. Between
`QUESTION_LEAD` (the lead an entry stating the question asked must have) and
that lead the embedder cannot tell; a model reading the two questions may. When
a turn has a model and found nothing grounded, that entry is put to it in one
short request (prompt `entry_check`: "yes" or "no", a few tokens): the entry
check. On "yes" the entry is confirmed (graph.entry_question.confirmed_entry)
and the answer's request reads it as a grounded passage; its claims are checked
as any, its thing taken as the one asked (graph.claim_question).

A confirmation is one model's word of three tokens, and a message can talk a
model into a "yes": an entry grounded by it alone is never quoted by the
extractive answer when the model's own answer is discarded (graph.nodes.
response_synth), and such a turn is not kept in the answer memory
(graph.nodes.consolidate_memory).

Asked at most once a turn, and only while the turn has sent no request (a
planned turn keeps to `CALLS_PER_TURN`: plan and answer), with at most
`CHECK_TIMEOUT_S` seconds for its reply and no retry. A reply that is not a
plain "yes" is a "no"; an error or a timeout leaves the turn as without the
check (`failed` on the decision path).

Off unless LLM_ENTRY_CHECK asks for it: with Qwen2.5-Coder-1.5B-Instruct it
answered 3 more of 56 FAQ paraphrases and one of 28 questions whose entry was
missing with a sibling's answer (docs/benchmarks.md, "An FAQ entry checked by
the model").
"""

from __future__ import annotations

import re
import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from graph.entry_question import MEANING_LEAD, QUESTION_LEAD, compared_entry, question_lead_of
from graph.llm import reply_cap
from graph.llm_client import CallLimits, call_with_retries, invoke
from graph.prompts import load

# "yes" or "no" is one or two tokens; a model running on is cut short
CHECK_MAX_TOKENS = 3
# the check's reply is a word: a model that cannot give it in this long (a queue at a
# busy server) would hold the answer's request back longer than the check is worth
CHECK_TIMEOUT_S = 10.0
_YES = re.compile(r"^\W*(?:yes\b|是|對|对)", re.IGNORECASE)
# a reply that names both ("Yes or no", "Yes/No", 是不是) is the question echoed
_NO = re.compile(r"\bno\b|不|否", re.IGNORECASE)


def unsure_entry(evidence: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The FAQ entry in the question's language whose question leads every other entry
    near the question (graph.entry_question.compared_entry) by `QUESTION_LEAD` (it
    states the question asked, graph.entry_question.states_asked_question) but by
    less than `MEANING_LEAD`: the one a model may confirm. None when there is none, or
    when it leads by enough to answer by meaning already."""
    leads = [(question_lead_of(e), e) for e in evidence if compared_entry(e)]
    unsure = [(lead, e) for lead, e in leads if QUESTION_LEAD <= lead < MEANING_LEAD]
    return max(unsure, key=lambda pair: pair[0])[1] if unsure else None


def says_yes(reply: str) -> bool:
    """True for a reply that is a plain "yes" (是, 對 in Chinese), not the question echoed."""
    text = reply.strip()
    return bool(_YES.match(text)) and not _NO.search(text)


async def check_entry(
    llm: Any, question: str, entry: dict[str, Any], limits: CallLimits
) -> tuple[bool | None, int, float]:
    """Whether the model says `entry`'s question asks what `question` asks (None: no
    reply, an error or a timeout), the requests sent and the milliseconds waited."""
    # the entry's question as written: read under its page's title ("Passports. Can I
    # get a passport urgently …?", "银行卡. 银行卡丢失了怎么办？") the model took a
    # sibling for the entry asked 7 times in 90 near-bar pairs, against once
    messages = [
        SystemMessage(load("entry_check").text),
        HumanMessage(
            f"User's question: {one_line(question)}\nFAQ question: {one_line(entry['question'])}"
        ),
    ]
    cap = reply_cap(llm, CHECK_MAX_TOKENS)
    bounded = CallLimits(min(limits.timeout, CHECK_TIMEOUT_S), retries=0, own_limit=True)
    started = time.perf_counter()
    reply, calls = await call_with_retries(
        "entry check", lambda: invoke(llm, messages, bounded.timeout, **cap), bounded
    )
    waited = round((time.perf_counter() - started) * 1000, 3)
    if reply is None:
        return None, calls, waited
    return says_yes(str(getattr(reply, "content", "") or "")), calls, waited


def one_line(text: str) -> str:
    """The text on one line, at most 500 characters: a question cannot open a new line
    of the prompt (a fake "FAQ question: …")."""
    return " ".join(str(text).split())[:500]
