"""A document's further passages holding the kind of answer asked, read besides its best ones.

A turn reads at most `chunks_per_document` passages of a document (graph.context): its
best by the search's ranking. When the question asks a finer kind of answer (a price, a
duration, a time of day, a count: textkit.answer_type), the passage holding it is often
not among them: a fee section repeats no word of "How much does a parking permit
cost?", and in another language it shares none; the document's introduction and a
replacement fee rank above the annual fee. So, when the kind is asked and the leading
document of a language group (the question's own, another: storage.search) has other
matching passages, that document's next-ranked ones are read too (`FURTHER_READ`), and
those holding the kind asked (at most `FURTHER_KEPT`) join the turn's passages, after
the others. They are graded like any passage (graph.grounding); which sentence answers
is then a question of meaning among those holding the kind (graph.answer_order).
Another document's figure is never brought in: it answers about something else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.context import GraphContext
from textkit.answer_type import answer_kinds, holds

# next-ranked passages of the leading document looked at, beyond those read
FURTHER_READ = 4
# of those, the ones holding the kind asked that join the turn's passages
FURTHER_KEPT = 2


def leading_documents(hits: Sequence[Any]) -> list[str]:
    """The first document of each language group (the question's own, another) among
    `hits` that has other matching passages than those kept (`more`)."""
    out: list[str] = []
    for crossing in (False, True):
        group = (h for h in hits if bool(getattr(h, "cross_language", False)) == crossing)
        first = next(group, None)
        if first is not None and getattr(first, "more", None) and first.document not in out:
            out.append(first.document)
    return out


def holding_kind(question: str, read: Sequence[Any], further: Sequence[Any]) -> list[Any]:
    """The `further` passages of a document holding the finest kind of answer `question`
    asks that any of its passages (`read` and `further`) holds, in their order; none when
    it asks no kind. A count in the next passages does not answer a price the first hold."""
    for kind in answer_kinds(question):
        if any(holds(h.text, kind) for h in [*read, *further]):
            return [h for h in further if holds(h.text, kind)]
    return []


async def further_passages(
    context: GraphContext, query: str, threshold: float, question: str, hits: Sequence[Any]
) -> list[Any]:
    """The leading documents' next-ranked passages holding the kind of answer asked
    (`FURTHER_KEPT` of each at most), not among `hits`; none when no kind is asked or
    the leading documents have no other matching passage (one further search else)."""
    if not hits or not answer_kinds(question):
        return []
    documents = leading_documents(hits)
    if not documents:
        return []
    per_document = context.chunks_per_document + FURTHER_READ
    wider = await context.searcher.search(
        query,
        # every group's documents with their further passages: the leading one's are kept
        top_k=context.top_k * per_document,
        threshold=threshold,
        filters=context.search_filters,
        per_document=per_document,
        question=question or None,
        other_languages=True,
    )
    read = {h.chunk_id for h in hits}
    out: list[Any] = []
    for document in documents:
        further = [h for h in wider if h.document == document and h.chunk_id not in read]
        kept = [h for h in hits if h.document == document]
        out += holding_kind(question, kept, further)[:FURTHER_KEPT]
    return out
