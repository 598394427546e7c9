"""FAQ entries in another language than the question: an entry answers the question it
states, judged by the meaning and the words of its own question.

Sibling entries of one page are all on its topic, and an entry's
answer is often a sentence of the same paragraph as its siblings' (XQuAD-FAQ:
one page per passage, its questions as entries): the passage test alone
answered a question whose entry was removed from another entry 73-80% of
the time (bench.answers, xquad-faq). What tells the entry from its siblings is
its question. On XQuAD-FAQ's dev half (articles of even index, 612 questions,
each asked in the other language against its page's entries), this embedder
puts a question and its translation at cosine 0.73 (median; a quarter under
0.66), two different questions about one paragraph at 0.43 (median; one pair
in 20 above 0.66, one in 100 above 0.74). Hence `MIN_QUESTION` 0.65: what
different questions on one topic reach about one time in 20, and a
translation three times in 4. The lead: the entry asked leads its page's
nearest other question by a median 0.19 (one in 10 under 0.05), while with it
removed the nearest sibling leads the next by a median 0.05, so
`QUESTION_LEAD` 0.05 refuses half of the close calls a page's siblings leave.
Single judgements over every entry of the page, the asked entry accepted /
the question refused with it removed, en entries asked in zh-hans and zh-hans
entries asked in en: dev 0.70 / 0.89, 0.69 / 0.90; held-out (odd articles,
578 questions, never tuned on) 0.73 / 0.89, 0.74 / 0.91 (0.6 with lead 0.1
gives the same trade; 0.65 without a lead 0.75 / 0.84). Whole turns (bench.answers, 100
answerable and 60 gold-removed per set, 2026-11-28): citation hit /
gold-removed refused went from 0.95 / 0.27 and 0.98 / 0.20 to 0.68 / 0.92
and 0.71 / 0.90; by half, dev 0.65 / 0.88, 0.68 / 0.92, held-out 0.73 /
0.94, 0.75 / 0.89. A translation's cosine is the best a cross-language
paraphrase gets, so a user's rewording is answered less often; an answer to
another question with a citation is the worse failure. Passages that are no
FAQ entry are not affected.

With the dictionary (textkit.bilingual) the two questions' words count too:
`question_score` is the cosine plus `QUESTION_WORD_WEIGHT` (0.3) times the share
of words each question holds of the other through the dictionary, the smaller of
the two ways (`add_question_scores`, the better of the entry's question as
written and in its context), against the bar `MIN_QUESTION_SCORE` 0.75 and the
lead `QUESTION_SCORE_LEAD` 0.08, the cosine still at least `MIN_QUESTION_WITH_WORDS`
0.55 (question words are no content words: a bare topic, 更新護照, holds all of
"Where can I renew my passport?"'s at a cosine of 0.51 and asks no place; the floor
changes the figures below by under 0.3 points), and an ask that is a phrase, not a
question (`is_phrase`), under `MIN_QUESTION` with every word held by the entry (its
question, title or answer; `question_words_held`, textkit.bilingual.holds_every_word:
急件更新護照費用 asks of an urgent renewal the fee entry does not name; asked of
every question, the rule cost XQuAD-FAQ its gains). A translation holds the other's
words both ways; a sibling's question about the same paragraph shares the topic's
words one way at most. Chosen on the same dev half (weights 0.2-0.7, bars, leads 0.03-0.1 swept,
2026-11-29) at the dev gold-removed refusal of the cosine rule: single judgements
as above, dev 0.77 / 0.89 (cosine alone 0.71 / 0.89), held-out 0.81 / 0.89
(0.75 / 0.88). Whole turns: docs/benchmarks.md (Cross-language answers, FAQ
entries by their questions' words).
"""

from __future__ import annotations

from typing import Any

from graph.cross_marks import NAME_JOINERS, cosines, crosses
from storage.embeddings import LocalUSEEmbeddings
from textkit.bilingual import coverage, holds_every_word
from textkit.question_words import is_phrase

MIN_QUESTION = 0.65
QUESTION_LEAD = 0.05
# with the dictionary: the question's cosine plus this much of the share of words the
# two questions hold of each other (`question_score`), its bar and its lead
QUESTION_WORD_WEIGHT = 0.3
MIN_QUESTION_SCORE = 0.75
QUESTION_SCORE_LEAD = 0.08
# and the cosine at least this: a bare topic (更新護照, "renew passport") holds every
# content word of "Where can I renew my passport?" and asks none of its questions
MIN_QUESTION_WITH_WORDS = 0.55


def asks_entry_question(item: dict[str, Any]) -> bool:
    """True unless the passage is an FAQ entry whose question is not the one asked: its
    question's cosine with the asked one under `MIN_QUESTION`, or not `QUESTION_LEAD`
    above the other retrieved entries' questions; with the dictionary (a
    `question_score`), that score under `MIN_QUESTION_SCORE` or not
    `QUESTION_SCORE_LEAD` above the others', its cosine under
    `MIN_QUESTION_WITH_WORDS`, or an ask that is a phrase with a word the entry does
    not hold (`question_words_held`; see the module docstring).

    Not judged (True) for a passage that is no entry, or not compared (no embedder,
    or another than the local one)."""
    if not item.get("question") or "question_cosine" not in item:
        return True
    score = question_score(item)
    lead = float(item.get("question_lead", score))
    if "question_score" in item:
        return (
            score >= MIN_QUESTION_SCORE
            and lead >= QUESTION_SCORE_LEAD
            and float(item["question_cosine"]) >= MIN_QUESTION_WITH_WORDS
            and bool(item.get("question_words_held", True))
        )
    return score >= MIN_QUESTION and lead >= QUESTION_LEAD


