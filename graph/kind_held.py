"""Whether a passage holds the kind of answer a question asks (a price, a time...).

A passage that holds the question's words but no answer of the finer kind it
asks ("市民服務中心" names the centre, but no hour of it, for 市民服务中心星期六
几点开门？) does not answer it:

- in the question's own language, it shuts out no passage in another language
  that holds one (graph.nodes.retrieval_checker), and takes the subject away
  from no such passage's document (graph.subject);
- when no passage on the subject holds one, the turn is refused rather than
  answered with what the page says besides ("What time does the pool open?"
  quoted a pool's swimming-cap rule; graph.nodes.response_synth,
  `response_synth:kind_not_found` in the decision path).

Measured 2026-11-29 (bench.answers, 60 answerable and 30 gold-removed questions
a corpus, against 682132b measured the same day): DRCD and XQuAD citation hit and
answerable refusal unchanged; XQuAD-en gold-removed refusal 0.867 → 0.900.
"""

from __future__ import annotations

from typing import Any

from graph.cross_language import passage_sentences
from textkit.answer_type import answer_kinds, holds

# the kinds a passage must hold one of to answer: the finer ones a question may ask
FINER = ("price", "duration", "time", "count")


def finer_kinds(question: str) -> list[str]:
    """The finer kinds the question asks (none for most questions), with the looser
    kind that may answer too when it asks one ("maybe_price", "amount", "date")."""
    kinds = answer_kinds(question)
    return kinds if any(k in FINER for k in kinds) else []


def holds_kind(item: dict[str, Any], kinds: list[str]) -> bool:
    """True when one of the passage's sentences holds an answer of one of `kinds` (any
    passage does when `kinds` is empty)."""
    if not kinds:
        return True
    sentences = passage_sentences(item) or [str(item.get("text") or "")]
    return any(holds(sentence, kind) for sentence in sentences for kind in kinds)
