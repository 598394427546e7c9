"""An FAQ entry in the question's own language answers the question it states.

The word-based evidence test (graph.grounding) asks whether a passage holds
the question's key terms together. Sibling entries of an FAQ page share their
page's topic and most of its words ("How long does it take to renew a
passport?" holds "renew" and "passport" of "what's the price of renewing my
passport"): with the entry asked removed, a sibling was grounded and quoted
for 32% of StackFAQ's paraphrases and 30% of the Traditional-Chinese citizen
set's dev half (bench.answers, gold removed, 2026-11-28). What tells the entry
from its siblings is its question, as for entries in another language
(graph.cross_language): an entry in the question's language is grounded only
when, besides the word-based test, its question leads the other
same-language entries' questions retrieved in the turn by `QUESTION_LEAD`
(`question_lead`: the asked question's cosine with the entry's question minus
the best other entry's, set by graph.cross_entries.add_question_leads over
all of a turn's candidates).

The lead, and no cosine floor as across languages: a user's colloquial
rewording is further from an entry's written question than a translation
is. On the dev halves of the project's FAQ sets (bench.faq: every other entry
of each page asked; 210 paraphrases of four sets, each against every entry
question of its page), the paraphrase's cosine with its own entry's question
has a median of 0.30 (IT helpdesk, no shared content word) to 0.57
(Traditional-Chinese citizen services), a quarter under 0.23-0.48, while its
cosine with the nearest sibling's question has a median of 0.23-0.42: a floor
refuses answerable questions before unanswerable ones. The lead is what this
embedder keeps in either case: the asked entry's question leads the nearest
sibling's by a median 0.06-0.13, while with it removed the nearest sibling
leads the next by a median 0.03-0.05 (across languages 0.19 against 0.05).
Hence the cross-language `QUESTION_LEAD`, 0.05: the same property of the same
embedder. A single search per question over the dev halves (scratch probe)
put the lead at 0.03 / 0.05 / 0.08 for gold-removed refusal on the weakest
dev set (Traditional Chinese) at 0.74 / 0.78 / 0.89, costing the citizen set
0 / 0 / 4 points of citation hit; a floor of 0.5 with the lead gave it 0.85
but halved the English sets' citation hit. An ask holding most of an entry
question's words is no safer a route: a short sibling question ("Where can I
renew my passport?") is all topic words.

Whole turns (bench.answers, 2026-11-28; 18-27 answerable and gold-removed
questions a half, so one question is 4-6 points), gold-removed refused
before → after, dev / held-out: citizen 0.88 → 0.92 / 0.81 → 0.90, IT
helpdesk 1.00 → 1.00 / 0.95 → 0.95, workplace 0.93 → 0.96 / 0.90 → 0.90,
Traditional-Chinese citizen 0.70 → 0.78 / 0.94 → 1.00; citation hit 0.30 →
0.26 / 0.54 → 0.33, 0.00 → 0.00 / 0.10 → 0.05, 0.41 → 0.37 / 0.19 → 0.14,
0.19 → 0.07 / 0.50 → 0.44. StackFAQ (users' paraphrases, never tuned on):
gold-removed refused 0.68 → 0.87, citation hit 0.57 → 0.48 (one entry per
file) and 0.50 (ten per page). A paraphrase whose entry's question the
embedder puts within 0.05 of a sibling's is refused: an answer to another
question with a citation is the worse failure. Table: docs/benchmarks.md (FAQ
entries in the question's language). Passages that are no FAQ entry, and
entries without an embedder to compare their questions, are not affected.

The entries it must lead are not only those the turn's searches kept: the
searches keep the passages over the relevance threshold (mostly keyword
coverage), so a colloquial question often brings one entry alone, which then
led no one ("六十五歲以後有什麼好康" brought only "如何預約成人健康檢查？",
cosine 0.34, with the entry it asks removed). `add_rival_cosines` runs one
vector search for the question (the `RIVALS` nearest entries of the whole
collection, found or not) and an entry must also lead the best of those that
are not itself by `QUESTION_LEAD` (`rival_cosine`). Whole turns (bench.faq,
2026-11-29, 15-40 questions a half; dev / held-out), gold-removed refused
before → after: Traditional-Chinese citizen 0.81 → 0.93 / 1.00 → 1.00,
citizen 0.96 → 1.00 / 0.90 → 0.95, StackFAQ 0.90 → 0.93 / 0.80 → 0.93,
Simplified-Chinese banking 0.90 → 0.95 / 1.00 → 1.00, the other sets
unchanged (the online shop's dev half stays at 0.86: "can I pay with paypal"
without the payment-methods entry still gets "Can I pay in instalments?");
answerable refused 0.78 → 0.81 (citizen dev), 0.59 → 0.63 / 0.86 → 0.95
(workplace), 0.87 → 0.93 (shop held-out), StackFAQ 0.48 → 0.50 / 0.60 →
0.65, the others unchanged (docs/benchmarks.md, FAQ sets per half).

An entry's question is compared as written and in its context, its
document's title and its heading when that is not the question itself
(graph.cross_entries.entry_question: "Fishing licence. What does it
cost?"), the better cosine counting: two documents' "## What does it cost?"
tie as written (lead 0.0, both refused), while a question naming a licence
matches its own document's in context; a title that is only a label ("FAQ
page 3", "Super Bowl 50 FAQ §3") dilutes a question, which then counts as
written. Context alone cost XQuAD-FAQ's dev halves 37 and 23 points of
citation hit (an English title under a Chinese question, or the reverse,
missed the 0.65 floor). The better of the two against the bare question
(bench.answers, 2026-11-28), citation hit / gold-removed refused: XQuAD-FAQ
dev 0.65 → 0.68 / 0.88 → 0.92 and 0.68 → 0.75 / 0.92 → 0.96, held-out 0.73
→ 0.73 / 0.94 → 0.94 and 0.75 → 0.80 / 0.89 → 0.86; StackFAQ and the
project's sets within one question (citizen dev 0.26 → 0.22 / 0.92 → 0.96,
Traditional-Chinese citizen dev refused 0.78 → 0.81). Letting only one
document's entries compete instead would leave "钓鱼执照要多少钱？" under the
floor (0.35 with "What does it cost?" as written, 0.70 in context) and
StackFAQ's one-entry files with no entry to lead. The same entry uploaded
twice, or the same title and question in two collections, is one entry and
does not compete with itself (add_question_leads).

Support is judged by meaning, not shared words: an entry whose question leads
every other entry near the question by `MEANING_LEAD` (0.12, the turn's
entries and the collection's `RIVALS` nearest) answers whatever words it
shares with the question (`answers_by_meaning`; graph.grounding), and its
answer is quoted. Colloquial paraphrases ("tipped my coffee onto my
computer" for "What should I do if I spill a drink on my laptop?") share
none of the entry's words and often fall under the relevance threshold:
the nearest entry the searches left out is added to the turn's candidates
when it leads so (`add_rival_cosines`), and it passes at any threshold
(graph.nodes.retrieval_checker). Measured on the dev halves only (bench.faq's
turns, every entry's and rival's question cosine recorded, 2026-11-29; 21-40
answerable and gold-removed questions a set), answerable refused / gold-removed
refused with the lead at 0.08 / 0.10 / 0.12 / 0.14: citizen 0.37 / 0.52 / 0.59
/ 0.67 with 0.96 / 0.96 / 1.00 / 1.00, Traditional-Chinese citizen 0.48 / 0.63
/ 0.70 / 0.74 with 0.70 / 0.74 / 0.85 / 0.89, IT helpdesk 0.67 / 0.74 / 0.74 /
0.85 with 0.88, online shop 0.57 / 0.62 / 0.67 / 0.67 with 0.76 / 0.86 / 0.86 /
0.86, StackFAQ 0.28 / 0.30 / 0.35 / 0.40 with 0.78 / 0.88 / 0.93 / 0.93 (before:
answerable refused 0.82, 0.93, 1.00, 1.00, 0.53). 0.12 is the smallest lead
keeping every dev half's gold-removed refusal at 0.85. What bounds the
answerable side is the embedder: the asked entry's question is the nearest of
the collection for only 14 of the helpdesk's 27 dev paraphrases, 15 of the
shop's 21, 17 of the workplace's 27, 22 of 27 (both citizen sets) and 32 of
StackFAQ's 40; a lead on the chunk's own cosine, on their sum, or relative
to the runner-up (a ratio) did no better at the same gold-removed refusal.
`MIN_MEANING` (0.3) keeps a question far from every entry from being
answered by a collection's only entry (one helpdesk dev paraphrase lost).
Where fewer than `RIVALS` other entries were there to lead (a small FAQ), a
question's shape alone can lead them ("Can kids swim alone?" led five rubbish
entries with "Can I put batteries in the bin?"): everyday questions about other
things stand in for the missing ones (graph.everyday_questions).

Entries in another language than the question answer by their lead too, by their
own score and bar: graph.entry_across.

All of this only with the local embedder the thresholds were measured on:
with another (`EMBEDDING_*`) entries are not compared and are judged as any
passage.
"""

