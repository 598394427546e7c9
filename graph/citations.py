"""Citation checks for model answers: a cited passage must say what the sentence says.

`CitationGate` sits between the model's stream and the user: it releases a
sentence only once it is complete and checked. A sentence citing [n] is shown
only when passage n supports it in what it claims, not only in its words:

- most of its content words are in the passage (`MIN_SENTENCE_SUPPORT`);
- it rests on one place in the passage: the clause holding most of its words
  (of equals, the one holding most of the question's), with the neighbouring
  clauses that only continue it (a neighbour repeating the question's words is
  a parallel statement about something else). Every number of the claim, and
  every word it adds to the question that the passage holds, must be in that
  place: naming the passage's other entity, or its other figure, is not
  support;
- every content word of the claim is in the passage or the question ("open"
  where the passage says "closed" is a word of the model's own), and the
  question's words it restates are in the passage or its document's name (a
  fact of the Taipei 101 passage told of the 北堤 is about something else);
- its yes/no polarity agrees with the passage's: an affirmative claim may not
  rest on a word the passage only negates ("no evidence that ..." is not
  "yes, ..."), a negative claim must rest on what the passage negates.

A cited sentence that fails is never shown, and the answer stops there with
the reason (the caller discards it and falls back: a model that misread one
passage is not trusted on the others). A sentence without [n] is attributed to
the passage that supports it (by the same checks), or held back when none does
(a model's own knowledge is not an answer from the documents). Citations are
numbered per document: a sentence citing the second chunk of a document
already numbered shows that document's first number, so the source list names
it once. An abbreviation's full stop ("U.S.", "e.g.", "Dr.") ends no sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textkit.claims import clauses, is_polarity_word, negated, numbers
from textkit.overlap import presence, stem
from textkit.scripts import plain
from textkit.sentences import ends_with_abbreviation, split_sentences
from textkit.tokens import keyword_tokens, stopwords

MIN_SENTENCE_SUPPORT = 0.5
CITATION = re.compile(r"\[(\d{1,2})\]")
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_REPEATED = re.compile(r"\[(\d{1,2})\](?:\s*\[\1\])+")
# A sentence ends at a CJK stop, or at . ! ? before a space, or at a line break;
# citation marks after the stop stay with their sentence.
_BOUNDARY = re.compile(r"(?:[。！？]|[.!?](?=\s)|\n)(?:\s*\[\d{1,2}\])*[ \t]*\n*(?=[^\s\[])")


@dataclass(frozen=True)
class Words:
    """A text cut once: normalised, its keyword tokens and their stems."""

    text: str
    tokens: frozenset[str]
    stems: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Words:
        tokens = frozenset(keyword_tokens(text))
        return cls(plain(text), tokens, frozenset(stem(t) for t in tokens))

    def has(self, word: str) -> bool:
        """True when the text holds `word` (a Chinese word at least half)."""
        return presence(word, self.text, self.tokens, self.stems) >= 0.5


@dataclass(frozen=True)
class Clause:
    """One clause of a passage: its text, its words, and whether it says no."""

    raw: str
    words: Words
    negative: bool


@dataclass(frozen=True)
class Passage:
    """A passage cut once for every sentence checked against it: whole and by clause."""

    text: str
    tokens: frozenset[str]
    stems: frozenset[str]
    clauses: tuple[Clause, ...] = ()
    title: Words | None = None  # its document's name: what the passage is about

    @classmethod
    def of(cls, text: str, title: str = "") -> Passage:
        """The passage's normalised text, keyword tokens and their stems, and its clauses."""
        whole = Words.of(text)
        parts = [c for sentence in split_sentences(text) for c in clauses(sentence)] or [text]
        cut = tuple(Clause(c, Words.of(c), negated(c)) for c in parts)
        return cls(whole.text, whole.tokens, whole.stems, cut, Words.of(title) if title else None)

    @property
    def words(self) -> Words:
        return Words(self.text, self.tokens, self.stems)

    def about(self, word: str) -> bool:
        """True when the passage's document name holds `word` (a passage need not repeat it)."""
        return self.title is not None and self.title.has(word)


def content_words(text: str) -> list[str]:
    """The text's keyword tokens without stopwords (nor a possessive's lone "s"), each once."""
    skip = stopwords()
    return [
        t
        for t in dict.fromkeys(keyword_tokens(text))
        if t not in skip and not (len(t) == 1 and t.isascii())
    ]


