"""Sentences of another language's passage scored as support: meaning, words and the kind
of answer asked, alike for English and Chinese questions."""

from __future__ import annotations

from typing import Any

import pytest

from graph.cross_language import add_meaning_leads, is_grounded_by_meaning, meaning_grounding
from graph.cross_sentences import TYPE_PENALTY, sentence_scores


@pytest.mark.parametrize(
    ("question", "with_figure", "without"),
    [
        (
            "How many works of art are in the Far Eastern collections?",
            "远东藏品中有超过70,000件艺术品。",
            "远东藏品以瓷器和漆器闻名。",
        ),
        (
            "远东藏品中有多少件艺术品？",
            "The Far Eastern collections hold over 70,000 works of art.",
            "The Far Eastern collections are known for porcelain and lacquer.",
        ),
        (
            "When was the museum founded?",
            "博物馆成立于1852年。",
            "博物馆由维多利亚女王的丈夫创立。",
        ),
        (
            "博物館是哪一年成立的？",
            "The museum was founded in 1852.",
            "The museum was founded by the Queen's husband.",
        ),
    ],
)
def test_a_sentence_holding_the_kind_asked_is_preferred(
    question: str, with_figure: str, without: str
) -> None:
    meaning = {with_figure: 0.4, without: 0.4}
    scores = sentence_scores(question, [without, with_figure], meaning, words=False)
    assert scores[with_figure] - scores[without] == pytest.approx(TYPE_PENALTY)


def test_a_question_asking_no_kind_prefers_nothing() -> None:
    question = "What are the Far Eastern collections known for?"
    a, b = "远东藏品中有超过70,000件艺术品。", "远东藏品以瓷器和漆器闻名。"
    scores = sentence_scores(question, [a, b], {a: 0.4, b: 0.4}, words=False)
    assert scores[a] == scores[b] == pytest.approx(0.4)


def test_words_count_over_the_sentence_and_the_one_before() -> None:
    question = "How many people were killed in the Warsaw uprising?"
    before, answer = "1944年华沙起义爆发。", "约有二十万平民被杀害。"
    scores = sentence_scores(question, [before, answer], {before: 0.3, answer: 0.3})
    alone = sentence_scores(question, [answer], {answer: 0.3})
    assert scores[answer] > alone[answer] > 0.3 - TYPE_PENALTY


def test_a_passage_whose_best_sentence_lacks_the_kind_does_not_lead_one_that_has_it() -> None:
    question = "How many works of art are in the Far Eastern collections?"
    figure, topic = "远东藏品中有超过70,000件艺术品。", "远东藏品以瓷器和漆器闻名，深受喜爱。"

    def passage(document: str, sentence: str) -> dict[str, Any]:
        score = sentence_scores(question, [sentence], {sentence: 0.45})[sentence]
        return {
            "document": document,
            "cross_language": True,
            "cosine": 0.35,
            "sentence_support": score,
            "word_coverage": 0.0,
        }

    answer, neighbour = passage("Museum §2", figure), passage("Museum §3", topic)
    assert meaning_grounding(answer) > meaning_grounding(neighbour)
    add_meaning_leads([answer, neighbour])
    assert float(answer["meaning_lead"]) > 0 > float(neighbour["meaning_lead"])
    assert not is_grounded_by_meaning(neighbour)
