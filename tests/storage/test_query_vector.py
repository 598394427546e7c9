"""A question's search vector: Traditional Chinese read in both scripts."""

from __future__ import annotations

import math

import pytest
from langchain_core.embeddings import Embeddings

from storage.embeddings import Embedder
from storage.query_vector import query_vector


class Recording(Embeddings):
    """Embeds a text containing a Simplified-only character as one axis, others as another."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [[1.0, 0.0] if "护" in t else [0.0, 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


@pytest.mark.parametrize("question", ["How much is a passport?", "护照换发要多少钱？"])
def test_a_question_with_nothing_to_convert_is_embedded_once_as_written(question: str) -> None:
    model = Recording()
    query_vector(model, question)
    assert model.calls == [[question]]


def test_a_traditional_question_is_the_mean_of_both_scripts() -> None:
    model = Recording()
    vector = query_vector(model, "護照換發要多少錢？")
    assert model.calls == [["護照換發要多少錢？", "护照换发要多少钱？"]]  # one batched call
    assert vector == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2)])


def test_with_the_local_embedder_the_mean_is_a_unit_vector_between_the_two(
    embedder: Embedder,
) -> None:
    model = embedder.model
    mean = query_vector(model, "護照換發要多少錢？")
    written, simplified = model.embed_documents(["護照換發要多少錢？", "护照换发要多少钱？"])
    assert sum(v * v for v in mean) == pytest.approx(1.0)
    cos = [sum(a * b for a, b in zip(mean, v, strict=True)) for v in (written, simplified)]
    assert min(cos) > max(sum(a * b for a, b in zip(written, simplified, strict=True)), 0.0)
