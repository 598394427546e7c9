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
- its sentence is about what the question asks about: with the sentence
  before it when it names its subject there ("It opened in 2004"; a Chinese
  sentence often names none) and its passage's section and document title,
  it holds at least half of the question's subject words (graph.subject:
  its content words less those of the kind and of asking) that the passage
  holds ("approximately 16,000 objects from China" is not the answer to "how
  many works are in the Far Eastern collections", though the passage holds
  both); on a passage in another language, which shares no word with the
  question, the claim written in the question's language must hold half of
  the question's subject words ("Newcastle ..." is no answer to "What is
  Engineering News-Record?") — `off_subject`. A claim left in its passage's
  language cannot be judged by words: its sentence must be, of its passage's
  sentences offered to the model and holding the kind asked, the one closest
  in meaning to the question (the local embedder's cosine; "approximately
  16,000 objects from China" is further from "how many works from the Far
  East" than "more than 70,000 works of art") — `not_closest`.

Both hold for any collection and any phrasing: they read the question's own
words and the kinds of answer textkit knows in English and Chinese.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from graph.answer_sentences import covered
from graph.cross_marks import crosses
from graph.entry_question import confirmed_entry
from graph.quotes import passage_sentences
from graph.subject import held_words, subject_words
from textkit.answer_type import FREELY_CLAIMED, answer_kinds, holds
from textkit.facts import is_latin

# an English sentence whose subject is in the sentence before it
_PRONOUN = re.compile(
    r"\W*(?:it|its|they|their|them|this|these|that|those|he|his|she|her|there|such)\b", re.I
)


def kind_missing(question: str, claim: str, sentence: str) -> bool:
    """True when the question asks a kind of answer (a price, a date, ...) that the
    sentence and the claim do not both hold."""
    # what to bring is stated in words of its own ("You need your ID card")
    kinds = [k for k in answer_kinds(question) if k not in FREELY_CLAIMED]
    return bool(kinds) and not any(holds(sentence, k) and holds(claim, k) for k in kinds)


def about_question(question: str, claim: str, sentence: str, item: dict[str, Any]) -> bool:
    """True when `sentence` of passage `item`, on which `claim` rests, is about what
    `question` asks about: with the sentence before it when it names its subject there,
    and its passage's section and title, it holds at least half of the question's subject
    words (graph.subject) that the passage holds. On a passage in another language the claim, when
    written in the question's language, must hold half of them itself."""
    # the words of the thing asked: the kind's words ("cost", 多少钱) are judged by
    # `kind_missing`, and the words of asking ("help me with") name nothing
    wanted = subject_words(question)
    if not wanted:
        return True
    if crosses(item):
        if is_latin(claim) != is_latin(question):
            return True  # left in its passage's language: words cannot tell
        # in another form of the word too: "reduced" states what "reducing" asks
        return 2 * len(held_words(wanted, claim)) >= len(wanted)
    titles = [str(item.get(k) or "") for k in ("heading", "document", "question")]
    text = str(item.get("text", ""))
    held = {w for w in wanted if covered({w}, " ".join([text, *titles]))}
    if not held:
        return True  # the passage was found by meaning, not by the question's words
    parts = passage_sentences(text)
    around = [sentence, *titles]
    # the sentence before, when this one names its subject there: "It opened in 2004."
    # (an English one opening with a pronoun; a Chinese one often has no subject word)
    at = next((i for i, part in enumerate(parts) if part and sentence.startswith(part)), 0)
    if at > 0 and (not is_latin(sentence) or _PRONOUN.match(sentence)):
        around.append(parts[at - 1])
    return 2 * covered(held, " ".join(around)) >= len(held)


def off_question(question: str, claim: str, sentence: str, item: dict[str, Any]) -> str | None:
    """Why a claim true to `sentence` (of passage `item`) still does not answer
    `question`: "answer_kind" or "off_subject"; None when it answers."""
    if not question.strip():
        return None
    if kind_missing(question, claim, sentence):
        return "answer_kind"
    # an FAQ entry a model confirmed asks what was asked is about its thing, whatever
    # words its question uses for it ("an old sofa" for "bulky items"; graph.entry_check)
    if not confirmed_entry(item) and not about_question(question, claim, sentence, item):
        return "off_subject"
    return None


def closest(
    question: str,
    sentence: str,
    others: Sequence[str],
    similarity: Callable[[str, str], float],
) -> bool:
    """True when `sentence` is at least as close in meaning to `question` as each of the
    `others` that hold the kind of answer asked (all of them when it asks none)."""
    kinds = [k for k in answer_kinds(question) if k not in FREELY_CLAIMED]
    rivals = [o for o in others if not kinds or any(holds(o, k) for k in kinds)]
    own = similarity(question, sentence)
    return all(own >= similarity(question, o) for o in rivals if o != sentence)
