"""The extractive answer (no model): which evidence sentences are quoted, in what order,
each with its [n] citation.

The sentences that share the most keywords with the question, or, for a passage in
another language than the question's, those picked by embedding similarity, the
question's words they hold by the dictionary and the kind of answer they hold
(graph.cross_sentences; graph.sentence_similarity scores them), quoted as written under
a lead naming the document and its language; graph.answer_sentences leaves out
headings, graph.cross_kinds the other language's sentences that do not bear on the
question, graph.answer_order orders them and leaves out sentences that do not answer.
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import Any

from graph.answer_order import arrange
from graph.answer_sentences import (
    content_words,
    covered,
    is_list_item,
    list_items,
    quotable,
    whole_list,
)
from graph.citations import citation_entry
from graph.cross_kinds import bearing
from graph.cross_language import passage_sentences, topic
from graph.cross_marks import crosses, family
from graph.sentence_similarity import Candidate, sentence_similarity
from graph.titles import display_title
from textkit.answer_type import answer_kinds, holds, names_kind
from textkit.catalog import say
from textkit.scripts import to_script
from textkit.tokens import keyword_tokens

MAX_SENTENCES = 3
# the best-scored sentences the kind of answer asked and coverage choose from
CONSIDERED = 2 * MAX_SENTENCES
MAX_EVIDENCE = 3  # sentences are drawn from the best three passages
SIMILARITY_WEIGHT = 4.0
# A sentence from supporting evidence must clearly beat one from a passing passage:
# without this, DRCD answers holding the gold span fell from 0.925 to 0.890.
SUPPORT_PENALTY = 1.0
# a list item's marker: each answer line is an item already
_BULLET = re.compile(r"^[-*•‧·]\s+")


def candidate_sentences(evidence: list[dict[str, Any]]) -> list[Candidate]:
    """The sentences an answer may quote, each with its keyword tokens (cut once) and
    what it sits under: its section's heading and its document's title.

    An FAQ entry's own question line is never quoted as if it answered, nor is a
    heading (graph.answer_sentences): it names the section of the sentences under it.
    """
    out: list[Candidate] = []
    for idx, item in enumerate(evidence[:MAX_EVIDENCE]):
        found = quotable(passage_sentences(item), str(item["text"]), str(item.get("heading") or ""))
        for pos, q in enumerate(found):
            # its section, then its document's title (graph.answer_order reads the section
            # alone: every sentence of a document shares the title's words)
            context = f"{q.section}\n{item.get('document') or ''}"
            out.append((idx, pos, q.sentence, frozenset(keyword_tokens(q.sentence)), context))
    return out


def pick_sentences(
    wanted: set[str],
    evidence: list[dict[str, Any]],
    candidates: list[Candidate],
    context: str = "",
    similarity: dict[str, float] | None = None,
    question: str = "",
) -> list[tuple[str, int]]:
    """(sentence, evidence index) pairs that best match the question (its keywords
    `wanted`): the one answering first, the others in evidence order.

    Shared keywords score; `similarity` (sentence → cosine with the question)
    lets "fee" answer "how much does it cost"; `context` (a follow-up's
    earlier question) counts a little: the sentence must answer what is asked now.
    A sentence of a passage in another language is scored by its similarity
    alone and only when it bears on the question (graph.cross_kinds.bearing: close to
    the best one's, or holding the kind of answer asked).
    Of the best-scored, the kind of answer `question` asks and its coverage decide
    which are quoted and which answers first (graph.answer_order.arrange).
    """
    background = set(keyword_tokens(context)) - wanted
    similarity = similarity or {}
    support = [item.get("graded") == "support" for item in evidence[:MAX_EVIDENCE]]
    cross = [crosses(item) for item in evidence[:MAX_EVIDENCE]]
    across = bearing(
        question,
        [
            (c[2], similarity.get(c[2], 0.0), str(evidence[c[0]].get("document")))
            for c in candidates
            if cross[c[0]]
        ],
    )
    scored: list[tuple[float, int, int, str, str]] = []
    for idx, pos, sentence, tokens, about in candidates:
        if not tokens:
            continue
        if cross[idx] and sentence not in across:
            continue
        hits = len(wanted & tokens) + 0.3 * len(background & tokens)
        score = hits / math.sqrt(len(tokens)) + SIMILARITY_WEIGHT * similarity.get(sentence, 0.0)
        if support[idx]:
            score -= SUPPORT_PENALTY
        # the best-ranked evidence breaks ties
        scored.append((score - 0.01 * idx, idx, pos, sentence, about))
    # a sentence two overlapping chunks of one document hold competes once (its better
    # scored copy): a copy must not take a place under the sentence cap
    ranked = sorted(scored, key=lambda s: -s[0])
    best = [ranked[i] for i in _first_copies(evidence, [(s[3], s[1]) for s in ranked])]
    best = best[:CONSIDERED]
    kinds = answer_kinds(question) or answer_kinds(context)
    about_asked = content_words(question)
    # a line holding the kind asked under a section naming the topic answers though it
    # shares no word ("Monday to Friday 9:00 to 17:00" under "Opening hours"); one
    # naming it may set the answer's terms ("The fee is waived for applicants over 65")
    best = [
        b
        for b in best
        if b[0] > 0
        or (
            any(holds(b[3], kind) or names_kind(b[3], kind) for kind in kinds)
            and covered(about_asked, b[4]) > 0
        )
    ] or best[:1]
    chosen = [
        best[i]
        for i in arrange(
            question,
            [(s, score, about, cross[idx], (idx, pos)) for score, idx, pos, s, about in best],
            MAX_SENTENCES,
            context,
            {idx: str(item.get("document") or f"#{idx}") for idx, item in enumerate(evidence)},
        )
    ]
    rest = sorted(chosen[1:], key=lambda b: (b[1], b[2]))
    places = [(b[1], b[2]) for b in [*chosen[:1], *rest]]
    if all(is_list_item(b[3]) for b in chosen) and len({b[1] for b in chosen}) == 1:
        # items of one list: its own order; several of them chosen for their section's
        # and title's words alone, none holding a word of the question itself (it asks
        # the list: "what are the garden rules?"), the whole list
        places = sorted(places, key=lambda p: p[1])
        if len(chosen) > 1 and not any(covered(about_asked, b[3]) for b in chosen):
            places = whole_list(places, candidates)
    return with_lists(places, candidates)


def with_lists(places: list[tuple[int, int]], candidates: list[Candidate]) -> list[tuple[str, int]]:
    """(sentence, evidence index) pairs of the sentences at `places` (evidence index,
    position), each line introducing a list ("You need:") followed by its whole list in
    order, beyond the sentence cap: an intro with one of its items reads as if that item
    were all. An item chosen on its own is quoted where its intro is."""
    text = {(c[0], c[1]): c[2] for c in candidates}
    passages: dict[int, list[str]] = {}
    for idx, _pos, sentence, _, _ in sorted(candidates, key=lambda c: (c[0], c[1])):
        passages.setdefault(idx, []).append(sentence)
    lists = {
        (idx, pos): [(idx, p) for p in list_items(passages[idx], pos)]
        for idx, pos in places
        if idx in passages and pos < len(passages[idx])
    }
    owner = {item: intro for intro, items in lists.items() for item in items}
    out: list[tuple[str, int]] = []
    seen: set[tuple[int, int]] = set()
    for place in places:
        head = owner.get(place, place) if owner.get(place) in places else place
        if head in seen:
            continue
        seen.add(head)
        for idx, pos in [head, *lists.get(head, [])]:
            seen.add((idx, pos))
            out.append((text[(idx, pos)], idx))
    return out


def cite(evidence: list[dict[str, Any]], used: list[int]) -> tuple[dict[int, int], list[dict]]:
    """Citation numbers by first use, one per document (its first cited page shown)."""
    numbers: dict[str, int] = {}
    by_index: dict[int, int] = {}
    citations: list[dict[str, Any]] = []
    for idx in used:
        item = evidence[idx]
        key = str(item["document"])
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            citations.append(citation_entry(numbers[key], item))
        by_index[idx] = numbers[key]
    return by_index, citations


async def extractive_answer(
    question: str,
    evidence: list[dict],
    language: str,
    context: str = "",
    embedder: Any = None,
) -> tuple[str, list]:
    """An answer made of cited evidence sentences, in the user's script; ("", []) when no
    sentence of the evidence bears on the question."""
    # jieba, sentence scoring and OpenCC are CPU work: off the event loop
    wanted, candidates = await asyncio.to_thread(_prepare, question, evidence)
    cross = frozenset(i for i, item in enumerate(evidence[:MAX_EVIDENCE]) if crosses(item))
    topics = {i: topic(evidence[i]) for i in cross}
    similarity = await sentence_similarity(embedder, question, wanted, candidates, cross, topics)
    return await asyncio.to_thread(
        _compose, wanted, evidence, candidates, context, similarity, language, question
    )


def _compose(
    wanted: set[str],
    evidence: list[dict],
    candidates: list[Candidate],
    context: str,
    similarity: dict[str, float],
    language: str,
    question: str = "",
) -> tuple[str, list]:
    """Pick the sentences, number the citations and write them in the user's script.

    When the best passage is an FAQ entry, the answer is drawn from that entry
    alone: it was written to answer this question, and a neighbouring entry's
    sentence sharing a word would answer another one.
    """
    if evidence and evidence[0].get("question"):
        candidates = [c for c in candidates if c[0] == 0] or candidates
    picked = quoted_once(
        pick_sentences(wanted, evidence, candidates, context, similarity, question), evidence
    )
    if not picked:
        return "", []  # no sentence bears on the question: no answer, not a bare lead
    numbers, citations = cite(evidence, [idx for _, idx in picked])
    return "\n".join(answer_lines(evidence, picked, numbers, language)), citations


def quoted_once(
    picked: list[tuple[str, int]], evidence: list[dict[str, Any]]
) -> list[tuple[str, int]]:
    """The picked sentences with each document's sentence once: two overlapping chunks of
    one document hold the sentences where they overlap, and a reader is not told the
    same sentence twice under one citation (a list quoted whole may bring one back)."""
    return [picked[i] for i in _first_copies(evidence, picked)]


def _first_copies(evidence: list[dict[str, Any]], sentences: list[tuple[str, int]]) -> list[int]:
    """The indexes of the (sentence, evidence index) pairs that are no copy of an earlier
    one: the same sentence of the same document."""
    seen: set[tuple[str, str]] = set()
    out: list[int] = []
    for i, (sentence, idx) in enumerate(sentences):
        key = (str(evidence[idx].get("document")), " ".join(sentence.split()))
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def answer_lines(
    evidence: list[dict[str, Any]],
    picked: list[tuple[str, int]],
    numbers: dict[int, int],
    language: str,
) -> list[str]:
    """The answer's lines: a lead, then one cited item per sentence.

    Sentences from documents in the reader's language are written in the
    reader's script under one lead. When a sentence comes from a document in
    another language, each document's sentences go under a lead of their own
    naming the document and its language ("The English document 'Passport
    renewal' says:"), quoted as written: a translation would be ours, not the
    document's.
    """

    def item(sentence: str, idx: int) -> str:
        return f"- {_BULLET.sub('', to_script(sentence, language))} [{numbers[idx]}]"

    if not any(crosses(evidence[idx]) for _, idx in picked):
        return [say("answer_intro", language)] + [item(s, idx) for s, idx in picked]
    groups: dict[int, list[tuple[str, int]]] = {}
    for sentence, idx in picked:
        groups.setdefault(numbers[idx], []).append((sentence, idx))
    lines: list[str] = []
    for group in groups.values():
        source = evidence[group[0][1]]
        if crosses(source):
            lines.append(
                say(
                    "answer_intro_other_language",
                    language,
                    language_name=say(f"language_name:{family(source.get('language'))}", language),
                    title=display_title(str(source["document"]), language),
                )
            )
        else:
            lines.append(say("answer_intro", language))
        lines += [item(s, idx) for s, idx in group]
    return lines


def _prepare(question: str, evidence: list[dict]) -> tuple[set[str], list[Candidate]]:
    """The question's keywords (cut once for ranking and picking) and the candidate sentences."""
    return set(keyword_tokens(question)), candidate_sentences(evidence)
