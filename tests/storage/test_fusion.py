"""The adaptive fusion on hand-made candidates: which side leads, and when."""

from __future__ import annotations

import pytest

from storage.ranking import Evidence, adaptive_fusion


def first(candidates: dict[int, Evidence]) -> int:
    fused = adaptive_fusion(candidates)
    return max(fused, key=fused.__getitem__)


CASES = [
    pytest.param(
        # "my card got swallowed by the machine" vs "What if the ATM keeps my card?":
        # no content word in common anywhere, so only the meaning can decide
        {
            1: Evidence(None, 0.0, 0.71),  # the right entry, found by its question
            2: Evidence(None, 0.0, 0.42),
            3: Evidence(2.1, 0.0, 0.30),  # BM25 matched only a stopword-ish term
        },
        1,
        id="paraphrase-without-shared-words",
    ),
    pytest.param(
        # "form TX-204 deadline": the rare code is in one passage only; the vector
        # side prefers a generic passage about deadlines
        {
            1: Evidence(14.0, 1.0, 0.38),
            2: Evidence(3.0, 0.3, 0.52),
            3: Evidence(None, 0.0, 0.50),
        },
        1,
        id="rare-term-match",
    ),
    pytest.param(
        # an English question about a Chinese entry: one shared token (a number)
        {
            1: Evidence(None, 0.0, 0.66),  # 護照換發 entry, asked "passport renewal"
            2: Evidence(5.0, 0.15, 0.35),  # another page sharing only "2024"
            3: Evidence(None, 0.0, 0.40),
        },
        1,
        id="cross-language-pair",
    ),
    pytest.param(
        # both sides agree
        {1: Evidence(8.0, 0.9, 0.7), 2: Evidence(6.0, 0.6, 0.5), 3: Evidence(None, 0.0, 0.6)},
        1,
        id="agreement",
    ),
    pytest.param(
        # strong keywords but weak meaning everywhere: an extractive question about
        # a long passage; the passage holding every rare term together leads
        {1: Evidence(9.0, 0.85, 0.31), 2: Evidence(7.5, 0.55, 0.36), 3: Evidence(None, 0.1, 0.37)},
        1,
        id="extractive-keywords-lead",
    ),
]


@pytest.mark.parametrize(("candidates", "expected"), CASES)
def test_the_surer_side_leads(candidates: dict[int, Evidence], expected: int) -> None:
    assert first(candidates) == expected


def test_weights_follow_each_sides_confidence() -> None:
    # the same two candidates; only how sure each side is changes who wins
    keyword_sure = {1: Evidence(10.0, 0.95, 0.40), 2: Evidence(1.0, 0.10, 0.45)}
    vector_sure = {1: Evidence(10.0, 0.20, 0.40), 2: Evidence(1.0, 0.10, 0.90)}
    assert first(keyword_sure) == 1
    assert first(vector_sure) == 2


def test_empty_and_degenerate_inputs() -> None:
    assert adaptive_fusion({}) == {}
    # nothing tells the candidates apart on either side: all 0, no division by zero
    same = {1: Evidence(None, 0.0, 0.3), 2: Evidence(None, 0.0, 0.3)}
    assert adaptive_fusion(same) == {1: 0.0, 2: 0.0}
    # a single candidate: the vector side cannot tell it apart from anything,
    # so its words alone (coverage × relative BM25) score it
    assert adaptive_fusion({7: Evidence(3.0, 0.5, 0.5)})[7] == pytest.approx(0.5)
