"""graph.claim_judge alone: which passage a claim's quote rests on (no embedder: words)."""

from __future__ import annotations

from graph.claim_judge import ClaimJudge

FEE = "An adult passport renewal costs 1,300 dollars."


def test_a_quote_from_another_passage_than_the_one_cited_is_cited_there() -> None:
    # a small model misnumbers its sources: the quote decides which passage it rests on
    judge = ClaimJudge(["The library opens at nine.", FEE])
    verdict = judge.judge("An adult passport renewal costs 1,300 dollars.", 1, FEE)
    assert verdict.source == 2 and verdict.reason == ""
    wrong = judge.judge("An adult passport renewal costs 1,600 dollars.", 1, FEE)
    assert wrong.source is None and wrong.reason == "number"
    nowhere = judge.judge("A child passport is free.", 1, "A child passport is free.")
    assert nowhere.reason == "quote_not_found"
