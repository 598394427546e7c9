"""FAQ entries in another language than the question, answered by their question's lead.

With the dictionary installed (textkit.bilingual), an FAQ entry in another language
than the question is judged by graph.cross_entries, whose absolute bars were set on
translated questions (XQuAD-FAQ) and refuse most colloquial asks: on the project's FAQ
sets asked by hand in the other language (bench.faq's `across-…` sets, written
2026-11-30, before any threshold was measured on them), 50-94% of answerable asks were
refused.
An entry whose `question_score` (cosine plus the two questions' shared words,
graph.cross_entries) leads every other entry in another language near the question
(those the turn found, `question_lead`, and the collection's nearest,
graph.entry_question.RIVALS of them, `rival_score`) by `CROSS_MEANING_LEAD` answers by
meaning too (graph.entry_question.answers_by_meaning), its cosine at least that
module's `MIN_MEANING`; an ask that is a phrase must also reach
graph.cross_entries.MIN_QUESTION_WITH_WORDS and have every word held by the entry (a
bare topic, 更新護照, leads with "Where can I renew my passport?", whose question is
all topic words, and asks none of it); an ask for a price, a time, a duration or a
count, or whether something is free, needs an entry whose answer holds one
(graph.kind_held: "is a savings account free" led with the account-opening entry).
Unlike in the question's language, an entry the searches left out is not added.

The lead is 0.15, not the same-language 0.12: at 0.12 (whole turns, bench.faq,
2026-11-30) the shop's dev half answered two asks for a payment method with the
instalments entry (gold-removed refused 0.857 → 0.786) and XQuAD-FAQ's halves lost
0-4 of 40 gold-removed refusals; at 0.15 every `across-…` half refused its
gold-removed asks as before (the shop's dev half narrowly: one such ask leads by
0.1504) and XQuAD-FAQ's dev halves lost 1 and 0 of 40 (chosen on the dev halves;
0.18 refused no more and answered less). Entry hit (the entry asked quoted), before
→ after, dev / held-out: citizen 0.33 → 0.61 / 0.06 → 0.25, shop 0.14 → 0.43 / 0.10 →
0.40, Traditional-Chinese citizen 0.17 → 0.33 / 0.08 → 0.58, banking 0.50 → 0.57 /
0.40 → 0.40; XQuAD-FAQ 0.58 → 0.70 and 0.68 → 0.75 / 0.80 → 0.85 and 0.83 → 0.90
(docs/benchmarks.md, "FAQ entries across languages by their lead"). What a lead
cannot tell, here as in the question's language: an ask about an aspect or a thing
no entry covers, near one entry's topic (可以打新冠疫苗嗎？ on a page whose flu-vaccine
entry says "Yes, the seasonal flu vaccine is given…"), is answered with that entry
when it leads the others. Asks written to probe this over four small pages of eight
entries (a registry office and a school in Chinese asked in English, a clinic and a
telephone shop in English asked in Chinese; the pages whole and with entries removed;
2026-11-30) gained 8 right answers against the code before and 6 such wrong ones (8
before the kind test: the cost of a marriage registration, whether a birth
certificate is free): 可以打新冠疫苗嗎？, 打流感针有副作用吗？, 验尿前要空腹吗？ (the
blood test's fasting entry), 换号码要钱吗？ (number porting is free), 新开一张SIM卡要什么证件？
(the top-up entry) and, with the lost-ID entry removed, "I lost my ID card" (the
card-renewal entry).
"""

from __future__ import annotations

import asyncio
from typing import Any

from graph.cross_entries import (
    MIN_QUESTION_WITH_WORDS,
    add_entry_cosines,
    add_question_scores,
    same_entry,
)
from graph.kind_held import FINER, finer_kinds, holds_kind
from textkit.answer_type import asks_if_free

# An entry in another language answers by meaning when its question's score (cosine and
# the words the two questions hold of each other through the dictionary,
# graph.cross_entries.question_score) leads every other such entry's near the question
# by this much (see the module docstring).
CROSS_MEANING_LEAD = 0.15


def asked_kinds(question: str) -> list[str]:
    """The finer kinds of answer the question asks that an entry answering it by its lead
    must hold one of: a price, a time, a duration, a count, or a price when it asks
    whether something is free. An entry whose answer holds none answers another question
    ("is a birth certificate free?" is not answered by the registration deadline). The
    finer kind itself, not the coarser one it refines: two witnesses are no price."""
    kinds = [k for k in finer_kinds(question) if k in FINER]
    return kinds or (["price"] if asks_if_free(question) else [])


async def add_rival_scores(
    embedder: Any, question: str, rivals: list[dict[str, Any]], items: list[dict[str, Any]]
) -> None:
    """Set `rival_score` on each FAQ entry in another language than the question among
    `items` that has a `question_score` (the dictionary is installed): the best such
    score of another of `rivals`, the entries in another language nearest the question
    in the collection (graph.entry_question.add_rival_cosines' search, as candidates).
    None is set when no other is there: such an entry leads no one and is never answered
    by its lead. Also `kind_held`: whether its answer holds the kind asked
    (`asked_kinds`)."""
    judged = [
        i for i in items if i.get("question") and i.get("cross_language") and "question_score" in i
    ]
    if not judged or not rivals:
        return
    kinds = asked_kinds(question)
    for item in judged:
        item["kind_held"] = holds_kind(item, kinds)
    by_text = await add_entry_cosines(embedder, question, rivals)
    await asyncio.to_thread(add_question_scores, question, rivals, by_text)
    scored = [r for r in rivals if "question_score" in r]
    for item in judged:
        others = [float(r["question_score"]) for r in scored if not same_entry(r, item)]
        if others:
            item["rival_score"] = round(max(others), 4)
            item["rival_entries"] = len(others)


def leads_across(item: dict[str, Any]) -> bool:
    """True when an FAQ entry in another language than the question leads the others by
    `CROSS_MEANING_LEAD` (its `question_score` over the turn's, `question_lead`, and the
    collection's nearest, `rival_score`), and an ask that is a phrase or asks a kind of
    answer does not rule it out (see the module docstring). The cosine floor is
    graph.entry_question.answers_by_meaning's."""
    if "rival_score" not in item or "question_score" not in item:
        return False
    score = float(item["question_score"])
    lead = min(float(item.get("question_lead", score)), score - float(item["rival_score"]))
    cosine = float(item["question_cosine"])
    # a phrase names a topic: every entry on it holds its words, and the one whose
    # question is all topic words ("Where can I renew my passport?" for 更新護照) leads
    # the others without being asked; it must name nothing the entry does not and come
    # as near as graph.cross_entries asks of any entry
    phrase_unasked = item.get("asked_phrase") and (
        cosine < MIN_QUESTION_WITH_WORDS or not item.get("question_words_held", True)
    )
    if phrase_unasked or not item.get("kind_held", True):
        return False
    return lead >= CROSS_MEANING_LEAD
