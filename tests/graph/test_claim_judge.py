"""graph.claim_judge alone: which passage a claim's quote rests on (no embedder: words)."""

from __future__ import annotations

import pytest

from graph.claim_judge import ClaimJudge
from storage.embeddings import Embedder

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


ARCHIVE = (
    'You will still have the "Move to Inbox" option for those results, which will un-archive'
    " any archived emails in the conversation."
)


@pytest.mark.parametrize(
    ("claim", "held"),
    [
        # a real 1.5B model's answer to "where does archived mail go": not what it quotes
        ("Mail is moved to the Inbox.", False),
        ("You can still move those results to the Inbox, which un-archives the emails.", True),
        ("您仍然可以把這些結果移回收件匣，這會取消封存對話中已封存的郵件。", True),
    ],
)
def test_a_claim_in_the_quotes_own_language_must_say_what_it_says(
    embedder: Embedder, claim: str, held: bool
) -> None:
    judge = ClaimJudge([ARCHIVE], embedder.model)
    verdict = judge.judge(claim, 1, ARCHIVE)
    assert (verdict.source == 1) is held, verdict
    assert held or verdict.reason == "meaning"


@pytest.mark.parametrize(
    ("claim", "asks"),
    [
        ("How many days of annual leave do I get [1]?", True),  # a real 1.5B model's copy
        ("「可以補辦嗎？」[1]", True),
        ("Full-time employees get 25 days of annual leave [1].", False),
        ("Asked “Can I renew online?”, the page says yes [1].", False),
        ('The form asks "Are you a resident of the city?" [1]', False),  # a question quoted
        ("申請表第一題問「你是否香港居民？」[1]。", False),
        ("Full-time employees get 25 days of annual leave [1]. Any other questions?", False),
    ],
)
def test_a_claim_that_asks_a_question_answers_nothing(claim: str, asks: bool) -> None:
    faq = (
        "Q: How many days of annual leave do I get? A: Full-time employees get 25 days of"
        " annual leave. 可以補辦嗎？可以。 Asked “Can I renew online?”, the page says yes."
        ' The form asks "Are you a resident of the city?" 申請表第一題問「你是否香港居民？」'
    )
    verdict = ClaimJudge([faq]).judge(claim, 1, None)
    assert (verdict.reason == "question") is asks