def sentence_support(sentence: str, passage: Passage) -> float:
    """The share of the sentence's content words found in the passage."""
    words = content_words(sentence)
    if not words:
        return 1.0
    found = (presence(w, passage.text, passage.tokens, passage.stems) for w in words)
    return sum(found) / len(words)


def disagreement(claim: str, passage: Passage, question: Words | None = None) -> str | None:
    """Why passage n does not support `claim` (None: it does): "unsupported" (too few of
    its words, or a word in neither the passage nor the question), "number",
    "other_entity" or "polarity" (see the module's rules). A claim of several clauses
    ("opens at 9, and closes at 5") is checked clause by clause, each in its own place."""
    claim = _LINK.sub(" ", claim)  # links are checked on their own (graph.answer_safety)
    if sentence_support(claim, passage) < MIN_SENTENCE_SUPPORT:
        return "unsupported"
    whole = _whole_disagreement(claim, passage, question)
    parts = clauses(claim)
    if whole in (None, "unsupported") or len(parts) < 2:
        return whole
    # a claim copying two clauses of the passage ("opens at 9, and closes at 5") rests on
    # two places: it stands when each of its clauses does, and each restates its place
    # nearly whole (a fragment such as "the Amazon River, which flows through Egypt" would
    # otherwise pair the passage's clauses at will)
    for part in parts:
        if _clause_reason(part, passage, question) is not None or not _restates(part, passage):
            return whole
    return None


def _whole_disagreement(claim: str, passage: Passage, question: Words | None) -> str | None:
    """`disagreement` for the claim read as one clause (see the module's rules)."""
    return _clause_reason(claim, passage, question)


def _restates(part: str, passage: Passage) -> bool:
    """True when a clause of a claim holds most (2/3) of the words of the passage clause
    it rests on."""
    words = _words(part)
    place = _place(passage.clauses, words, [])
    if not place:
        return False
    own = _words(passage.clauses[place[0]].raw)
    return not own or sum(w in words for w in own) >= 2 * len(own) / 3


def _clause_reason(claim: str, passage: Passage, question: Words | None) -> str | None:
    """Why the passage does not support `claim`, read as one clause."""
    if _misplaced_number(claim, passage, question):
        return "number"
    words = _words(claim)
    asked = [w for w in words if question is not None and question.has(w)]
    if any(not passage.words.has(w) for w in words if w not in asked):
        return "unsupported"  # "open" where the passage says "closed": a word of its own
    if any(not passage.words.has(w) and not passage.about(w) for w in asked):
        # the question's subject, restated, where the passage speaks of something else
        # ("北堤 opened in 1999" citing the Taipei 101 passage; children for adults)
        return "other_entity"
    return _clause_disagreement(claim, passage, question)


def _words(text: str) -> list[str]:
    # numbers and yes/no words are checked on their own, not as words to find
    return [w for w in content_words(text) if not numbers(w) and not is_polarity_word(w)]


def _where(part: str, passage: Passage, question: Words | None) -> tuple[list[Clause], bool]:
    """The clauses one clause of a claim rests on (all of them when it names nothing the
    passage holds), and whether a place was found."""
    words = _words(part)
    asked = [w for w in words if question is not None and question.has(w)]
    place = _place(passage.clauses, words, asked)
    return ([passage.clauses[i] for i in place] or list(passage.clauses)), bool(place)


def _misplaced_number(part: str, passage: Passage, question: Words | None) -> bool:
    """True when a number of the claim's clause is not in the place it rests on."""
    wanted = numbers(part)
    if not wanted:
        return False
    where, _ = _where(part, passage, question)
    return not wanted <= numbers(" ".join(c.raw for c in where))


def _clause_disagreement(part: str, passage: Passage, question: Words | None) -> str | None:
    """One clause of a claim against the place in the passage it rests on."""
    words = _words(part)
    asked = [w for w in words if question is not None and question.has(w)]
    where, placed = _where(part, passage, question)
    if placed and any(not any(c.words.has(w) for c in where) for w in words if w not in asked):
        return "other_entity"
    if words and _polarity_differs(part, words, passage):
        return "polarity"
    return None


def _place(units: tuple[Clause, ...], words: list[str], anchors: list[str]) -> list[int]:
    """The clause holding most of the claim's `words` (of equals, the one holding most of
    its question words, `anchors`; then the earliest), and the neighbours that continue it
    (holding no anchor); empty when no clause holds any word."""
    held = [sum(u.words.has(w) for w in words) for u in units]
    asked = [sum(u.words.has(a) for a in anchors) for u in units]
    best = max(range(len(units)), key=lambda i: (held[i], asked[i], -i), default=-1)
    if best < 0 or held[best] == 0:
        return []
    place = [best]
    for step in (-1, 1):
        i = best + step
        while 0 <= i < len(units) and asked[i] == 0:
            place.append(i)
            i += step
    return place


