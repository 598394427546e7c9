"""CitationGate whose passages come later (cut in a thread while the model starts writing)."""

from __future__ import annotations

import pytest

from graph.citations import CitationGate, cut_passages

EVIDENCE = [
    {
        "text": "An adult passport renewal costs 1,300 dollars. It takes ten working days.",
        "document": "passport",
    },
]
ANSWER = "An adult renewal costs 1,300 dollars [1]. It takes ten working days [1]."


def test_text_fed_before_the_passages_waits_for_them_and_nothing_is_lost() -> None:
    shown: list[str] = []
    gate = CitationGate(EVIDENCE, shown.append, "How much is a renewal?", passages=None)
    for k in range(0, len(ANSWER), 7):
        gate.feed(ANSWER[k : k + 7])
    gate.flush()  # the answer field closed before the cut was done
    assert gate.waiting and shown == []  # nothing unchecked reaches the screen
    gate.take(cut_passages(EVIDENCE))
    assert shown == ["An adult renewal costs 1,300 dollars [1]. ", "It takes ten working days [1]."]
    assert gate.finish() == ANSWER


def test_sentences_after_the_passages_arrive_are_released_as_they_complete() -> None:
    shown: list[str] = []
    gate = CitationGate(EVIDENCE, shown.append, "How much is a renewal?", passages=None)
    gate.feed("An adult renewal costs 1,300 ")
    gate.take(cut_passages(EVIDENCE))
    assert shown == []  # no sentence complete yet
    gate.feed("dollars [1]. It takes")
    assert shown == ["An adult renewal costs 1,300 dollars [1]. "]


def test_a_wrong_figure_held_until_the_passages_came_is_still_refused() -> None:
    shown: list[str] = []
    gate = CitationGate(EVIDENCE, shown.append, "How much is a renewal?", passages=None)
    gate.feed("An adult renewal costs 2,600 dollars [1]. It")
    gate.take(cut_passages(EVIDENCE))
    assert shown == [] and gate.rejected


def test_finish_without_the_passages_is_a_bug_said_loudly() -> None:
    gate = CitationGate(EVIDENCE, lambda _: None, passages=None)
    with pytest.raises(RuntimeError):
        gate.finish()
