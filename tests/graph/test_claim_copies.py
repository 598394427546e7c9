"""A claim copying several clauses of its passage in a row says what the passage says:
shown, though a model joined two lines into one; a copy changed, cut mid-clause or
put together from clauses apart is still checked word by word."""

from __future__ import annotations

from graph.claim_checks import Passage, Words, disagreement
from graph.claim_judge import ClaimJudge
from tests.graph.test_graph_llm import plan_reply
from tests.support.fake_openai import FakeOpenAI
from tests.support.model_answers import OverDocument, resting_on

SYNCING = (
    "# Which Dropbox files are syncing\n\n"
    "Check whether they are on your machine. If you're under Linux, type this in the "
    "command line: find ~/Dropbox -type f -exec dropbox filestatus {} \\; | grep 'syncing'\n"
    "In Windows, the way to see what's still to sync is to look in Explorer. There, the "
    "files still to sync have a blue sync icon.\n"
)
COPY = (
    "If you're under Linux, type this in the command line: find ~/Dropbox -type f -exec "
    "dropbox filestatus {} \\ | grep 'syncing' In Windows, the way to see what's still to "
    "sync is to look in Explorer."
)
QUESTION = "Can Dropbox report which files are syncing?"


def test_a_copy_of_clauses_in_a_row_stands_with_its_line_break_dropped() -> None:
    assert disagreement(COPY, Passage.of(SYNCING), Words.of(QUESTION)) is None


def test_a_copy_changed_or_put_together_is_checked_word_by_word() -> None:
    passage = Passage.of("The north pier was finished in 2001. The tower opened in 1999.")
    asked = Words.of("When did the north pier open?")
    # the passage's two sentences, joined, but with a figure changed
    changed = "The north pier was finished in 2002. The tower opened in 1999."
    assert disagreement(changed, passage, asked) == "number"
    # a figure's separators are compared: a copy is no copy with 1,300 for 13.00
    fee = Passage.of("The replacement fee is 13.00 dollars, payable by card.")
    copied = "The replacement fee is 1,300 dollars, payable by card."
    assert disagreement(copied, fee, None) == "number"
    late = Passage.of("The late fine is $1.50 per day, up to $15 per item.")
    assert disagreement("The late fine is $150 per day, up to $15 per item.", late, None)
    # a copy starting inside a clause is no copy of whole clauses: its "not" stays out
    said = Passage.of("Residents may park here, visitors may not park here after 6 pm.")
    assert disagreement("visitors may park here after 6 pm", said, None) == "polarity"


async def test_a_models_copy_of_two_lines_as_one_is_shown(
    over_document: OverDocument, fake: FakeOpenAI
) -> None:
    service = await over_document("sync.md", SYNCING)
    plan = plan_reply(query="dropbox files syncing")
    fake.script = [plan, resting_on("If you're under Linux", COPY)]
    result = await service.ask(QUESTION)
    assert result.outcome == "answered", result.decision_path
    assert "response_synth:llm" in result.decision_path
    assert result.answer.startswith("If you're under Linux") and "[1]" in result.answer
    # shown as the passage writes it: the ";" the model's copy dropped is there
    assert "filestatus {} \\; | grep 'syncing' In Windows" in result.answer


def test_a_copy_within_the_cited_sentence_alone_is_judged_as_any_claim() -> None:
    sentences = "The late fine is $1.50 per day, up to $15 per item. Fines are paid at the desk."
    judge = ClaimJudge([sentences], question="What is the late fine?")
    # a changed figure inside the cited sentence: no copy reaching into the next one
    verdict = judge.judge("The late fine is $150 per day, up to $15.", 1, None, ids=[(1, 1)])
    assert verdict.source is None
    both = "The late fine is $1.50 per day, up to $15 per item. Fines are paid at the desk."
    assert judge.judge(both, 1, None, ids=[(1, 1)]).source == 1
