"""Whether a model's claim answers the question asked, not only says what its sentence says.

The claim judge (graph.claim_judge) tells whether a claim is true to the
passage sentence it rests on; a claim can be true to its sentence and still
no answer: a sentence on the question's topic that states something else
("The tower was designed by C.Y. Lee" for "When was the tower finished?").
A small model that finds no answer often writes such a claim rather than
saying the sources do not answer, and shown with its citation it reads as the
answer. So a claim is shown only when:

- its sentence and the claim itself hold the kind of answer the question asks
  (textkit.answer_type.answer_kinds / holds: a price, a duration, a time of
  day, an amount, a date; a question asking none, a yes/no or a "what is",
  is not judged by kind) — `answer_kind`;
- its sentence is about what the question asks about: in the question's own
  language it holds one of the question's content words, or the sentence
  before it in the passage when it names its subject there ("It opened in
  2004"; a Chinese sentence often names none), or the passage's section or
  document title does —
  `off_subject`. A sentence in another language shares no word with the
  question; its meaning was judged when retrieval found it, and the kind of
  answer is what is checked.

Both hold for any collection and any phrasing: they read the question's own
words and the kinds of answer textkit knows in English and Chinese.
"""

from __future__ import annotations

import re
from typing import Any

from graph.answer_sentences import content_words, covered
from graph.cross_language import crosses
from graph.quotes import passage_sentences
from textkit.answer_type import answer_kinds, holds
from textkit.facts import is_latin

# an English sentence whose subject is in the sentence before it
_PRONOUN = re.compile(
    r"\W*(?:it|its|they|their|them|this|these|that|those|he|his|she|her|there|such)\b", re.I
)


def kind_missing(question: str, claim: str, sentence: str) -> bool:
    """True when the question asks a kind of answer (a price, a date, ...) that the
    sentence and the claim do not both hold."""
    kinds = answer_kinds(question)
    return bool(kinds) and not any(holds(sentence, k) and holds(claim, k) for k in kinds)


def about_question(question: str, sentence: str, item: dict[str, Any]) -> bool:
    """True when `sentence` of passage `item` is about what `question` asks about: it,
    the sentence before it, or the passage's section or document title holds one of the
    question's content words (always, for a passage in another language)."""
    wanted = content_words(question)
    if not wanted or crosses(item):
        return True
    parts = passage_sentences(str(item.get("text", "")))
    around = [sentence]
    # the sentence before, when this one names its subject there: "It opened in 2004."
    # (an English one opening with a pronoun; a Chinese one often has no subject word)
    at = next((i for i, part in enumerate(parts) if part and sentence.startswith(part)), 0)
    if at > 0 and (not is_latin(sentence) or _PRONOUN.match(sentence)):
        around.append(parts[at - 1])
    around += [str(item.get("heading") or ""), str(item.get("document") or "")]
    return covered(wanted, " ".join(around)) > 0


def off_question(question: str, claim: str, sentence: str, item: dict[str, Any]) -> str | None:
    """Why a claim true to `sentence` (of passage `item`) still does not answer
    `question`: "answer_kind" or "off_subject"; None when it answers."""
    if not question.strip():
        return None
    if kind_missing(question, claim, sentence):
        return "answer_kind"
    if not about_question(question, sentence, item):
        return "off_subject"
    return None
