"""A claim left in its passage's language rests on the sentence nearest the question of all
the sentences the model read, not only of its own passage (the local embedder judges)."""

from __future__ import annotations

from typing import Any

from graph.claim_gate import ClaimGate
from storage.embeddings import Embedder

PIKETTY = (
    "Studies on income inequality and growth have sometimes found evidence confirming the "
    "Kuznets curve hypothesis. Economist Thomas Piketty challenges this notion, claiming that "
    'from 1914 to 1945 wars and "violent economic and political shocks" reduced inequality.'
)
STIGLITZ = (
    "Economist Joseph Stiglitz presented evidence in 2009 that both global inequality and "
    "inequality within countries prevent growth by limiting aggregate demand."
)
QUESTION = "在1914年至1945年间，皮凯蒂认为减少不平等的最大因素是什么?"


async def shown_of(embedder: Embedder, claim: str, sid: tuple[int, int]) -> tuple[list, list]:
    """What a gate shows of one claim left in English for a Chinese question, and drops."""
    evidence: list[dict[str, Any]] = [
        {"chunk_id": 1, "text": PIKETTY, "document": "Economic inequality §3"},
        {"chunk_id": 2, "text": STIGLITZ, "document": "Economic inequality §1"},
    ]
    for item in evidence:
        item.update(cross_language=True, language="en", grounded=False)
    shown: list[str] = []
    offered = {(1, 1), (1, 2), (2, 1)}
    gate = ClaimGate(evidence, shown.append, embedder.model, offered, "zh-hans", QUESTION)
    gate.add(claim, None, None, [sid])
    await gate.finish()
    return shown, gate.dropped


async def test_a_copied_sentence_nearest_in_its_passage_but_not_of_all_is_dropped(
    embedder: Embedder,
) -> None:
    # a real 1.5B model's reply (2026-11-29): Stiglitz's sentence, the nearest of its own
    # passage, for a question another passage's sentence answers
    shown, dropped = await shown_of(embedder, "经济学家 " + STIGLITZ, (2, 1))
    assert shown == [] and dropped == ["1:not_closest"]
    right = PIKETTY.split("hypothesis. ")[1]
    shown, dropped = await shown_of(embedder, right, (1, 2))
    assert dropped == [] and "Piketty" in "".join(shown)