def question_score(item: dict[str, Any]) -> float:
    """How surely an FAQ entry's question is the one asked: with the dictionary, for an
    entry in another language, its `question_score` (`add_question_scores`: cosine and
    shared words); else its `question_cosine`."""
    return float(item.get("question_score", item["question_cosine"]))


def add_question_leads(items: list[dict[str, Any]]) -> None:
    """Set `question_lead` on each FAQ entry with a `question_cosine`: its
    `question_score` minus the best of the other entries' in the same case (another language
    than the question, or its own: cosines across languages run lower) among `items`
    (all of a turn's candidates; its own cosine when no other entry was retrieved).

    Entries that are one entry never compete: chunks of one long entry (they share
    its question), entries whose compared texts (`entry_question`) are the same, and
    the same entry uploaded twice (same question and text): a copy of a page must
    not silence the original, nor the reverse."""
    scored = [i for i in items if i.get("question") and "question_cosine" in i]
    for item in scored:
        others = [
            question_score(o)
            for o in scored
            if not same_entry(o, item) and crosses(o) == crosses(item)
        ]
        item["question_lead"] = round(question_score(item) - max(others, default=0.0), 4)


def same_entry(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One entry: its own chunk, another chunk of it, or a copy of it (same question in
    the same context, or the same question and text)."""
    if (a.get("document"), a["question"]) == (b.get("document"), b["question"]):
        return True
    if _normal(entry_question(a)) == _normal(entry_question(b)):
        return True
    same_question = _normal(a["question"]) == _normal(b["question"])
    return same_question and _normal(a.get("text")) == _normal(b.get("text"))


def _normal(text: object) -> str:
    # a passage of a plain document has no question (None): it is no entry's copy
    return " ".join(str(text or "").split()).casefold()


def entry_question(item: dict[str, Any]) -> str:
    """An FAQ entry's question in its context, as the asked question is compared with
    it: its document's title and its heading when that is not the question itself
    ("Fishing licence. What does it cost?"). Two documents' "What does it cost?"
    differ only by what they are about."""
    question = str(item["question"]).strip()
    heading = str(item.get("heading") or "").strip()
    if heading and _normal(question) in _normal(heading):
        heading = ""
    title = NAME_JOINERS.sub(" ", str(item.get("document") or "")).strip()
    return ". ".join(p for p in (title, heading, question) if p)


def judges_entries(embedder: Any) -> bool:
    """True when FAQ entries are judged by their question (`MIN_QUESTION`,
    `QUESTION_LEAD`): with the local USE model they were measured on; another
    embedder's cosines run on another scale, and its entries are not judged."""
    return isinstance(embedder, LocalUSEEmbeddings)


async def add_entry_cosines(
    embedder: Any, question: str, entries: list[dict[str, Any]]
) -> dict[str, float]:
    """Set `question_cosine` on each FAQ entry: the asked question's cosine with the
    entry's question as written or in its context (`entry_question`), the better of
    the two; one batched call. Nothing unless the embedder is the one the thresholds
    hold for (`judges_entries`). Returns the cosine of each text compared (empty when
    none was)."""
    if not entries or not judges_entries(embedder):
        return {}
    asked = [str(i["question"]) for i in entries]
    texts = list(dict.fromkeys([*asked, *(entry_question(i) for i in entries)]))
    by_text = dict(zip(texts, await cosines(embedder, question, texts), strict=True))
    for item, bare in zip(entries, asked, strict=True):
        # the better of the two: a question naming the entry's topic matches it in
        # context; a title that is only a label ("FAQ page 3") dilutes the question
        cosine = max(by_text[bare], by_text[entry_question(item)])
        item["question_cosine"] = round(cosine, 4)
    return by_text


def add_question_scores(
    question: str, entries: list[dict[str, Any]], by_text: dict[str, float]
) -> None:
    """Set `question_score` on each FAQ entry in another language whose question was
    compared (`by_text`: the asked question's cosine with each entry's question as
    written and in its context, `add_entry_cosines`): the better of the two texts'
    cosine plus `QUESTION_WORD_WEIGHT` times the share of words the two questions hold
    of each other through the dictionary (textkit.bilingual.coverage both ways, the
    smaller). A translation holds the other's words both ways; a sibling's question about
    the same paragraph, some of them one way (see the module docstring). An ask that is
    a phrase (`is_phrase`) under `MIN_QUESTION` also gets `question_words_held`."""
    # kept on each entry for graph.entry_across: a phrase names a topic, and it answers
    # by its lead only when as near as this module asks of any entry
    phrase = is_phrase(question)
    for item in entries:
        texts = [
            t for t in dict.fromkeys([str(item["question"]), entry_question(item)]) if t in by_text
        ]
        if not texts:
            continue
        # an ask that is a phrase, not a question, under the cosine a translation
        # reaches: every word of it must be the entry's (its question, title or
        # answer): 急件更新護照費用 asks of an urgent renewal, and the renewal fee's
        # entry names none. Its score stands, as the others' lead is measured over it.
        item["asked_phrase"] = phrase
        if float(item["question_cosine"]) < MIN_QUESTION and phrase:
            whole = f"{entry_question(item)} {item.get('text') or ''}"
            item["question_words_held"] = holds_every_word(question, whole)
        item["question_score"] = round(
            max(
                by_text[t]
                + QUESTION_WORD_WEIGHT * min(coverage(question, t), coverage(t, question))
                for t in texts
            ),
            4,
        )
