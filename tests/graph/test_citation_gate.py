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


# Clauses shown before their sentence ends (`early`): the first words of a long sentence.
LONG_EVIDENCE = [
    {
        "text": (
            "臺北市立動物園位於臺北市文山區，是臺灣規模最大的動物園，"
            "園區面積約一百六十五公頃，每年吸引數百萬名遊客。"
        ),
        "document": "zoo",
    },
    {
        "text": "An adult passport renewal costs 1,300 dollars, paid at the City Service Centre.",
        "document": "passport",
    },
]
ZOO = "臺北市立動物園位於臺北市文山區，是臺灣規模最大的動物園，園區面積約一百六十五公頃[1]。"


def _gate(shown: list[str], question: str = "臺北市立動物園在哪裡？") -> CitationGate:
    gate = CitationGate(LONG_EVIDENCE, shown.append, question, cut_passages(LONG_EVIDENCE))
    gate.early = True
    return gate


def test_a_long_sentence_shows_clause_by_clause_and_ends_whole() -> None:
    shown: list[str] = []
    gate = _gate(shown)
    for k in range(0, len(ZOO), 3):
        gate.feed(ZOO[k : k + 3])
        if k < 15:  # the first clause is still being written: nothing yet
            assert shown == []
    gate.flush()
    assert shown[0] == "臺北市立動物園位於臺北市文山區，"  # before the sentence ended
    assert len(shown) >= 2 and "".join(shown) == ZOO
    assert gate.finish() == ZOO and not gate.rejected


def test_without_early_the_sentence_waits_for_its_end() -> None:
    shown: list[str] = []
    gate = CitationGate(
        LONG_EVIDENCE, shown.append, "臺北市立動物園在哪裡？", cut_passages(LONG_EVIDENCE)
    )
    gate.feed(ZOO[:-8])
    assert shown == []
    gate.feed(ZOO[-8:])
    gate.flush()
    assert shown == [ZOO]


def test_a_clause_no_passage_says_is_never_shown_ahead() -> None:
    shown: list[str] = []
    gate = _gate(shown)
    gate.feed("臺北市立動物園位於高雄市前鎮區，園區")  # the wrong district: said nowhere
    assert shown == []


def test_a_sentence_whose_end_fails_after_its_start_showed_discards_the_answer() -> None:
    shown: list[str] = []
    gate = _gate(shown)
    gate.feed("臺北市立動物園位於臺北市文山區，")
    assert shown == ["臺北市立動物園位於臺北市文山區，"]
    gate.feed("每年吸引兩千萬名外星遊客[1]。")  # a figure and words of the model's own
    gate.flush()
    assert gate.rejected  # the caller discards the answer and takes the shown part back
    assert "".join(shown) == "臺北市立動物園位於臺北市文山區，"  # the bad end never shown


def test_an_uncited_sentence_no_passage_says_after_its_start_showed_is_a_rejection() -> None:
    shown: list[str] = []
    gate = _gate(shown)
    gate.feed("臺北市立動物園位於臺北市文山區，")
    gate.feed("並且提供免費的火星接駁太空船服務。")
    gate.flush()
    assert gate.rejected == "unsupported"


def test_english_clauses_wait_for_a_comma_and_space_not_a_thousands_comma() -> None:
    shown: list[str] = []
    gate = _gate(shown, "How much is a passport renewal?")
    gate.feed("An adult passport renewal costs 1,300")
    assert shown == []  # "1," is no clause end
    gate.feed(" dollars, paid at the City")
    assert shown == ["An adult passport renewal costs 1,300 dollars,"]
    gate.feed(" Service Centre [2].")
    gate.flush()
    assert (
        gate.finish()
        == "An adult passport renewal costs 1,300 dollars, paid at the City Service Centre [2]."
    )
