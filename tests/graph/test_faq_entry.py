"""Answers drawn from FAQ entries: the entry's answer, never its question line."""

from __future__ import annotations

import pytest

from graph.extractive import candidate_sentences
from graph.faq_entry import entry_answer
from graph.nodes.tool_executor import merge_candidates


@pytest.mark.parametrize(
    ("text", "question", "answer"),
    [
        ("Q: How do I renew?\nA: Bring your passport.", "How do I renew?", "Bring your passport."),
        ("問：如何申請？\n答：到區公所辦理。", "如何申請？", "到區公所辦理。"),
        ("3. Where is it? Answer: downtown", "Where is it?", "downtown"),
        ("How do I apply?\nBring two photos.", "How do I apply?", "Bring two photos."),
        # a later chunk of a long answer holds no question line
        ("Step 5: sign the form.", "How do I file?", "Step 5: sign the form."),
        # the question quoted inside prose is not a question line
        ("See: How do I file? for more.", "How do I file?", "See: How do I file? for more."),
        ("No entry here.", None, "No entry here."),
        # the chunker re-joined the question's sentences with other spacing
        ("Q: How do I renew. It expired? A: Come in.", "How do I renew.  It expired?", "Come in."),
    ],
)
def test_entry_answer_drops_the_question_line_and_the_label(
    text: str, question: str | None, answer: str
) -> None:
    assert entry_answer(text, question) == answer


def test_a_question_line_is_never_a_candidate_sentence() -> None:
    item = {
        "text": "Q: How do I renew?\nA: Bring your passport. It takes a day.",
        "question": "How do I renew?",
    }
    sentences = [c[2] for c in candidate_sentences([item])]
    assert sentences == ["Bring your passport.", "It takes a day."]


def _item(chunk_id: int, score: float, rank: int, grounded: bool) -> dict[str, object]:
    support = 1.0 if grounded else 0.0
    return {"chunk_id": chunk_id, "score": score, "rank": rank, "support": support}


def test_candidates_keep_the_search_order_grounded_first() -> None:
    # the search ranked chunk 1 first (a paraphrase matched by meaning), chunk 2
    # shares more words: the search's order stands, grounded passages first
    merged = merge_candidates([], [_item(2, 0.7, 2, True), _item(1, 0.5, 1, True)], 5)
    assert [c["chunk_id"] for c in merged] == [1, 2]
    merged = merge_candidates([], [_item(1, 0.5, 1, False), _item(2, 0.7, 2, True)], 5)
    assert [c["chunk_id"] for c in merged] == [2, 1]
    # a chunk found by two searches keeps its best rank and its best score
    again = merge_candidates(merged, [_item(1, 0.9, 3, False)], 5)
    first = next(c for c in again if c["chunk_id"] == 1)
    assert first["rank"] == 1 and first["score"] == 0.9