from __future__ import annotations

from typing import Any

from graph.answer_safety import redact_evidence
from graph.cross_entries import QUESTION_LEAD, add_entry_cosines, judges_entries, same_entry
from graph.cross_marks import crosses
from graph.entry_across import add_rival_scores, leads_across
from graph.everyday_questions import near_as_everyday

# The entries nearest the question in the whole collection (by the vector side) that
# an entry found must also lead: the searches of a turn keep only the passages over
# the relevance threshold, and an entry found alone led no one.
RIVALS = 10
# An entry whose question leads every other near the question by this much answers
# by meaning alone, and not below this cosine (see the module docstring).
MEANING_LEAD = 0.12
MIN_MEANING = 0.3
# set on an entry a model confirmed as asking what the user asked (graph.entry_check)
CONFIRMED = "entry_confirmed"


async def add_question_cosines(embedder: Any, question: str, items: list[dict[str, Any]]) -> None:
    """Set `question_cosine` on each FAQ entry in the question's language (the asked
    question's cosine with the entry's question under its title and heading,
    graph.cross_entries.entry_question; passages in another language get theirs
    from graph.cross_language.add_sentence_cosines); nothing without the local embedder."""
    todo = [i for i in items if i.get("question") and not crosses(i) and "question_cosine" not in i]
    await add_entry_cosines(embedder, question, todo)


