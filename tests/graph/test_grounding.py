"""The evidence test (graph.grounding) and the window support it rests on (storage.support)."""

from __future__ import annotations

import pytest

from graph.grounding import is_grounded
from storage.search_types import SearchHit, set_leads
from storage.support import window_support


@pytest.mark.parametrize(
    ("support", "cosine", "lead", "grounded"),
    [
        (1.0, 0.0, 0.0, True),  # every key term together
        (0.7, 0.3, 0.0, True),  # most terms, and on the topic
        (0.6, 0.1, 0.0, False),  # most terms, meaning far off, nothing stands out
        (0.5, 0.4, 0.3, True),  # a paraphrase that clearly leads the other documents
        (0.5, 0.4, -0.2, False),  # the same, trailing another document: not enough
        (0.1, 0.9, 0.0, False),  # similar wording of a different question
        (0.0, 0.0, 0.0, False),
    ],
)
def test_grounded_when_words_meaning_and_lead_add_up(
    support: float, cosine: float, lead: float, grounded: bool
) -> None:
    assert is_grounded({"support": support, "cosine": cosine, "lead": lead}) is grounded


def test_support_needs_the_terms_together_and_a_number_when_one_is_asked() -> None:
    weights = {"passport": 1.0, "fee": 1.0}
    together = "The passport fee is 1,300 dollars. Offices open at nine."
    apart = "The passport office is downtown. It is busy. Parking is scarce. The fee is posted."
    assert window_support(weights, together) == 1.0
    assert window_support(weights, apart) == 0.5
    assert window_support(weights, "The passport fee is posted online.", asks_number=True) == 0.0
    # a number written in Traditional Chinese or in full width is a number too
    permits = {"申请": 1.0}
    assert window_support(permits, "每戶最多申請兩張。", asks_number=True) == 1.0
    assert window_support(permits, "每戶可申請２張。", asks_number=True) == 1.0
    assert window_support(permits, "每戶都可以申請。", asks_number=True) == 0.0
    # a list marker or a footnote mark is no number
    assert window_support(permits, "①每戶都可以申請。", asks_number=True) == 0.0
    assert window_support(permits, "每戶都可以申請¹。", asks_number=True) == 0.0


def test_chinese_terms_are_found_without_cutting_the_passage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = "護照換發的費用是一千三百元。辦公室九點開門。停車位很少。"
    weights = {"护照": 1.0, "费用": 1.0, "停车": 2.0}
    # 护照 and 费用 together; 停车 two sentences further; the title counts everywhere
    assert window_support(weights, body) == 0.5
    assert window_support(weights, body, "護照 FAQ") == 0.75

    def no_cut(text: str) -> list[str]:
        raise AssertionError("a Chinese term is matched as a substring; nothing is cut")

    monkeypatch.setattr("storage.support.keyword_tokens", no_cut)
    assert window_support(weights, body) == 0.5
    assert window_support(weights, body, "護照 FAQ") == 0.75
    with pytest.raises(AssertionError):  # an English term needs the window's tokens
        window_support({"护照": 1.0, "fee": 1.0}, body)


def _hit(document: str, score: float) -> SearchHit:
    return SearchHit(
        document=document, chunk_id=hash((document, score)), text="", score=score, page=None
    )


def test_lead_is_the_margin_over_the_best_other_document() -> None:
    hits = [_hit("a", 0.9), _hit("a", 0.7), _hit("b", 0.6), _hit("c", 0.5)]
    set_leads(hits)
    assert [h.lead for h in hits] == [0.3, 0.1, -0.3, -0.4]


def test_entries_on_one_faq_page_compete_with_each_other_for_the_lead() -> None:
    hits = [_hit("faq", 0.9), _hit("faq", 0.7), _hit("other", 0.5)]
    # two entries of one page, scored by meaning; their leads use keyword relevance
    # (0.8 × coverage + 0.2 × cosine), the scale every other document is led on
    for hit, question, coverage in ((hits[0], "How do I renew?", 0.5), (hits[1], "Fees?", 0.25)):
        hit.question, hit.coverage, hit.cosine = question, coverage, hit.score
    set_leads(hits)
    # the best entry leads the next entry of its own page and the other document
    assert [h.lead for h in hits] == [0.08, -0.24, -0.08]
