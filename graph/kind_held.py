"""Whether a passage holds the kind of answer a question asks (a price, a time...).

A passage in the question's own language that holds the question's words but no
answer of the finer kind it asks ("市民服務中心" names the centre, but no hour
of it, for 市民服务中心星期六几点开门？) does not answer it: it neither shuts out
a passage in another language that does (graph.nodes.retrieval_checker), nor
takes away the subject from that passage's document (graph.subject).
"""

from __future__ import annotations

from typing import Any

from graph.cross_language import passage_sentences
from textkit.answer_type import answer_kinds, holds

# the kinds a passage must hold one of to answer: the finer ones a question may ask
FINER = ("price", "duration", "time", "count")


def finer_kinds(question: str) -> list[str]:
    """The finer kinds the question asks (none for most questions), with the coarser
    kind they refine ("amount", "date") when it asks one."""
    kinds = answer_kinds(question)
    return kinds if any(k in FINER for k in kinds) else []


def holds_kind(item: dict[str, Any], kinds: list[str]) -> bool:
    """True when one of the passage's sentences holds an answer of one of `kinds` (any
    passage does when `kinds` is empty)."""
    if not kinds:
        return True
    sentences = passage_sentences(item) or [str(item.get("text") or "")]
    return any(holds(sentence, kind) for sentence in sentences for kind in kinds)
