"""Whether a passage is about the thing a question asks of: a kind of answer found about
another thing is no answer.

"How much does a fishing licence cost?" asks a price (textkit.answer_type) of a
subject, its words that do not name the kind: "fishing licence". A parking
permit's fee holds a price, and the extractive answer picks sentences holding
the kind asked first: without this test a collection with no fishing licence
document answered with the permit's fee. So, when a question asks a finer kind
(a price, a duration, a time, a count), each passage must be about its subject:

- a passage in the question's language by its words: its document's passages
  found, their headings and its title together hold more than half of the
  subject's words ("dog licence" holds one of "fishing licence"'s two);
- a passage in another language by meaning (the local multilingual embedder):
  read under its topic (title and heading), its sentence holding the kind asked
  (failing one, its first) is closer to the subject alone ("fishing licence")
  than to the question without it ("How much does a cost?"). The test is
  relative, so it holds on any embedder's scale: the passage must be nearer
  the thing asked than the way of asking.

Questions asking no finer kind, or naming no subject ("And how long does it
take?"), are not tested; a two-part question is tested part by part (a passage
about either part's subject stays).
"""

from __future__ import annotations

import re
from typing import Any

from graph.answer_sentences import content_words, covered
from graph.cross_language import cosines, crosses, passage_sentences, topic
from graph.question_parts import split_question as split_into_parts
from textkit.answer_type import answer_kinds, holds, without_kind_words
from textkit.question_words import QUESTION_WORDS, REQUEST_WORDS
from textkit.scripts import plain
from textkit.tokens import keyword_tokens

# the kinds a passage about another thing may hold and be picked for
FINER = ("price", "duration", "time", "count")
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")
# the verb of a duration asked ("how long does it take", "how long will it last")
# "what's", "how long's", "isn't", "they're": the contraction's tail is no word of a thing
_CONTRACTION = re.compile(r"(?<=[a-z])['’](?:s|re|ll|ve|d|m|t)\b|n['’]t\b")
_ASKS_TAKE = re.compile(r"\b(?:take|takes|taking|last|lasts)\b|需要|要")


def subject_words(question: str) -> set[str]:
    """The question's content words less those naming the kind asked ("cost", 多少钱):
    the words of the thing it asks about."""
    asked = _CONTRACTION.sub(" ", without_kind_words(plain(question)))
    asked = _ASKS_TAKE.sub(" ", asked)
    # "help me with", "docs about": how one asks, not what about
    asked = REQUEST_WORDS.sub(" ", asked)
    # "does" is cut to "doe", which no stopword list holds
    words = content_words(QUESTION_WORDS.sub(" ", asked))
    # a lone Latin letter names nothing ("what's" leaves "s" where no contraction is known)
    return {w for w in words if w != "doe" and not (len(w) == 1 and w.isascii())}


def split_question(question: str) -> tuple[str, str]:
    """(the subject alone, the question without it): "fishing licence" and "how much
    does a cost"."""
    words = subject_words(question)
    text = plain(question)
    rest = text
    for token in sorted(words, key=len, reverse=True):
        # an English word whole ("s" must not cut "does"); a Chinese run as it stands
        pattern = rf"\b{re.escape(token)}\w*" if token.isascii() else re.escape(token)
        rest = re.sub(pattern, " ", rest)
    named = REQUEST_WORDS.sub(" ", QUESTION_WORDS.sub(" ", without_kind_words(text)))
    # an English word is kept when it is a subject word; Chinese runs as they are left
    subject = [
        piece
        for piece in _WORD.findall(named)
        if not piece.isascii() or set(keyword_tokens(piece)) & words
    ]
    return " ".join(subject), " ".join(rest.split())


def asks_of_subject(question: str) -> bool:
    """True when the question asks a finer kind of answer about a thing it names."""
    return any(k in FINER for k in answer_kinds(question)) and bool(subject_words(question))


def _same_language(question: str, evidence: list[dict[str, Any]]) -> dict[str, bool]:
    """Each document (of passages in the question's language) whether it holds more than
    half of the subject's words, its passages found, headings and title together."""
    words = subject_words(question)
    text: dict[str, str] = {}
    for item in evidence:
        if crosses(item):
            continue
        key = str(item.get("document") or "")
        parts = (text.get(key, ""), topic(item), str(item.get("text") or ""))
        text[key] = " ".join(parts)
    return {key: 2 * covered(words, body) > len(words) for key, body in text.items()}


def _reading(item: dict[str, Any], kinds: list[str]) -> str:
    """The passage as compared with the subject: its topic and its first sentence holding
    a kind asked (failing one, its first sentence)."""
    sentences = passage_sentences(item) or [str(item.get("text") or "")]
    held = [s for s in sentences if any(holds(s, k) for k in kinds)]
    about = topic(item)
    sentence = (held or sentences)[0]
    return f"{about}. {sentence}" if about else sentence


async def on_subject(question: str, evidence: list[dict[str, Any]], embedder: Any) -> list[bool]:
    """For each passage of `evidence`, whether it is about the question's subject (see
    the module docstring); all True when the question asks no finer kind of a named
    thing. A passage in another language is kept when there is no embedder to judge it."""
    if not evidence:
        return []
    parts = split_into_parts(question)
    if parts:
        # a two-part question asks of two things: a passage about either may answer
        judged = [await on_subject(part.text, evidence, embedder) for part in parts]
        return [any(column) for column in zip(*judged, strict=True)]
    if not asks_of_subject(question):
        return [True] * len(evidence)
    documents = _same_language(question, evidence)
    out = [documents.get(str(item.get("document") or ""), True) for item in evidence]
    across = [i for i, item in enumerate(evidence) if crosses(item)]
    if not across or embedder is None:
        return out
    subject, rest = split_question(question)
    kinds = [k for k in answer_kinds(question) if k in FINER]
    readings = [_reading(evidence[i], kinds) for i in across]
    # one batched call per side: each reading against the subject, then against the rest
    to_subject = await cosines(embedder, subject, readings)
    to_rest = await cosines(embedder, rest, readings)
    for i, near, far in zip(across, to_subject, to_rest, strict=True):
        out[i] = near >= far
    return out
