"""graph.claim_verbatim: a claim that is a stretch of its sentence, word for word."""

from __future__ import annotations

import pytest

from graph.claim_verbatim import verbatim_part

SLOPES = "有些海拔較低的位置或斜坡則被草原和沙地覆蓋。"


@pytest.mark.parametrize(
    ("claim", "sentence", "verbatim"),
    [
        ("草原和沙地覆蓋。", SLOPES, True),
        ("草原和沙地覆盖", SLOPES, True),  # the reader's script
        ("新臺幣1300元", "護照費用為新臺幣１３００元。", True),  # full-width digits
        ("Hulagu Khan sacked Baghdad", "His descendant Hulagu Khan sacked Baghdad.", True),
        # whole words only: "available" is no stretch of "unavailable"
        ("available on weekends.", "The service desk is unavailable on weekends.", False),
        ("the rapist", "Call the therapist today.", False),
        # one word names a topic (健身房 is one word, though cut as 健身 and 健身房)
        ("健身房。", "健身房在二樓。", False),
        # a "no" or "not" left behind
        ("refunds are given.", "No refunds are given and exchanges are not possible.", False),
        ("被草原和沙地覆蓋", "斜坡沒有被草原和沙地覆蓋。", False),
        # a condition, a contrast, a past state, a denial or whom it holds for, left behind
        ("you may park for free.", "If you hold a badge, you may park for free.", False),
        ("by cash at the counter.", "Pay by transfer rather than by cash at the counter.", False),
        ("open on Sundays", "The library used to open on Sundays.", False),
        ("the branch will close.", "Reports that the branch will close were denied.", False),
        ("park for free.", "Residents who hold a badge may park for free.", False),
        ("可以免費停車", "如果持有證件，可以免費停車。", False),
        ("可以免費停車", "只有持證者可以免費停車。", False),
        ("the fee is 50 dollars", "The fee is 30 dollars.", False),  # not a stretch at all
    ],
)
def test_a_stretch_of_the_sentence_word_for_word_with_nothing_left_behind(
    claim: str, sentence: str, verbatim: bool
) -> None:
    assert verbatim_part(claim, sentence) is verbatim