async def add_rival_cosines(
    embedder: Any, searcher: Any, question: str, items: list[dict[str, Any]], filters: Any = None
) -> None:
    """Set `rival_cosine` on each FAQ entry in the question's language that has a
    `question_cosine`: the best such cosine of another entry among the `RIVALS`
    entries nearest the question in the collection, found or not by the turn's
    searches (one vector search, with the local embedder only).

    The nearest entry that the searches left out is added to `items` when its
    question leads every other by `MEANING_LEAD` (`answers_by_meaning`): a question
    sharing no word with its entry falls under the relevance threshold, and a search
    may find nothing at all."""
    if not judges_entries(embedder):
        return
    judged = [i for i in items if i.get("question") and "question_cosine" in i and not crosses(i)]
    hits = await searcher.search(
        question, top_k=RIVALS, filters=filters, mode="vector", per_document=RIVALS
    )
    entries = [h for h in hits if getattr(h, "question", None)]
    across = [h for h in entries if getattr(h, "cross_language", False)]
    # entries in another language are judged against their own (graph.entry_across)
    await add_rival_scores(
        embedder, question, [candidate_of(h, rank) for rank, h in enumerate(across, 1)], items
    )
    same = [h for h in entries if not getattr(h, "cross_language", False)]
    rivals = [candidate_of(h, rank) for rank, h in enumerate(same, len(items) + 1)]
    await add_entry_cosines(embedder, question, rivals)
    rivals = [r for r in rivals if "question_cosine" in r]
    left_out = [r for r in rivals if not any(same_entry(r, i) for i in items)]
    if left_out:
        nearest = max(left_out, key=lambda r: float(r["question_cosine"]))
        others = [r for r in [*rivals, *judged] if not same_entry(r, nearest)]
        # an entry with no other to lead leads nothing: a collection's one entry must not
        # answer every question near it
        lead = float(nearest["question_cosine"]) - max(
            (float(o["question_cosine"]) for o in others), default=1.0
        )
        if others and lead >= MEANING_LEAD:
            # a document's sentences addressed to the assistant are cut as the search's are
            added = redact_evidence([nearest])[0]
            items.extend(added)
            judged.extend(added)
    for item in judged:
        others_cosines = [float(r["question_cosine"]) for r in rivals if not same_entry(r, item)]
        if others_cosines:  # none: not compared, so never answered by meaning alone
            item["rival_cosine"] = round(max(others_cosines), 4)
            item["rival_entries"] = len(others_cosines)


