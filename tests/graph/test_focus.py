"""graph.focus: the passages the model reads, cut to the sentences that bear on the question."""

from __future__ import annotations

from typing import Any

from graph.focus import (
    GAP,
    MAX_PASSAGES,
    PASSAGE_TOKENS,
    cut,
    estimate_tokens,
    focused,
    numbered,
)
from graph.quotes import locate

FILLER = [f"The harbour museum opened gallery number {i} to visitors in spring." for i in range(12)]
FEE = "An adult passport renewal costs 1,300 dollars."
DAYS = "It takes four working days."
LONG = " ".join([*FILLER[:6], FEE, DAYS, *FILLER[6:]])


def item(text: str, document: str = "doc", **extra: Any) -> dict[str, Any]:
    return {"chunk_id": 1, "text": text, "document": document, **extra}


def test_token_estimate_counts_cjk_characters_and_english_by_four_characters() -> None:
    assert estimate_tokens("護照換發") == 4
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens(LONG) > PASSAGE_TOKENS


async def test_a_short_passage_is_read_whole_and_only_the_first_passages_are_read() -> None:
    evidence = [item(FEE, f"doc{i}") for i in range(5)]
    out = await focused("How much is a passport renewal?", evidence)
    assert len(out) == MAX_PASSAGES and [e["text"] for e in out] == [FEE] * MAX_PASSAGES
    assert len(evidence) == 5  # the evidence itself is unchanged


async def test_a_long_passage_keeps_the_answer_and_the_sentence_after_it() -> None:
    evidence = [item(LONG, "passport")]
    out = await focused("How much does an adult passport renewal cost?", evidence)
    text = out[0]["text"]
    assert f"{FEE} {DAYS}" in text
    assert estimate_tokens(text) <= PASSAGE_TOKENS + 4
    assert text.startswith(GAP.lstrip()) and text.endswith(GAP.rstrip())
    assert evidence[0]["text"] == LONG
    # what the model quotes from the cut passage is found in the stored one
    assert locate(FEE, evidence[0]["text"]) is not None


class MarkingEmbedder:
    """Vectors that say whether a text speaks of the fee (费用 / costs): a stand-in for
    the multilingual embedder, for a passage sharing no word with the question."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if ("费用" in t or "How much" in t) else [0.0, 1.0] for t in texts]


async def test_a_passage_in_another_language_is_cut_by_meaning() -> None:
    filler = [f"港口博物馆在春天开放了第{i}号展厅，欢迎市民参观。" for i in range(12)]
    fee = "成人换发护照的费用是一千三百元。"
    text = "".join([*filler[:7], fee, *filler[7:]])
    evidence = [item(text, "护照", cross_language=True)]
    question = "How much does an adult passport renewal cost?"
    out = await focused(question, evidence, MarkingEmbedder())
    assert fee in out[0]["text"] and len(out[0]["text"]) < len(text)


def test_cut_keeps_the_best_sentence_even_over_budget() -> None:
    sentences = ["a b c d e f g h i j k l m n o p q r s t u v w x y z " * 4, "short one."]
    assert cut(sentences, [2.0, 1.0], budget=5).startswith("a b c")


async def test_a_sentence_two_overlapping_chunks_hold_is_offered_once() -> None:
    first = "Adults renew passports at the City Service Centre. Bring your old passport."
    second = "Bring your old passport. An adult passport renewal costs 1,300 dollars."
    out = await numbered(
        "What do I need to renew a passport?", [item(first, "a"), item(second, "a")]
    )
    assert out[0]["sentences"] == [
        ("1.1", "Adults renew passports at the City Service Centre."),
        ("1.2", "Bring your old passport."),
    ]
    # the second chunk's own sentences keep their ids (the judge resolves them so)
    assert out[1]["sentences"] == [("2.2", "An adult passport renewal costs 1,300 dollars.")]