def _polarity_differs(claim: str, words: list[str], passage: Passage) -> bool:
    """True when the claim says yes where the passage says no, or the reverse. The passage
    says no about the words it holds only in negated clauses: an affirmative claim may rest
    on none of them ("no evidence that you can get it from packages" is not "yes, you can
    get it"), a negative claim must rest on one ("residents can park free; visitors cannot"
    is not "residents cannot park free")."""
    held = [w for w in words if passage.words.has(w)]
    said_no = {w for w in held if any(c.negative and c.words.has(w) for c in passage.clauses)}
    said_yes = {w for w in held if any(not c.negative and c.words.has(w) for c in passage.clauses)}
    return negated(claim) != bool(said_no - said_yes)


def check_sentence(
    sentence: str, passages: list[Passage], question: Words | None = None
) -> tuple[str | None, str | None]:
    """(the sentence to show, with its citation; None: hold it back) and why it was held
    back when it claims something its citation does not support (None otherwise)."""
    cited = [int(n) for n in CITATION.findall(sentence)]
    body = CITATION.sub("", sentence).strip()
    if not body.strip(" -*•.。"):
        return None, None
    if cited:
        valid = [n for n in cited if 1 <= n <= len(passages)]
        reasons = [disagreement(body, passages[n - 1], question) for n in valid]
        if any(r is None for r in reasons):
            return sentence, None
        return None, (reasons[0] if reasons else "unsupported")
    scores = [sentence_support(body, p) for p in passages]
    for best in sorted(range(len(scores)), key=lambda i: -scores[i]):
        if scores[best] < MIN_SENTENCE_SUPPORT:
            break
        if disagreement(body, passages[best], question) is None:
            trail = sentence[len(sentence.rstrip()) :]
            return f"{sentence.rstrip()} [{best + 1}]{trail}", None
    return None, None


class CitationGate:
    """Buffers streamed answer text and releases checked sentences through `emit`."""

    def __init__(
        self, evidence: list[dict[str, Any]], emit: Callable[[str], None], question: str = ""
    ) -> None:
        # cut once here, not once per streamed sentence
        self._passages = [Passage.of(e["text"], str(e.get("document") or "")) for e in evidence]
        self._question = Words.of(question) if question.strip() else None
        self._numbers = document_numbers(evidence)
        self._emit = emit
        self._buffer = ""
        self.shown: list[str] = []
        # why a cited sentence did not hold ("" while all did): the answer stops there, and
        # the caller discards it (a model that misread one passage is not trusted on others)
        self.rejected = ""

    def feed(self, text: str) -> None:
        """Add streamed text; complete sentences are checked and released."""
        if self.rejected:
            return
        self._buffer += text
        end = 0
        for match in _BOUNDARY.finditer(self._buffer):
            stop = match.start() + 1
            if self._buffer[match.start()] == "." and ends_with_abbreviation(
                self._buffer[end:stop]
            ):
                continue  # "the U.S. embassy": the sentence goes on
            self._release(self._buffer[end : match.end()])
            end = match.end()
            if self.rejected:
                return
        self._buffer = self._buffer[end:]

    def finish(self) -> str:
        """Check the last sentence; the answer as shown ("" when nothing was)."""
        if self._buffer and not self.rejected:
            self._release(self._buffer)
        self._buffer = ""
        return "".join(self.shown).strip()

    def _release(self, sentence: str) -> None:
        shown, reason = check_sentence(sentence, self._passages, self._question)
        if reason is not None:
            self.rejected = reason
            return
        if shown is not None:
            shown = renumber(shown, self._numbers)
            self.shown.append(shown)
            self._emit(shown)


def document_numbers(evidence: list[dict[str, Any]]) -> dict[int, int]:
    """Each passage's number → the number of the first passage of its document."""
    first: dict[str, int] = {}
    out: dict[int, int] = {}
    for n, item in enumerate(evidence, 1):
        out[n] = first.setdefault(str(item.get("document")), n)
    return out


def renumber(sentence: str, numbers: dict[int, int]) -> str:
    """The sentence with each [n] as its document's number ("[1][1]" becomes "[1]")."""

    def one(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"[{numbers.get(n, n)}]"

    return _REPEATED.sub(r"[\1]", CITATION.sub(one, sentence))
