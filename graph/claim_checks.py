"""Whether a passage supports a claim in what it says, not only in its words.

The checks behind graph.citations (see its docstring for the rules): a
claim's words, numbers, the place in the passage it rests on, the entity it
names and its yes/no polarity. Passages are cut once (`Passage.of`) and
checked against every sentence of an answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from graph.claim_copies import Words as CopyWords
from graph.claim_copies import copies_clauses, copy_words
from textkit.bounds import turned_round
from textkit.claims import numbers
from textkit.overlap import presence, stem
from textkit.polarity import clauses, is_polarity_word, mixes_polarity, negated
from textkit.scripts import plain
from textkit.sentences import split_sentences
from textkit.tokens import keyword_tokens, stopwords

MIN_SENTENCE_SUPPORT = 0.5
CACHED_PASSAGES = 256  # about 80 KB each, with their tokens
# words a text remembers having (or not): each clause of each kept passage has its own,
# so a few KB each at most
FOUND_WORDS = 32
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


@dataclass(frozen=True)
class Words:
    """A text cut once: normalised, its keyword tokens and their stems."""

    text: str
    tokens: frozenset[str]
    stems: frozenset[str]
    # what `has` found: a sentence is checked clause by clause, and again as its clauses
    # show ahead, against passages kept for later turns, asking the same words each time
    _found: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, text: str) -> Words:
        tokens = frozenset(keyword_tokens(text))
        return cls(plain(text), tokens, frozenset(stem(t) for t in tokens))

    def has(self, word: str) -> bool:
        """True when the text holds `word` (a Chinese word at least half)."""
        found = self._found.get(word)
        if found is None:
            if len(self._found) >= FOUND_WORDS:
                self._found.clear()
            found = self._found[word] = presence(word, self.text, self.tokens, self.stems) >= 0.5
        return found


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
        """The passage's normalised text, keyword tokens and their stems, and its clauses.

        Kept for the turns after (`CACHED_PASSAGES`, the least recent dropped): the same
        passages come back turn after turn, and cutting five of them is about 12 ms of CPU.
        """
        return _cut(text, title)

    @classmethod
    def cut(cls, text: str, title: str = "") -> Passage:
        """`of`, computed anew."""
        whole = Words.of(text)
        parts = [c for sentence in split_sentences(text) for c in clauses(sentence)] or [text]
        cut = tuple(Clause(c, Words.of(c), negated(c)) for c in parts)
        return cls(whole.text, whole.tokens, whole.stems, cut, Words.of(title) if title else None)

    @cached_property
    def words(self) -> Words:
        """The whole passage as Words (one object: what `has` found stays with it)."""
        return Words(self.text, self.tokens, self.stems)

    @cached_property
    def copy_parts(self) -> tuple[CopyWords, ...]:
        """Each clause's words as a copy of it is compared (graph.claim_copies): cut once,
        as every claim of an answer is checked against the passage."""
        return tuple(copy_words(c.raw) for c in self.clauses)

    def about(self, word: str) -> bool:
        """True when the passage's document name holds `word` (a passage need not repeat it)."""
        return self.title is not None and self.title.has(word)


@lru_cache(maxsize=CACHED_PASSAGES)
def _cut(text: str, title: str) -> Passage:
    return Passage.cut(text, title)


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
    # a copy of clauses in a row says what they say (graph.claim_copies)
    if copies_clauses(copy_words(claim), passage.copy_parts):
        return None
    if sentence_support(claim, passage) < MIN_SENTENCE_SUPPORT:
        return "unsupported"
    whole = _clause_reason(claim, passage, question)
    if whole is None and _mixes_polarity(claim, passage):
        return "polarity"
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


def _mixes_polarity(claim: str, passage: Passage) -> bool:
    """True when the claim sets yes against no ("Refunds are not given; exchanges are
    possible") where the passage clause it rests on joins negations and says nothing but
    no ("… not given and … not possible"): textkit.polarity.mixes_polarity."""
    place = _place(passage.clauses, _words(claim), [])
    return any(mixes_polarity(claim, passage.clauses[i].raw) for i in place)


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
    """Why the passage does not support `claim`, read as one clause (its words, asked
    words and place worked out once)."""
    words = _words(claim)
    asked = [w for w in words if question is not None and question.has(w)]
    place = _place(passage.clauses, words, asked)
    # the clauses it rests on (all of them when it names nothing the passage holds)
    where = [passage.clauses[i] for i in place] or list(passage.clauses)
    wanted = numbers(claim)
    if wanted:
        there = " ".join(c.raw for c in where)
        if not wanted <= numbers(there) or turned_round(claim, there):
            return "number"
    if any(not passage.words.has(w) for w in words if w not in asked):
        return "unsupported"  # "open" where the passage says "closed": a word of its own
    if any(not passage.words.has(w) and not passage.about(w) for w in asked):
        # the question's subject, restated, where the passage speaks of something else
        # ("北堤 opened in 1999" citing the Taipei 101 passage; children for adults)
        return "other_entity"
    if place and any(not any(c.words.has(w) for c in where) for w in words if w not in asked):
        return "other_entity"
    if words and _polarity_differs(claim, words, passage):
        return "polarity"
    return None


def _words(text: str) -> list[str]:
    # numbers and yes/no words are checked on their own, not as words to find
    return [w for w in content_words(text) if not numbers(w) and not is_polarity_word(w)]


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
