"""A refusal's offered FAQ questions as buttons: the answer's text without their list.

A refusal lists the FAQ questions near the one asked (graph.related_questions)
as a paragraph (graph.related_list): an intro line, then one `- question` line each. Where a
platform shows them with buttons that ask them, the adapter writes that
paragraph its own way (its own intro, the questions beside or above their
buttons): `apart` takes it out of the text. A question a button asked is
restated over its answer (`restated`): no one wrote it in the chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.events import FinalAnswer
from graph.related_list import split_offer


@dataclass(frozen=True)
class Offered:
    """The answer's text without the offered questions' paragraph, and those questions
    (none: the text is the whole answer, as written)."""

    text: str
    questions: tuple[str, ...]


def apart(text: str, questions: Sequence[str]) -> Offered:
    """`text` without its paragraph listing `questions` (intro line and items).

    When the text holds no such list (an answer the turn did not write that way),
    it stays as it is and no question is offered: nothing is shown twice or lost.
    """
    rest, listed = split_offer(text)
    wanted = [" ".join(q.split()) for q in questions]
    if not wanted or [" ".join(q.split()) for q in listed] != wanted:
        return Offered(text, ())
    return Offered(rest, tuple(questions))


def offered(answer: FinalAnswer) -> Offered:
    """The answer's text and the FAQ questions its turn offered (none but a refusal's)."""
    result = answer.result
    return apart(answer.text, result.related_questions if result is not None else ())


ASKED_CHARS = 300  # of a question a button asked, restated over its answer


def restated(question: str) -> str:
    """A question a button asked as its answer restates it: one line, at most
    `ASKED_CHARS` characters (an FAQ entry's question may be long)."""
    line = " ".join(question.split())
    return line if len(line) <= ASKED_CHARS else line[: ASKED_CHARS - 1].rstrip() + "…"
