"""One sentence of a passage in another language than the question, scored as support.

A sentence answers when it means what is asked (its cosine with the question,
read under its document's title and heading: graph.cross_language.similarities),
holds the question's words once the dictionary carries them across
(textkit.bilingual.coverage, over the sentence and the one before it: an answer
often names its subject in the sentence before), and holds the kind of answer
asked (textkit.answer_type: an amount for "how many" / 多少, a date for "when" /
哪一年, a name for "who" / 谁). The three in one score, per sentence: the passage
test (graph.cross_language) takes its best sentence's, and the extractive answer
(graph.nodes.response_synth) quotes by it, so the sentence quoted is the one the
passage was accepted for.

`TYPE_PENALTY` 0.1: a sentence of the asked kind beats one without that is up
to 0.1 closer in meaning (about the cosine gap between an answer and its
paragraph's neighbour with this embedder). Set on the dev half of XQuAD's
en>zh-hans and zh-hans>en questions (even articles), checked on the Traditional
directions; figures in docs/benchmarks.md.
"""

from __future__ import annotations

from textkit.answer_type import answer_kinds, asked_type, carries, holds
from textkit.bilingual import coverage

COVERAGE_WEIGHT = 0.5
TYPE_PENALTY = 0.1


def sentence_scores(
    question: str,
    sentences: list[str],
    meaning: dict[str, float],
    words: bool = True,
    about: str = "",
) -> dict[str, float]:
    """Each of a passage's `sentences` (in order) that has a cosine in `meaning`: that
    cosine, plus `COVERAGE_WEIGHT` times the share of the question's words it, the
    sentence before and what the passage is `about` (its title and heading) hold
    (`words`: the dictionary is installed), minus `TYPE_PENALTY` when it lacks the kind
    of answer the question asks for. CPU work: call it off the event loop.

    The title and heading count as the sentence's words because an answer under a
    heading seldom repeats its subject ("Fees: The fee is 1,300 dollars." under
    "Passport renewal"): without them a sentence restating the subject and answering
    nothing outscored it."""
    kind = asked_type(question)
    # "when is it open" / 什么时候开门 asks a date or an hour: a sentence stating the
    # hours carries the answer though it names no day of a month
    hours = kind == "date" and "time" in answer_kinds(question)
    out: dict[str, float] = {}
    for i, sentence in enumerate(sentences):
        if sentence not in meaning:
            continue
        answers = carries(sentence, kind) or (hours and holds(sentence, "time"))
        score = meaning[sentence] - (0.0 if answers else TYPE_PENALTY)
        if words:
            window = " ".join([about, *sentences[max(0, i - 1) : i + 1]])
            score += COVERAGE_WEIGHT * coverage(question, window)
        out[sentence] = max(out.get(sentence, score), score)
    return out