def candidate_of(hit: Any, rank: int) -> dict[str, Any]:
    """A search's hit as a turn's candidate (the shape graph.nodes.tool_executor gives)."""
    return {
        "document": hit.document,
        "chunk_id": hit.chunk_id,
        "text": hit.text,
        "score": hit.score,
        "page": getattr(hit, "page", None),
        "heading": hit.heading,
        "url": getattr(hit, "url", None),
        "support": getattr(hit, "support", 0.0),
        "cosine": getattr(hit, "cosine", 0.0),
        "lead": getattr(hit, "lead", 0.0),
        "language": getattr(hit, "language", None),
        # another language than the question's: judged by meaning (graph.cross_language)
        "cross_language": getattr(hit, "cross_language", False),
        "question": getattr(hit, "question", None),
        "rank": rank,
    }


def states_asked_question(item: dict[str, Any]) -> bool:
    """True unless the passage is an FAQ entry in the question's language whose
    question does not lead the other retrieved entries' questions, and its rivals'
    (`add_rival_cosines`), by `QUESTION_LEAD` (see the module docstring).

    Not judged (True) for a passage that is no entry, or not compared (no embedder,
    or another than the local one)."""
    if not item.get("question") or "question_cosine" not in item or crosses(item):
        return True
    return question_lead_of(item) >= QUESTION_LEAD


def question_lead_of(item: dict[str, Any]) -> float:
    """How far the entry's question leads the other entries' near the question: those
    the turn found (`question_lead`) and the collection's nearest (`rival_cosine`)."""
    cosine = float(item["question_cosine"])
    return min(
        float(item.get("question_lead", cosine)), cosine - float(item.get("rival_cosine", 0.0))
    )


def few_rivals(item: dict[str, Any]) -> bool:
    """True when the rival search found fewer than `RIVALS` - 1 other FAQ entries to
    lead (`rival_entries`: of the question's language, or of another for an entry in
    another; none counted when it did not run): a small FAQ, or the nearest passages
    mostly no entries. An entry answers by meaning there only when the asked question
    is about as near it as to any everyday question about another thing
    (graph.everyday_questions)."""
    return int(item.get("rival_entries", 0)) < RIVALS - 1


def answers_by_meaning(item: dict[str, Any]) -> bool:
    """True when the passage is an FAQ entry in the question's language whose question
    leads every other entry near the question by `MEANING_LEAD` (those the turn found,
    `question_lead`, and the collection's nearest, `rival_cosine`) with a cosine of at
    least `MIN_MEANING`: its answer answers, whatever words it shares with the question.
    An entry in another language: by its own score and bar (graph.entry_across), the
    cosine floor the same. With few entries to lead (`few_rivals`), either must also
    come about as near the question as any everyday question about another thing
    (graph.everyday_questions): on a small FAQ a question's shape alone can lead the
    other entries.

    Only once the collection was compared (`rival_cosine` set, the local embedder).
    An entry a model said asks what the user asked answers too (`confirmed_entry`)."""
    if confirmed_entry(item):
        return True
    if crosses(item):
        return near_enough(item) and leads_across(item)
    return compared_entry(item) and question_lead_of(item) >= MEANING_LEAD


def near_enough(item: dict[str, Any]) -> bool:
    """True for an FAQ entry whose question's cosine with the asked one is at least
    `MIN_MEANING` and, with few entries to lead (`few_rivals`), about as near it as any everyday
    question about another thing (graph.everyday_questions)."""
    if not item.get("question") or "question_cosine" not in item:
        return False
    if float(item["question_cosine"]) < MIN_MEANING:
        return False
    # few entries to lead: everyday questions stand in for the others
    return not few_rivals(item) or near_as_everyday(item)


def compared_entry(item: dict[str, Any]) -> bool:
    """True for an FAQ entry in the question's language, `near_enough`, compared with
    the collection's entries near the question (`rival_cosine` set): its lead
    (`question_lead_of`) says whether it answers by meaning (graph.entry_check reads
    a smaller one)."""
    return not crosses(item) and near_enough(item) and "rival_cosine" in item


def confirmed_entry(item: dict[str, Any]) -> bool:
    """True when a model said the entry asks what the user asked (graph.entry_check)."""
    return bool(item.get(CONFIRMED))
