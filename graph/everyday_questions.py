"""Everyday questions about other things: what an FAQ entry must come near to on a small FAQ.

An FAQ entry answers by its question's meaning alone when that question leads
the other entries near the asked one (graph.entry_question, graph.entry_across).
On a small collection the lead says little: with five entries about rubbish
collection, "Can kids swim alone?" and "Can I bring my dog?" come nearest "Can
I put batteries in the bin?" (cosine 0.41 and 0.48, 0.2 ahead of the others,
which ask "When …?", "What …?", "How …?"), and were answered with the battery
entry's "No. Batteries can start fires in the truck." What the embedder matched
is the question's shape, which no other entry shares.

A fixed set of everyday questions about many things, in the three languages
(`everyday_questions.txt`, written for no collection), shows what a question of
a shape looks like to the embedder. Each FAQ entry judged by its question gets
`everyday_cosine`: the asked question's best cosine with such a question in the
entry's language that is about something else than the entry (its cosine with
the entry's question under `SAME_THING`). Where the search for rivals found
fewer than graph.entry_question.RIVALS - 1 other entries among the passages
nearest the question (graph.entry_question.few_rivals), an entry answers by meaning only
when the asked question comes within `MARGIN` of that
(`near_as_everyday`): "Can kids swim alone?" is nearer "Is the beach safe for
swimming?" (0.58) than the battery entry (0.41); "Can I throw away old phone
batteries?" nearer the battery entry (0.77) than anything everyday (0.57).

Measured by a scratch probe (2026-11-30) on small collections made of the
project's FAQ sets (bench/data: each page of 3-8 entries alone), each paraphrase
against its page, with its entry and with it removed, and 16 paraphrases of the
other sets of its language asked of each page ("foreign"). Answered by meaning
right / false with the entry removed / false foreign, dev entries (every other
of a page, from the first; chosen on) with margins 0, 0.03, 0.05, 0.08 and
none: 93 / 20 / 4, 95 / 22 / 4, 98 / 24 / 4, 99 / 25 / 6, 105 / 26 / 9;
held-out entries 63 / 15 / 8, 69 / 17 / 10, 72 / 18 / 10, 73 / 19 / 11, 74 /
22 / 14. On whole collections of 24-125 entries, where the other entries
already compete, the same questions without the gate cost 7 answers of ~300
and refused no more false ones (bench.faq, 2026-11-30): hence the gate. Only
with the local embedder the bar was measured on.

A check written apart (eight small FAQs, 66 paraphrases and 48 questions about
other things of the same shapes): paraphrases answered 52 → 48, other things
answered 34 → 26. It catches only shapes the everyday list holds, and costs a
paraphrase an everyday question comes nearer ("Can my friend come with me?" for
"Can I bring a guest?"; docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any

from graph.cross_entries import judges_entries
from graph.cross_marks import family
from graph.text_banks import bank_lines, unit_rows
from textkit.scripts import detect_language, to_simplified

# an everyday question this near the entry's own may ask the entry's thing: not a rival
SAME_THING = 0.5
# how much nearer than the entry an everyday question may come (see the module docstring)
MARGIN = 0.05
_FILE = Path(__file__).with_name("everyday_questions.txt")
_VECTORS: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
_EMBEDDING = threading.Lock()  # the first turns at once embed the bank once
logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def everyday_questions() -> dict[str, tuple[str, ...]]:
    """The everyday questions by language family ("en", "zh"), read once; Chinese ones
    in Simplified script, each once (the embedder compares Chinese so). None when the
    file is missing (a broken install): the check is then skipped, and said so once."""
    try:
        lines = bank_lines(_FILE.read_text("utf-8"))
    except OSError:
        logger.warning("%s is missing: FAQ entries on small FAQs go unchecked", _FILE.name)
        lines = ()
    grouped: dict[str, list[str]] = {"en": [], "zh": []}
    for line in lines:
        grouped[family(detect_language(line))].append(to_simplified(line))
    return {k: tuple(dict.fromkeys(v)) for k, v in grouped.items()}


def _embed(embedder: Any, texts: list[str]) -> Any:
    # compared in Simplified script, as graph.cross_marks.cosines compares
    return unit_rows(embedder.embed_documents([to_simplified(t) for t in texts]))


def _everyday_vectors(embedder: Any) -> dict[str, Any]:
    """The everyday questions' unit vectors by language family, once per embedder."""
    with _EMBEDDING:
        vectors = _VECTORS.get(embedder)
        if vectors is None:
            banks = everyday_questions().items()
            vectors = {k: _embed(embedder, list(v)) for k, v in banks if v}
            _VECTORS[embedder] = vectors
        return vectors


async def add_everyday_cosines(embedder: Any, question: str, items: list[dict[str, Any]]) -> None:
    """Set `everyday_cosine` on each FAQ entry among `items` judged by its question
    (`question_cosine` set; the local embedder): the asked question's best cosine with
    an everyday question in the entry's language about something else than the entry's
    (one under `SAME_THING` with the entry's question). One batched embedding of the
    entries' questions (in a thread); the everyday questions' vectors are kept per
    embedder."""
    entries = [i for i in items if i.get("question") and "question_cosine" in i]
    if not entries or not judges_entries(embedder):
        return

    def compute() -> list[float | None]:
        everyday = _everyday_vectors(embedder)
        rows = _embed(embedder, [question, *(str(i["question"]) for i in entries)])
        asked, own = rows[0], rows[1:]
        found: list[float | None] = []
        for item, vector in zip(entries, own, strict=True):
            bank = everyday.get(family(item.get("language") or detect_language(question)))
            other_things = bank[(bank @ vector) < SAME_THING] if bank is not None else []
            found.append(float((other_things @ asked).max()) if len(other_things) else None)
        return found

    for item, cosine in zip(entries, await asyncio.to_thread(compute), strict=True):
        if cosine is not None:
            item["everyday_cosine"] = round(cosine, 4)


def near_as_everyday(item: dict[str, Any]) -> bool:
    """True when the asked question comes within `MARGIN` of being as near the entry's
    question as it is to the nearest everyday question about another thing
    (`everyday_cosine`; True when not compared)."""
    if "everyday_cosine" not in item:
        return True
    return float(item.get("question_cosine", 0.0)) >= float(item["everyday_cosine"]) - MARGIN
