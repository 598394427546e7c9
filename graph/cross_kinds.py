"""Which sentences of passages in another language than the question an extractive answer
may quote, the kind of answer asked honoured as for the question's own language.

A sentence of another language's passage shares no word with the question: it bears on
it when its score (graph.cross_sentences: meaning, the question's words by the
dictionary, answer type) is close to the best one's (graph.cross_language.quotable).
That margin alone lost the answer whenever a sentence restating the topic scored
higher than the one holding what is asked ("每戶最多申請兩張" over the fee for "How
much does a parking permit cost?"). So, as graph.answer_order does for the
question's own language, when the question asks a kind of answer (a price, a
duration, a count...: textkit.answer_type) and no sentence within the margin holds
it, the sentences of the best sentence's document that hold it and still bear on
the question (`MIN_SENTENCE`) may be quoted too; graph.answer_order then puts one
first and leaves out those holding none, save the answering passage's conditions.
A duration asked of a thing's validity wants a sentence stating it ("有效期一年":
textkit.validity). Another document's figure is never brought in: it answers about
something else. What to bring is listed over several sentences (請攜帶身分證… and
若…需另附戶口名簿影本): each of the document's sentences naming one is quoted, whether
or not the margin holds one.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.cross_language import MIN_SENTENCE, quotable
from textkit.answer_type import LISTED_KINDS, answer_kinds, holds
from textkit.time_stated import time_ranker
from textkit.validity import asks_validity, states_validity


def bearing(question: str, sentences: Sequence[tuple[str, float, str]]) -> set[str]:
    """The `sentences` (sentence, score, its document) of passages in another language
    than `question` that an answer may quote: those within the margin of the best
    (graph.cross_language.quotable) and, when none of them holds the finest kind of
    answer asked that the best one's document holds (or it is a listed kind: what to
    bring), that document's sentences holding it that reach `MIN_SENTENCE`."""
    if not sentences:
        return set()
    best = max(score for _, score, _ in sentences)
    out = {s for s, score, _ in sentences if quotable(score, best)}
    document = max(sentences, key=lambda x: x[1])[2]
    for kind in answer_kinds(question):
        kept = any(_answers(question, s, kind) for s in out)
        if kind == "time" and kept:
            # the margin's sentence naming days alone ("closed on Sundays") is no answer
            # to the hours asked when the document states them (textkit.time_stated)
            return out | _better_times(question, sentences, document, out)
        if kept and kind not in LISTED_KINDS:
            break  # the margin already keeps an answer of the kind: nothing to add
        holding = {
            s
            for s, score, doc in sentences
            if doc == document and score >= MIN_SENTENCE and _answers(question, s, kind)
        }
        if holding:
            return out | holding
        if kept:
            break
    return out


def _answers(question: str, sentence: str, kind: str) -> bool:
    """Whether `sentence` holds the answer of `kind` asked: a duration stating a validity
    when the question asks how long a thing stays valid (textkit.validity: the issuing
    time is none)."""
    if not holds(sentence, kind):
        return False
    return kind != "duration" or states_validity(sentence) or not asks_validity(question)


def _better_times(
    question: str, sentences: Sequence[tuple[str, float, str]], document: str, out: set[str]
) -> set[str]:
    """`document`'s sentences bearing on the question (`MIN_SENTENCE`) that state the time
    asked better than any in `out` does (`time_ranker`)."""
    rank = time_ranker(question)
    kept = min(rank(s) for s in out if holds(s, "time"))
    return {
        s
        for s, score, doc in sentences
        if doc == document and score >= MIN_SENTENCE and holds(s, "time") and rank(s) < kept
    }
