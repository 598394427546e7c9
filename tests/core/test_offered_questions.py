"""A refusal's list of offered FAQ questions taken out of its text for buttons."""

from __future__ import annotations

from bot.core.offered_questions import Offered, apart

REFUSAL = "Sorry, our documents don't answer this, so I won't guess."
INTRO = "Related questions our documents answer. Ask one of them to get its answer:"
QUESTIONS = ["How do I get rid of a sofa?", "Can I put batteries in the bin?"]
LISTED = "\n".join([INTRO, *(f"- {q}" for q in QUESTIONS)])


def test_the_list_and_its_intro_leave_the_text() -> None:
    handoff = "A colleague can take over: press Ask a person."
    text = f"{REFUSAL}\n\n{LISTED}\n\n{handoff}"
    assert apart(text, QUESTIONS) == Offered(f"{REFUSAL}\n\n{handoff}", tuple(QUESTIONS))


def test_a_text_without_that_list_stays_and_offers_nothing() -> None:
    assert apart(REFUSAL, QUESTIONS) == Offered(REFUSAL, ())
    other = "\n".join([INTRO, f"- {QUESTIONS[0]}"])  # not the questions the turn offered
    assert apart(f"{REFUSAL}\n\n{other}", QUESTIONS).questions == ()
    assert apart(f"{REFUSAL}\n\n{LISTED}", []) == Offered(f"{REFUSAL}\n\n{LISTED}", ())


def test_a_question_with_doubled_spaces_is_still_its_line() -> None:
    spaced = ["How do I  get rid of a sofa?", QUESTIONS[1]]
    assert apart(f"{REFUSAL}\n\n{LISTED}", spaced).text == REFUSAL
